// How to walk a reduction, decided once per input shape: the input's dims
// are merged into alternating runs of kept and reduced dims, so every
// reduction becomes "G groups of K contiguous outputs, each reducing
// `red_offsets.size()` blocks of L contiguous inputs" with K or L equal to 1.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.hpp"

namespace tessera::cpu {

struct ReducePlan {
  Shape out_shape;        // with or without the kept 1s, per keepdims
  int64_t groups = 0;     // G
  int64_t k = 1;          // contiguous outputs per group (innermost kept run)
  int64_t l = 1;          // contiguous inputs per block (innermost reduced run)
  int64_t count = 0;      // elements reduced into each output
  std::vector<int64_t> red_offsets;  // input offset of each block, relative to a group's base
  // Kept runs except the innermost one (when k > 1): sizes and input strides.
  std::vector<int64_t> kept_sizes, kept_strides;

  // Input offset where group g starts.
  int64_t group_base(int64_t g) const {
    int64_t off = 0;
    for (size_t d = kept_sizes.size(); d-- > 0;) {
      off += (g % kept_sizes[d]) * kept_strides[d];
      g /= kept_sizes[d];
    }
    return off;
  }
};

// `reduced[i]` says whether input dim i is reduced.
ReducePlan make_reduce_plan(const Shape& in, const std::vector<bool>& reduced, bool keepdims);

}  // namespace tessera::cpu
