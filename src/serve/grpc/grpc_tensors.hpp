// gRPC tensors: an input's typed InferTensorContents to a tensor, and an
// output to typed contents. (Raw contents use tensor_bytes.hpp.)
#pragma once
#include <grpc_predict_v2.pb.h>

#include <string>

#include "serve/tensor_bytes.hpp"
#include "tessera/tessera.hpp"

namespace tessera::serve {

// The tensor of `contents` for the checked datatype and shape: the field
// of the datatype must hold exactly the shape's element count, each in the
// datatype's range, and no other field may hold any. FP16 and BF16 have no
// typed field (they come in raw_input_contents). Throws ServeError 400
// starting with `where`.
api::Value tensor_from_contents(const CheckedTensor& tensor, const std::string& where,
                                const inference::InferTensorContents& contents);

// Whether outputs of this element type have a typed field.
bool has_typed_contents(ONNXTensorElementDataType type);

// Fills `contents` with the elements of `value` (a type with a typed field).
void tensor_to_contents(const api::Value& value, inference::InferTensorContents& contents);

}  // namespace tessera::serve
