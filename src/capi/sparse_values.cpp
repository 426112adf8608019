// Sparse tensors as values: created empty and filled with copies (Fill*), or
// over the application's values and indices without a copy (Use*), and read
// back by format.
#include <cstring>

#include "capi/allocators.hpp"
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/value_access.hpp"

namespace tessera::capi {
namespace {

SparseTensor& sparse_of(OrtValue* v) {
  need(v, "ort_value");
  check(v->value.is_sparse(), "the value is a ", v->value.kind_name(), ", not a sparse tensor");
  return v->value.mutable_sparse();
}

const SparseTensor& sparse_of(const OrtValue* v) {
  const Value& x = val(v);
  check(x.is_sparse(), "the value is a ", x.kind_name(), ", not a sparse tensor");
  return x.sparse();
}

void check_host_source(const OrtMemoryInfo* info) {
  need(info, "data_mem_info");
  check(info->info.host_accessible(), "sparse tensors are filled from host memory; got ",
        info->info.to_string());
}

// A copy of n elements of `values` (for strings: n C strings) as `dtype`.
Tensor copy_values(DataType dtype, const Shape& shape, const void* values) {
  Tensor t(dtype, shape);
  const int64_t n = shape.num_elements();
  if (n == 0) return t;
  need(values, "values");
  if (dtype == DataType::kString) {
    const auto* strings = static_cast<const char* const*>(values);
    auto* out = t.mutable_data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      need(strings[i], "a string value");
      out[i] = strings[i];
    }
  } else {
    std::memcpy(t.mutable_raw_data(), values, t.byte_size());
  }
  return t;
}

template <typename T>
Tensor copy_indices(const T* data, size_t n, Shape shape, const char* what) {
  if (n > 0) need(data, what);
  Tensor t(data_type_of<T>(), std::move(shape));
  if (n > 0) std::memcpy(t.mutable_raw_data(), data, n * sizeof(T));
  return t;
}

// COO indices are [nnz] positions or [nnz, rank] coordinates, told apart by count.
Shape coo_indices_shape(const SparseTensor& s, size_t n) {
  const int64_t nnz = s.values.num_elements();
  const int64_t rank = int64_t(s.dense_shape.rank());
  if (int64_t(n) == nnz) return Shape({nnz});
  check(int64_t(n) == nnz * rank, "COO indices: ", n, " given for ", nnz,
        " values; want one position per value (", nnz, ") or one coordinate per dimension (",
        nnz * rank, ")");
  return Shape({nnz, rank});
}

Tensor view_indices(void* data, size_t n, Shape shape, DataType dtype, const char* what) {
  if (n > 0) need(data, what);
  const size_t bytes = data_type_storage_bytes(dtype, n);
  auto buffer = std::make_shared<Buffer>(data, bytes, cpu_memory_info(), nullptr);
  return Tensor(dtype, std::move(shape), std::move(buffer));
}

void finish(SparseTensor& s, SparseFormat format, const char* entry) {
  s.format = format;
  s.validate(entry);
}

const Tensor& indices_tensor(const SparseTensor& s, int format) {
  switch (format) {
    case ORT_SPARSE_COO_INDICES:
      check(s.format == SparseFormat::kCoo, "COO indices asked of a ", sparse_format_name(s.format),
            " sparse tensor");
      return s.indices;
    case ORT_SPARSE_CSR_INNER_INDICES:
    case ORT_SPARSE_CSR_OUTER_INDICES:
      check(s.format == SparseFormat::kCsr, "CSR indices asked of a ", sparse_format_name(s.format),
            " sparse tensor");
      return format == ORT_SPARSE_CSR_INNER_INDICES ? s.indices : s.outer;
    case ORT_SPARSE_BLOCK_SPARSE_INDICES:
      check(s.format == SparseFormat::kBlockSparse, "block sparse indices asked of a ",
            sparse_format_name(s.format), " sparse tensor");
      return s.indices;
    default:
      break;
  }
  fail(ErrorCode::kInvalidArgument, "indices_format ", format, " is not an OrtSparseIndicesFormat");
}

}  // namespace

OrtStatus* ORT_API_CALL CreateSparseTensorAsOrtValue(OrtAllocator* allocator,
                                                     const int64_t* dense_shape,
                                                     size_t dense_shape_len,
                                                     ONNXTensorElementDataType type,
                                                     OrtValue** out) noexcept {
  return guard("CreateSparseTensorAsOrtValue", [&] {
    need(allocator, "allocator");
    need(out, "out");
    SparseTensor s;
    s.dense_shape = shape_of(dense_shape, dense_shape_len);
    s.values = Tensor(from_ort_type(raw_enum(type)), Shape({0}));
    *out = new OrtValue{Value::sparse(std::move(s))};
  });
}

OrtStatus* ORT_API_CALL FillSparseTensorCoo(OrtValue* ort_value, const OrtMemoryInfo* data_mem_info,
                                            const int64_t* values_shape, size_t values_shape_len,
                                            const void* values, const int64_t* indices_data,
                                            size_t indices_num) noexcept {
  return guard("FillSparseTensorCoo", [&] {
    SparseTensor& s = sparse_of(ort_value);
    check_host_source(data_mem_info);
    SparseTensor next = s;
    next.values = copy_values(s.dtype(), shape_of(values_shape, values_shape_len), values);
    next.indices = copy_indices(indices_data, indices_num, coo_indices_shape(next, indices_num),
                                "indices_data");
    finish(next, SparseFormat::kCoo, "FillSparseTensorCoo");
    s = std::move(next);
  });
}

OrtStatus* ORT_API_CALL FillSparseTensorCsr(OrtValue* ort_value, const OrtMemoryInfo* data_mem_info,
                                            const int64_t* values_shape, size_t values_shape_len,
                                            const void* values, const int64_t* inner_indices_data,
                                            size_t inner_indices_num,
                                            const int64_t* outer_indices_data,
                                            size_t outer_indices_num) noexcept {
  return guard("FillSparseTensorCsr", [&] {
    SparseTensor& s = sparse_of(ort_value);
    check_host_source(data_mem_info);
    SparseTensor next = s;
    next.values = copy_values(s.dtype(), shape_of(values_shape, values_shape_len), values);
    next.indices = copy_indices(inner_indices_data, inner_indices_num,
                                Shape({int64_t(inner_indices_num)}), "inner_indices_data");
    next.outer = copy_indices(outer_indices_data, outer_indices_num,
                              Shape({int64_t(outer_indices_num)}), "outer_indices_data");
    finish(next, SparseFormat::kCsr, "FillSparseTensorCsr");
    s = std::move(next);
  });
}

OrtStatus* ORT_API_CALL FillSparseTensorBlockSparse(
    OrtValue* ort_value, const OrtMemoryInfo* data_mem_info, const int64_t* values_shape,
    size_t values_shape_len, const void* values, const int64_t* indices_shape_data,
    size_t indices_shape_len, const int32_t* indices_data) noexcept {
  return guard("FillSparseTensorBlockSparse", [&] {
    SparseTensor& s = sparse_of(ort_value);
    check_host_source(data_mem_info);
    SparseTensor next = s;
    next.values = copy_values(s.dtype(), shape_of(values_shape, values_shape_len), values);
    Shape ishape = shape_of(indices_shape_data, indices_shape_len);
    const size_t n = size_t(ishape.num_elements());
    next.indices = copy_indices(indices_data, n, std::move(ishape), "indices_data");
    finish(next, SparseFormat::kBlockSparse, "FillSparseTensorBlockSparse");
    s = std::move(next);
  });
}

OrtStatus* ORT_API_CALL CreateSparseTensorWithValuesAsOrtValue(
    const OrtMemoryInfo* info, void* p_data, const int64_t* dense_shape, size_t dense_shape_len,
    const int64_t* values_shape, size_t values_shape_len, ONNXTensorElementDataType type,
    OrtValue** out) noexcept {
  return guard("CreateSparseTensorWithValuesAsOrtValue", [&] {
    need(info, "info");
    need(out, "out");
    SparseTensor s;
    s.dense_shape = shape_of(dense_shape, dense_shape_len);
    const Shape vshape = shape_of(values_shape, values_shape_len);
    const int t = raw_enum(type);
    const size_t bytes = data_type_storage_bytes(from_ort_type(t), size_t(vshape.num_elements()));
    s.values = wrap(info->info, p_data, bytes, values_shape, values_shape_len, t, nullptr);
    *out = new OrtValue{Value::sparse(std::move(s))};
  });
}

OrtStatus* ORT_API_CALL UseCooIndices(OrtValue* ort_value, int64_t* indices_data,
                                      size_t indices_num) noexcept {
  return guard("UseCooIndices", [&] {
    SparseTensor& s = sparse_of(ort_value);
    SparseTensor next = s;
    next.indices = view_indices(indices_data, indices_num, coo_indices_shape(s, indices_num),
                                DataType::kInt64, "indices_data");
    finish(next, SparseFormat::kCoo, "UseCooIndices");
    s = std::move(next);
  });
}

OrtStatus* ORT_API_CALL UseCsrIndices(OrtValue* ort_value, int64_t* inner_data, size_t inner_num,
                                      int64_t* outer_data, size_t outer_num) noexcept {
  return guard("UseCsrIndices", [&] {
    SparseTensor& s = sparse_of(ort_value);
    SparseTensor next = s;
    next.indices = view_indices(inner_data, inner_num, Shape({int64_t(inner_num)}),
                                DataType::kInt64, "inner_data");
    next.outer = view_indices(outer_data, outer_num, Shape({int64_t(outer_num)}), DataType::kInt64,
                              "outer_data");
    finish(next, SparseFormat::kCsr, "UseCsrIndices");
    s = std::move(next);
  });
}

OrtStatus* ORT_API_CALL UseBlockSparseIndices(OrtValue* ort_value, const int64_t* indices_shape,
                                              size_t indices_shape_len,
                                              int32_t* indices_data) noexcept {
  return guard("UseBlockSparseIndices", [&] {
    SparseTensor& s = sparse_of(ort_value);
    SparseTensor next = s;
    Shape ishape = shape_of(indices_shape, indices_shape_len);
    const size_t n = size_t(ishape.num_elements());
    next.indices =
        view_indices(indices_data, n, std::move(ishape), DataType::kInt32, "indices_data");
    finish(next, SparseFormat::kBlockSparse, "UseBlockSparseIndices");
    s = std::move(next);
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorFormat(const OrtValue* ort_value,
                                              enum OrtSparseFormat* out) noexcept {
  return guard("GetSparseTensorFormat", [&] {
    need(out, "out");
    *out = static_cast<OrtSparseFormat>(static_cast<int>(sparse_of(ort_value).format));
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorValuesTypeAndShape(
    const OrtValue* ort_value, OrtTensorTypeAndShapeInfo** out) noexcept {
  return guard("GetSparseTensorValuesTypeAndShape", [&] {
    need(out, "out");
    const SparseTensor& s = sparse_of(ort_value);
    *out = new OrtTensorTypeAndShapeInfo(tensor_info(s.dtype(), s.values.shape()));
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorValues(const OrtValue* ort_value,
                                              const void** out) noexcept {
  return guard("GetSparseTensorValues", [&] {
    need(out, "out");
    const SparseTensor& s = sparse_of(ort_value);
    check(s.dtype() != DataType::kString,
          "string values have no raw form: read them with GetStringTensor* on a dense copy");
    *out = s.values.raw_data();
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorIndicesTypeShape(const OrtValue* ort_value,
                                                        enum OrtSparseIndicesFormat indices_format,
                                                        OrtTensorTypeAndShapeInfo** out) noexcept {
  return guard("GetSparseTensorIndicesTypeShape", [&] {
    need(out, "out");
    const Tensor& t = indices_tensor(sparse_of(ort_value), raw_enum(indices_format));
    *out = new OrtTensorTypeAndShapeInfo(tensor_info(t.dtype(), t.shape()));
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorIndices(const OrtValue* ort_value,
                                               enum OrtSparseIndicesFormat indices_format,
                                               size_t* num_indices, const void** indices) noexcept {
  return guard("GetSparseTensorIndices", [&] {
    need(num_indices, "num_indices");
    need(indices, "indices");
    const Tensor& t = indices_tensor(sparse_of(ort_value), raw_enum(indices_format));
    *num_indices = size_t(t.num_elements());
    *indices = t.raw_data();
  });
}

}  // namespace tessera::capi
