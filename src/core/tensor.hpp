// A typed, shaped view of a Buffer. Copying a Tensor shares the buffer; use
// clone() for a deep copy. Elements are dense, row-major; sub-byte types are
// packed two (4-bit) or four (2-bit) to a byte, low bits first.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.hpp"
#include "core/data_type.hpp"
#include "core/error.hpp"
#include "core/shape.hpp"

namespace tessera {

class Tensor {
 public:
  Tensor() = default;
  // Allocates uninitialised storage (strings are default-constructed).
  Tensor(DataType dtype, Shape shape,
         const std::shared_ptr<Allocator>& alloc = default_cpu_allocator());
  // Views existing memory; `buffer` keeps it alive.
  Tensor(DataType dtype, Shape shape, std::shared_ptr<Buffer> buffer, size_t byte_offset = 0);
  // Type and shape without data: what is left of a constant whose readers
  // took all they need at session creation. Reading its data fails.
  static Tensor metadata_only(DataType dtype, Shape shape);
  // False for a metadata_only tensor with elements.
  bool has_data() const { return buffer_ != nullptr || num_elements_ == 0; }

  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape) {
    Tensor t(data_type_of<T>(), std::move(shape));
    check(t.num_elements() == int64_t(values.size()), "from_vector: ", values.size(),
          " values for shape ", t.shape().to_string());
    T* d = t.mutable_data<T>();
    for (size_t i = 0; i < values.size(); ++i) d[i] = values[i];
    return t;
  }
  template <typename T>
  static Tensor scalar(T v) {
    return from_vector<T>({v}, Shape{});
  }

  bool defined() const { return dtype_ != DataType::kUndefined; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.rank(); }
  int64_t num_elements() const { return num_elements_; }
  size_t byte_size() const { return data_type_storage_bytes(dtype_, size_t(num_elements_)); }
  const MemoryInfo& memory_info() const;
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  size_t byte_offset() const { return offset_; }

  const void* raw_data() const { return ptr(); }
  void* mutable_raw_data() { return ptr(); }

  template <typename T>
  const T* data() const {
    check_type(data_type_of<T>());
    return static_cast<const T*>(ptr());
  }
  template <typename T>
  T* mutable_data() {
    check_type(data_type_of<T>());
    return static_cast<T*>(ptr());
  }
  // Same data under another shape with the same element count (no copy).
  Tensor reshaped(Shape shape) const;
  // Deep copy into host memory (or into `alloc`'s memory when it is host-accessible).
  Tensor clone(const std::shared_ptr<Allocator>& alloc = default_cpu_allocator()) const;
  std::string description() const;  // "float[1,3,224,224]"

  // Reads element i of any numeric type as double / int64 (for tests, reports, shape inputs).
  double element_as_double(int64_t i) const;
  int64_t element_as_int64(int64_t i) const;
  // Reads a 1-D (or scalar) integer tensor into a vector (e.g. shape, axes inputs).
  std::vector<int64_t> to_int64_vector() const;

 private:
  void check_type(DataType t) const;
  void* ptr() const {
    if (buffer_) return static_cast<char*>(buffer_->data()) + offset_;
    if (num_elements_ > 0) data_released();
    return nullptr;
  }
  [[noreturn]] void data_released() const;

  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  int64_t num_elements_ = 0;
  std::shared_ptr<Buffer> buffer_;
  size_t offset_ = 0;
};

}  // namespace tessera
