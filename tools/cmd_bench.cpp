// `tessera bench`: times session creation, the first run and steady-state runs
// of one model, the way the ONNX Runtime yardstick (shared/bench/ort_bench.js)
// does, so the two can be compared side by side.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_args.hpp"
#include "commands.hpp"
#include "onnx/model_reader.hpp"
#include "runtime/copy_tensors.hpp"
#include "runtime/session.hpp"
#include "value_format.hpp"

namespace fs = std::filesystem;

namespace tessera::cli {

namespace {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// CPU time of the whole process (every thread), ms: on a machine shared with
// busy tenants a run's wall time includes the time it was descheduled, its
// CPU time does not.
double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// Saved inputs next to the model (test_data_set_0/input_K.pb), in input order,
// so Tessera and the yardstick see the same data; empty when there are none.
std::vector<Tensor> saved_inputs(const std::string& model_path, size_t count) {
  fs::path dir = fs::path(model_path).parent_path() / "test_data_set_0";
  std::vector<Tensor> out;
  for (size_t k = 0; k < count; ++k) {
    fs::path f = dir / str_cat("input_", k, ".pb");
    if (!fs::exists(f)) return {};
    out.push_back(onnx::load_tensor(f.string()));
  }
  return out;
}

// The value at fraction q of the sorted samples (nearest rank).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t i = size_t(std::clamp(q * double(v.size()) - 1e-9, 0.0, double(v.size() - 1)));
  return v[i];
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

int cmd_bench(const std::vector<std::string>& argv) {
  Args args("bench", argv,
            {"--providers", "--threads", "--opt-level", "--warmup", "--iters", "--seed", "--config",
             "--profile", "--provider-library"},
            {"--help", "--json", "--random", "--device-io"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError("tessera bench needs exactly one MODEL");
  const std::string model_path = args.positional()[0];
  SessionOptions options = session_options_from(args);
  if (auto prefix = args.get("--profile")) {
    if (prefix->empty()) throw UsageError("--profile needs a file prefix");
    options.enable_profiling = true;
    options.profile_file_prefix = *prefix;
  }
  std::vector<ProviderSpec> providers;
  if (auto p = args.get("--providers")) providers = parse_providers(*p);
  add_provider_libraries(args, providers);
  const int warmup = args.get_int("--warmup", 5, 0);
  const int iters = args.get_int("--iters", 30, 1);
  std::mt19937_64 rng(uint64_t(args.get_int("--seed", 0, 0)));

  auto t0 = Clock::now();
  const double c0 = process_cpu_ms();
  auto session = Session::create(model_path, options, providers);
  const double load_cpu_ms = process_cpu_ms() - c0;
  auto t1 = Clock::now();

  std::vector<std::pair<std::string, Value>> feeds;
  const auto& ins = session->inputs();
  std::vector<Tensor> saved;
  if (!args.has("--random")) saved = saved_inputs(model_path, ins.size());
  const char* source = saved.empty() ? "random" : "test_data_set_0";
  for (size_t i = 0; i < ins.size(); ++i)
    feeds.emplace_back(ins[i].name,
                       saved.empty() ? random_value(ins[i].type, {}, rng) : Value(saved[i]));

  // --device-io: what a framework's own timing sees when its tensors live on
  // the device. Each input is copied once, before any run, to where its first
  // consumer runs; outputs stay where their producers wrote them. Without it,
  // every run takes host inputs and returns host outputs (the copies are in
  // the figure).
  const bool device_io = args.has("--device-io");
  if (device_io) {
    const std::vector<InputLocation> where = session->input_locations();
    for (size_t i = 0; i < feeds.size(); ++i)
      if (feeds[i].second.is_tensor() && !where[i].memory.same_space(cpu_memory_info()))
        feeds[i].second = Value(copy_to(feeds[i].second.tensor(), where[i].memory));
  }
  auto run = [&] {
    if (device_io)
      session->run_on_devices(feeds);
    else
      session->run(feeds);
  };

  auto t2 = Clock::now();
  const double c2 = process_cpu_ms();
  rusage u0{};
  getrusage(RUSAGE_SELF, &u0);
  run();
  const double first_ms = ms_between(t2, Clock::now());
  const double first_cpu_ms = process_cpu_ms() - c2;
  rusage u1{};
  getrusage(RUSAGE_SELF, &u1);
  // Pages the first run faulted in one by one (those it populated in one
  // call as the host heap maps new blocks are not counted).
  const long first_faults = u1.ru_minflt - u0.ru_minflt;
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> times, cpu_times;
  for (int i = 0; i < iters; ++i) {
    auto a = Clock::now();
    const double c = process_cpu_ms();
    run();
    times.push_back(ms_between(a, Clock::now()));
    cpu_times.push_back(process_cpu_ms() - c);
  }
  const double load_ms = ms_between(t0, t1);
  const double median = quantile(times, 0.5), p90 = quantile(times, 0.9),
               min = *std::min_element(times.begin(), times.end());
  double mean = 0;
  for (double t : times) mean += t / double(times.size());
  const int threads = options.intra_op_num_threads;
  // Whether runs were replayed (CUDA graphs): a timing says little without it.
  const RunCaptureInfo capture = session->run_capture();
  const std::string capture_text =
      capture.status == "off"
          ? ""
          : str_cat(capture.status, "; ", capture.captures, " captured, ", capture.replays,
                    " replayed, ", capture.failures, " failed");

  const std::string profile = options.enable_profiling ? session->end_profiling() : "";

  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  if (args.has("--json")) {
    os << "{\"runtime\":\"tessera\",\"model\":" << json_string(model_path)
       << ",\"threads\":" << threads << ",\"load_ms\":" << load_ms
       << ",\"load_cpu_ms\":" << load_cpu_ms << ",\"first_run_ms\":" << first_ms
       << ",\"median_ms\":" << median << ",\"p90_ms\":" << p90 << ",\"min_ms\":" << min
       << ",\"mean_ms\":" << mean << ",\"first_run_cpu_ms\":" << first_cpu_ms
       << ",\"first_run_page_faults\":" << first_faults
       << ",\"median_cpu_ms\":" << quantile(cpu_times, 0.5)
       << ",\"min_cpu_ms\":" << *std::min_element(cpu_times.begin(), cpu_times.end())
       << ",\"iters\":" << iters << ",\"warmup\":" << warmup << ",\"peak_rss_mb\":" << peak_rss_mb()
       << ",\"input_source\":" << json_string(source)
       << ",\"io\":" << json_string(device_io ? "device" : "host")
       << ",\"run_capture\":" << json_string(capture.status) << ",\"replays\":" << capture.replays;
    if (!profile.empty()) os << ",\"profile\":" << json_string(profile);
    os << "}\n";
  } else {
    os << "model       " << model_path << " (inputs: " << source << ")\n"
       << "io          "
       << (device_io ? "inputs placed once where first read, outputs left where produced"
                     : "host inputs in, host outputs out, every run")
       << "\n"
       << "threads     " << (threads == 0 ? std::string("default") : std::to_string(threads))
       << "\n"
       << "load        " << load_ms << " ms\n"
       << "first run   " << first_ms << " ms\n"
       << "median      " << median << " ms  (p90 " << p90 << ", min " << min << ", mean " << mean
       << "; " << iters << " runs after " << warmup << " warm-up)\n"
       << "cpu time    load " << load_cpu_ms << " ms, first run " << first_cpu_ms << " ms, median "
       << quantile(cpu_times, 0.5) << " ms (every thread of the process)\n"
       << "peak RSS    " << peak_rss_mb() << " MiB\n";
    if (!capture_text.empty()) os << "captures    " << capture_text << "\n";
    if (!profile.empty()) os << "profile     " << profile << "\n";
  }
  std::cout << os.str();
  return 0;
}

}  // namespace tessera::cli
