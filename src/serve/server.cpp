#include "serve/server.hpp"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>

#include "serve/http_routes.hpp"
#include "serve/repository.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

int serve(const ServeOptions& options) {
  if (!std::filesystem::is_directory(options.model_repository)) {
    std::cerr << "tessera serve: the model repository " << options.model_repository
              << " is not a folder\n";
    return 1;
  }
  // SIGINT and SIGTERM go to one thread that stops the server; blocked here,
  // before any thread starts, so every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  api::Env env(ORT_LOGGING_LEVEL_WARNING, "tessera-serve");
  ModelRepository repo(env, options.model_repository);
  repo.load_all();
  if (!repo.all_ready())
    std::cerr << "tessera serve: some models failed to load; the others are served "
                 "(POST /v2/repository/index lists each with its reason)"
              << std::endl;

  httplib::Server server;
  add_routes(server, repo, options.max_body_bytes);
  int port = options.http_port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
  } else if (!server.bind_to_port(options.host, port)) {
    port = -1;
  }
  if (port < 0) {
    std::cerr << "tessera serve: cannot listen on " << options.host << ":" << options.http_port
              << "\n";
    return 1;
  }
  std::cout << "tessera serve: HTTP listening on " << options.host << ":" << port << std::endl;

  std::atomic<bool> signalled{false};
  std::thread stopper([&server, &signalled, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    signalled = true;
    server.stop();
  });
  server.listen_after_bind();
  // When listening ended by itself, wake the stopper so it can be joined.
  if (!signalled) pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  std::cout << "tessera serve: stopped" << std::endl;
  return 0;
}

}  // namespace tessera::serve
