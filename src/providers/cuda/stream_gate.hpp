// Lets one run at a time use a caller's stream while CUDA graphs are on.
// Runs of a session with enable_cuda_graph=1 that name the same caller's
// stream (user_compute_stream, or a run's "cuda.compute_stream") would
// otherwise queue onto it while another run is capturing it, and CUDA records
// all work queued on a capturing stream into that capture, whatever thread
// queued it. The device runs one stream's work in order anyway, so what
// waiting costs is the overlap of one run's host work with another's.
// No CUDA types: a stream is named by its address.
#pragma once
#include <cstdint>
#include <memory>

namespace tessera::cuda {

// Blocks until no other holder has (device, stream), then holds it until the
// returned token is released (from any thread).
std::shared_ptr<void> enter_stream_gate(int device, uintptr_t stream);

}  // namespace tessera::cuda
