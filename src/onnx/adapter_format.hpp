// onnxruntime's LoRA adapter files (".onnx_adapter"): a FlatBuffers buffer
// with file identifier "TORT" whose root table holds a format version, the
// adapter's and the model's versions, and named parameter tensors (name,
// dims, element type, raw little-endian bytes). The layout follows
// onnxruntime's public schema (lora/adapter_format/adapter_schema.fbs); the
// reader checks every offset and size against the bytes present.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.hpp"

namespace tessera::onnx {

// The one format version onnxruntime writes and reads.
constexpr int32_t kAdapterFormatVersion = 1;

struct Adapter {
  int32_t format_version = kAdapterFormatVersion;
  int32_t adapter_version = 0;
  int32_t model_version = 0;
  // In file order; names are unique.
  std::vector<std::pair<std::string, Tensor>> parameters;
};

// Parses adapter bytes (parameters copied out). Malformed bytes, an unknown
// format version, a duplicate name or a string parameter are kInvalidArgument
// naming `source` and the problem.
Adapter parse_adapter(const void* data, size_t size, const std::string& source = "<adapter bytes>");
// Reads an adapter file (kNoSuchFile when it is absent).
Adapter load_adapter(const std::string& path);

// The adapter's bytes (host tensors of the schema's element types only; a
// string tensor or a duplicate name is kInvalidArgument).
std::string serialize_adapter(const Adapter& adapter);
void save_adapter(const Adapter& adapter, const std::string& path);

}  // namespace tessera::onnx
