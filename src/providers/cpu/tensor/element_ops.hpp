// Type-generic element movement for the shape and data-movement kernels.
// Elements move by storage size, never by meaning: 1/2/4/8/16-byte PODs,
// std::string (copy-assigned), and packed sub-byte types (widened to one byte
// per element while a kernel works on them). One copy of each loop serves
// every element type the spec allows.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/float16.hpp"
#include "core/tensor.hpp"
#include "core/tensor_ints.hpp"
#include "core/thread_pool.hpp"

namespace tessera::cpu {

struct Pod16 {
  uint64_t lo, hi;
};

template <typename T>
struct Tag {
  using type = T;
};

// Calls fn(Tag<T>{}) with T the storage type of `t` (not for sub-byte types).
template <typename Fn>
void dispatch_storage(DataType t, Fn&& fn) {
  if (t == DataType::kString) return fn(Tag<std::string>{});
  switch (data_type_bits(t)) {
    case 8:
      return fn(Tag<uint8_t>{});
    case 16:
      return fn(Tag<uint16_t>{});
    case 32:
      return fn(Tag<uint32_t>{});
    case 64:
      return fn(Tag<uint64_t>{});
    case 128:
      return fn(Tag<Pod16>{});
    default:
      break;
  }
  fail(ErrorCode::kNotImplemented, "no storage mover for element type ", data_type_name(t));
}

// Calls fn(Tag<T>{}) for the arithmetic element types (float16/bfloat16 as
// their storage structs, which convert to float); throws for the others.
template <typename Fn>
void dispatch_numeric(DataType t, const char* what, Fn&& fn) {
  switch (t) {
    case DataType::kFloat:
      return fn(Tag<float>{});
    case DataType::kDouble:
      return fn(Tag<double>{});
    case DataType::kFloat16:
      return fn(Tag<Float16>{});
    case DataType::kBFloat16:
      return fn(Tag<BFloat16>{});
    case DataType::kInt8:
      return fn(Tag<int8_t>{});
    case DataType::kInt16:
      return fn(Tag<int16_t>{});
    case DataType::kInt32:
      return fn(Tag<int32_t>{});
    case DataType::kInt64:
      return fn(Tag<int64_t>{});
    case DataType::kUInt8:
      return fn(Tag<uint8_t>{});
    case DataType::kUInt16:
      return fn(Tag<uint16_t>{});
    case DataType::kUInt32:
      return fn(Tag<uint32_t>{});
    case DataType::kUInt64:
      return fn(Tag<uint64_t>{});
    case DataType::kBool:
      return fn(Tag<bool>{});
    default:
      break;
  }
  fail(ErrorCode::kNotImplemented, what, ": element type ", data_type_name(t), " is not supported");
}

// Arithmetic type used to compute on T (float for the 16-bit floats).
template <typename T>
struct AccOf {
  using type = T;
};
template <>
struct AccOf<Float16> {
  using type = float;
};
template <>
struct AccOf<BFloat16> {
  using type = float;
};
template <typename T>
using Acc = typename AccOf<T>::type;

// Copies n elements src[si..] to dst[di..] (same element type, any type).
void copy_elems(const Tensor& src, int64_t si, Tensor& dst, int64_t di, int64_t n);
// One copy_elems call: n elements from src[from] to dst[to].
struct CopyRun {
  const Tensor* src;
  int64_t from;
  Tensor* dst;
  int64_t to, n;
};
// Runs the copies (their destinations must not overlap), cut into pieces
// the pool's threads share when they are large: a copy on one thread left
// the data in that core's cache for the next layer's threads to fetch.
// Strings and sub-byte types copy whole on the calling thread.
void copy_runs(const std::vector<CopyRun>& runs, ThreadPool& pool);
// Sets every element of dst to the single element of `value` (same type).
void fill_elems(Tensor& dst, const Tensor& value);
// A scalar of type t holding v (numeric, bool, float8, sub-byte; strings get "").
Tensor make_scalar(DataType t, double v);

// One byte per element holding the raw bit pattern of a sub-byte tensor, and back.
Tensor unpack_sub_byte(const Tensor& t);
void pack_sub_byte(const Tensor& wide, Tensor& dst);

// Runs fn(src, dst) on byte-addressable views: sub-byte tensors go through
// widened temporaries so kernels never address half a byte.
template <typename Fn>
void with_byte_storage(const Tensor& src, Tensor& dst, Fn&& fn) {
  if (!is_sub_byte_type(src.dtype())) {
    fn(src, dst);
    return;
  }
  Tensor ws = unpack_sub_byte(src);
  Tensor wd(DataType::kUInt8, dst.shape());
  fn(static_cast<const Tensor&>(ws), wd);
  pack_sub_byte(wd, dst);
}

// Runs fn(const T* src, T* dst) with T the storage type (sub-byte types widened).
template <typename Fn>
void visit_storage(const Tensor& src, Tensor& dst, Fn&& fn) {
  with_byte_storage(src, dst, [&](const Tensor& s, Tensor& d) {
    dispatch_storage(s.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      fn(static_cast<const T*>(s.raw_data()), static_cast<T*>(d.mutable_raw_data()));
    });
  });
}

// Output offset tables, one per output axis: entry i of table k is what
// output coordinate i on axis k adds to the input element offset, or
// kFillOffset when that output position takes the fill value instead.
constexpr int64_t kFillOffset = INT64_MIN;
using AxisMaps = std::vector<std::vector<int64_t>>;

// dst[i0,...,in] = src[sum_k maps[k][ik]] (or *fill). Any element type;
// `fill` is a scalar of the same type, needed only when a map holds kFillOffset.
void copy_by_axis_maps(const Tensor& src, Tensor& dst, const AxisMaps& maps, const Tensor* fill,
                       ThreadPool& pool);

// Every element type except the packed sub-byte ones.
const std::vector<DataType>& byte_types();

// Row-major strides of a shape, in elements.
std::vector<int64_t> strides_of(const Shape& s);

}  // namespace tessera::cpu
