// Tuned algorithm choices kept across processes. The exhaustive cuDNN search
// runs every candidate algorithm once per convolution shape, which costs tens
// of milliseconds each on a real model's first run; with the option
// cudnn_conv_algo_cache the results go to a file the user names and later
// sessions (in this process or another) read them back instead of searching.
// Keys name everything the choice depends on (device, library versions, op,
// types, math mode, shapes, window, workspace limit), so an entry from another
// GPU or cuDNN never matches: it is a miss, never a wrong algorithm.
// Plain C++ (no CUDA headers): tested on machines without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace tessera::cuda {

struct TunedAlgo {
  int algo = 0;
  size_t workspace = 0;  // bytes the algorithm needs
  double tune_ms = 0;    // what finding it cost
};

class AlgoCache {
 public:
  // The cache of `path`, shared by every provider of this process that names
  // the same file; empty `path`: a cache in memory only (per call). Reads the
  // file when it exists (skipping, with a warning naming the line, lines that
  // do not parse) and creates it otherwise. Throws kInvalidArgument naming the
  // file when it cannot be created or written, or is not an algorithm cache
  // (its first line is not this format's header): a wrong path must not
  // clobber someone's file.
  static std::shared_ptr<AlgoCache> open(const std::string& path);

  std::optional<TunedAlgo> find(const std::string& key) const;
  // Records a search's result (counted as tuning) and appends it to the file.
  void put(const std::string& key, const TunedAlgo& tuned);
  // Counts a choice found here instead of searched.
  void count_reuse();

  struct Stats {
    int64_t tuned = 0;      // searches run by this process
    int64_t reused = 0;     // choices taken from the cache instead
    double tune_ms = 0;     // time those searches took
    int64_t from_file = 0;  // entries read when the file was opened
  };
  Stats stats() const;
  const std::string& path() const { return path_; }

  explicit AlgoCache(std::string path);  // use open()

 private:
  void load();
  void append(const std::string& line) const;

  std::string path_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, TunedAlgo> entries_;
  Stats stats_;
};

// The header line every cache file starts with.
inline constexpr const char* kAlgoCacheHeader = "# tessera cuDNN algorithm cache v1";

}  // namespace tessera::cuda
