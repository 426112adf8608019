#include "providers/cpu/reduce/reduce_plan.hpp"

namespace tessera::cpu {

ReducePlan make_reduce_plan(const Shape& in, const std::vector<bool>& reduced, bool keepdims) {
  ReducePlan p;
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.rank(); ++i) {
    if (!reduced[i]) out.push_back(in[i]);
    else if (keepdims) out.push_back(1);
  }
  p.out_shape = Shape(out);

  // Merge runs of same-kind dims; size-1 dims never matter for the walk.
  struct Run {
    int64_t size;
    bool red;
    int64_t stride = 0;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < in.rank(); ++i) {
    if (in[i] == 1) continue;
    if (!runs.empty() && runs.back().red == reduced[i])
      runs.back().size *= in[i];
    else
      runs.push_back({in[i], bool(reduced[i])});
  }
  int64_t stride = 1;
  for (size_t i = runs.size(); i-- > 0;) {
    runs[i].stride = stride;
    stride *= runs[i].size;
  }
  int64_t n_out = 1, n_red = 1;
  for (const Run& r : runs) (r.red ? n_red : n_out) *= r.size;
  p.count = n_red;
  size_t last = runs.size();
  if (!runs.empty()) {
    if (runs.back().red) p.l = runs.back().size;
    else p.k = runs.back().size;
    --last;
  }
  p.groups = p.k == 0 ? 0 : n_out / p.k;
  if (n_out == 0) p.groups = 0;
  // Kept runs other than the innermost one (the innermost reduced run is
  // walked by l instead of offsets).
  std::vector<int64_t> rs, rst;
  for (size_t i = 0; i < runs.size(); ++i) {
    bool innermost = i == last;
    if (runs[i].red) {
      if (!innermost) {
        rs.push_back(runs[i].size);
        rst.push_back(runs[i].stride);
      }
    } else if (!innermost) {
      p.kept_sizes.push_back(runs[i].size);
      p.kept_strides.push_back(runs[i].stride);
    }
  }
  int64_t blocks = p.l == 0 ? 0 : n_red / p.l;
  p.red_offsets.reserve(size_t(blocks));
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t rem = b, off = 0;
    for (size_t d = rs.size(); d-- > 0;) {
      off += (rem % rs[d]) * rst[d];
      rem /= rs[d];
    }
    p.red_offsets.push_back(off);
  }
  return p;
}

}  // namespace tessera::cpu
