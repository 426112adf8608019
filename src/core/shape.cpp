#include "core/shape.hpp"

#include <limits>

#include "core/error.hpp"

namespace tessera {

static int64_t checked_product(const std::vector<int64_t>& dims, size_t b, size_t e) {
  int64_t n = 1;
  for (size_t i = b; i < e; ++i) {
    int64_t d = dims[i];
    check(d >= 0, "negative dimension ", d, " at index ", i);
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      fail(ErrorCode::kInvalidArgument, "shape element count overflows int64");
    n *= d;
  }
  return n;
}

int64_t Shape::num_elements() const { return checked_product(dims_, 0, dims_.size()); }
int64_t Shape::size_from(size_t begin) const {
  return checked_product(dims_, begin, dims_.size());
}
int64_t Shape::size_to(size_t end) const { return checked_product(dims_, 0, end); }

std::string Shape::to_string() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

int64_t normalize_axis(int64_t axis, int64_t rank, const char* what) {
  check(axis >= -rank && axis < rank, what, " ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

}  // namespace tessera
