#include "test_runner.hpp"

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "onnx/model_reader.hpp"
#include "runtime/session.hpp"

namespace fs = std::filesystem;

namespace tessera::cli {

const char* status_name(CaseResult::Status s) {
  switch (s) {
    case CaseResult::Status::kPass:
      return "PASS";
    case CaseResult::Status::kFail:
      return "FAIL";
    case CaseResult::Status::kError:
      return "ERROR";
  }
  return "?";
}

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 6 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= '0' && c <= '9'; });
}

std::string case_name_of(const fs::path& dir) {
  fs::path p = dir.lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // "models/demo_cnn/"
  std::string name = p.filename().string();
  return name.empty() || name == "." ? fs::absolute(p).lexically_normal().filename().string()
                                     : name;
}

// Files `<prefix>K.pb` in a folder, as paths indexed by K; K must run 0..n-1.
std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::map<int, fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string f = entry.path().filename().string();
    if (f.rfind(prefix, 0) != 0 || f.size() <= prefix.size() + 3 || f.substr(f.size() - 3) != ".pb")
      continue;
    std::string digits = f.substr(prefix.size(), f.size() - prefix.size() - 3);
    if (!all_digits(digits)) continue;
    found[std::stoi(digits)] = entry.path();
  }
  std::vector<fs::path> out;
  for (const auto& [k, p] : found) {
    check(k == int(out.size()), dir.string(), ": ", prefix, out.size(), ".pb is missing but ",
          prefix, k, ".pb exists");
    out.push_back(p);
  }
  return out;
}

std::vector<fs::path> data_sets(const fs::path& case_dir) {
  std::vector<std::pair<int, fs::path>> sets;
  const std::string prefix = "test_data_set_";
  for (const auto& entry : fs::directory_iterator(case_dir)) {
    std::string f = entry.path().filename().string();
    if (!entry.is_directory() || f.rfind(prefix, 0) != 0) continue;
    std::string digits = f.substr(prefix.size());
    if (!all_digits(digits)) continue;
    sets.emplace_back(std::stoi(digits), entry.path());
  }
  std::sort(sets.begin(), sets.end());
  std::vector<fs::path> out;
  for (auto& s : sets) out.push_back(s.second);
  return out;
}

// Sets the run's terminate flag when the case runs past its time limit, so a
// slow run stops between nodes instead of holding up the whole suite.
class Deadline {
 public:
  Deadline(double seconds, std::shared_ptr<std::atomic<bool>> flag) {
    if (seconds <= 0) return;
    thread_ = std::thread([this, seconds, flag] {
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
        flag->store(true);
    });
  }
  ~Deadline() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

std::string one_line(std::string s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n')
      s.replace(i, 1, " | ");
    else if (s[i] == '\r' || s[i] == '\t')
      s[i] = ' ';
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '|')) s.pop_back();
  return s;
}

// Runs every data set; returns "" when all match, else the first mismatch.
std::string run_data_sets(const TestCase& tc, const RunnerOptions& options,
                          const RunOptions& run_options) {
  auto session = Session::create((fs::path(tc.dir) / "model.onnx").string(), options.session,
                                 options.providers);
  std::vector<IoInfo> feedable = session->inputs();
  for (const auto& o : session->overridable_initializers()) feedable.push_back(o);
  const auto& outputs = session->outputs();
  auto sets = data_sets(tc.dir);
  check(!sets.empty(), tc.dir, ": no test_data_set_N folders");
  for (const auto& set : sets) {
    const std::string set_name = set.filename().string();
    auto input_files = numbered_files(set, "input_");
    auto output_files = numbered_files(set, "output_");
    check(input_files.size() <= feedable.size(), set.string(), ": ", input_files.size(),
          " input files but the model takes only ", feedable.size(), " inputs");
    check(output_files.size() <= outputs.size(), set.string(), ": ", output_files.size(),
          " expected outputs but the model has only ", outputs.size(), " outputs");
    std::vector<std::pair<std::string, Value>> feeds;
    for (size_t k = 0; k < input_files.size(); ++k)
      feeds.emplace_back(feedable[k].name,
                         onnx::load_value(input_files[k].string(), feedable[k].type));
    std::vector<Value> expected;
    for (size_t k = 0; k < output_files.size(); ++k)
      expected.push_back(onnx::load_value(output_files[k].string(), outputs[k].type));
    for (int run = 1; run <= options.repeat; ++run) {
      check_code(!run_options.terminate->load(), ErrorCode::kTerminated, "stopped");
      std::vector<Value> got = session->run(feeds, {}, run_options);
      check(got.size() == outputs.size(), "run returned ", got.size(), " outputs, the model has ",
            outputs.size());
      const std::string of_runs =
          options.repeat > 1 ? str_cat(" (run ", run, " of ", options.repeat, ")") : "";
      for (size_t k = 0; k < expected.size(); ++k) {
        std::string what = str_cat(set_name, of_runs, " output ", k, " '", outputs[k].name, "'");
        if (auto why = compare_values(expected[k], got[k], what, options.tolerance)) return *why;
      }
    }
  }
  return "";
}

}  // namespace

std::vector<TestCase> discover_cases(const std::vector<std::string>& paths) {
  std::vector<TestCase> out;
  for (const auto& p : paths) {
    fs::path dir(p);
    check_code(fs::is_directory(dir), ErrorCode::kNoSuchFile, "'", p, "' is not a directory");
    if (fs::exists(dir / "model.onnx")) {
      out.push_back({case_name_of(dir), dir.string()});
      continue;
    }
    std::vector<TestCase> found;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_directory() && fs::exists(entry.path() / "model.onnx"))
        found.push_back({entry.path().filename().string(), entry.path().string()});
    check(!found.empty(), "'", p, "' has no model.onnx and no subfolder with one");
    std::sort(found.begin(), found.end(),
              [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

CaseResult run_case(const TestCase& tc, const RunnerOptions& options) {
  CaseResult r;
  r.name = tc.name;
  auto start = std::chrono::steady_clock::now();
  RunOptions run_options;
  try {
    Deadline deadline(options.timeout_seconds, run_options.terminate);
    std::string why = run_data_sets(tc, options, run_options);
    if (!why.empty()) {
      r.status = CaseResult::Status::kFail;
      r.message = one_line(why);
    }
  } catch (const std::exception& e) {
    r.status = CaseResult::Status::kError;
    r.message = one_line(e.what());
    if (r.message.empty()) r.message = "exception with no message";
  } catch (...) {
    r.status = CaseResult::Status::kError;
    r.message = "unknown exception";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bool timed_out = options.timeout_seconds > 0 && r.seconds > options.timeout_seconds;
  if (timed_out) {
    r.status = CaseResult::Status::kError;
    r.message = str_cat("timed out: took ", r.seconds, " s, the limit is ", options.timeout_seconds,
                        " s (--timeout)");
  }
  return r;
}

std::map<std::string, ExpectedFailure> read_expected_failures(const std::string& path) {
  std::ifstream in(path);
  check_code(bool(in), ErrorCode::kNoSuchFile, "cannot open expected-failures file '", path, "'");
  std::map<std::string, ExpectedFailure> out;
  std::string line;
  while (std::getline(in, line)) {
    std::string reason;
    if (auto hash = line.find('#'); hash != std::string::npos) {
      reason = line.substr(hash + 1);
      line = line.substr(0, hash);
    }
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    auto last = line.find_last_not_of(" \t\r");
    std::string name = line.substr(first, last - first + 1);
    ExpectedFailure e;
    if (name.size() > 1 && name.back() == '?') {
      e.may_pass = true;
      name = name.substr(0, name.find_last_not_of(" \t", name.size() - 2) + 1);
    }
    auto rs = reason.find_first_not_of(" \t");
    e.reason = rs == std::string::npos ? "" : reason.substr(rs);
    out[name] = e;
  }
  return out;
}

namespace {
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}
}  // namespace

void write_json_report(const std::string& path, const std::vector<CaseResult>& results) {
  std::ofstream out(path, std::ios::trunc);
  check_code(bool(out), ErrorCode::kNoSuchFile, "cannot open '", path, "' for writing");
  out << "[\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.6f", r.seconds);
    out << "  {\"name\": " << json_string(r.name) << ", \"status\": \"" << status_name(r.status)
        << "\", \"message\": " << json_string(r.message) << ", \"seconds\": " << secs << "}"
        << (i + 1 < results.size() ? ",\n" : "\n");
  }
  out << "]\n";
  out.close();
  check_code(!out.fail(), ErrorCode::kFail, "error writing '", path, "'");
}

}  // namespace tessera::cli
