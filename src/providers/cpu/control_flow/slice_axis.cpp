#include "providers/cpu/control_flow/slice_axis.hpp"

#include <cstring>
#include <string>

namespace tessera::cpu {

namespace {

struct Split {
  int64_t outer, count, inner;
};

Split split_at(const Shape& s, int64_t axis) {
  return {s.size_to(size_t(axis)), s[size_t(axis)], s.size_from(size_t(axis) + 1)};
}

void copy_elems(DataType t, const void* src, int64_t src_off, void* dst, int64_t dst_off,
                int64_t n) {
  if (t == DataType::kString) {
    const auto* s = static_cast<const std::string*>(src) + src_off;
    auto* d = static_cast<std::string*>(dst) + dst_off;
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  check(!is_sub_byte_type(t), "slicing ", data_type_name(t), " tensors along an axis is not supported");
  size_t es = size_t(data_type_bits(t) / 8);
  std::memcpy(static_cast<char*>(dst) + size_t(dst_off) * es,
              static_cast<const char*>(src) + size_t(src_off) * es, size_t(n) * es);
}

}  // namespace

Tensor take_slice(const Tensor& t, int64_t axis, int64_t index) {
  check(axis >= 0 && size_t(axis) < t.rank(), "axis ", axis, " out of range for ", t.description());
  Split sp = split_at(t.shape(), axis);
  check(index >= 0 && index < sp.count, "index ", index, " out of range along axis ", axis, " of ",
        t.description());
  auto dims = t.shape().dims();
  dims.erase(dims.begin() + axis);
  Tensor out(t.dtype(), Shape(dims));
  for (int64_t o = 0; o < sp.outer; ++o)
    copy_elems(t.dtype(), t.raw_data(), (o * sp.count + index) * sp.inner, out.mutable_raw_data(),
               o * sp.inner, sp.inner);
  return out;
}

void put_slice(Tensor& dst, int64_t axis, int64_t index, const Tensor& src) {
  Split sp = split_at(dst.shape(), axis);
  auto dims = dst.shape().dims();
  dims.erase(dims.begin() + axis);
  check(src.shape() == Shape(dims) && src.dtype() == dst.dtype(), "slice ", src.description(),
        " does not fit ", dst.description(), " along axis ", axis);
  check(index >= 0 && index < sp.count, "index ", index, " out of range");
  for (int64_t o = 0; o < sp.outer; ++o)
    copy_elems(dst.dtype(), src.raw_data(), o * sp.inner, dst.mutable_raw_data(),
               (o * sp.count + index) * sp.inner, sp.inner);
}

}  // namespace tessera::cpu
