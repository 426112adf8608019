#include "onnx/model_reader.hpp"

#include "onnx/external_data.hpp"
#include "onnx/mapped_file.hpp"
#include "onnx/proto_to_ir.hpp"
#include "onnx/tensor_reader.hpp"

namespace tessera::onnx {

namespace {

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void check_not_empty(size_t size, const std::string& source, const char* what) {
  if (size == 0) fail(ErrorCode::kInvalidProtobuf, source, ": empty input (0 bytes) is not ", what);
}

}  // namespace

ir::Model parse_model(const void* data, size_t size, const std::string& base_dir,
                      const std::string& source_name, const SuppliedExternalData& supplied) {
  check_not_empty(size, source_name, "an ONNX model");
  ParseContext ctx(source_name);
  ctx.set_supplied(&supplied);
  return read_model_proto(ctx, std::string_view(static_cast<const char*>(data), size), base_dir);
}

ir::Model load_model(const std::string& path, const SuppliedExternalData& supplied) {
  // Mapped, not copied: the tensors are copied out (or mapped from their own
  // external files), so the mapping is released once parsing is done.
  auto bytes = map_whole_file(path, "model file");
  check_not_empty(bytes->size(), path, "an ONNX model");
  ParseContext ctx(path);
  ctx.set_supplied(&supplied);
  ctx.set_model_real_dir(real_parent_dir(path));
  ctx.set_done_with([&bytes](const void* p, size_t n) { bytes->done_with(p, n); });
  ir::Model m = read_model_proto(
      ctx, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
      dir_of(path));
  m.path = path;
  return m;
}

Tensor parse_tensor(const void* data, size_t size, const std::string& source_name) {
  ParseContext ctx(source_name);
  // An empty TensorProto is not a tensor (no data_type); the reader says so.
  return read_tensor_proto(ctx, static_cast<const uint8_t*>(data), size, "");
}

Tensor load_tensor(const std::string& path) {
  auto bytes = map_whole_file(path, "tensor file");
  ParseContext ctx(path);
  return read_tensor_proto(ctx, bytes->data(), bytes->size(), dir_of(path));
}

}  // namespace tessera::onnx
