#include "ops/broadcast.hpp"
#include "ops/schema_families.hpp"

namespace tessera::ops::schema {

AttrDef int_attr(std::string name, int64_t def) {
  AttrDef a;
  a.name = std::move(name);
  a.type = ir::AttrType::kInt;
  a.i = def;
  return a;
}

AttrDef float_attr(std::string name, float def) {
  AttrDef a;
  a.name = std::move(name);
  a.type = ir::AttrType::kFloat;
  a.f = def;
  return a;
}

AttrDef string_attr(std::string name, std::string def) {
  AttrDef a;
  a.name = std::move(name);
  a.type = ir::AttrType::kString;
  a.s = std::move(def);
  return a;
}

AttrDef ints_attr(std::string name, std::vector<int64_t> def) {
  AttrDef a;
  a.name = std::move(name);
  a.type = ir::AttrType::kInts;
  a.ints = std::move(def);
  return a;
}

AttrDef strings_attr(std::string name, std::vector<std::string> def) {
  AttrDef a;
  a.name = std::move(name);
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(def);
  return a;
}

AttrDef required_attr(std::string name, ir::AttrType type) {
  AttrDef a;
  a.name = std::move(name);
  a.type = type;
  a.required = true;
  return a;
}

AttrDef optional_attr(std::string name, ir::AttrType type) {
  AttrDef a;
  a.name = std::move(name);
  a.type = type;
  return a;
}

const std::vector<DataType>& float_types() {
  static const std::vector<DataType> v = {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                          DataType::kBFloat16};
  return v;
}

const std::vector<DataType>& numeric_types() {
  static const std::vector<DataType> v = [] {
    std::vector<DataType> r = float_types();
    for (DataType t : {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64,
                       DataType::kUInt8, DataType::kUInt16, DataType::kUInt32, DataType::kUInt64})
      r.push_back(t);
    return r;
  }();
  return v;
}

const std::vector<DataType>& all_types() {
  static const std::vector<DataType> v = [] {
    std::vector<DataType> r;
    for (int32_t i = 1; i <= kMaxDataType; ++i) r.push_back(static_cast<DataType>(i));
    return r;
  }();
  return v;
}

const std::vector<DataType>& standard_types() {
  static const std::vector<DataType> v = [] {
    std::vector<DataType> r = numeric_types();
    for (DataType t :
         {DataType::kString, DataType::kBool, DataType::kComplex64, DataType::kComplex128})
      r.push_back(t);
    return r;
  }();
  return v;
}

const std::vector<DataType>& integer_types() {
  static const std::vector<DataType> v = {DataType::kInt8,   DataType::kInt16, DataType::kInt32,
                                          DataType::kInt64,  DataType::kUInt8, DataType::kUInt16,
                                          DataType::kUInt32, DataType::kUInt64};
  return v;
}

const std::vector<DataType>& string_type() {
  static const std::vector<DataType> v = {DataType::kString};
  return v;
}

const std::vector<DataType>& float_type() {
  static const std::vector<DataType> v = {DataType::kFloat};
  return v;
}

const std::vector<DataType>& bool_type() {
  static const std::vector<DataType> v = {DataType::kBool};
  return v;
}

const std::vector<DataType>& int64_type() {
  static const std::vector<DataType> v = {DataType::kInt64};
  return v;
}

const std::vector<DataType>& index_types() {
  static const std::vector<DataType> v = {DataType::kInt32, DataType::kInt64};
  return v;
}

const std::vector<DataType>& int8_types() {
  static const std::vector<DataType> v = {DataType::kInt8, DataType::kUInt8};
  return v;
}

const std::vector<DataType>& float8_types() {
  static const std::vector<DataType> v = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ,
                                          DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ};
  return v;
}

const std::vector<DataType>& quantized_types() {
  static const std::vector<DataType> v = [] {
    std::vector<DataType> r = {DataType::kInt8,      DataType::kUInt8, DataType::kInt16,
                               DataType::kUInt16,    DataType::kInt32, DataType::kInt4,
                               DataType::kUInt4,     DataType::kInt2,  DataType::kUInt2,
                               DataType::kFloat4E2M1};
    r.insert(r.end(), float8_types().begin(), float8_types().end());
    return r;
  }();
  return v;
}

TypeParam same_type(const std::vector<DataType>& allowed) { return {"T", {0}, {0}, allowed}; }

namespace {

// (Not ir::TypeInfo::tensor: its defaulted shape argument trips GCC 12's
// maybe-uninitialized warning when inlined here.)
ir::TypeInfo tensor_type(DataType t) {
  ir::TypeInfo ti;
  ti.kind = ir::TypeInfo::Kind::kTensor;
  ti.elem_type = t;
  return ti;
}

std::vector<ir::TypeInfo> all_outputs(const ir::Node& n, const ir::TypeInfo& t) {
  return std::vector<ir::TypeInfo>(n.outputs.size(), t);
}

}  // namespace

std::vector<ir::TypeInfo> type_of_input0(const ir::Node& n, int64_t,
                                         const std::vector<ir::TypeInfo>& in) {
  return all_outputs(n, in.empty() ? ir::TypeInfo() : in[0]);
}

std::vector<ir::TypeInfo> type_of_input1(const ir::Node& n, int64_t,
                                         const std::vector<ir::TypeInfo>& in) {
  const bool tensor = in.size() > 1 && in[1].kind == ir::TypeInfo::Kind::kTensor;
  return all_outputs(n, tensor_type(tensor ? in[1].elem_type : DataType::kUndefined));
}

std::vector<ir::TypeInfo> bool_outputs(const ir::Node& n, int64_t,
                                       const std::vector<ir::TypeInfo>&) {
  return all_outputs(n, tensor_type(DataType::kBool));
}

std::vector<ir::TypeInfo> int64_outputs(const ir::Node& n, int64_t,
                                        const std::vector<ir::TypeInfo>&) {
  return all_outputs(n, tensor_type(DataType::kInt64));
}

std::vector<ir::TypeInfo> input0_then_int64(const ir::Node& n, int64_t,
                                            const std::vector<ir::TypeInfo>& in) {
  std::vector<ir::TypeInfo> out = all_outputs(n, tensor_type(DataType::kInt64));
  const bool tensor = !in.empty() && in[0].kind == ir::TypeInfo::Kind::kTensor;
  if (!out.empty()) out[0] = tensor_type(tensor ? in[0].elem_type : DataType::kUndefined);
  return out;
}

DataType attr_dtype(const ir::Node& n, const char* name, DataType def) {
  const ir::Attribute* a = n.attr(name);
  if (!a || a->type != ir::AttrType::kInt || !is_valid_data_type(int32_t(a->i))) return def;
  return static_cast<DataType>(a->i);
}

std::vector<ir::TypeInfo> graph_output_types(const ir::Node& n, const char* name) {
  std::vector<ir::TypeInfo> out;
  const ir::Attribute* a = n.attr(name);
  if (a && a->g)
    for (const auto& o : a->g->outputs) out.push_back(o.type);
  return out;
}

OutShapes same_shape_as_input0(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  return OutShapes(q.num_outputs(), *x);
}

OutShapes unknown_shapes(const ShapeQuery&) { return {}; }

bool all_input_shapes(const ShapeQuery& q, std::vector<Shape>* out) {
  out->clear();
  for (size_t i = 0; i < q.num_inputs(); ++i) {
    const Shape* s = shape_of(q, i);
    if (!s) return false;
    out->push_back(*s);
  }
  return true;
}

OutShapes broadcast_inputs(const ShapeQuery& q) {
  std::vector<Shape> in;
  if (!all_input_shapes(q, &in)) return {};
  try {
    return {broadcast_shapes(in)};
  } catch (const Error& e) {
    q.fail(e.what());
  }
}

size_t axis_in(const ShapeQuery& q, int64_t a, int64_t r, const char* what) {
  if (a < -r || a >= r)
    q.fail(what, " ", a, " is out of range for ", q.input_desc(0), " (rank ", r, ")");
  return size_t(a < 0 ? a + r : a);
}

}  // namespace tessera::ops::schema
