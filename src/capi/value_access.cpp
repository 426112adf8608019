#include "capi/value_access.hpp"

#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {

Shape shape_of(const int64_t* shape, size_t shape_len) {
  if (shape_len > 0) need(shape, "shape");
  std::vector<int64_t> dims(shape, shape + shape_len);
  for (size_t i = 0; i < shape_len; ++i)
    check(dims[i] >= 0, "dimension ", i, " of the shape is negative (", dims[i], ")");
  Shape s(std::move(dims));
  s.num_elements();  // throws on overflow
  return s;
}

const Value& val(const OrtValue* v) {
  need(v, "value");
  return v->value;
}

Tensor wrap(const MemoryInfo& memory, void* p_data, size_t p_data_len, const int64_t* shape,
            size_t shape_len, int type, std::shared_ptr<void> keepalive) {
  const DataType dtype = from_ort_type(type);
  check(dtype != DataType::kString,
        "string tensors cannot view the application's memory: create one with "
        "CreateTensorAsOrtValue and fill it with FillStringTensor");
  Shape s = shape_of(shape, shape_len);
  const size_t needed = data_type_storage_bytes(dtype, static_cast<size_t>(s.num_elements()));
  check(p_data_len >= needed, "the buffer holds ", p_data_len, " bytes but a ",
        data_type_name(dtype), " tensor of shape ", s.to_string(), " needs ", needed);
  if (needed > 0) need(p_data, "p_data");
  auto buffer = std::make_shared<Buffer>(p_data, p_data_len, memory, std::move(keepalive));
  return Tensor(dtype, std::move(s), std::move(buffer));
}

}  // namespace tessera::capi
