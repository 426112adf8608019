// Two-operand Einsum lowered to C[batch] = op(A[batch]) * op(B[batch]).
// Each operand's labels fall into groups (batch, rows, cols); a group whose
// axes merge into one strided dimension lets sgemm read the operand in
// place, with the transposed flag when the contracted group is the outer one.
// Batch axes may have any strides (broadcast ones are 0), so only an operand
// whose groups do not merge is copied, and only an output whose product does
// not land in place goes through a temporary.
#include "providers/cpu/transformer/einsum_gemm.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "linalg/gemm.hpp"

namespace tessera::cpu {

namespace {

using Labels = std::vector<int>;
using Strides = std::vector<int64_t>;  // per label id; 0 where absent or broadcast

// One operand as a matrix: element (r, c) at r * row + c * col, one of the
// two strides being 1.
struct MatrixView {
  bool trans = false;  // stored as cols x rows
  int64_t ld = 0;
};

// The stride of a group of labels taken as one dimension, in this order; -1
// when the group is effectively size 1 (any stride serves); nullopt when the
// axes do not merge.
std::optional<int64_t> merged_stride(const Labels& group, const Strides& s,
                                     const std::vector<int64_t>& dim) {
  int64_t prev = -1, stride = -1;
  for (int l : group) {
    if (dim[size_t(l)] == 1) continue;
    if (prev >= 0 && s[size_t(prev)] != s[size_t(l)] * dim[size_t(l)]) return std::nullopt;
    prev = l;
    stride = s[size_t(l)];
  }
  return stride;
}

int64_t group_size(const Labels& group, const std::vector<int64_t>& dim) {
  int64_t n = 1;
  for (int l : group) n *= dim[size_t(l)];
  return n;
}

std::optional<MatrixView> view(const Labels& rows, const Labels& cols, const Strides& s,
                               const std::vector<int64_t>& dim) {
  auto rs = merged_stride(rows, s, dim), cs = merged_stride(cols, s, dim);
  if (!rs || !cs) return std::nullopt;
  if (*cs == 1 || *cs == -1) return MatrixView{false, *rs == -1 ? group_size(cols, dim) : *rs};
  if (*rs == 1 || *rs == -1) return MatrixView{true, *cs};
  return std::nullopt;
}

// Copies src (strides per label) into dst laid out densely in `order`.
void gather(const float* src, const Strides& s, const Labels& order,
            const std::vector<int64_t>& dim, float* dst) {
  if (order.empty()) {
    *dst = *src;
    return;
  }
  const size_t n = order.size();
  const int64_t inner = dim[size_t(order[n - 1])], inner_s = s[size_t(order[n - 1])];
  std::vector<int64_t> idx(n - 1, 0);
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < n; ++i) rows *= dim[size_t(order[i])];
  int64_t off = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < inner; ++j) dst[j] = src[off + j * inner_s];
    dst += inner;
    for (size_t i = n - 1; i-- > 0;) {
      const int l = order[i];
      off += s[size_t(l)];
      if (++idx[i] < dim[size_t(l)]) break;
      off -= s[size_t(l)] * dim[size_t(l)];
      idx[i] = 0;
    }
  }
}

// Dense strides of a buffer laid out in `order`.
Strides dense_strides(const Labels& order, const std::vector<int64_t>& dim) {
  Strides s(dim.size(), 0);
  int64_t st = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const int l = order[i];
    if (dim[size_t(l)] != 1) s[size_t(l)] = st;
    st *= dim[size_t(l)];
  }
  return s;
}

Labels concat(std::initializer_list<const Labels*> parts) {
  Labels r;
  for (const Labels* p : parts) r.insert(r.end(), p->begin(), p->end());
  return r;
}

// Labels of `from` that are in `set`, in from's order.
Labels in_order(const Labels& from, const std::vector<char>& set) {
  Labels r;
  for (int l : from)
    if (set[size_t(l)]) r.push_back(l);
  return r;
}

// A choice of group orders and what it costs in copied elements.
struct Layout {
  Labels m, k, n;
  std::optional<MatrixView> va, vb, vc;
  int64_t cost = 0;
};

// Computes per batch offsets of the three operands.
void batch_offsets(const Labels& batch, const std::vector<int64_t>& dim,
                   const std::array<const Strides*, 3>& s, std::array<Strides, 3>& off) {
  int64_t nbatch = group_size(batch, dim);
  for (auto& o : off) o.assign(size_t(nbatch), 0);
  std::vector<int64_t> idx(batch.size(), 0);
  std::array<int64_t, 3> cur{0, 0, 0};
  for (int64_t bi = 0; bi < nbatch; ++bi) {
    for (size_t t = 0; t < 3; ++t) off[t][size_t(bi)] = cur[t];
    for (size_t i = batch.size(); i-- > 0;) {
      const int l = batch[i];
      for (size_t t = 0; t < 3; ++t) cur[t] += (*s[t])[size_t(l)];
      if (++idx[i] < dim[size_t(l)]) break;
      for (size_t t = 0; t < 3; ++t) cur[t] -= (*s[t])[size_t(l)] * dim[size_t(l)];
      idx[i] = 0;
    }
  }
}

// Label strides of an operand; false when a non-batch axis broadcasts or a
// label repeats (a diagonal).
bool operand_strides(const EinsumTerm& t, const std::vector<int64_t>& dim,
                     const std::vector<char>& is_batch, Strides& s) {
  s.assign(dim.size(), 0);
  std::vector<char> seen(dim.size(), 0);
  const Shape& shape = t.tensor->shape();
  int64_t st = 1;
  for (size_t i = t.labels->size(); i-- > 0;) {
    const int l = (*t.labels)[i];
    if (seen[size_t(l)]) return false;
    seen[size_t(l)] = 1;
    if (shape[i] != dim[size_t(l)] && !is_batch[size_t(l)]) return false;
    if (shape[i] != 1) s[size_t(l)] = st;
    st *= shape[i];
  }
  return true;
}

// The group orders (each group as in one of the terms that hold it) that
// copy the fewest elements.
Layout cheapest_layout(const EinsumTerm& a, const EinsumTerm& b, const Labels& out,
                       const std::vector<int64_t>& dim,
                       const std::array<const std::vector<char>*, 3>& mkn, const Strides& sa,
                       const Strides& sb, const Strides& sc, int64_t out_size) {
  Layout best;
  best.cost = -1;
  for (const Labels* mo : {a.labels, &out})
    for (const Labels* ko : {a.labels, b.labels})
      for (const Labels* no : {b.labels, &out}) {
        Layout c{
            in_order(*mo, *mkn[0]), in_order(*ko, *mkn[1]), in_order(*no, *mkn[2]), {}, {}, {}, 0};
        c.va = view(c.m, c.k, sa, dim);
        c.vb = view(c.k, c.n, sb, dim);
        c.vc = view(c.m, c.n, sc, dim);
        if (c.vc && c.vc->trans) c.vc.reset();  // sgemm writes C with unit column stride
        c.cost = (c.va ? 0 : a.tensor->num_elements()) + (c.vb ? 0 : b.tensor->num_elements()) +
                 (c.vc ? 0 : out_size);
        if (best.cost < 0 || c.cost < best.cost) best = std::move(c);
      }
  return best;
}

}  // namespace

bool einsum_as_gemm(ep::KernelContext& ctx, const EinsumTerm& a, const EinsumTerm& b,
                    const Labels& out, const std::vector<int64_t>& dim) {
  if (a.tensor->dtype() != DataType::kFloat || b.tensor->dtype() != DataType::kFloat) return false;
  const size_t nl = dim.size();
  std::vector<char> in_a(nl, 0), in_b(nl, 0), in_o(nl, 0);
  for (int l : *a.labels) in_a[size_t(l)] = 1;
  for (int l : *b.labels) in_b[size_t(l)] = 1;
  for (int l : out) in_o[size_t(l)] = 1;
  std::vector<char> is_batch(nl, 0), is_k(nl, 0), is_m(nl, 0), is_n(nl, 0);
  for (size_t l = 0; l < nl; ++l) {
    if (!in_a[l] && !in_b[l]) continue;
    if (in_a[l] && in_b[l])
      (in_o[l] ? is_batch : is_k)[l] = 1;
    else if (!in_o[l])
      return false;  // summed within one operand
    else
      (in_a[l] ? is_m : is_n)[l] = 1;
  }
  Strides sa, sb;
  if (!operand_strides(a, dim, is_batch, sa) || !operand_strides(b, dim, is_batch, sb))
    return false;

  std::vector<int64_t> od;
  for (int l : out) od.push_back(dim[size_t(l)]);
  Tensor& y = ctx.output(0, Shape(od), DataType::kFloat);
  const Strides sc = dense_strides(out, dim);
  const Labels batch = in_order(out, is_batch);
  const int64_t nbatch = group_size(batch, dim);
  float* yp = y.mutable_data<float>();
  const int64_t M = group_size(in_order(out, is_m), dim), N = group_size(in_order(out, is_n), dim),
                K = group_size(in_order(*a.labels, is_k), dim);
  if (nbatch * M * N == 0) return true;
  if (K == 0) {
    std::fill(yp, yp + nbatch * M * N, 0.f);
    return true;
  }

  Layout best = cheapest_layout(a, b, out, dim, {&is_m, &is_k, &is_n}, sa, sb, sc, nbatch * M * N);
  std::vector<float> abuf, bbuf, cbuf;
  const float* ap = a.tensor->data<float>();
  const float* bp = b.tensor->data<float>();
  if (!best.va) {
    const Labels order = concat({&batch, &best.m, &best.k});
    abuf.resize(size_t(nbatch * M * K));
    gather(ap, sa, order, dim, abuf.data());
    sa = dense_strides(order, dim);
    ap = abuf.data();
    best.va = view(best.m, best.k, sa, dim);
  }
  if (!best.vb) {
    const Labels order = concat({&batch, &best.k, &best.n});
    bbuf.resize(size_t(nbatch * K * N));
    gather(bp, sb, order, dim, bbuf.data());
    sb = dense_strides(order, dim);
    bp = bbuf.data();
    best.vb = view(best.k, best.n, sb, dim);
  }
  Strides sc_run = sc;
  float* cp = yp;
  const Labels c_order = concat({&batch, &best.m, &best.n});
  if (!best.vc) {
    cbuf.resize(size_t(nbatch * M * N));
    sc_run = dense_strides(c_order, dim);
    cp = cbuf.data();
    best.vc = view(best.m, best.n, sc_run, dim);
  }

  std::array<Strides, 3> off;
  batch_offsets(batch, dim, {&sa, &sb, &sc_run}, off);
  const MatrixView va = *best.va, vb = *best.vb, vc = *best.vc;
  auto product = [&](int64_t bi, ThreadPool* pool) {
    linalg::sgemm(va.trans, vb.trans, M, N, K, 1.f, ap + off[0][size_t(bi)], va.ld,
                  bp + off[1][size_t(bi)], vb.ld, 0.f, cp + off[2][size_t(bi)], vc.ld, pool);
  };
  ThreadPool* pool = &ctx.thread_pool();
  if (double(M) * double(N) * double(K) >= 1e5 || nbatch == 1) {
    for (int64_t bi = 0; bi < nbatch; ++bi) product(bi, pool);
  } else {  // many small products: one per task
    pool->parallel_for(nbatch, 2.0 * double(M) * double(N) * double(K),
                       [&](int64_t b0, int64_t b1) {
                         for (int64_t bi = b0; bi < b1; ++bi) product(bi, nullptr);
                       });
  }
  if (cp != yp) {
    // The temporary is dense in c_order; read it in the output's order.
    Strides st(nl, 0);
    const Strides dense = dense_strides(c_order, dim);
    for (int l : out) st[size_t(l)] = dense[size_t(l)];
    gather(cp, st, out, dim, yp);
  }
  return true;
}

}  // namespace tessera::cpu
