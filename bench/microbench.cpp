// Kernel micro-benchmarks (Google Benchmark): SGEMM 1024^3, BERT-base's
// MatMul shapes and the batch-1 convolution shapes of ResNet-50 and
// MobileNetV2, through the same linalg entry points the kernels use, and the
// element-wise vector loops of linalg/vec_math.hpp (items per second). Each
// reports GFLOP/s and, when given the machine's measured single-core FP32
// peak, the percentage of it:
//   build/tessera_microbench --peak_gflops=225 [--benchmark_filter=...]
// (measure the peak with ../shared/bench/peak_fma.c, or read BM_FmaPeak's
// GFLOPS_cpu from the same run). Rows also report GFLOPS_cpu and
// pct_peak_cpu: the rate by CPU time (see report()), which other tenants of a
// shared machine do not inflate as they do wall time. See docs/performance.md.
#include <benchmark/benchmark.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/thread_pool.hpp"
#include "linalg/depthwise.hpp"
#include "linalg/gemm.hpp"
#include "linalg/igemm.hpp"
#include "linalg/igemm_conv.hpp"
#include "linalg/im2col.hpp"
#include "linalg/nchwc.hpp"
#include "linalg/vec_math.hpp"
#include "linalg/winograd.hpp"
#include "runtime/session.hpp"

namespace {

double g_peak_gflops = 0;  // per core; 0: not given

std::vector<float> random_vector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

double cpu_seconds(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Started before a benchmark's timed loop: the calling thread's and the
// process's CPU time.
struct CpuTimer {
  double thread0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  double process0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  double thread() const { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - thread0; }
  double process() const { return cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - process0; }
};

// GFLOPS (and pct_peak) by wall time, and GFLOPS_cpu (and pct_peak_cpu) by
// CPU time: for a one-thread row the calling thread's, which runs all of a
// one-thread product; for a row on T threads, T times the flops per second of
// the process's CPU time (the rate had each thread had a core throughout;
// a pool worker's bounded spin after each region counts as busy).
void report(benchmark::State& state, double flops_per_iter, int threads, const CpuTimer& cpu) {
  const double cpu_s = threads == 1 ? cpu.thread() : cpu.process() / threads;
  const double flops = flops_per_iter * double(state.iterations());
  state.counters["GFLOPS"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  if (g_peak_gflops > 0)
    state.counters["pct_peak"] = benchmark::Counter(flops / 1e9 / (g_peak_gflops * threads) * 100.0,
                                                    benchmark::Counter::kIsRate);
  if (cpu_s > 0) {
    state.counters["GFLOPS_cpu"] = flops / 1e9 / cpu_s;
    if (g_peak_gflops > 0)
      state.counters["pct_peak_cpu"] = flops / 1e9 / cpu_s / (g_peak_gflops * threads) * 100;
  }
}

tessera::ThreadPool* pool_for(int threads) {
  static tessera::ThreadPool one(1), two(2);
  return threads == 1 ? &one : &two;
}

// C[M,N] = A[M,K] B[K,N]; range(3): 0 packs per call, 1 uses a prepacked A,
// 2 a prepacked B (a MatMul's constant weights), 3 packs per call a B stored
// transposed ([N,K], attention's Q K^T).
void BM_Sgemm(benchmark::State& state) {
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const bool packed = state.range(3) == 1, packed_b = state.range(3) == 2,
             trans_b = state.range(3) == 3;
  const int threads = int(state.range(4));
  auto A = random_vector(size_t(M * K), 1), B = random_vector(size_t(K * N), 2);
  std::vector<float> C(size_t(M * N));
  tessera::linalg::PackedA pa(false, M, K, A.data(), K);
  tessera::linalg::PackedB pb(false, K, N, B.data(), N);
  const CpuTimer cpu;
  for (auto _ : state) {
    if (trans_b)
      tessera::linalg::sgemm(false, true, M, N, K, 1.f, A.data(), K, B.data(), K, 0.f, C.data(), N,
                             pool_for(threads));
    else if (packed_b)
      tessera::linalg::sgemm_packed_b(false, M, 1.f, A.data(), K, pb, 0.f, C.data(), N,
                                      pool_for(threads));
    else if (packed)
      tessera::linalg::sgemm_packed(pa, false, N, B.data(), N, C.data(), N, pool_for(threads));
    else
      tessera::linalg::sgemm(false, false, M, N, K, 1.f, A.data(), K, B.data(), N, 0.f, C.data(), N,
                             pool_for(threads));
    benchmark::DoNotOptimize(C.data());
  }
  report(state, 2.0 * double(M * N * K), threads, cpu);
  state.SetLabel(tessera::linalg::sgemm_kernel_name());
}

// An 8-bit convolution's product as QLinearConv runs it: prepared filters
// (M x K, int8) times an image's K x N matrix (uint8), requantized into
// bytes. range(3): 0 reuses one packed B (the product alone), 1 packs B from
// the image every iteration (a 1x1 convolution's whole cost). GFLOPS counts
// 2 operations a multiply-accumulate, as the float rows do.
void BM_IgemmRequant(benchmark::State& state) {
  namespace la = tessera::linalg;
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  const bool pack_per_call = state.range(3) == 1;
  const int threads = int(state.range(4));
  std::mt19937 rng(7);
  std::vector<uint8_t> w(size_t(M * K)), x(size_t(K * N)), y(size_t(M * N));
  for (auto& v : w) v = uint8_t(rng());
  for (auto& v : x) v = uint8_t(rng());
  std::vector<int32_t> bias(size_t(M), 100);
  std::vector<float> mult(size_t(M), 1e-4f);
  const int32_t xzp = 120, wzp = 0;
  const la::PreparedAInt8 a(M, K, w.data(), K, /*a_signed=*/true);
  const la::PackedBInt8 packed(K, N, x.data(), N, /*b_signed=*/false, pool_for(threads));
  la::IgemmRequantize out;
  out.bias = bias.data(), out.mult = mult.data(), out.y_scale = 0.05f, out.y_zero = 3;
  out.y = y.data(), out.ldy = N;
  const CpuTimer cpu;
  for (auto _ : state) {
    if (pack_per_call) {
      const la::PackedBInt8 b(K, N, x.data(), N, false, pool_for(threads));
      la::igemm_requantize(a, {&wzp, 1}, b, {&xzp, 1}, out, pool_for(threads));
    } else {
      la::igemm_requantize(a, {&wzp, 1}, packed, {&xzp, 1}, out, pool_for(threads));
    }
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(M * N * K), threads, cpu);
}

// An 8-bit convolution the way QLinearConv runs it on VNNI machines
// (linalg/igemm_conv.hpp): the image transposed into pixel rows, each
// window read in place against filters packed once, requantized into the
// output planes. Args: C, H, M, kernel, stride, threads.
void BM_IgemmConv(benchmark::State& state) {
  namespace la = tessera::linalg;
  const int64_t C = state.range(0), H = state.range(1), M = state.range(2), k = state.range(3),
                stride = state.range(4);
  const int threads = int(state.range(5));
  const int64_t pad = k / 2, OH = (H + 2 * pad - k) / stride + 1;
  const la::ConvShape s{C, H, H, M, k, k, stride, stride, 1, 1, pad, pad, OH, OH};
  if (!la::igemm_conv_fits(s)) {
    state.SkipWithError("needs AVX-512 VNNI");
    return;
  }
  std::mt19937 rng(7);
  std::vector<uint8_t> w(size_t(M * C * k * k)), x(size_t(C * H * H)), y(size_t(M * OH * OH));
  for (auto& v : w) v = uint8_t(rng());
  for (auto& v : x) v = uint8_t(rng());
  std::vector<int32_t> bias(size_t(M), 100);
  std::vector<float> mult(size_t(M), 1e-4f);
  const int32_t wzp = 0;
  const la::PackedConvFilters filters(w.data(), true, M, C, k, k);
  la::ConvRequantize out;
  out.bias = bias.data(), out.mult = mult.data(), out.y_scale = 0.05f, out.y_zero = 3;
  out.y = y.data();
  const CpuTimer cpu;
  for (auto _ : state) {
    la::igemm_conv_requantize(s, 1, x.data(), false, 120, filters, {&wzp, 1}, out,
                              pool_for(threads));
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(M * OH * OH * C * k * k), threads, cpu);
}

// A dense convolution as the Conv kernel runs it: im2col (unless 1x1 s1)
// then the packed-weight GEMM with bias + Relu epilogue.
void BM_Conv(benchmark::State& state) {
  const int64_t C = state.range(0), H = state.range(1), M = state.range(2), k = state.range(3),
                s = state.range(4);
  const int threads = int(state.range(5));
  const int64_t p = k / 2, OH = (H + 2 * p - k) / s + 1;
  auto x = random_vector(size_t(C * H * H), 1), w = random_vector(size_t(M * C * k * k), 2),
       b = random_vector(size_t(M), 3);
  std::vector<float> y(size_t(M * OH * OH)), col;
  const bool pointwise = k == 1 && s == 1;
  if (!pointwise) col.resize(size_t(C * k * k * OH * OH));
  tessera::linalg::PackedA pa(false, M, C * k * k, w.data(), C * k * k);
  tessera::linalg::ConvGeometry g{{H, H}, {OH, OH}, {k, k}, {s, s}, {p, p}, {1, 1}};
  tessera::linalg::Epilogue ep;
  ep.row_bias = b.data();
  ep.act.kind = tessera::linalg::Activation::kRelu;
  const CpuTimer cpu;
  for (auto _ : state) {
    const float* bm = x.data();
    if (!pointwise) {
      tessera::linalg::im2col<float>(x.data(), C, g, col.data(), pool_for(threads));
      bm = col.data();
    }
    tessera::linalg::sgemm_packed(pa, false, OH * OH, bm, OH * OH, y.data(), OH * OH,
                                  pool_for(threads), &ep);
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(M * OH * OH * C * k * k), threads, cpu);
}

// The same convolution in the channel-blocked layout (linalg/nchwc): the
// input already blocked (plain for the 3-channel stem), bias + Relu fused.
void BM_ConvBlocked(benchmark::State& state) {
  namespace nc = tessera::linalg::nchwc;
  nc::Conv2dShape cs;
  cs.C = state.range(0), cs.H = cs.W = state.range(1), cs.M = state.range(2);
  cs.KH = cs.KW = state.range(3), cs.sh = cs.sw = state.range(4);
  cs.ph = cs.pw = cs.KH / 2;
  cs.OH = cs.OW = (cs.H + 2 * cs.ph - cs.KH) / cs.sh + 1;
  const bool depthwise = state.range(6) != 0;
  cs.group = depthwise ? cs.C : 1;
  cs.input_blocked = cs.C >= 16;
  const int threads = int(state.range(5));
  auto x = random_vector(size_t(nc::blocks(cs.C) * 16 * cs.H * cs.W), 1),
       w = random_vector(size_t(cs.M * (depthwise ? 1 : cs.C) * cs.KH * cs.KW), 2),
       b = random_vector(size_t(cs.M), 3);
  std::vector<float> y(size_t(nc::blocks(cs.M) * 16 * cs.OH * cs.OW));
  // Arg 7 (optional, 1): add a residual, as ResNet's expanding 1x1 layers do.
  std::vector<float> res;
  if (state.range(7)) res = random_vector(y.size(), 4);
  const nc::PackedFilter pf(w.data(), cs);
  const tessera::linalg::ActivationSpec relu{tessera::linalg::Activation::kRelu, 0.f, 0.f};
  const CpuTimer cpu;
  for (auto _ : state) {
    nc::conv2d(cs, pf, x.data(), b.data(), res.empty() ? nullptr : res.data(), relu, y.data(),
               pool_for(threads));
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(cs.M * cs.OH * cs.OW * (depthwise ? 1 : cs.C) * cs.KH * cs.KW),
         threads, cpu);
  state.SetLabel(nc::kernel_name());
}

// A 3-D (video) convolution in the blocked layout: R3D-18's layers, k x k x k
// filters, pads k / 2, the input already blocked (plain for the stem, whose
// depth kernel is 3 and stride 1). Args: C, D, H, M, k, spatial stride, threads.
void BM_ConvBlocked3d(benchmark::State& state) {
  namespace nc = tessera::linalg::nchwc;
  nc::Conv2dShape cs;
  cs.C = state.range(0), cs.D = state.range(1), cs.H = cs.W = state.range(2);
  cs.M = state.range(3);
  cs.KH = cs.KW = state.range(4), cs.sh = cs.sw = state.range(5);
  cs.KD = cs.C < 16 ? 3 : cs.KH, cs.sd = cs.C < 16 ? 1 : cs.sh;
  cs.pd = cs.KD / 2, cs.ph = cs.pw = cs.KH / 2;
  cs.OD = (cs.D + 2 * cs.pd - cs.KD) / cs.sd + 1;
  cs.OH = cs.OW = (cs.H + 2 * cs.ph - cs.KH) / cs.sh + 1;
  cs.input_blocked = cs.C >= 16;
  const int threads = int(state.range(6));
  auto x = random_vector(size_t(nc::blocks(cs.C) * 16 * cs.D * cs.H * cs.W), 1),
       w = random_vector(size_t(cs.M * cs.C * cs.KD * cs.KH * cs.KW), 2),
       b = random_vector(size_t(cs.M), 3);
  std::vector<float> y(size_t(nc::blocks(cs.M) * 16 * cs.OD * cs.OH * cs.OW));
  const nc::PackedFilter pf(w.data(), cs);
  const tessera::linalg::ActivationSpec relu{tessera::linalg::Activation::kRelu, 0.f, 0.f};
  const CpuTimer cpu;
  for (auto _ : state) {
    nc::conv2d(cs, pf, x.data(), b.data(), nullptr, relu, y.data(), pool_for(threads));
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(cs.M * cs.OD * cs.OH * cs.OW * cs.C * cs.KD * cs.KH * cs.KW), threads,
         cpu);
  state.SetLabel(nc::kernel_name());
}

// A blocked 1x1 or 3x3 convolution whose filters come from memory, as in a
// model whose weights (ResNet-50: 100 MB) do not stay in cache between
// layers: each iteration uses the next of enough filter copies to overflow
// the last-level cache. Args: C, H, M, K, threads.
void BM_ConvBlockedColdFilter(benchmark::State& state) {
  namespace nc = tessera::linalg::nchwc;
  nc::Conv2dShape cs;
  cs.C = state.range(0), cs.H = cs.W = state.range(1), cs.M = state.range(2);
  cs.KH = cs.KW = state.range(3);
  cs.ph = cs.pw = cs.KH / 2;
  cs.OH = cs.OW = cs.H;
  const int threads = int(state.range(4));
  auto x = random_vector(size_t(nc::blocks(cs.C) * 16 * cs.H * cs.W), 1),
       w = random_vector(size_t(cs.M * cs.C * cs.KH * cs.KW), 2),
       b = random_vector(size_t(cs.M), 3);
  std::vector<float> y(size_t(nc::blocks(cs.M) * 16 * cs.OH * cs.OW));
  const size_t filter_bytes = w.size() * sizeof(float);
  const size_t copies = std::max<size_t>(2, (256u << 20) / filter_bytes);
  std::vector<nc::PackedFilter> filters;
  for (size_t i = 0; i < copies; ++i) filters.emplace_back(w.data(), cs);
  const tessera::linalg::ActivationSpec relu{tessera::linalg::Activation::kRelu, 0.f, 0.f};
  const CpuTimer cpu;
  size_t i = 0;
  for (auto _ : state) {
    nc::conv2d(cs, filters[i++ % copies], x.data(), b.data(), nullptr, relu, y.data(),
               pool_for(threads));
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(cs.M * cs.OH * cs.OW * cs.C * cs.KH * cs.KW), threads, cpu);
}
BENCHMARK(BM_ConvBlockedColdFilter)
    ->Args({512, 7, 2048, 1, 1})   // ResNet-50 layer4 conv3 (4 MiB of filters)
    ->Args({512, 7, 512, 3, 1})    // layer4 conv2 (9 MiB)
    ->Args({1024, 14, 256, 1, 1})  // layer3 conv1 (1 MiB)
    ->Args({512, 28, 128, 1, 1})   // layer2 conv1 (256 KiB: all groups per pixel chunk)
    ->Args({64, 56, 64, 3, 1})     // layer1 conv2 (144 KiB)
    ->Args({512, 7, 2048, 1, 2})
    ->Args({512, 7, 512, 3, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// A 3x3, pad-1 blocked convolution as Winograd F(tile x tile, 3x3) products
// (linalg/winograd.hpp), bias + Relu fused; GFLOP/s are the direct
// convolution's FLOPs per second, comparable with BM_ConvBlocked's. Args: C,
// H, M, threads, 1 for filters cold (each iteration the next of enough
// copies to overflow the last-level cache, as BM_ConvBlockedColdFilter), tile.
void BM_ConvWinograd(benchmark::State& state) {
  namespace nc = tessera::linalg::nchwc;
  nc::Conv2dShape cs;
  cs.C = state.range(0), cs.H = cs.W = state.range(1), cs.M = state.range(2);
  cs.KH = cs.KW = 3, cs.ph = cs.pw = 1, cs.OH = cs.OW = cs.H;
  const int threads = int(state.range(3));
  auto x = random_vector(size_t(nc::blocks(cs.C) * 16 * cs.H * cs.W), 1),
       w = random_vector(size_t(cs.M * cs.C * 9), 2), b = random_vector(size_t(cs.M), 3);
  std::vector<float> y(size_t(nc::blocks(cs.M) * 16 * cs.OH * cs.OW));
  const int64_t tile = state.range(5), side = tile + 2;
  const size_t filter_bytes = size_t(side * side * nc::blocks(cs.M) * nc::blocks(cs.C) * 256 * 4);
  const size_t copies = state.range(4) ? std::max<size_t>(2, (256u << 20) / filter_bytes) : 1;
  std::vector<nc::WinogradFilter> filters;
  for (size_t i = 0; i < copies; ++i) filters.emplace_back(w.data(), cs.M, cs.C, tile);
  const tessera::linalg::ActivationSpec relu{tessera::linalg::Activation::kRelu, 0.f, 0.f};
  const CpuTimer cpu;
  size_t i = 0;
  for (auto _ : state) {
    nc::winograd_conv2d(cs, filters[i++ % copies], x.data(), b.data(), nullptr, relu, y.data(),
                        pool_for(threads));
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(cs.M * cs.OH * cs.OW * cs.C * 9), threads, cpu);
  state.SetLabel(nc::kernel_name());
}
BENCHMARK(BM_ConvWinograd)
    ->Args({64, 56, 64, 1, 1, 4})  // ResNet-50 layer1 conv2
    ->Args({128, 28, 128, 1, 1, 4})
    ->Args({256, 14, 256, 1, 1, 2})
    ->Args({256, 14, 256, 1, 1, 4})
    ->Args({512, 7, 512, 1, 1, 2})
    ->Args({64, 56, 64, 2, 1, 4})
    ->Args({128, 28, 128, 2, 1, 4})
    ->Args({256, 14, 256, 2, 1, 2})
    ->Args({256, 14, 256, 2, 1, 4})
    ->Args({512, 7, 512, 2, 1, 2})
    ->Args({64, 56, 64, 1, 0, 4})  // filters hot
    ->Args({256, 14, 256, 1, 0, 2})
    ->Args({96, 160, 24, 1, 0, 2})  // the DB text detector's smooth.0 / head.0
    ->Args({96, 160, 24, 1, 0, 4})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// A 3x3 depthwise convolution (pad 1) over C channels.
void BM_Depthwise(benchmark::State& state) {
  const int64_t C = state.range(0), H = state.range(1), s = state.range(2);
  const int threads = int(state.range(3));
  const int64_t OH = (H + 2 - 3) / s + 1;
  auto x = random_vector(size_t(C * H * H), 1), w = random_vector(size_t(C * 9), 2);
  std::vector<float> y(size_t(C * OH * OH));
  const tessera::linalg::DepthwiseGeometry g{H, H, OH, OH, 3, 3, s, s, 1, 1, 1, 1};
  const tessera::linalg::ActivationSpec relu6{tessera::linalg::Activation::kClip, 0.f, 6.f};
  const CpuTimer cpu;
  for (auto _ : state) {
    pool_for(threads)->parallel_for(C, double(OH * OH * 18), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c)
        tessera::linalg::depthwise_conv2d_plane(x.data() + c * H * H, w.data() + c * 9, 0.f,
                                                nullptr, relu6, g, y.data() + c * OH * OH);
    });
    benchmark::DoNotOptimize(y.data());
  }
  report(state, 2.0 * double(C * OH * OH * 9), threads, cpu);
}

#if defined(__x86_64__)
// 16 independent chains of 512-bit FMAs (latency 4 x 2 pipes needs >= 8 in
// flight): the core's FP32 peak at its clock of the moment, measured in the
// same run as the kernels (a shared machine's clock moves with its load).
// `state` carries the chains from call to call (16 x 16 floats).
__attribute__((target("avx512f,fma"), noinline)) void fma_chains(int64_t iters, float* state) {
  const __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
  __m512 c[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) c[i] = _mm512_loadu_ps(state + 16 * i);
  for (int64_t it = 0; it < iters; ++it)
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) c[i] = _mm512_fmadd_ps(c[i], a, b);
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(state + 16 * i, c[i]);
}

// Runs chains(kIters, state) (16 vectors of state) and reports `ops` per
// iteration of its loop as FLOPs.
template <typename T>
void run_peak(benchmark::State& state, void (*chains)(int64_t, T*), double ops, T init) {
  constexpr int64_t kIters = 1 << 16;
  std::vector<T> values(16 * 64 / sizeof(T), init);
  const CpuTimer cpu;
  for (auto _ : state) {
    chains(kIters, values.data());
    benchmark::DoNotOptimize(values.data());
  }
  report(state, double(kIters) * ops, 1, cpu);
}

void BM_FmaPeak(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("fma")) {
    state.SkipWithError("needs AVX-512F and FMA");
    return;
  }
  run_peak<float>(state, fma_chains, 16 * 16 * 2, 0.5f);
}
BENCHMARK(BM_FmaPeak)->Unit(benchmark::kMicrosecond)->UseRealTime();

// 12 chains of 256-bit FMAs (the 16 ymm registers hold 12 accumulators and
// the two operands; 16 chains would spill): the peak of the AVX2 kernels
// (TESSERA_CPU_ISA=avx2), whose ratio to BM_FmaPeak is the most the AVX-512
// kernels can gain over them on this core.
__attribute__((target("avx2,fma"), noinline)) void fma_chains_256(int64_t iters, float* state) {
  const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
  __m256 c[12];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) c[i] = _mm256_loadu_ps(state + 8 * i);
  for (int64_t it = 0; it < iters; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) c[i] = _mm256_fmadd_ps(c[i], a, b);
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) _mm256_storeu_ps(state + 8 * i, c[i]);
}

void BM_FmaPeakAvx2(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    state.SkipWithError("needs AVX2 and FMA");
    return;
  }
  run_peak<float>(state, fma_chains_256, 12 * 8 * 2, 0.5f);
}
BENCHMARK(BM_FmaPeakAvx2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// 16 independent vpdpbusd chains: the core's 8-bit multiply-accumulate peak
// (64 products a vector), against which BM_IgemmRequant's GOPS compare.
__attribute__((target("avx512f,avx512bw,avx512vnni"), noinline)) void vnni_chains(int64_t iters,
                                                                                  int32_t* state) {
  __m512i c[16];
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) c[i] = _mm512_loadu_si512(state + 16 * i);
  for (int64_t it = 0; it < iters; ++it)
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) c[i] = _mm512_dpbusd_epi32(c[i], a, b);
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) _mm512_storeu_si512(state + 16 * i, c[i]);
}

void BM_VnniPeak(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512vnni")) {
    state.SkipWithError("needs AVX-512 VNNI");
    return;
  }
  run_peak<int32_t>(state, vnni_chains, 16 * 64 * 2, 0);
}
BENCHMARK(BM_VnniPeak)->Unit(benchmark::kMicrosecond)->UseRealTime();
#endif

// Fork/join cost of one parallel region, back to back as kernels run in a
// model: range(1) items of range(2) microseconds of busy work each. With a
// worker that joins at once, 2 items of 5 us take ~5 us; a worker that wakes
// late leaves the caller doing both (~10 us). worker_share: the fraction of
// items not run by the calling thread.
void BM_ParallelForRegion(benchmark::State& state) {
  const int threads = int(state.range(0));
  const int64_t n = state.range(1);
  const auto work = std::chrono::nanoseconds(state.range(2) * 1000);
  const auto caller = std::this_thread::get_id();
  std::atomic<int64_t> items{0}, by_workers{0};
  for (auto _ : state)
    pool_for(threads)->parallel_for(n, 1e9, [&](int64_t b, int64_t e) {
      const auto until = std::chrono::steady_clock::now() + work * (e - b);
      while (std::chrono::steady_clock::now() < until) {
      }
      items.fetch_add(e - b, std::memory_order_relaxed);
      if (std::this_thread::get_id() != caller) by_workers.fetch_add(e - b);
    });
  if (items.load() != n * int64_t(state.iterations())) state.SkipWithError("items lost");
  state.counters["worker_share"] = double(by_workers.load()) / double(std::max<int64_t>(1, items));
}

// The same inside a model run (a RunScope open, as a session holds one), where
// the workers poll between regions: what each kernel's parallel region costs
// beyond its work. Args as BM_ParallelForRegion.
void BM_ParallelForRegionInRun(benchmark::State& state) {
  tessera::ThreadPool* pool = pool_for(int(state.range(0)));
  const tessera::ThreadPool::RunScope run(pool);
  BM_ParallelForRegion(state);
}

// What the executor costs per node: a session over a chain of N nodes of one
// op on 16 floats, where the kernels' work is a few nanoseconds. Reports
// time_per_node. Args: N, op (0 Relu, 1 Add with a constant).
void BM_ChainOfSmallNodes(benchmark::State& state) {
  const int n = int(state.range(0));
  const bool add = state.range(1) == 1;
  tessera::ir::Model model;
  model.ir_version = 9;
  model.opset_imports.push_back({"", 17});
  auto info = [](const std::string& name) {
    return tessera::ir::ValueInfo{
        name,
        tessera::ir::TypeInfo::tensor(tessera::DataType::kFloat,
                                      std::vector<tessera::ir::Dim>{{1, ""}, {16, ""}}),
        ""};
  };
  model.graph.inputs.push_back(info("x"));
  tessera::Tensor c(tessera::DataType::kFloat, tessera::Shape{16});
  for (int i = 0; i < 16; ++i) c.mutable_data<float>()[i] = 0.5f;
  model.graph.initializers["c"] = c;
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    tessera::ir::Node node;
    node.name = "n" + std::to_string(i);
    node.op_type = add ? "Add" : "Relu";
    node.inputs = add ? std::vector<std::string>{prev, "c"} : std::vector<std::string>{prev};
    prev = i + 1 == n ? "y" : "t" + std::to_string(i);
    node.outputs = {prev};
    model.graph.nodes.push_back(node);
  }
  model.graph.outputs.push_back(info("y"));
  tessera::SessionOptions options;
  options.intra_op_num_threads = 1;
  // Optimization off: nothing may fold or fuse the chain away.
  options.graph_optimization_level = tessera::GraphOptimizationLevel::kDisableAll;
  auto session = tessera::Session::create_from_model(std::move(model), options);
  tessera::Tensor x(tessera::DataType::kFloat, tessera::Shape{1, 16});
  for (int i = 0; i < 16; ++i) x.mutable_data<float>()[i] = float(i) - 8.0f;
  const std::vector<std::pair<std::string, tessera::Value>> feeds = {{"x", tessera::Value(x)}};
  for (auto _ : state) benchmark::DoNotOptimize(session->run(feeds));
  // Nodes per second, inverted: seconds per node (printed as e.g. 345n).
  state.counters["time_per_node"] = benchmark::Counter(
      double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(BM_ChainOfSmallNodes)->Args({200, 0})->Args({200, 1})->Unit(benchmark::kMicrosecond);

// Args: M, N, K, packed (0 per call, 1 A prepacked, 2 B prepacked, 3 B transposed), threads.
BENCHMARK(BM_Sgemm)
    ->Args({1024, 1024, 1024, 0, 1})
    ->Args({1024, 1024, 1024, 1, 1})
    ->Args({1024, 1024, 1024, 1, 2})
    ->Args({1024, 1024, 1024, 2, 1})
    ->Args({1024, 1024, 1024, 0, 2})
    ->Args({150, 1024, 12544, 2, 1})  // fasterrcnn_mbv3's box head fc6
    // BERT-base seq 128: the attention projections (one and fused QKV) and the
    // FFN, B per call vs prepacked; one head's Q K^T and P V.
    ->Args({128, 768, 768, 0, 1})
    ->Args({128, 768, 768, 2, 1})
    ->Args({128, 2304, 768, 2, 1})
    ->Args({128, 3072, 768, 0, 1})
    ->Args({128, 3072, 768, 2, 1})
    ->Args({128, 768, 3072, 2, 1})
    ->Args({128, 128, 64, 3, 1})
    ->Args({128, 64, 128, 0, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Args: M (output channels), K (taps x input channels), N (positions),
// pack B per call, threads: ResNet-50's 3x3 layers (filters x im2col) and
// 1x1 layers, stage by stage.
BENCHMARK(BM_IgemmRequant)
    ->Args({64, 576, 3136, 0, 1})
    ->Args({128, 1152, 784, 0, 1})
    ->Args({256, 2304, 196, 0, 1})
    ->Args({512, 4608, 49, 0, 1})
    ->Args({256, 64, 3136, 1, 1})
    ->Args({64, 256, 3136, 1, 1})
    ->Args({512, 128, 784, 1, 1})
    ->Args({256, 1024, 196, 1, 1})
    ->Args({2048, 512, 49, 1, 1})
    ->Args({512, 2048, 49, 1, 1})
    ->Args({96, 16, 12544, 1, 1})  // MobileNetV2's first expanding layer
    ->Args({128, 256, 3136, 1, 1})
    ->Args({128, 512, 784, 1, 1})
    ->Args({256, 512, 784, 1, 1})
    ->Args({256, 64, 3136, 0, 1})
    ->Args({64, 256, 3136, 0, 1})
    ->Args({2048, 512, 49, 0, 1})
    ->Args({128, 1152, 784, 0, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Args: C, H, M, kernel, stride, threads: ResNet-50's 8-bit layers.
BENCHMARK(BM_IgemmConv)
    ->Args({64, 56, 64, 3, 1, 1})
    ->Args({128, 28, 128, 3, 1, 1})
    ->Args({256, 14, 256, 3, 1, 1})
    ->Args({512, 7, 512, 3, 1, 1})
    ->Args({64, 56, 256, 1, 1, 1})
    ->Args({256, 56, 64, 1, 1, 1})
    ->Args({128, 28, 512, 1, 1, 1})
    ->Args({1024, 14, 256, 1, 1, 1})
    ->Args({512, 7, 2048, 1, 1, 1})
    ->Args({2048, 7, 512, 1, 1, 1})
    ->Args({1024, 14, 2048, 1, 2, 1})
    ->Args({256, 56, 128, 1, 1, 1})
    ->Args({512, 28, 128, 1, 1, 1})
    ->Args({512, 28, 256, 1, 1, 1})
    ->Args({128, 28, 128, 3, 1, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Args: C, H, M, kernel, stride, threads (ResNet-50 and MobileNetV2 layers).
BENCHMARK(BM_Conv)
    ->Args({3, 224, 64, 7, 2, 1})     // ResNet stem
    ->Args({64, 56, 64, 3, 1, 1})     // ResNet layer1 3x3
    ->Args({64, 56, 256, 1, 1, 1})    // ResNet layer1 1x1 expand
    ->Args({256, 56, 64, 1, 1, 1})    // ResNet layer1 1x1 reduce
    ->Args({128, 28, 128, 3, 1, 1})   // ResNet layer2 3x3
    ->Args({256, 14, 256, 3, 1, 1})   // ResNet layer3 3x3
    ->Args({1024, 14, 256, 1, 1, 1})  // ResNet layer3 1x1 reduce
    ->Args({512, 7, 512, 3, 1, 1})    // ResNet layer4 3x3
    ->Args({512, 7, 2048, 1, 1, 1})   // ResNet layer4 1x1 expand
    ->Args({64, 56, 64, 3, 1, 2})     // ResNet layer1 3x3, 2 threads
    ->Args({24, 56, 144, 1, 1, 1})    // MobileNetV2 expand
    ->Args({144, 56, 24, 1, 1, 1})    // MobileNetV2 project
    ->Args({960, 7, 160, 1, 1, 1})    // MobileNetV2 late project
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Args: C, D, H, M, k, stride, threads (R3D-18 at 16 x 112 x 112).
BENCHMARK(BM_ConvBlocked3d)
    ->Args({3, 16, 112, 64, 7, 2, 1})
    ->Args({64, 16, 56, 64, 3, 1, 1})
    ->Args({64, 16, 56, 128, 3, 2, 1})
    ->Args({128, 8, 28, 128, 3, 1, 1})
    ->Args({256, 4, 14, 256, 3, 1, 1})
    ->Args({512, 2, 7, 512, 3, 1, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Args: C, H, M, kernel, stride, threads, depthwise (the BM_Conv / BM_Depthwise layers).
BENCHMARK(BM_ConvBlocked)
    ->Args({3, 224, 64, 7, 2, 1, 0, 0})
    ->Args({64, 56, 64, 3, 1, 1, 0, 0})
    ->Args({64, 56, 256, 1, 1, 1, 0, 0})
    ->Args({256, 56, 64, 1, 1, 1, 0, 0})
    ->Args({128, 28, 128, 3, 1, 1, 0, 0})
    ->Args({256, 14, 256, 3, 1, 1, 0, 0})
    ->Args({1024, 14, 256, 1, 1, 1, 0, 0})
    ->Args({512, 7, 512, 3, 1, 1, 0, 0})
    ->Args({512, 7, 2048, 1, 1, 1, 0, 0})
    ->Args({64, 56, 64, 3, 1, 2, 0, 0})
    ->Args({24, 56, 144, 1, 1, 1, 0, 0})
    ->Args({144, 56, 24, 1, 1, 1, 0, 0})
    ->Args({960, 7, 160, 1, 1, 1, 0, 0})
    ->Args({32, 112, 32, 3, 1, 1, 1, 0})
    ->Args({144, 56, 144, 3, 2, 1, 1, 0})
    ->Args({192, 28, 192, 3, 1, 1, 1, 0})
    ->Args({576, 14, 576, 3, 1, 1, 1, 0})
    ->Args({960, 7, 960, 3, 1, 1, 1, 0})
    ->Args({144, 56, 144, 3, 1, 2, 1, 0})
    ->Args({3, 224, 32, 3, 2, 1, 0, 0})    // MobileNetV2 stem
    ->Args({32, 112, 16, 1, 1, 1, 0, 0})   // MobileNetV2 block 1 project
    ->Args({16, 112, 96, 1, 1, 1, 0, 0})   // MobileNetV2 block 2 expand
    ->Args({96, 112, 96, 3, 2, 1, 1, 0})   // MobileNetV2 block 2 depthwise, stride 2
    ->Args({192, 28, 192, 3, 2, 1, 1, 0})  // MobileNetV2 block 7 depthwise, stride 2
    ->Args({576, 14, 576, 3, 2, 1, 1, 0})  // MobileNetV2 block 14 depthwise, stride 2
    // MNASNet's and MobileNetV3's 5x5 depthwise layers, stride 1 and 2:
    ->Args({120, 28, 120, 5, 1, 1, 1, 0})
    ->Args({480, 14, 480, 5, 1, 1, 1, 0})
    ->Args({1152, 7, 1152, 5, 1, 1, 1, 0})
    ->Args({72, 56, 72, 5, 2, 1, 1, 0})
    ->Args({576, 14, 576, 5, 2, 1, 1, 0})
    ->Args({48, 112, 48, 3, 2, 1, 1, 0})  // MNASNet block 2 depthwise, stride 2
    // Two threads on the layers that scaled worst in the per-node profile:
    ->Args({960, 7, 320, 1, 1, 1, 0, 0})  // MobileNetV2 block 17 project
    ->Args({960, 7, 320, 1, 1, 2, 0, 0})
    ->Args({960, 7, 160, 1, 1, 2, 0, 0})  // MobileNetV2 block 14 project: 5 groups of 2 blocks
    ->Args({576, 14, 96, 1, 1, 1, 0, 0})  // MobileNetV2 block 13 project
    ->Args({576, 14, 96, 1, 1, 2, 0, 0})
    ->Args({320, 7, 1280, 1, 1, 1, 0, 0})  // MobileNetV2 last 1x1
    ->Args({320, 7, 1280, 1, 1, 2, 0, 0})
    ->Args({1024, 14, 256, 1, 1, 2, 0, 0})
    ->Args({512, 7, 2048, 1, 1, 2, 0, 0})
    ->Args({3, 224, 32, 3, 2, 2, 0, 0})
    // ResNet-50's expanding 1x1 layers, with their residual:
    ->Args({64, 28, 256, 1, 1, 1, 0, 0})  // ... layer1's on a quarter of its plane (output fits L2)
    ->Args({64, 56, 256, 1, 1, 1, 0, 1})
    ->Args({128, 28, 512, 1, 1, 1, 0, 1})
    ->Args({256, 14, 1024, 1, 1, 1, 0, 1})
    ->Args({512, 7, 2048, 1, 1, 1, 0, 1})
    // The DB text detector's few-output-channel layers on large planes:
    ->Args({96, 160, 24, 3, 1, 1, 0, 0})  // smooth.0 / head.0
    ->Args({96, 160, 24, 3, 1, 2, 0, 0})
    ->Args({96, 80, 24, 3, 1, 1, 0, 0})   // smooth.1
    ->Args({16, 160, 96, 1, 1, 1, 0, 0})  // lat.0
    ->Args({16, 160, 16, 1, 1, 1, 0, 0})  // stage 0 project
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Args: threads, items, microseconds per item.
BENCHMARK(BM_ParallelForRegion)
    ->Args({2, 2, 0})
    ->Args({2, 2, 5})
    ->Args({2, 64, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_ParallelForRegionInRun)
    ->Args({2, 2, 0})
    ->Args({2, 2, 5})
    ->Args({2, 64, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Args: C, H, stride, threads.
BENCHMARK(BM_Depthwise)
    ->Args({32, 112, 1, 1})
    ->Args({144, 56, 2, 1})
    ->Args({192, 28, 1, 1})
    ->Args({576, 14, 1, 1})
    ->Args({960, 7, 1, 1})
    ->Args({144, 56, 1, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// One vector loop of linalg/vec_math.hpp over n floats in [-4, 4] (log's
// inputs in (0, 4]), one thread, in the kernel set this CPU picks (or
// TESSERA_CPU_ISA's). Args: function (see kVecFns), n.
void BM_VecMath(benchmark::State& state) {
  using Fn = void (*)(const float*, float*, int64_t);
  static const std::pair<const char*, Fn> kVecFns[] = {
      {"exp", tessera::linalg::vec_exp},           {"erf", tessera::linalg::vec_erf},
      {"tanh", tessera::linalg::vec_tanh},         {"log", tessera::linalg::vec_log},
      {"softplus", tessera::linalg::vec_softplus}, {"gelu_tanh", tessera::linalg::vec_gelu_tanh},
      {"mish", tessera::linalg::vec_mish}};
  const auto& [name, fn] = kVecFns[state.range(0)];
  const int64_t n = state.range(1);
  std::vector<float> x = random_vector(size_t(n), 5);
  std::vector<float> y(static_cast<size_t>(n));
  for (auto& v : x) v = name == std::string("log") ? 2 * v + 2.0001f : 4 * v;
  for (auto _ : state) {
    fn(x.data(), y.data(), n);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * n);
  state.SetLabel(std::string(name) + " " + tessera::linalg::vec_kernel_name());
}
BENCHMARK(BM_VecMath)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6}, {4096, 1 << 20}})
    ->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
  // --peak_gflops=X is ours; the rest goes to Google Benchmark.
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--peak_gflops=", 14) == 0)
      g_peak_gflops = std::atof(argv[i] + 14);
    else
      rest.push_back(argv[i]);
  }
  int n = int(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
