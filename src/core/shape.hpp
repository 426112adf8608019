// Concrete tensor shapes (all dims known). Symbolic dims live in ir::TypeInfo.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tessera {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  size_t rank() const { return dims_.size(); }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& dims() { return dims_; }
  // Product of dims; throws on negative dims or int64 overflow.
  int64_t num_elements() const;
  // Product of dims [begin, end).
  int64_t size_from(size_t begin) const;
  int64_t size_to(size_t end) const;
  bool operator==(const Shape& o) const { return dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return dims_ != o.dims_; }
  std::string to_string() const;  // "[1,3,224,224]"

 private:
  std::vector<int64_t> dims_;
};

// Normalises an axis in [-rank, rank) to [0, rank); throws naming `what` otherwise.
int64_t normalize_axis(int64_t axis, int64_t rank, const char* what = "axis");

}  // namespace tessera
