// Element-wise loops over broadcast inputs. The inner loops are plain indexed
// loops over contiguous memory so the compiler vectorizes them; the special
// cases (equal shapes, a scalar operand) skip the broadcast bookkeeping.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "ep/kernel.hpp"
#include "ops/broadcast.hpp"
#include "providers/cpu/math/type_dispatch.hpp"

namespace tessera::cpu {

// Opsets 1-6 of the binary ops: with broadcast=1 and `axis`, B's dims line up
// with A's starting at `axis` (ops::legacy_aligned_b, which the schema's
// shape rule also applies). Without axis the alignment is from the right.
struct LegacyBroadcast {
  std::optional<int64_t> axis;
  explicit LegacyBroadcast(const ep::KernelInfo& info) {
    if (info.opset() < 7 && info.attr_int("broadcast", 0) != 0 && info.has_attr("axis"))
      axis = info.attr_int("axis");
  }
  // B's shape as the loops index it (the output shape has checked it fits).
  Shape align_b(const Shape& a, const Shape& b) const {
    return axis ? ops::legacy_aligned_b(a, b, axis) : b;
  }
};

// Output 0 (of `shape` and `dtype`) written over the first of inputs `ins`
// this node may take over (ep::KernelContext::output_reusing: its only
// reader, same element type and byte size), else a fresh tensor. For loops
// that read each element of those inputs before writing the same flat index
// of the output: an input with as many elements as a broadcast output has
// its shape (leading 1s aside), so its flat index is the output's.
inline Tensor& output_over(ep::KernelContext& ctx, const Shape& shape, DataType dtype,
                           std::initializer_list<size_t> ins) {
  if (dtype == ctx.output_type(0) && dtype != DataType::kString)
    for (size_t in : ins)
      if (ctx.can_reuse(0, in, shape)) return ctx.output_reusing(0, in, shape);
  return ctx.output(0, shape, dtype);
}

// The inputs among `candidates` a kernel calling output_over may write output
// 0 over: those of output 0's element type, as the node's types say at
// kernel creation (the size is known only at run time). What the kernel's
// writes_over_input answers, for the plan's arena warm-up.
class OverInputs {
 public:
  OverInputs(const ep::KernelInfo& info, std::initializer_list<size_t> candidates) {
    const DataType out = info.num_outputs() > 0 ? info.output_type(0) : DataType::kUndefined;
    for (size_t i : candidates)
      if (i < info.num_inputs() && i < 32 && out != DataType::kUndefined &&
          out != DataType::kString && info.input_type(i) == out)
        mask_ |= 1u << i;
  }
  bool operator()(size_t i) const { return i < 32 && (mask_ >> i) & 1u; }

 private:
  uint32_t mask_ = 0;
};

// out[i] = f(a[ia], b[ib]) with multidirectional broadcasting.
template <typename TA, typename TB, typename TO, typename F>
void binary_broadcast(ThreadPool& pool, const TA* a, const Shape& sa, const TB* b, const Shape& sb,
                      TO* out, const Shape& so, double cost, F f) {
  const int64_t n = so.num_elements();
  if (n == 0) return;
  const int64_t na = sa.num_elements(), nb = sb.num_elements();
  if (na == n && nb == n) {
    parallel_chunks(pool, n, cost, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) out[i] = f(a[i], b[i]);
    });
    return;
  }
  if (na == 1 && nb == n) {
    const TA av = a[0];
    parallel_chunks(pool, n, cost, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) out[i] = f(av, b[i]);
    });
    return;
  }
  if (nb == 1 && na == n) {
    const TB bv = b[0];
    parallel_chunks(pool, n, cost, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) out[i] = f(a[i], bv);
    });
    return;
  }
  ops::BroadcastIndexer bi({sa, sb}, so);
  const int64_t inner = bi.inner();
  const bool va = bi.inner_stride(0) != 0, vb = bi.inner_stride(1) != 0;
  parallel_chunks(pool, bi.num_rows(), cost * double(inner), [&](int64_t r0, int64_t r1) {
    int64_t off[2];
    for (int64_t r = r0; r < r1; ++r) {
      bi.row_offsets(r, off);
      const TA* pa = a + off[0];
      const TB* pb = b + off[1];
      TO* po = out + r * inner;
      if (va && vb) {
        for (int64_t i = 0; i < inner; ++i) po[i] = f(pa[i], pb[i]);
      } else if (va) {
        const TB bv = pb[0];
        for (int64_t i = 0; i < inner; ++i) po[i] = f(pa[i], bv);
      } else if (vb) {
        const TA av = pa[0];
        for (int64_t i = 0; i < inner; ++i) po[i] = f(av, pb[i]);
      } else {
        const TO v = f(pa[0], pb[0]);
        for (int64_t i = 0; i < inner; ++i) po[i] = v;
      }
    }
  });
}

// Walks a broadcast plan in blocks of at most kBlock output elements, in
// parallel: fn(out_begin, offsets, count) where offsets[k] is input k's first
// element for the block (advancing by bi.inner_stride(k) per element). Rows
// longer than a block are split, so equal shapes (one long row) still spread.
template <typename Fn>
void for_each_block(ThreadPool& pool, const ops::BroadcastIndexer& bi, double cost, Fn&& fn) {
  constexpr int64_t kBlock = 4096;
  const int64_t inner = bi.inner();
  if (bi.num_rows() == 0 || inner == 0) return;
  const int64_t per_row = (inner + kBlock - 1) / kBlock;
  const int64_t items = bi.num_rows() * per_row;
  const size_t n_in = bi.num_inputs();
  parallel_chunks(pool, items, cost * double(std::min(inner, kBlock)), [&](int64_t s, int64_t e) {
    std::vector<int64_t> off(n_in), cur(n_in);
    int64_t last_row = -1;
    for (int64_t it = s; it < e; ++it) {
      int64_t r = it / per_row, j0 = (it % per_row) * kBlock;
      if (r != last_row) {
        bi.row_offsets(r, off.data());
        last_row = r;
      }
      for (size_t k = 0; k < n_in; ++k) cur[k] = off[k] + j0 * bi.inner_stride(k);
      fn(r * inner + j0, cur.data(), std::min(kBlock, inner - j0));
    }
  });
}

// out[i] = f(in[i]) over a flat range.
// Each chunk runs a local copy of f: the captured attributes (an alpha, a
// bound) are then values the stores to `out` cannot alias, so the compiler
// keeps them in registers instead of reloading them after every store.
template <typename TI, typename TO, typename F>
void unary_map(ThreadPool& pool, const TI* in, TO* out, int64_t n, double cost, F f) {
  parallel_chunks(pool, n, cost, [&](int64_t s, int64_t e) {
    const F g = f;
    const TI* src = in;
    TO* dst = out;
    for (int64_t i = s; i < e; ++i) dst[i] = g(src[i]);
  });
}

}  // namespace tessera::cpu
