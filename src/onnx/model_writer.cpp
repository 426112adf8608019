// ir::Model → ModelProto bytes; the field numbers mirror proto_to_ir.cpp.
#include "onnx/model_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "onnx/tensor_writer.hpp"
#include "onnx/wire_writer.hpp"

namespace tessera::onnx {

namespace {

struct ExternalSink;
std::string encode_graph(const ir::Graph& g, ExternalSink* sink = nullptr);

std::string encode_shape(const std::vector<ir::Dim>& dims) {
  std::string out;
  WireWriter w(out);
  for (const auto& d : dims) {
    std::string dim;
    WireWriter dw(dim);
    if (d.value)
      dw.int64(1, *d.value);
    else if (!d.symbol.empty())
      dw.bytes(2, d.symbol);
    dw.string_if(3, d.denotation);
    w.message(1, dim);
  }
  return out;
}

std::string encode_type(const ir::TypeInfo& t) {
  using Kind = ir::TypeInfo::Kind;
  std::string out;
  WireWriter w(out);
  std::string body;
  WireWriter bw(body);
  switch (t.kind) {
    case Kind::kTensor:
    case Kind::kSparseTensor:
      if (t.elem_type != DataType::kUndefined) bw.int32(1, int32_t(t.elem_type));
      // An empty shape message means rank 0; no message means rank unknown.
      if (t.shape) bw.message(2, encode_shape(*t.shape));
      w.message(t.kind == Kind::kTensor ? 1 : 8, body);
      break;
    case Kind::kSequence:
    case Kind::kOptional:
      if (t.inner) bw.message(1, encode_type(*t.inner));
      w.message(t.kind == Kind::kSequence ? 4 : 9, body);
      break;
    case Kind::kMap:
      bw.int32(1, int32_t(t.elem_type));
      if (t.inner) bw.message(2, encode_type(*t.inner));
      w.message(5, body);
      break;
    case Kind::kUnknown:
      break;
  }
  w.string_if(6, t.denotation);
  return out;
}

std::string encode_value_info(const ir::ValueInfo& v) {
  std::string out;
  WireWriter w(out);
  w.string_if(1, v.name);
  if (v.type.kind != ir::TypeInfo::Kind::kUnknown || !v.type.denotation.empty())
    w.message(2, encode_type(v.type));
  w.string_if(3, v.doc_string);
  return out;
}

std::string encode_attribute(const ir::Attribute& a) {
  using ir::AttrType;
  std::string out;
  WireWriter w(out);
  w.string_if(1, a.name);
  w.string_if(21, a.ref_attr_name);
  w.string_if(13, a.doc_string);
  if (a.type != AttrType::kUndefined) w.int32(20, int32_t(a.type));
  if (!a.ref_attr_name.empty()) return out;  // a reference carries no value
  switch (a.type) {
    case AttrType::kFloat:
      w.fixed32_float(2, a.f);
      break;
    case AttrType::kInt:
      w.int64(3, a.i);
      break;
    case AttrType::kString:
      w.bytes(4, a.s);
      break;
    case AttrType::kTensor:
      w.message(5, encode_tensor_proto(a.t, ""));
      break;
    case AttrType::kGraph:
      check(a.g != nullptr, "attribute '", a.name, "' of type graph has no graph");
      w.message(6, encode_graph(*a.g));
      break;
    case AttrType::kSparseTensor:
      w.message(22, encode_sparse_tensor_proto(a.t, ""));
      break;
    case AttrType::kTypeProto:
      w.message(14, encode_type(a.tp));
      break;
    // Lists are written unpacked: AttributeProto does not declare them packed.
    case AttrType::kFloats:
      for (float f : a.floats) w.fixed32_float(7, f);
      break;
    case AttrType::kInts:
      w.unpacked_varints(8, a.ints);
      break;
    case AttrType::kStrings:
      for (const auto& s : a.strings) w.bytes(9, s);
      break;
    case AttrType::kTensors:
      for (const auto& t : a.tensors) w.message(10, encode_tensor_proto(t, ""));
      break;
    case AttrType::kGraphs:
      for (const auto& g : a.graphs) {
        check(g != nullptr, "attribute '", a.name, "' holds a null graph");
        w.message(11, encode_graph(*g));
      }
      break;
    case AttrType::kSparseTensors:
      for (const auto& t : a.tensors) w.message(23, encode_sparse_tensor_proto(t, ""));
      break;
    case AttrType::kTypeProtos:
      for (const auto& t : a.type_protos) w.message(15, encode_type(t));
      break;
    case AttrType::kUndefined:
      break;
  }
  return out;
}

std::string encode_node(const ir::Node& n) {
  std::string out;
  WireWriter w(out);
  for (const auto& s : n.inputs) w.bytes(1, s);  // "" marks an omitted input: keep it
  for (const auto& s : n.outputs) w.bytes(2, s);
  w.string_if(3, n.name);
  w.string_if(4, n.op_type);
  for (const auto& a : n.attributes) w.message(5, encode_attribute(a));
  w.string_if(6, n.doc_string);
  w.string_if(7, n.domain);
  w.string_if(8, n.overload);
  return out;
}

// Collects the bytes of initializers written to an external data file.
struct ExternalSink {
  const ExternalInitializers* options = nullptr;
  std::string data;
};

// A TensorProto whose data lives at [offset, offset + length) of `location`.
std::string encode_external_tensor(const Tensor& t, const std::string& name, ExternalSink& sink) {
  constexpr size_t kAlign = 64;  // so a mapped file gives aligned tensors
  sink.data.resize((sink.data.size() + kAlign - 1) / kAlign * kAlign, '\0');
  const size_t offset = sink.data.size();
  sink.data.append(static_cast<const char*>(t.raw_data()), t.byte_size());
  std::string out;
  WireWriter w(out);
  w.unpacked_varints(1, t.shape().dims());
  w.int32(2, int32_t(t.dtype()));
  w.string_if(8, name);
  auto entry = [&](std::string_view key, const std::string& value) {
    std::string kv;
    WireWriter kw(kv);
    kw.bytes(1, key);
    kw.bytes(2, value);
    w.message(13, kv);
  };
  entry("location", sink.options->file_name);
  entry("offset", std::to_string(offset));
  entry("length", std::to_string(t.byte_size()));
  w.int32(14, 1);  // data_location = EXTERNAL
  return out;
}

std::string encode_graph(const ir::Graph& g, ExternalSink* sink) {
  std::string out;
  WireWriter w(out);
  for (const auto& n : g.nodes) w.message(1, encode_node(n));
  w.string_if(2, g.name);
  for (const auto& [name, t] : g.initializers) {
    const bool external = sink && t.dtype() != DataType::kString &&
                          t.memory_info().host_accessible() &&
                          t.byte_size() >= sink->options->min_size_in_bytes;
    w.message(5, external ? encode_external_tensor(t, name, *sink) : encode_tensor_proto(t, name));
  }
  w.string_if(10, g.doc_string);
  for (const auto& v : g.inputs) w.message(11, encode_value_info(v));
  for (const auto& [name, s] : g.sparse_initializers)
    w.message(15, encode_sparse_tensor_proto(s, name));
  for (const auto& v : g.outputs) w.message(12, encode_value_info(v));
  for (const auto& v : g.value_info) w.message(13, encode_value_info(v));
  return out;
}

std::string encode_opset(const ir::OpsetImport& o) {
  std::string out;
  WireWriter w(out);
  w.string_if(1, o.domain);
  w.int64(2, o.version);
  return out;
}

std::string encode_function(const ir::Function& f) {
  std::string out;
  WireWriter w(out);
  w.string_if(1, f.name);
  for (const auto& s : f.inputs) w.bytes(4, s);
  for (const auto& s : f.outputs) w.bytes(5, s);
  for (const auto& s : f.attribute_names) w.bytes(6, s);
  for (const auto& n : f.nodes) w.message(7, encode_node(n));
  w.string_if(8, f.doc_string);
  for (const auto& o : f.opset_imports) w.message(9, encode_opset(o));
  w.string_if(10, f.domain);
  for (const auto& a : f.attribute_defaults) w.message(11, encode_attribute(a));
  for (const auto& v : f.value_info) w.message(12, encode_value_info(v));
  w.string_if(13, f.overload);
  return out;
}

}  // namespace

static std::string serialize_model(const ir::Model& m, ExternalSink* sink) {
  std::string out;
  WireWriter w(out);
  w.int64(1, m.ir_version);
  w.string_if(2, m.producer_name);
  w.string_if(3, m.producer_version);
  w.string_if(4, m.domain);
  if (m.model_version) w.int64(5, m.model_version);
  w.string_if(6, m.doc_string);
  w.message(7, encode_graph(m.graph, sink));
  for (const auto& o : m.opset_imports) w.message(8, encode_opset(o));
  for (const auto& [k, v] : m.metadata_props) {
    std::string kv;
    WireWriter kw(kv);
    kw.bytes(1, k);
    kw.bytes(2, v);
    w.message(14, kv);
  }
  for (const auto& f : m.functions) w.message(25, encode_function(f));
  return out;
}

std::string serialize_model(const ir::Model& m) { return serialize_model(m, nullptr); }

namespace {

void write_file(const std::string& bytes, const std::string& path, const char* what) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fail(ErrorCode::kFail, "cannot write ", what, " '", path, "': ", std::strerror(errno));
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  int close_rc = std::fclose(f);
  if (written != bytes.size() || close_rc != 0)
    fail(ErrorCode::kFail, "writing ", what, " '", path, "' failed: ", std::strerror(errno));
}

}  // namespace

void save_model(const ir::Model& model, const std::string& path,
                const ExternalInitializers& external) {
  if (external.file_name.empty()) {
    write_file(serialize_model(model, nullptr), path, "model file");
    return;
  }
  const std::filesystem::path location(external.file_name);
  check(location.is_relative() && !location.empty(),
        "the external initializers file name must be a path relative to the model's folder, "
        "got '",
        external.file_name, "'");
  ExternalSink sink{&external, {}};
  std::string bytes = serialize_model(model, &sink);
  write_file(sink.data, (std::filesystem::path(path).parent_path() / location).string(),
             "external initializers file");
  write_file(bytes, path, "model file");
}

}  // namespace tessera::onnx
