// The gate that lets one run at a time use a caller's stream under CUDA
// graphs (providers/cuda/stream_gate.hpp). Host-only: needs no GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "providers/cuda/stream_gate.hpp"

using namespace tessera;

TEST(CudaStreamGate, OneHolderPerStreamAndDevice) {
  auto first = cuda::enter_stream_gate(0, 0x1000);
  // Another stream, or the same address on another device, is not held.
  auto other_stream = cuda::enter_stream_gate(0, 0x2000);
  auto other_device = cuda::enter_stream_gate(1, 0x1000);
  std::atomic<bool> entered{false};
  std::thread waiter([&] {
    auto second = cuda::enter_stream_gate(0, 0x1000);
    entered = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(entered) << "a second run entered a stream another run holds";
  first.reset();  // released here, on a thread other than the waiter's
  waiter.join();
  EXPECT_TRUE(entered);
  // Released by the waiter: the stream can be entered again at once.
  auto again = cuda::enter_stream_gate(0, 0x1000);
  EXPECT_NE(again.use_count(), 0);
}
