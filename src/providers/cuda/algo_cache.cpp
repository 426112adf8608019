#include "providers/cuda/algo_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/logging.hpp"

namespace tessera::cuda {

namespace {

const char* kWho = "CUDAExecutionProvider: cudnn_conv_algo_cache";

// key \t algo \t workspace \t tune_ms; false when the line is not one.
bool parse_line(const std::string& line, std::string& key, TunedAlgo& t) {
  std::istringstream in(line);
  std::string algo, ws, ms, rest;
  if (!std::getline(in, key, '\t') || !std::getline(in, algo, '\t') ||
      !std::getline(in, ws, '\t') || !std::getline(in, ms, '\t') || std::getline(in, rest))
    return false;
  if (key.empty()) return false;
  try {
    size_t used = 0;
    t.algo = std::stoi(algo, &used);
    if (used != algo.size() || t.algo < 0) return false;
    const unsigned long long w = std::stoull(ws, &used);
    if (used != ws.size() || ws[0] == '-') return false;
    t.workspace = size_t(w);
    t.tune_ms = std::stod(ms, &used);
    if (used != ms.size() || !(t.tune_ms >= 0)) return false;
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace

AlgoCache::AlgoCache(std::string path) : path_(std::move(path)) {}

std::shared_ptr<AlgoCache> AlgoCache::open(const std::string& path) {
  if (path.empty()) return std::make_shared<AlgoCache>("");
  // One object per file in this process, so concurrent sessions share what
  // they tune and append each entry once.
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<AlgoCache>> open_files;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = open_files.find(path); it != open_files.end())
    if (auto cache = it->second.lock()) return cache;
  auto cache = std::make_shared<AlgoCache>(path);
  cache->load();
  open_files[path] = cache;
  return cache;
}

void AlgoCache::load() {
  std::ifstream in(path_);
  if (!in) {
    // A new file: create it with its header, which also proves it writable.
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
      fail(ErrorCode::kInvalidArgument, kWho, ": cannot create '", path_,
           "': ", std::strerror(errno));
    const std::string header = std::string(kAlgoCacheHeader) + "\n";
    const bool ok = ::write(fd, header.data(), header.size()) == ssize_t(header.size());
    ::close(fd);
    if (!ok)
      fail(ErrorCode::kInvalidArgument, kWho, ": cannot write '", path_,
           "': ", std::strerror(errno));
    return;
  }
  std::string line;
  if (!std::getline(in, line) || line != kAlgoCacheHeader)
    fail(ErrorCode::kInvalidArgument, kWho, ": '", path_,
         "' is not a Tessera algorithm cache (its first line is not '", kAlgoCacheHeader,
         "'); name a new file or one this option wrote");
  if (::access(path_.c_str(), W_OK) != 0)
    fail(ErrorCode::kInvalidArgument, kWho, ": cannot write '", path_, "': ", std::strerror(errno));
  for (int64_t number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    std::string key;
    TunedAlgo t;
    if (!parse_line(line, key, t)) {
      log(Severity::kWarning, "cuda", kWho, ": '", path_, "' line ", number,
          " is not 'key<TAB>algorithm<TAB>workspace<TAB>milliseconds'; skipped");
      continue;
    }
    entries_[key] = t;  // a later line for the same key wins
    ++stats_.from_file;
  }
}

std::optional<TunedAlgo> AlgoCache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void AlgoCache::put(const std::string& key, const TunedAlgo& tuned) {
  if (key.find_first_of("\t\n") != std::string::npos)
    fail(ErrorCode::kRuntimeException, kWho, ": internal: a key holds a tab or newline: ", key);
  std::lock_guard<std::mutex> lock(mu_);
  entries_[key] = tuned;
  ++stats_.tuned;
  stats_.tune_ms += tuned.tune_ms;
  if (!path_.empty())
    append(str_cat(key, "\t", tuned.algo, "\t", tuned.workspace, "\t", tuned.tune_ms, "\n"));
}

void AlgoCache::count_reuse() {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.reused;
}

AlgoCache::Stats AlgoCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

// One write() of the whole line with O_APPEND, so lines from concurrent
// processes never interleave. A failure is a warning: the choice is still
// used, only not kept for later sessions.
void AlgoCache::append(const std::string& line) const {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) == ssize_t(line.size());
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok)
    log(Severity::kWarning, "cuda", kWho, ": cannot append to '", path_, "': ", std::strerror(err),
        "; the tuned algorithm is used but not kept");
}

}  // namespace tessera::cuda
