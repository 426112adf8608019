#include "providers/cuda/broadcast_plan.hpp"

#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"

namespace tessera::cuda {

namespace {

// Input strides aligned to the output's dims (right-aligned, numpy style).
std::vector<int64_t> aligned_strides(const Shape& in, const Shape& out) {
  const size_t r = out.rank();
  std::vector<int64_t> s(r, 0);
  check(in.rank() <= r, "broadcast: ", in.to_string(), " has more dims than ", out.to_string());
  int64_t stride = 1;
  for (size_t k = 0; k < in.rank(); ++k) {
    const size_t di = in.rank() - 1 - k, d = r - 1 - k;
    const int64_t n = in[di];
    check(n == out[d] || n == 1, "broadcast: ", in.to_string(), " does not broadcast to ",
          out.to_string());
    s[d] = n == 1 ? 0 : stride;
    stride *= n;
  }
  return s;
}

}  // namespace

BroadcastPlan plan_broadcast(const Shape& a, const Shape& b, const Shape& out) {
  const std::vector<int64_t> sa = aligned_strides(a, out), sb = aligned_strides(b, out);
  // Merge from the innermost dim outwards, skipping dims of size 1.
  std::vector<int64_t> dims, ra, rb;  // innermost first
  for (size_t k = out.rank(); k-- > 0;) {
    const int64_t n = out[k];
    if (n == 0) return BroadcastPlan{};
    if (n == 1) continue;
    if (!dims.empty() && sa[k] == ra.back() * dims.back() && sb[k] == rb.back() * dims.back()) {
      dims.back() *= n;
      continue;
    }
    dims.push_back(n);
    ra.push_back(sa[k]);
    rb.push_back(sb[k]);
  }
  if (dims.empty()) {  // a single element
    dims.push_back(1);
    ra.push_back(0);
    rb.push_back(0);
  }
  check(dims.size() <= size_t(kMaxBroadcastRank), "broadcast of ", a.to_string(), " and ",
        b.to_string(), " to ", out.to_string(), " needs ", dims.size(),
        " dims after merging; the CUDA kernels take at most ", kMaxBroadcastRank);
  BroadcastPlan p;
  p.rank = int(dims.size());
  for (int d = 0; d < p.rank; ++d) {
    const size_t k = dims.size() - 1 - size_t(d);
    p.dims[d] = dims[k];
    p.strides[0][d] = ra[k];
    p.strides[1][d] = rb[k];
  }
  return p;
}

}  // namespace tessera::cuda
