// The statistics of one loaded model version, as the statistics extension
// of the protocol (Triton's) reports them: requests that succeeded and
// failed with their total times, the queue, input preparation, run and
// output times of the requests that ran, the rows computed and the session
// runs made, and the same times per batch size of run.
//
// They belong to the loaded model: a version loaded again (through the
// repository API or a poll that saw its file change) starts from zero.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

namespace tessera::serve {

class ModelStats {
 public:
  using Duration = std::chrono::steady_clock::duration;

  // A count of events and their summed time in nanoseconds.
  struct DurationStat {
    uint64_t count = 0;
    uint64_t ns = 0;
    void add(Duration d);
  };
  // The three parts of a session run: joining the requests' inputs into
  // the batch, the run, splitting the outputs back.
  struct RunStats {
    DurationStat input, infer, output;
  };
  struct Snapshot {
    uint64_t last_inference_ms = 0;  // since the Unix epoch; 0: none yet
    uint64_t inference_count = 0;    // rows of the requests that succeeded
    uint64_t execution_count = 0;    // session runs that succeeded
    DurationStat success, fail, queue;
    RunStats requests;                      // per successful request
    std::map<int64_t, RunStats> per_batch;  // per run, by rows
  };

  // One answered request: `total` from arrival to answer; `rows` and the
  // queue and run times count only for a success (`ran`: it reached a
  // session run).
  void record_request(bool success, Duration total, int64_t rows, bool ran, Duration queue,
                      const RunStats& run);
  // One session run of `rows` rows that succeeded.
  void record_execution(int64_t rows, Duration input, Duration infer, Duration output);
  Snapshot snapshot() const;

 private:
  mutable std::mutex mutex_;
  Snapshot stats_;
};

}  // namespace tessera::serve
