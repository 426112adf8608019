#include "core/tensor.hpp"

#include <complex>
#include <cstring>

#include "core/float8.hpp"

namespace tessera {

Tensor::Tensor(DataType dtype, Shape shape, const std::shared_ptr<Allocator>& alloc)
    : dtype_(dtype), shape_(std::move(shape)) {
  check(dtype != DataType::kUndefined, "cannot create a tensor of undefined type");
  num_elements_ = shape_.num_elements();
  size_t bytes = data_type_storage_bytes(dtype_, size_t(num_elements_));
  if (dtype_ == DataType::kString) {
    check(alloc->info().host_accessible(), "string tensors must live in host memory");
    buffer_ = std::make_shared<Buffer>(alloc, bytes);
    auto* s = static_cast<std::string*>(buffer_->data());
    for (int64_t i = 0; i < num_elements_; ++i) new (&s[i]) std::string();
    int64_t n = num_elements_;
    buffer_->set_destroy([n](void* p) {
      auto* str = static_cast<std::string*>(p);
      for (int64_t i = 0; i < n; ++i) str[i].~basic_string();
    });
  } else {
    buffer_ = std::make_shared<Buffer>(alloc, bytes);
  }
}

Tensor::Tensor(DataType dtype, Shape shape, std::shared_ptr<Buffer> buffer, size_t byte_offset)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)), offset_(byte_offset) {
  num_elements_ = shape_.num_elements();
  size_t need = data_type_storage_bytes(dtype_, size_t(num_elements_));
  check(buffer_ && offset_ <= buffer_->size() && need <= buffer_->size() - offset_,
        "tensor view of ", need, " bytes does not fit its buffer");
}

Tensor Tensor::metadata_only(DataType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.num_elements_ = t.shape_.num_elements();
  return t;
}

void Tensor::data_released() const {
  fail(ErrorCode::kRuntimeException, "the data of ", description(),
       " was given back after its readers packed it at session creation; only its type and "
       "shape remain");
}

const MemoryInfo& Tensor::memory_info() const {
  static const MemoryInfo cpu = cpu_memory_info();
  return buffer_ ? buffer_->info() : cpu;
}

void Tensor::check_type(DataType t) const {
  if (t != dtype_)
    fail(ErrorCode::kInvalidArgument, "tensor of type ", data_type_name(dtype_),
         " accessed as ", data_type_name(t));
}

Tensor Tensor::reshaped(Shape shape) const {
  check(shape.num_elements() == num_elements_, "cannot reshape ", description(), " to ",
        shape.to_string());
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone(const std::shared_ptr<Allocator>& alloc) const {
  if (!defined()) return Tensor();
  check(memory_info().host_accessible(), "clone() reads host memory only; ", description(),
        " lives in ", memory_info().to_string());
  Tensor t(dtype_, shape_, alloc);
  if (dtype_ == DataType::kString) {
    const auto* src = data<std::string>();
    auto* dst = t.mutable_data<std::string>();
    for (int64_t i = 0; i < num_elements_; ++i) dst[i] = src[i];
  } else if (byte_size()) {
    std::memcpy(t.mutable_raw_data(), raw_data(), byte_size());
  }
  return t;
}

std::string Tensor::description() const {
  return str_cat(data_type_name(dtype_), shape_.to_string());
}

double Tensor::element_as_double(int64_t i) const {
  // (Tested first: check() would build the description on every call.)
  if (i < 0 || i >= num_elements_)
    fail(ErrorCode::kInvalidArgument, "element index ", i, " out of range for ", description());
  const void* p = raw_data();
  switch (dtype_) {
    case DataType::kFloat: return static_cast<const float*>(p)[i];
    case DataType::kDouble: return static_cast<const double*>(p)[i];
    case DataType::kFloat16: return float(static_cast<const Float16*>(p)[i]);
    case DataType::kBFloat16: return float(static_cast<const BFloat16*>(p)[i]);
    case DataType::kUInt8: return static_cast<const uint8_t*>(p)[i];
    case DataType::kInt8: return static_cast<const int8_t*>(p)[i];
    case DataType::kUInt16: return static_cast<const uint16_t*>(p)[i];
    case DataType::kInt16: return static_cast<const int16_t*>(p)[i];
    case DataType::kInt32: return static_cast<const int32_t*>(p)[i];
    case DataType::kInt64: return double(static_cast<const int64_t*>(p)[i]);
    case DataType::kUInt32: return static_cast<const uint32_t*>(p)[i];
    case DataType::kUInt64: return double(static_cast<const uint64_t*>(p)[i]);
    case DataType::kBool: return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
    case DataType::kComplex64: return static_cast<const std::complex<float>*>(p)[i].real();
    case DataType::kComplex128: return static_cast<const std::complex<double>*>(p)[i].real();
    default:
      if (is_float_type(dtype_) || is_sub_byte_type(dtype_))
        return small_type_to_float(dtype_, p, i);
      fail(ErrorCode::kInvalidArgument, "element_as_double: unsupported type ",
           data_type_name(dtype_));
  }
}

int64_t Tensor::element_as_int64(int64_t i) const {
  // (Tested first: check() would build the description on every call.)
  if (i < 0 || i >= num_elements_)
    fail(ErrorCode::kInvalidArgument, "element index ", i, " out of range for ", description());
  const void* p = raw_data();
  switch (dtype_) {
    case DataType::kInt64: return static_cast<const int64_t*>(p)[i];
    case DataType::kInt32: return static_cast<const int32_t*>(p)[i];
    case DataType::kUInt64: return int64_t(static_cast<const uint64_t*>(p)[i]);
    default: return int64_t(element_as_double(i));
  }
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  check(rank() <= 1, "expected a scalar or 1-D tensor, got ", description());
  check(memory_info().host_accessible(), "expected a host tensor, got one in ",
        memory_info().to_string());
  std::vector<int64_t> v(static_cast<size_t>(num_elements_));
  for (int64_t i = 0; i < num_elements_; ++i) v[size_t(i)] = element_as_int64(i);
  return v;
}

}  // namespace tessera
