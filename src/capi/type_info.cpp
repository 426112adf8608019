// Type descriptions of values and of a model's inputs and outputs.
#include <algorithm>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {
namespace {

const OrtTensorTypeAndShapeInfo& info_of(const OrtTensorTypeAndShapeInfo* i) {
  need(i, "tensor type and shape info");
  return *i;
}

const OrtTypeInfo& type_of(const OrtTypeInfo* t) {
  need(t, "type info");
  return *t;
}

}  // namespace

void ORT_API_CALL ReleaseTypeInfo(OrtTypeInfo* input) noexcept { delete input; }
void ORT_API_CALL ReleaseTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo* input) noexcept {
  delete input;
}
void ORT_API_CALL ReleaseMapTypeInfo(OrtMapTypeInfo* input) noexcept { delete input; }
void ORT_API_CALL ReleaseSequenceTypeInfo(OrtSequenceTypeInfo* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL GetOnnxTypeFromTypeInfo(const OrtTypeInfo* type_info,
                                                enum ONNXType* out) noexcept {
  return guard("GetOnnxTypeFromTypeInfo", [&] {
    need(out, "out");
    *out = type_of(type_info).type;
  });
}

OrtStatus* ORT_API_CALL GetDenotationFromTypeInfo(const OrtTypeInfo* type_info,
                                                  const char** const denotation,
                                                  size_t* len) noexcept {
  return guard("GetDenotationFromTypeInfo", [&] {
    need(denotation, "denotation");
    need(len, "len");
    const OrtTypeInfo& t = type_of(type_info);
    *denotation = t.denotation.c_str();
    *len = t.denotation.size();
  });
}

// The casts return NULL (and succeed) when the type is of another kind.
OrtStatus* ORT_API_CALL CastTypeInfoToTensorInfo(const OrtTypeInfo* type_info,
                                                 const OrtTensorTypeAndShapeInfo** out) noexcept {
  return guard("CastTypeInfoToTensorInfo", [&] {
    need(out, "out");
    *out = type_of(type_info).tensor.get();
  });
}

OrtStatus* ORT_API_CALL CastTypeInfoToMapTypeInfo(const OrtTypeInfo* type_info,
                                                  const OrtMapTypeInfo** out) noexcept {
  return guard("CastTypeInfoToMapTypeInfo", [&] {
    need(out, "out");
    *out = type_of(type_info).map.get();
  });
}

OrtStatus* ORT_API_CALL CastTypeInfoToSequenceTypeInfo(const OrtTypeInfo* type_info,
                                                       const OrtSequenceTypeInfo** out) noexcept {
  return guard("CastTypeInfoToSequenceTypeInfo", [&] {
    need(out, "out");
    *out = type_of(type_info).sequence.get();
  });
}

OrtStatus* ORT_API_CALL CastTypeInfoToOptionalTypeInfo(const OrtTypeInfo* type_info,
                                                       const OrtOptionalTypeInfo** out) noexcept {
  return guard("CastTypeInfoToOptionalTypeInfo", [&] {
    need(out, "out");
    *out = type_of(type_info).optional.get();
  });
}

OrtStatus* ORT_API_CALL GetMapKeyType(const OrtMapTypeInfo* map_type_info,
                                      enum ONNXTensorElementDataType* out) noexcept {
  return guard("GetMapKeyType", [&] {
    need(map_type_info, "map type info");
    need(out, "out");
    *out = map_type_info->key_type;
  });
}

OrtStatus* ORT_API_CALL GetMapValueType(const OrtMapTypeInfo* map_type_info,
                                        OrtTypeInfo** type_info) noexcept {
  return guard("GetMapValueType", [&] {
    need(map_type_info, "map type info");
    need(type_info, "type_info");
    *type_info = clone_type_info(*map_type_info->value_type).release();
  });
}

OrtStatus* ORT_API_CALL GetSequenceElementType(const OrtSequenceTypeInfo* sequence_type_info,
                                               OrtTypeInfo** type_info) noexcept {
  return guard("GetSequenceElementType", [&] {
    need(sequence_type_info, "sequence type info");
    need(type_info, "type_info");
    *type_info = clone_type_info(*sequence_type_info->element_type).release();
  });
}

OrtStatus* ORT_API_CALL GetOptionalContainedTypeInfo(const OrtOptionalTypeInfo* optional_type_info,
                                                     OrtTypeInfo** out) noexcept {
  return guard("GetOptionalContainedTypeInfo", [&] {
    need(optional_type_info, "optional type info");
    need(out, "out");
    *out = clone_type_info(*optional_type_info->contained_type).release();
  });
}

OrtStatus* ORT_API_CALL CreateTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo** out) noexcept {
  return guard("CreateTensorTypeAndShapeInfo", [&] {
    need(out, "out");
    *out = new OrtTensorTypeAndShapeInfo();
  });
}

OrtStatus* ORT_API_CALL SetTensorElementType(OrtTensorTypeAndShapeInfo* info,
                                             enum ONNXTensorElementDataType type) noexcept {
  return guard("SetTensorElementType", [&] {
    need(info, "tensor type and shape info");
    const int t = raw_enum(type);
    from_ort_type(t);  // refuses unknown types
    info->elem_type = static_cast<ONNXTensorElementDataType>(t);
  });
}

OrtStatus* ORT_API_CALL SetDimensions(OrtTensorTypeAndShapeInfo* info, const int64_t* dim_values,
                                      size_t dim_count) noexcept {
  return guard("SetDimensions", [&] {
    need(info, "tensor type and shape info");
    if (dim_count > 0) need(dim_values, "dim_values");
    info->dims.assign(dim_values, dim_values + dim_count);
    info->symbols.resize(dim_count);
    info->has_shape = true;
  });
}

OrtStatus* ORT_API_CALL SetSymbolicDimensions(OrtTensorTypeAndShapeInfo* info,
                                              const char* dim_params[],
                                              size_t dim_params_length) noexcept {
  return guard("SetSymbolicDimensions", [&] {
    need(info, "tensor type and shape info");
    check(dim_params_length == info->dims.size(), "got ", dim_params_length,
          " names for a shape of rank ", info->dims.size());
    for (size_t i = 0; i < dim_params_length; ++i)
      info->symbols[i] = dim_params[i] != nullptr ? dim_params[i] : "";
  });
}

OrtStatus* ORT_API_CALL GetTensorElementType(const OrtTensorTypeAndShapeInfo* info,
                                             enum ONNXTensorElementDataType* out) noexcept {
  return guard("GetTensorElementType", [&] {
    need(out, "out");
    *out = info_of(info).elem_type;
  });
}

OrtStatus* ORT_API_CALL GetDimensionsCount(const OrtTensorTypeAndShapeInfo* info,
                                           size_t* out) noexcept {
  return guard("GetDimensionsCount", [&] {
    need(out, "out");
    *out = info_of(info).dims.size();
  });
}

OrtStatus* ORT_API_CALL GetDimensions(const OrtTensorTypeAndShapeInfo* info, int64_t* dim_values,
                                      size_t dim_values_length) noexcept {
  return guard("GetDimensions", [&] {
    const auto& dims = info_of(info).dims;
    // Fewer slots than dimensions gets the leading ones, as ONNX Runtime does.
    const size_t n = std::min(dim_values_length, dims.size());
    if (n > 0) need(dim_values, "dim_values");
    for (size_t i = 0; i < n; ++i) dim_values[i] = dims[i];
  });
}

OrtStatus* ORT_API_CALL GetSymbolicDimensions(const OrtTensorTypeAndShapeInfo* info,
                                              const char* dim_params[],
                                              size_t dim_params_length) noexcept {
  return guard("GetSymbolicDimensions", [&] {
    const auto& symbols = info_of(info).symbols;
    const size_t n = std::min(dim_params_length, symbols.size());
    if (n > 0) need(dim_params, "dim_params");
    for (size_t i = 0; i < n; ++i) dim_params[i] = symbols[i].c_str();
  });
}

OrtStatus* ORT_API_CALL GetTensorShapeElementCount(const OrtTensorTypeAndShapeInfo* info,
                                                   size_t* out) noexcept {
  return guard("GetTensorShapeElementCount", [&] {
    need(out, "out");
    size_t n = 1;
    for (int64_t d : info_of(info).dims) {
      if (d < 0) {
        *out = static_cast<size_t>(-1);  // a dimension is unknown
        return;
      }
      n *= static_cast<size_t>(d);
    }
    *out = n;
  });
}

bool ORT_API_CALL TensorTypeAndShape_HasShape(const OrtTensorTypeAndShapeInfo* info) noexcept {
  return info != nullptr && info->has_shape;
}

}  // namespace tessera::capi
