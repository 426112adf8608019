#include "providers/cpu/quant/element_io.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/float8.hpp"

namespace tessera::cpu {

namespace {

template <typename S, typename T>
void copy_in(const void* src, T* dst, int64_t n) {
  const S* s = static_cast<const S*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = T(s[i]);
}

template <typename D, typename T>
void copy_out_float(void* dst, const T* src, int64_t n) {
  D* d = static_cast<D*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = D(src[i]);
}

template <typename D, typename T>
void copy_out_int(void* dst, const T* src, int64_t n) {
  D* d = static_cast<D*>(dst);
  const double lo = double(std::numeric_limits<D>::lowest());
  const double hi = double(std::numeric_limits<D>::max());
  for (int64_t i = 0; i < n; ++i) {
    double v = double(src[i]);
    if (std::isnan(v)) v = 0;
    d[i] = v <= lo ? std::numeric_limits<D>::lowest()
                   : v >= hi ? std::numeric_limits<D>::max() : D(v);
  }
}

}  // namespace

void integer_range(DataType t, double* lo, double* hi) {
  switch (t) {
    case DataType::kUInt8: *lo = 0, *hi = 255; return;
    case DataType::kInt8: *lo = -128, *hi = 127; return;
    case DataType::kUInt16: *lo = 0, *hi = 65535; return;
    case DataType::kInt16: *lo = -32768, *hi = 32767; return;
    case DataType::kInt32: *lo = -2147483648.0, *hi = 2147483647.0; return;
    case DataType::kUInt32: *lo = 0, *hi = 4294967295.0; return;
    case DataType::kUInt4: *lo = 0, *hi = 15; return;
    case DataType::kInt4: *lo = -8, *hi = 7; return;
    case DataType::kUInt2: *lo = 0, *hi = 3; return;
    case DataType::kInt2: *lo = -2, *hi = 1; return;
    case DataType::kInt64: *lo = -9.2233720368547758e18, *hi = 9.2233720368547758e18; return;
    case DataType::kUInt64: *lo = 0, *hi = 1.8446744073709552e19; return;
    default: *lo = -INFINITY, *hi = INFINITY; return;
  }
}

template <typename T>
std::vector<T> read_as(const Tensor& t) {
  const int64_t n = t.num_elements();
  std::vector<T> out(size_t(n > 0 ? n : 0));
  const void* p = t.raw_data();
  switch (t.dtype()) {
    case DataType::kFloat: copy_in<float>(p, out.data(), n); break;
    case DataType::kDouble: copy_in<double>(p, out.data(), n); break;
    case DataType::kFloat16: copy_in<Float16>(p, out.data(), n); break;
    case DataType::kBFloat16: copy_in<BFloat16>(p, out.data(), n); break;
    case DataType::kUInt8: copy_in<uint8_t>(p, out.data(), n); break;
    case DataType::kInt8: copy_in<int8_t>(p, out.data(), n); break;
    case DataType::kUInt16: copy_in<uint16_t>(p, out.data(), n); break;
    case DataType::kInt16: copy_in<int16_t>(p, out.data(), n); break;
    case DataType::kInt32: copy_in<int32_t>(p, out.data(), n); break;
    case DataType::kInt64: copy_in<int64_t>(p, out.data(), n); break;
    case DataType::kUInt32: copy_in<uint32_t>(p, out.data(), n); break;
    case DataType::kUInt64: copy_in<uint64_t>(p, out.data(), n); break;
    case DataType::kBool: copy_in<bool>(p, out.data(), n); break;
    default:
      check(is_float_type(t.dtype()) || is_sub_byte_type(t.dtype()),
            "cannot read ", t.description(), " as a number");
      for (int64_t i = 0; i < n; ++i) out[size_t(i)] = T(small_type_to_float(t.dtype(), p, i));
  }
  return out;
}

template <typename T>
void write_from(Tensor& t, const T* v, bool saturate) {
  const int64_t n = t.num_elements();
  void* p = t.mutable_raw_data();
  switch (t.dtype()) {
    case DataType::kFloat: copy_out_float<float>(p, v, n); break;
    case DataType::kDouble: copy_out_float<double>(p, v, n); break;
    case DataType::kFloat16: {
      auto* d = static_cast<Float16*>(p);
      for (int64_t i = 0; i < n; ++i) d[i] = Float16(float(v[i]));
      break;
    }
    case DataType::kBFloat16: {
      auto* d = static_cast<BFloat16*>(p);
      for (int64_t i = 0; i < n; ++i) d[i] = BFloat16(float(v[i]));
      break;
    }
    case DataType::kUInt8: copy_out_int<uint8_t>(p, v, n); break;
    case DataType::kInt8: copy_out_int<int8_t>(p, v, n); break;
    case DataType::kUInt16: copy_out_int<uint16_t>(p, v, n); break;
    case DataType::kInt16: copy_out_int<int16_t>(p, v, n); break;
    case DataType::kInt32: copy_out_int<int32_t>(p, v, n); break;
    case DataType::kInt64: copy_out_int<int64_t>(p, v, n); break;
    case DataType::kUInt32: copy_out_int<uint32_t>(p, v, n); break;
    case DataType::kUInt64: copy_out_int<uint64_t>(p, v, n); break;
    case DataType::kBool: {
      auto* d = static_cast<bool*>(p);
      for (int64_t i = 0; i < n; ++i) d[i] = v[i] != T(0);
      break;
    }
    default:
      check(is_float_type(t.dtype()) || is_sub_byte_type(t.dtype()),
            "cannot write numbers into ", t.description());
      if (is_sub_byte_type(t.dtype()) && !is_float_type(t.dtype())) {
        for (int64_t i = 0; i < n; ++i)
          set_packed_int(t.dtype(), p, i, int32_t(std::trunc(std::fmax(-1e6, std::fmin(1e6, double(v[i]))))));
      } else {
        for (int64_t i = 0; i < n; ++i) small_type_from_float(t.dtype(), p, i, float(v[i]), saturate);
      }
  }
}

template std::vector<float> read_as<float>(const Tensor&);
template std::vector<double> read_as<double>(const Tensor&);
template void write_from<float>(Tensor&, const float*, bool);
template void write_from<double>(Tensor&, const double*, bool);

}  // namespace tessera::cpu
