#include "providers/cuda/copy_plan.hpp"

#include "core/error.hpp"

namespace tessera::cuda {

namespace {

std::string dims_text(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += str_cat(i ? "," : "", d[i]);
  return s + "]";
}

}  // namespace

std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& out) {
  check(in.size() <= out.size(), "broadcast: ", dims_text(in), " has more dims than ",
        dims_text(out));
  const std::vector<int64_t> dense = dense_strides(in);
  std::vector<int64_t> s(out.size(), 0);
  const size_t lead = out.size() - in.size();
  for (size_t k = 0; k < in.size(); ++k) {
    check(in[k] == out[lead + k] || in[k] == 1, "broadcast: ", dims_text(in),
          " does not broadcast to ", dims_text(out));
    s[lead + k] = in[k] == 1 ? 0 : dense[k];
  }
  return s;
}

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

CopyPlan plan_copy(const std::vector<int64_t>& out_dims, const std::vector<CopyOperand>& operands) {
  const size_t ops = operands.size();
  check(ops >= 1 && ops <= size_t(kMaxCopyOperands), "plan_copy: ", ops, " operands");
  for (const auto& o : operands)
    check(o.strides.size() == out_dims.size(), "plan_copy: ", o.strides.size(),
          " strides for output dims ", dims_text(out_dims));
  CopyPlan p;
  if (element_count(out_dims) == 0) return p;
  // Merge from the innermost dim outwards; dims of size 1 never move a coordinate.
  std::vector<int64_t> dims;                  // innermost first
  std::vector<std::vector<int64_t>> st(ops);  // per operand, innermost first
  for (size_t k = out_dims.size(); k-- > 0;) {
    const int64_t n = out_dims[k];
    if (n == 1) continue;
    bool merge = !dims.empty();
    for (size_t o = 0; o < ops && merge; ++o)
      merge = operands[o].strides[k] == st[o].back() * dims.back();
    if (merge) {
      dims.back() *= n;
      continue;
    }
    dims.push_back(n);
    for (size_t o = 0; o < ops; ++o) st[o].push_back(operands[o].strides[k]);
  }
  if (dims.empty()) {  // a single element
    dims.push_back(1);
    for (auto& s : st) s.push_back(0);
  }
  check(dims.size() <= size_t(kMaxCopyRank), "the copy into ", dims_text(out_dims), " needs ",
        dims.size(), " dims after merging; the CUDA kernels take at most ", kMaxCopyRank);
  p.rank = int(dims.size());
  for (int d = 0; d < p.rank; ++d) {
    const size_t k = dims.size() - 1 - size_t(d);
    p.dims[d] = dims[k];
    for (size_t o = 0; o < ops; ++o) p.strides[o][d] = st[o][k];
  }
  // 32-bit index math when every count is below 2^30: an operand's offsets,
  // partial sums included, then stay within (-2^30, 2^31).
  constexpr int64_t kSmall = int64_t(1) << 30;
  p.small = element_count(out_dims) < kSmall;
  for (size_t o = 0; o < ops; ++o) {
    p.base[o] = operands[o].base;
    p.small = p.small && operands[o].elements < kSmall;
  }
  return p;
}

TilePlan plan_tiles(const CopyPlan& p) {
  TilePlan t;
  const int last = p.rank - 1;
  if (p.rank < 2 || p.base[0] != 0 || p.strides[0][last] <= 1) return t;
  int rows = -1;
  for (int d = 0; d < last; ++d) {
    if (p.strides[0][d] <= 0) return t;
    if (p.strides[0][d] == 1) rows = d;
  }
  if (rows < 0) return t;
  int64_t out_stride = 1;  // the output is dense
  std::vector<int64_t> out_strides(size_t(p.rank));
  for (int d = last; d >= 0; --d) {
    out_strides[size_t(d)] = out_stride;
    out_stride *= p.dims[d];
  }
  for (int d = 0; d < last; ++d) {
    if (d == rows) continue;
    t.batch_dims[t.batch_rank] = p.dims[d];
    t.batch_in[t.batch_rank] = p.strides[0][d];
    t.batch_out[t.batch_rank] = out_strides[size_t(d)];
    t.batch *= p.dims[d];
    ++t.batch_rank;
  }
  t.rows = p.dims[rows];
  t.cols = p.dims[last];
  t.in_col_stride = p.strides[0][last];
  t.out_row_stride = out_strides[size_t(rows)];
  t.small = p.small;
  return t;
}

}  // namespace tessera::cuda
