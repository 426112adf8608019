// The Open Inference Protocol's tensor datatypes ("FP32", "INT64", "BYTES",
// ...) and the ONNX element types they stand for.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "tessera/onnxruntime_c_api.h"

namespace tessera::serve {

// "FP32" for float, "BYTES" for string; "" for a type the protocol has no
// name for (bfloat16, complex, float8).
std::string protocol_datatype(ONNXTensorElementDataType type);

// The element type of a protocol datatype name, or nothing for an unknown name.
std::optional<ONNXTensorElementDataType> element_type(const std::string& datatype);

// Bytes per element (0 for strings).
size_t element_size(ONNXTensorElementDataType type);

}  // namespace tessera::serve
