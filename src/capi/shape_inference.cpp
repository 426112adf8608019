// A custom op's InferOutputShapeFn (OrtCustomOp version 17): called when the
// session declares the op's output types, with an OrtShapeInferContext over
// the node's input types and shapes and its attributes; the types and shapes
// it sets are declared in the graph like a model's value_info.
#include <cstring>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/custom_ops.hpp"

namespace tessera::capi {
namespace {

OrtTensorTypeAndShapeInfo to_info(const ir::TypeInfo& t) {
  OrtTensorTypeAndShapeInfo info;
  if (t.kind != ir::TypeInfo::Kind::kTensor) return info;
  info.elem_type = t.elem_type == DataType::kUndefined ? ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED
                                                       : to_ort_type(t.elem_type);
  if (t.shape) {
    info.has_shape = true;
    for (const ir::Dim& d : *t.shape) {
      info.dims.push_back(d.is_known() ? *d.value : -1);
      info.symbols.push_back(d.symbol);
    }
  }
  return info;
}

ir::TypeInfo from_info(const OrtTensorTypeAndShapeInfo& info, const ir::TypeInfo& declared) {
  ir::TypeInfo t = ir::TypeInfo::tensor(info.elem_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED
                                            ? declared.elem_type
                                            : from_ort_type(info.elem_type));
  if (info.has_shape) {
    std::vector<ir::Dim> dims(info.dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (info.dims[i] >= 0) dims[i].value = info.dims[i];
      if (i < info.symbols.size()) dims[i].symbol = info.symbols[i];
    }
    t.shape = std::move(dims);
  }
  return t;
}

const OrtShapeInferContext& sic(const OrtShapeInferContext* c) {
  need(c, "shape inference context");
  return *c;
}

// Copies `bytes` of `src` to `data` when `len` holds them; *out gets the size.
void read_out(const void* src, size_t bytes, void* data, size_t len, size_t* out,
              const char* what) {
  need(out, "out");
  *out = bytes;
  check(len >= bytes && (data != nullptr || bytes == 0), "the buffer (", len,
        " bytes) cannot hold ", what, " (", bytes, " bytes)");
  if (bytes) std::memcpy(data, src, bytes);
}

}  // namespace

std::vector<ir::TypeInfo> infer_custom_op_shapes(const CustomOpSpec& spec, const ir::Node& node,
                                                 const std::vector<ir::TypeInfo>& inputs,
                                                 std::vector<ir::TypeInfo> declared) {
  OrtShapeInferContext c;
  c.node = &node;
  for (const auto& t : inputs) c.inputs.push_back(to_info(t));
  c.outputs.resize(node.outputs.size());
  OrtStatus* st = spec.op->InferOutputShapeFn(spec.op, &c);
  if (st) {
    OrtStatus s = std::move(*st);
    delete st;
    fail(ErrorCode::kInvalidGraph, node.describe(), ": InferOutputShapeFn of custom op '",
         spec.name, "' failed: ", s.message);
  }
  declared.resize(node.outputs.size());
  for (size_t k = 0; k < c.outputs.size(); ++k)
    if (c.outputs[k]) declared[k] = from_info(*c.outputs[k], declared[k]);
  return declared;
}

OrtStatus* ORT_API_CALL ShapeInferContext_GetInputCount(const OrtShapeInferContext* context,
                                                        size_t* out) noexcept {
  return guard("ShapeInferContext_GetInputCount", [&] {
    need(out, "out");
    *out = sic(context).inputs.size();
  });
}

OrtStatus* ORT_API_CALL ShapeInferContext_GetInputTypeShape(
    const OrtShapeInferContext* context, size_t index, OrtTensorTypeAndShapeInfo** info) noexcept {
  return guard("ShapeInferContext_GetInputTypeShape", [&] {
    need(info, "info");
    const auto& c = sic(context);
    check(index < c.inputs.size(), "input index ", index, " is out of range (the node has ",
          c.inputs.size(), ")");
    *info = new OrtTensorTypeAndShapeInfo(c.inputs[index]);
  });
}

OrtStatus* ORT_API_CALL ShapeInferContext_GetAttribute(const OrtShapeInferContext* context,
                                                       const char* attr_name,
                                                       const OrtOpAttr** attr) noexcept {
  return guard("ShapeInferContext_GetAttribute", [&] {
    need(attr_name, "attr_name");
    need(attr, "attr");
    const auto& c = sic(context);
    const ir::Attribute* a = c.node->attr(attr_name);
    check(a != nullptr, c.node->describe(), " has no attribute '", attr_name, "'");
    auto& slot = c.attributes[attr_name];
    if (!slot) slot = std::make_unique<OrtOpAttr>(OrtOpAttr{*a});
    *attr = slot.get();
  });
}

OrtStatus* ORT_API_CALL
ShapeInferContext_SetOutputTypeShape(const OrtShapeInferContext* context, size_t index,
                                     const OrtTensorTypeAndShapeInfo* info) noexcept {
  return guard("ShapeInferContext_SetOutputTypeShape", [&] {
    need(info, "info");
    auto& c = const_cast<OrtShapeInferContext&>(sic(context));
    check(index < c.outputs.size(), "output index ", index, " is out of range (the node has ",
          c.outputs.size(), ")");
    if (info->elem_type != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED) from_ort_type(info->elem_type);
    c.outputs[index] = std::make_unique<OrtTensorTypeAndShapeInfo>(*info);
  });
}

OrtStatus* ORT_API_CALL ReadOpAttr(const OrtOpAttr* op_attr, OrtOpAttrType type, void* data,
                                   size_t len, size_t* out) noexcept {
  return guard("ReadOpAttr", [&] {
    need(op_attr, "op_attr");
    const ir::Attribute& a = op_attr->attr;
    auto want = [&](ir::AttrType t) {
      check(a.type == t, "attribute '", a.name, "' has type ", ir::attr_type_name(a.type), ", not ",
            ir::attr_type_name(t));
    };
    switch (type) {
      case ORT_OP_ATTR_INT:
        want(ir::AttrType::kInt);
        return read_out(&a.i, sizeof(int64_t), data, len, out, "an int64");
      case ORT_OP_ATTR_INTS:
        want(ir::AttrType::kInts);
        return read_out(a.ints.data(), a.ints.size() * sizeof(int64_t), data, len, out,
                        "the int64 array");
      case ORT_OP_ATTR_FLOAT:
        want(ir::AttrType::kFloat);
        return read_out(&a.f, sizeof(float), data, len, out, "a float");
      case ORT_OP_ATTR_FLOATS:
        want(ir::AttrType::kFloats);
        return read_out(a.floats.data(), a.floats.size() * sizeof(float), data, len, out,
                        "the float array");
      case ORT_OP_ATTR_STRING:
        want(ir::AttrType::kString);
        return read_out(a.s.c_str(), a.s.size() + 1, data, len, out, "the string");
      case ORT_OP_ATTR_STRINGS: {
        want(ir::AttrType::kStrings);
        std::string all;  // each string with its NUL
        for (const auto& s : a.strings) all.append(s.c_str(), s.size() + 1);
        return read_out(all.data(), all.size(), data, len, out, "the strings");
      }
      default:
        fail(ErrorCode::kInvalidArgument,
             "ReadOpAttr reads INT, INTS, FLOAT, FLOATS, STRING and "
             "STRINGS attributes, not type ",
             static_cast<int>(type));
    }
  });
}

}  // namespace tessera::capi
