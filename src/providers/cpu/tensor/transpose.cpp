// Transpose merges axes that stay adjacent and drops unit axes first, so
// common 4-D permutations (NCHW <-> NHWC, swapping the last two axes) become a
// batched 2-D transpose done in cache-sized tiles; anything else goes through
// the general axis-map copy.
#include "providers/cpu/tensor/transpose.hpp"

#include <algorithm>
#include <numeric>

#include "ep/op_shape.hpp"
#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

// src [B, R, C] -> dst [B, C, R], in tiles.
template <typename T>
void batched_transpose(const T* s, T* d, int64_t B, int64_t R, int64_t C, ThreadPool& pool) {
  constexpr int64_t kTile = 32;
  int64_t rt = (R + kTile - 1) / kTile;
  pool.parallel_for(B * rt, double(kTile * C), [&](int64_t begin, int64_t end) {
    for (int64_t job = begin; job < end; ++job) {
      int64_t b = job / rt, r0 = (job % rt) * kTile, r1 = std::min(R, r0 + kTile);
      const T* sb = s + b * R * C;
      T* db = d + b * R * C;
      // Each tile is transposed into a local buffer and then written out a
      // row at a time: writing it straight to the destination scatters one
      // element per destination row, and with R a multiple of a page those
      // rows all fall in one cache set, which evicts each line before its
      // neighbours arrive.
      T tile[kTile][kTile];
      for (int64_t c0 = 0; c0 < C; c0 += kTile) {
        int64_t c1 = std::min(C, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c) tile[c - c0][r - r0] = sb[r * C + c];
        // A full tile's rows copy with a constant length, which compiles to
        // a few vector moves instead of a memmove call per 32 elements.
        if (r1 - r0 == kTile) {
          for (int64_t c = c0; c < c1; ++c) {
            T* out = db + c * R + r0;
            for (int64_t i = 0; i < kTile; ++i) out[i] = tile[c - c0][i];
          }
        } else {
          for (int64_t c = c0; c < c1; ++c)
            std::copy(tile[c - c0], tile[c - c0] + (r1 - r0), db + c * R + r0);
        }
      }
    }
  });
}

}  // namespace

void transpose_into(const Tensor& x, const std::vector<int64_t>& perm, Tensor& y,
                    ThreadPool& pool) {
  const Shape& in = x.shape();
  if (y.num_elements() == 0) return;
  // Reduce: drop unit axes, then merge runs of input axes that stay consecutive.
  std::vector<int64_t> kept;  // input axes with size > 1, in output order
  for (int64_t p : perm)
    if (in[size_t(p)] != 1) kept.push_back(p);
  std::vector<int64_t> kept_sorted = kept;
  std::sort(kept_sorted.begin(), kept_sorted.end());
  auto next_kept = [&](int64_t a) {
    auto it = std::upper_bound(kept_sorted.begin(), kept_sorted.end(), a);
    return it == kept_sorted.end() ? int64_t(-1) : *it;
  };
  std::vector<std::vector<int64_t>> groups;  // output-ordered runs of adjacent input axes
  for (int64_t p : kept) {
    if (!groups.empty() && next_kept(groups.back().back()) == p)
      groups.back().push_back(p);
    else
      groups.push_back({p});
  }
  // Order of groups by their first input axis gives the reduced input layout.
  std::vector<size_t> by_input(groups.size());
  std::iota(by_input.begin(), by_input.end(), 0);
  std::sort(by_input.begin(), by_input.end(),
            [&](size_t a, size_t b) { return groups[a][0] < groups[b][0]; });
  std::vector<int64_t> rperm(groups.size());  // output group k -> reduced input axis
  std::vector<int64_t> rdims(groups.size());  // reduced input dims
  for (size_t j = 0; j < by_input.size(); ++j) {
    rperm[by_input[j]] = int64_t(j);
    int64_t n = 1;
    for (int64_t a : groups[by_input[j]]) n *= in[size_t(a)];
    rdims[j] = n;
  }
  size_t rr = rperm.size();
  bool identity = true;
  for (size_t k = 0; k < rr; ++k) identity = identity && rperm[k] == int64_t(k);
  if (identity) {
    copy_elems(x, 0, y, 0, x.num_elements());
    return;
  }
  bool swap2 = rr == 2;                                    // [1,0]
  bool swap3 = rr == 3 && rperm[0] == 0 && rperm[1] == 2;  // [0,2,1]
  if ((swap2 || swap3) && !is_sub_byte_type(x.dtype())) {
    int64_t B = swap3 ? rdims[0] : 1, R = rdims[rr - 2], C = rdims[rr - 1];
    dispatch_storage(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      batched_transpose<T>(static_cast<const T*>(x.raw_data()),
                           static_cast<T*>(y.mutable_raw_data()), B, R, C, pool);
    });
    return;
  }
  std::vector<int64_t> st = strides_of(in);
  AxisMaps maps(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) {
    int64_t n = y.shape()[k], s = st[size_t(perm[k])];
    maps[k].resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) maps[k][size_t(i)] = i * s;
  }
  copy_by_axis_maps(x, y, maps, nullptr, pool);
}

namespace {

class TransposeKernel : public OpKernel {
 public:
  explicit TransposeKernel(const KernelInfo& info)
      : shape_(info), perm_(shape_.schema().attr_ints(info.node(), "perm")) {}
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape out = shape_.output(ctx, {&x});  // checks perm
    const size_t r = x.rank();
    std::vector<int64_t> perm = perm_;
    if (perm.size() != r) {  // no perm: the axes reversed
      perm.resize(r);
      for (size_t k = 0; k < r; ++k) perm[k] = int64_t(r - 1 - k);
    }
    for (int64_t& p : perm)
      if (p < 0) p += int64_t(r);
    Tensor& y = ctx.output(0, out, x.dtype());
    transpose_into(x, perm, y, ctx.thread_pool());
  }

 private:
  ep::OpShape shape_;
  std::vector<int64_t> perm_;
};

// DepthToSpace as rows: output row (n, ch, h * b + i) is the b input rows
// (n, channel(ch, i, j), h), j < b, interleaved element by element, each read
// in order into an output row that stays in cache. As a 6-D transpose the
// innermost axis is the block, whose b elements lie a whole plane apart.
template <typename T>
void depth_to_space_rows(const T* x, T* y, int64_t N, int64_t c, int64_t H, int64_t W, int64_t b,
                         bool crd, ThreadPool& pool) {
  const int64_t plane = H * W;
  pool.parallel_for(N * c * H, double(W * b * b), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t h = r % H, nc = r / H, ch = nc % c, n = nc / c;
      for (int64_t i = 0; i < b; ++i) {
        T* out = y + ((nc * H + h) * b + i) * W * b;
        for (int64_t j = 0; j < b; ++j) {
          const int64_t chan = crd ? ch * b * b + i * b + j : (i * b + j) * c + ch;
          const T* src = x + (n * c * b * b + chan) * plane + h * W;
          for (int64_t w = 0; w < W; ++w) out[w * b + j] = src[w];
        }
      }
    }
  });
}

// DepthToSpace (DCR or CRD order) and SpaceToDepth: a 6-D transpose between reshapes.
class SpaceDepthKernel : public OpKernel {
 public:
  SpaceDepthKernel(const KernelInfo& info, bool to_space)
      : shape_(info),
        to_space_(to_space),
        block_(info.attr_int("blocksize")),
        crd_(info.attr_string("mode", "DCR") == "CRD") {
    if (block_ <= 0) info.fail_node("blocksize must be positive, got ", block_);
  }
  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    // The output shape (the schema's rule) also checks the rank, the
    // divisibility by the block and that no size overflows.
    const Shape out = shape_.output(ctx, {&x});
    const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    const int64_t b = block_;
    Shape six;
    std::vector<int64_t> perm;
    if (to_space_) {
      const int64_t c = out[1];
      six = crd_ ? Shape{N, c, b, b, H, W} : Shape{N, b, b, c, H, W};
      perm = crd_ ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
    } else {
      six = Shape{N, C, H / b, b, W / b, b};
      perm = {0, 3, 5, 1, 2, 4};
    }
    Tensor& y = ctx.output(0, out, x.dtype());
    if (to_space_ && y.num_elements() > 0 && !is_sub_byte_type(x.dtype())) {
      dispatch_storage(x.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        depth_to_space_rows<T>(static_cast<const T*>(x.raw_data()),
                               static_cast<T*>(y.mutable_raw_data()), N, out[1], H, W, b, crd_,
                               ctx.thread_pool());
      });
      return;
    }
    std::vector<int64_t> tdims(6);
    for (size_t k = 0; k < 6; ++k) tdims[k] = six[size_t(perm[k])];
    Tensor yv = y.reshaped(Shape(tdims));
    transpose_into(x.reshaped(six), perm, yv, ctx.thread_pool());
  }

 private:
  ep::OpShape shape_;
  bool to_space_;
  int64_t block_;
  bool crd_;
};

}  // namespace

void register_transpose_kernels(ep::KernelRegistry& r) {
  TypeConstraint all{"T", {0}, types::kAll};
  r.add<TransposeKernel>({"", "Transpose", 1, ep::kOpsetMax, {all}});
  r.add({"", "DepthToSpace", 1, ep::kOpsetMax, {all}},
        [](const KernelInfo& i) { return std::make_unique<SpaceDepthKernel>(i, true); });
  r.add({"", "SpaceToDepth", 1, ep::kOpsetMax, {all}},
        [](const KernelInfo& i) { return std::make_unique<SpaceDepthKernel>(i, false); });
}

}  // namespace tessera::cpu
