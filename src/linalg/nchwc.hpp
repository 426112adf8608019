// Channel-blocked ("NCHWc") 2-D and 3-D convolution, and 2-D pooling.
//
// A blocked tensor holds a logical [N, C, H, W] float tensor as
// [N, ceil(C/16), H, W, 16] (a 3-D one, [N, C, D, H, W], as
// [N, ceil(C/16), D, H, W, 16]): sixteen consecutive channels of one pixel are
// one 64-byte line, which is one AVX-512 register (or two AVX2 ones). A convolution then
// computes 16 output channels of a pixel with one FMA per (input channel,
// tap), with no im2col copy and no GEMM packing of the activations; the
// optimizer keeps whole chains of convolutions and pools in this layout and
// reorders only where a plain consumer needs the data.
//
// Invariant: the padded channels of a blocked tensor (C rounded up to 16)
// hold zeros. Every function here that writes a blocked tensor keeps it, so
// a later convolution may read whole blocks without masking.
//
// The AVX-512 or AVX2 kernels are picked at run time (cpu_isa()); every
// function also has a portable path (same results up to float summation order), so callers need
// no CPU test of their own.
#pragma once
#include <cstdint>
#include <vector>

#include "core/host_heap.hpp"
#include "core/thread_pool.hpp"
#include "linalg/cpu_isa.hpp"
#include "linalg/epilogue.hpp"

namespace tessera::linalg::nchwc {

inline constexpr int64_t kBlock = 16;

inline int64_t blocks(int64_t channels) { return (channels + kBlock - 1) / kBlock; }

// True when vector kernels (AVX-512, or AVX2 with FMA) run on this CPU (the
// layout pays off only then; the optimizer asks before choosing it).
bool fast_path_available();
// For tests: turns the vector kernels off (or back on, to cpu_isa()) for the
// whole process; returns the previous setting. Not thread-safe.
bool set_fast_path_enabled(bool on);
// For tests: runs the kernels of `want`, or of cpu_isa() where that is
// narrower (so AVX-512 machines test the AVX2 kernels too); returns the
// previous set. Not thread-safe.
Isa set_kernel_isa(Isa want);
// "avx512", "avx2" or "portable", for reports.
const char* kernel_name();

// The geometry of one 2-D convolution, or of a 3-D one with the depth
// fields (D, OD, KD, sd, pd, dd) set; their defaults make it 2-D. Pads are
// the leading (front, top, left) ones; the trailing pads are implied by
// OD/OH/OW. A 3-D output is indexed by its (depth, row) pairs as
// rows od * OH + oh, so the kernels cut [N, blocks, OD, OH, OW, 16] into
// OD * OH rows as they cut a 2-D output into OH; only dense convolutions
// (group 1) take depth.
struct Conv2dShape {
  int64_t N = 1, C = 0, H = 0, W = 0;  // input, logical channels
  int64_t M = 0, OH = 0, OW = 0;       // output
  int64_t KH = 1, KW = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t D = 1, OD = 1, KD = 1, sd = 1, pd = 0, dd = 1;  // depth (3-D)
  int64_t group = 1;                                      // 1 (dense) or C == M (depthwise)
  bool input_blocked = true;  // false: x is plain NCHW (a stem with few channels)
  bool depthwise() const { return group > 1; }
};

// Filters W[M, C/group, (KD,) KH, KW] packed once (at kernel creation) for
// the blocked kernels: dense as [M/16][C blocks][KD][KH][KW][16 in][16 out],
// plain input as [M/16][KD][KH][KW][C][16 out], depthwise as
// [C/16][KH][KW][16]. Padded channels are zero.
class PackedFilter {
 public:
  PackedFilter() = default;
  // Checks that the shape is one conv2d() supports (group 1, or group == C
  // == M in 2-D; W's shape as given) and throws kInvalidArgument otherwise.
  PackedFilter(const float* w, const Conv2dShape& s);
  bool empty() const { return data_.empty(); }
  // The shape fields it was packed for (M, C, KD, KH, KW, group, input_blocked).
  bool matches(const Conv2dShape& s) const;
  const float* data() const { return data_.data(); }

 private:
  int64_t M_ = 0, C_ = 0, KD_ = 1, KH_ = 0, KW_ = 0, group_ = 1;
  bool input_blocked_ = true;
  HostVector<float> data_;  // in the host heap: reuses pages freed while a session is made
};

// y (blocked [N, blocks(M), (OD,) OH, OW, 16]) = act(conv(x, w) + bias +
// residual). x is blocked [N, blocks(C), (D,) H, W, 16], or plain
// [N, C, (D,) H, W] when !s.input_blocked. bias is [M] or null; residual is blocked like y, or
// null. Taps outside the input count as zero. `w` must match `s` (PackedFilter::matches).
void conv2d(const Conv2dShape& s, const PackedFilter& w, const float* x, const float* bias,
            const float* residual, const ActivationSpec& act, float* y, ThreadPool* pool);

// Plain [N, C, HW] <-> blocked [N, blocks(C), HW, 16] (padded channels zero);
// HW is the product of the spatial dims, any number of them.
void to_blocked(const float* x, int64_t N, int64_t C, int64_t HW, float* y, ThreadPool* pool);
void from_blocked(const float* x, int64_t N, int64_t C, int64_t HW, float* y, ThreadPool* pool);
// Channels-last [N, HW, C] <-> blocked: each pixel's channels are whole
// 64-byte pieces of one line, so these are copies, not transposes (what a
// Transpose between NCHW and NHWC beside a reorder costs in two passes).
void to_blocked_channels_last(const float* x, int64_t N, int64_t C, int64_t HW, float* y,
                              ThreadPool* pool);
void from_blocked_channels_last(const float* x, int64_t N, int64_t C, int64_t HW, float* y,
                                ThreadPool* pool);

// Max / average pooling of a blocked tensor into a blocked tensor.
struct Pool2dShape {
  int64_t N = 1, C = 0, H = 0, W = 0, OH = 0, OW = 0;
  int64_t KH = 1, KW = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t pe_h = 0, pe_w = 0;      // trailing pads (bottom, right)
  bool count_include_pad = false;  // average: pads count in the divisor, positions past them not
};
void max_pool2d(const Pool2dShape& s, const float* x, float* y, ThreadPool* pool);
void avg_pool2d(const Pool2dShape& s, const float* x, float* y, ThreadPool* pool);
// Blocked [N, blocks(C), HW, 16] -> blocked [N, blocks(C), 1, 1, 16] mean.
void global_avg_pool(int64_t N, int64_t C, int64_t HW, const float* x, float* y, ThreadPool* pool);

}  // namespace tessera::linalg::nchwc
