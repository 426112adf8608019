#include "serve/server.hpp"

#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#ifdef TESSERA_SERVE_GRPC
#include "serve/grpc/grpc_server.hpp"
#endif
#include "serve/access_log.hpp"
#include "serve/http_routes.hpp"
#include "serve/metrics.hpp"
#include "serve/repository.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {
namespace {

int stop_pipe[2] = {-1, -1};

void on_stop_signal(int) {
  const char byte = 1;
  [[maybe_unused]] ssize_t n = write(stop_pipe[1], &byte, 1);
}

// Connections the kernel holds for a listener before it accepts them.
// cpp-httplib listens with a backlog of 5 (its CPPHTTPLIB_LISTEN_BACKLOG,
// fixed when Debian built the library): a burst of clients connecting at
// once overflows that queue, the kernel answers the overflow with SYN
// cookies, and the connections whose cookie it then cannot take are reset
// (`nstat`'s TcpExtSyncookiesFailed). The kernel caps this at
// net.core.somaxconn.
constexpr int kListenBacklog = 4096;

// Binds `server` to host:port (port 0: any free port); returns the port, or
// -1 after saying why not.
int bind(httplib::Server& server, const std::string& host, int port) {
  // The listening socket, seen as cpp-httplib creates it, to listen on it
  // again with the larger backlog (Linux takes a second listen() on a
  // listening socket as a change of its backlog).
  int listener = -1;
  server.set_socket_options([&listener](socket_t sock) {
    httplib::default_socket_options(sock);
    listener = sock;
  });
  const int bound =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    std::cerr << "tessera serve: cannot listen on " << host << ":" << port << "\n";
    return -1;
  }
  if (listener < 0 || ::listen(listener, kListenBacklog) != 0)
    std::cerr << "tessera serve: cannot raise the listen backlog of " << host << ":" << bound
              << " (bursts of connections may be refused)\n";
  return bound;
}

}  // namespace

int serve(const ServeOptions& options) {
  if (!std::filesystem::is_directory(options.model_repository)) {
    std::cerr << "tessera serve: the model repository " << options.model_repository
              << " is not a folder\n";
    return 1;
  }
  // SIGINT and SIGTERM write a byte to a pipe (all a handler may safely do,
  // and it runs in whichever thread the signal lands on, the runtime's own
  // threads included); a thread reading the pipe stops the server.
  if (pipe(stop_pipe) != 0) {
    std::cerr << "tessera serve: cannot create the stop pipe\n";
    return 1;
  }
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<AccessLog> access_log;
  try {
    access_log = std::make_unique<AccessLog>(options.access_log);
  } catch (const std::exception& e) {
    std::cerr << "tessera serve: " << e.what() << "\n";
    return 1;
  }
  api::Env env(ORT_LOGGING_LEVEL_WARNING, "tessera-serve");
  ModelRepository repo(env, options.model_repository, options.model_control);
  if (options.model_control != ModelControl::kExplicit) {
    repo.load_all();
  } else {
    // A name that is no folder of the repository is a mistake in the command
    // line, not a model that failed: the server does not start.
    for (const auto& name : options.load_models)
      if (name != "*" && !repo.has_folder(name)) {
        std::cerr << "tessera serve: --load-model '" << name << "': the repository "
                  << options.model_repository << " has no model folder of that name\n";
        return 1;
      }
    for (const auto& name : options.load_models) {
      if (name == "*") {
        repo.load_all();
        continue;
      }
      try {
        repo.load(name);
      } catch (const std::exception&) {
        // Logged by the load, and listed in the index with its reason.
      }
    }
  }
  if (!repo.all_ready())
    std::cerr << "tessera serve: some models failed to load; the others are served "
                 "(POST /v2/repository/index lists each with its reason)"
              << std::endl;

  Metrics metrics;
  httplib::Server server;
  add_routes(server, repo, metrics, *access_log, options.max_body_bytes);
  // cpp-httplib writes a response's headers and body separately; with
  // Nagle's algorithm the body then waits for the client's delayed ACK,
  // about 40 ms a request.
  server.set_tcp_nodelay(true);
  if (options.http_threads > 0) {
    const auto n = static_cast<size_t>(options.http_threads);
    server.new_task_queue = [n] { return new httplib::ThreadPool(n); };
  }
  const int port = bind(server, options.host, options.http_port);
  if (port < 0) return 1;
  httplib::Server metrics_server;
  int metrics_port = -1;
  if (options.metrics_port >= 0) {
    add_metrics_routes(metrics_server, repo, metrics);
    metrics_port = bind(metrics_server, options.host, options.metrics_port);
    if (metrics_port < 0) return 1;
  }
#ifdef TESSERA_SERVE_GRPC
  std::unique_ptr<GrpcServer> grpc_server;
  if (options.grpc_port >= 0) {
    grpc_server = GrpcServer::start(options.host, options.grpc_port, repo, metrics, *access_log,
                                    options.max_body_bytes);
    if (!grpc_server) return 1;
  }
#else
  if (options.grpc_port >= 0) {
    std::cerr << "tessera serve: this build has no gRPC support (docs/serving.md)\n";
    return 1;
  }
#endif
  std::cout << "tessera serve: model control mode " << model_control_name(options.model_control)
            << std::endl;
  std::cout << "tessera serve: HTTP listening on " << options.host << ":" << port << std::endl;
#ifdef TESSERA_SERVE_GRPC
  if (grpc_server)
    std::cout << "tessera serve: gRPC listening on " << options.host << ":" << grpc_server->port()
              << std::endl;
#endif
  std::atomic<bool> metrics_over{false};
  std::thread metrics_thread;
  if (metrics_port >= 0) {
    std::cout << "tessera serve: metrics listening on " << options.host << ":" << metrics_port
              << std::endl;
    metrics_thread = std::thread([&metrics_server, &metrics_over] {
      metrics_server.listen_after_bind();
      metrics_over = true;
    });
  }

  // Polling the repository: a thread that wakes every period, or at once to
  // end when the server stops.
  std::mutex poll_mutex;
  std::condition_variable poll_wake;
  bool poll_over = false;
  std::thread poller;
  if (options.model_control == ModelControl::kPoll && options.repository_poll_secs > 0) {
    std::cout << "tessera serve: polling the model repository every "
              << options.repository_poll_secs << " s" << std::endl;
    poller = std::thread([&] {
      std::unique_lock<std::mutex> lock(poll_mutex);
      while (!poll_wake.wait_for(lock, std::chrono::seconds(options.repository_poll_secs),
                                 [&] { return poll_over; })) {
        lock.unlock();
        try {
          repo.poll();
        } catch (const std::exception& e) {
          std::cerr << "tessera serve: polling the model repository: " << e.what() << std::endl;
        }
        lock.lock();
      }
    });
  }

  std::atomic<bool> listening_over{false};
  std::thread stopper([&] {
    char byte = 0;
    while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    // A signal that came before listening began waits for it, then stops it.
    while (!listening_over) {
      if (server.is_running()) {
        server.stop();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
#ifdef TESSERA_SERVE_GRPC
    // HTTP stops taking requests above (those in flight finish); new gRPC
    // calls are refused at once, and those in flight get the grace period.
    if (grpc_server) grpc_server->shutdown(std::chrono::seconds(options.grace_seconds));
#endif
  });
  server.listen_after_bind();
  listening_over = true;
  on_stop_signal(0);  // wakes the stopper when listening ended by itself
  stopper.join();
  if (poller.joinable()) {
    {
      std::lock_guard<std::mutex> lock(poll_mutex);
      poll_over = true;
    }
    poll_wake.notify_all();
    poller.join();
  }
  if (metrics_thread.joinable()) {
    // stop() does nothing before listening began: repeat until it ends.
    while (!metrics_over) {
      metrics_server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    metrics_thread.join();
  }
  std::cout << "tessera serve: stopped" << std::endl;
  return 0;
}

}  // namespace tessera::serve
