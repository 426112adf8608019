// A provider whose memory is host memory presented as a separate GPU device,
// for tests of copies, IO binding and devices. Its allocator remembers what it
// handed out, its Relu kernel refuses pointers that are not its own, and its
// transfer counts every host->device, device->host and device->device copy.
// With a stream, copies are queued and done only at synchronize().
// The option async=1 queues kernels too (see StreamStats).
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ep/execution_provider.hpp"
#include "runtime/session.hpp"

namespace tessera::test_device {

inline constexpr const char* kFakeDevice = "FakeDeviceExecutionProvider";

MemoryInfo fake_device_memory();

struct TransferCounts {
  std::atomic<int> h2d{0}, d2h{0}, d2d{0};
  void reset() { h2d = d2h = d2d = 0; }
  int total() const { return h2d + d2h + d2d; }
};
TransferCounts& fake_transfers();

// The option async=1 makes the provider asynchronous: each run gets a stream
// (ep::RunStreamProvider::run_stream) on which its kernels queue their work, done
// only when the stream is synchronized. Queued work fails the sync when a
// block it reads was freed first.
// The option capture=1 (which implies async=1) asks for captured runs: the
// stream records queued work between begin_capture and end_capture, and a
// replay queues the recording again. Neg waits for its stream, which breaks
// a capture.
struct StreamStats {
  std::atomic<int> run_streams{0}, queued_kernels{0}, captures{0}, replays{0};
  void reset() { run_streams = queued_kernels = captures = replays = 0; }
};
StreamStats& fake_stream_stats();

// Whether p is a block the fake device allocator handed out and has not freed.
bool fake_device_owns(const void* p);
// The data pointer the device's Relu kernel read its input from last (null before any).
const void* last_device_relu_input();

// Adds the fake provider's factory to the registry (idempotent).
void register_fake_device();

// Models for these tests. relu_chain: y = Relu(Relu(x)) (the fake device runs
// both), x and y float[2]. relu_add: y = Relu(x) + w, w a float[2]
// initializer {10, 20} (Add runs on the CPU).
// A node named "<op>_<first output>" in the default domain.
ir::Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out);
// A graph input/output of element type `t` and fixed dims.
ir::ValueInfo tensor_info(const std::string& name, std::vector<int64_t> dims,
                          DataType t = DataType::kFloat);
ir::Model relu_chain_model();
ir::Model relu_add_model();

// x -> Relu -> ... -> y, `relus` nodes, all on the device, x and y float[n]
// (n < 0: the symbolic dim "n").
ir::Model relu_chain_model(int relus, int64_t n);
// A session of [fake device with option `mode` = 1 ("async" or "capture"), CPU].
std::unique_ptr<Session> fake_session(ir::Model m, const std::string& mode,
                                      const SessionOptions& o = {});
// n test values from offset - 3 up, repeating every 7.
std::vector<float> ramp(int64_t n, float offset);
// Relu of each value.
std::vector<float> relu(std::vector<float> v);

// The message of the Error fn throws; a test failure if it throws none or
// another code.
std::string error_of(const std::function<void()>& fn, ErrorCode expected);
std::vector<float> floats(const Tensor& t);

}  // namespace tessera::test_device
