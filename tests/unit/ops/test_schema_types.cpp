// Type inference from the schema table alone: every entry types every
// output of a node whose inputs have types the entry allows, and the
// attribute-driven types (Cast's `to`, Q/DQ's output_dtype and zero point,
// the generators' dtype, stash_type, ...) follow their attributes and
// defaults.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "core/error.hpp"
#include "ops/schema.hpp"
#include "ops/type_inference.hpp"

namespace tessera::test {

namespace {

using ir::TypeInfo;
using Kind = TypeInfo::Kind;

TypeInfo tensor(DataType t) { return TypeInfo::tensor(t); }

TypeInfo wrap(Kind kind, TypeInfo inner, DataType key = DataType::kUndefined) {
  TypeInfo t;
  t.kind = kind;
  t.elem_type = key;
  t.inner = std::make_shared<TypeInfo>(std::move(inner));
  return t;
}

bool defined(const TypeInfo& t) {
  switch (t.kind) {
    case Kind::kUnknown:
      return false;
    case Kind::kTensor:
    case Kind::kSparseTensor:
      return t.elem_type != DataType::kUndefined;
    default:
      return t.inner && defined(*t.inner);
  }
}

// The position of each input an entry's type variables bind, with the first
// type allowed there; variadic variables also bind two inputs more.
std::map<size_t, DataType> bound_inputs(const ops::OpSchema& s) {
  std::map<size_t, DataType> at;
  for (const auto& p : s.types) {
    if (p.inputs.empty()) continue;
    const DataType t = p.allowed.empty() ? DataType::kFloat : p.allowed[0];
    for (int i : p.inputs) at[size_t(i)] = t;
    if (p.variadic)
      for (size_t i = size_t(p.inputs.back()) + 1; i <= size_t(p.inputs.back()) + 2; ++i) at[i] = t;
  }
  return at;
}

size_t output_count(const ops::OpSchema& s) {
  size_t n = 1;
  for (const auto& p : s.types)
    for (int o : p.outputs) n = std::max(n, size_t(o) + 1 + (p.variadic_outputs ? 2 : 0));
  return n;
}

// A body for graph attributes: a bool (Loop's condition) then floats.
std::shared_ptr<ir::Graph> body() {
  auto g = std::make_shared<ir::Graph>();
  g->outputs.push_back({"cond", tensor(DataType::kBool), ""});
  for (int i = 0; i < 4; ++i) g->outputs.push_back({str_cat("v", i), tensor(DataType::kFloat), ""});
  return g;
}

ir::Attribute attr_for(const ops::AttrDef& d) {
  ir::Attribute a;
  a.name = d.name;
  a.type = d.type;
  a.i = int64_t(DataType::kFloat);  // a valid data type where an int names one
  a.f = 1.0f;
  a.s = "x";
  a.ints = {1};
  a.floats = {1.0f};
  a.strings = {"x"};
  a.t = Tensor(DataType::kFloat, Shape{1});
  a.g = body();
  return a;
}

// The node's output types with the given inputs: how input i (of n) is
// typed, and whether optional attributes are set too (Constant's value,
// LabelEncoder's values_*).
std::vector<TypeInfo> try_types(const ops::OpSchema& s, size_t n_in,
                                const std::function<TypeInfo(size_t)>& input_type,
                                bool optional_attrs) {
  ir::Node n;
  n.domain = s.domain;
  n.op_type = s.op_type;
  for (size_t i = 0; i < n_in; ++i) n.inputs.push_back(str_cat("i", i));
  for (size_t o = 0; o < output_count(s); ++o) n.outputs.push_back(str_cat("o", o));
  bool value_set = false;  // Constant takes exactly one of its value attributes
  for (const auto& d : s.attrs) {
    if (d.required || (optional_attrs && !value_set)) {
      n.attributes.push_back(attr_for(d));
      value_set |= !d.required && s.op_type == "Constant";
    }
  }
  std::vector<TypeInfo> in;
  for (size_t i = 0; i < n_in; ++i) in.push_back(input_type(i));
  return ops::infer_output_types(n, s.since, in);
}

}  // namespace

// For every entry, some choice of inputs of allowed types (tensors of the
// first type each variable allows, with the inputs no variable binds given
// as tensors, sequences, optionals or maps, and extra inputs for the
// variadic training optimizers) types every output of the node.
TEST(SchemaTypes, EveryEntryTypesEveryOutput) {
  std::string untyped;
  for (const ops::OpSchema& s : ops::all_schemas()) {
    const auto bound = bound_inputs(s);
    const size_t listed = bound.empty() ? 0 : bound.rbegin()->first + 1;
    const std::vector<std::function<TypeInfo(const TypeInfo&)>> unbound = {
        [](const TypeInfo& f) { return f; },
        [](const TypeInfo& f) { return wrap(Kind::kSequence, f); },
        [](const TypeInfo& f) { return wrap(Kind::kOptional, f); },
        [](const TypeInfo& f) { return wrap(Kind::kMap, f, DataType::kInt64); }};
    bool ok = false;
    std::vector<TypeInfo> last;
    for (size_t extra : {size_t(0), size_t(1), size_t(4)})
      for (const auto& other : unbound)
        for (bool optional_attrs : {false, true}) {
          if (ok) break;
          last = try_types(
              s, listed + extra,
              [&](size_t i) {
                auto it = bound.find(i);
                return it != bound.end() ? tensor(it->second) : other(tensor(DataType::kFloat));
              },
              optional_attrs);
          ok = std::all_of(last.begin(), last.end(), defined);
        }
    if (!ok) {
      untyped += str_cat("\n  ", s.domain.empty() ? "ai.onnx" : s.domain, ":", s.op_type, "-",
                         s.since, ":");
      for (const auto& t : last) untyped += " " + t.to_string();
    }
  }
  EXPECT_TRUE(untyped.empty()) << "entries that leave an output untyped:" << untyped;
}

namespace {

ir::Node make(const std::string& op, size_t n_in, size_t n_out, const std::string& domain = "") {
  ir::Node n;
  n.domain = domain;
  n.op_type = op;
  for (size_t i = 0; i < n_in; ++i) n.inputs.push_back(str_cat("i", i));
  for (size_t o = 0; o < n_out; ++o) n.outputs.push_back(str_cat("o", o));
  return n;
}

void set_int(ir::Node& n, const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = v;
  n.attributes.push_back(a);
}

DataType out_type(const ir::Node& n, int64_t opset, const std::vector<TypeInfo>& in, size_t k = 0) {
  auto out = ops::infer_output_types(n, opset, in);
  return k < out.size() && out[k].is_tensor() ? out[k].elem_type : DataType::kUndefined;
}

const TypeInfo kF = tensor(DataType::kFloat), kH = tensor(DataType::kFloat16),
               kI64 = tensor(DataType::kInt64), kI8 = tensor(DataType::kInt8),
               kU8 = tensor(DataType::kUInt8);

}  // namespace

TEST(SchemaTypes, CastAndBitCastFollowTo) {
  ir::Node cast = make("Cast", 1, 1);
  set_int(cast, "to", int64_t(DataType::kInt32));
  EXPECT_EQ(out_type(cast, 19, {kF}), DataType::kInt32);
  ir::Node bits = make("BitCast", 1, 1);
  set_int(bits, "to", int64_t(DataType::kInt32));
  EXPECT_EQ(out_type(bits, 26, {kF}), DataType::kInt32);
  // An invalid `to` types nothing rather than a guess.
  ir::Node bad = make("Cast", 1, 1);
  set_int(bad, "to", 9999);
  EXPECT_EQ(out_type(bad, 19, {kF}), DataType::kUndefined);
}

TEST(SchemaTypes, QuantizeLinearFromZeroPointThenOutputDtypeThenUint8) {
  ir::Node q = make("QuantizeLinear", 3, 1);
  EXPECT_EQ(out_type(q, 13, {kF, kF, kI8}), DataType::kInt8);
  ir::Node no_zp = make("QuantizeLinear", 2, 1);
  EXPECT_EQ(out_type(no_zp, 13, {kF, kF}), DataType::kUInt8);
  EXPECT_EQ(out_type(no_zp, 21, {kF, kF}), DataType::kUInt8);
  set_int(no_zp, "output_dtype", int64_t(DataType::kInt16));
  EXPECT_EQ(out_type(no_zp, 21, {kF, kF}), DataType::kInt16);
  // A zero point left empty is absent.
  ir::Node empty_zp = make("QuantizeLinear", 3, 1);
  empty_zp.inputs[2].clear();
  EXPECT_EQ(out_type(empty_zp, 21, {kF, kF, TypeInfo()}), DataType::kUInt8);
}

TEST(SchemaTypes, DequantizeLinearFromScaleOrOutputDtype) {
  ir::Node dq = make("DequantizeLinear", 3, 1);
  EXPECT_EQ(out_type(dq, 13, {kU8, kF, kU8}), DataType::kFloat);
  EXPECT_EQ(out_type(dq, 21, {kU8, kH, kU8}), DataType::kFloat16);
  EXPECT_EQ(out_type(dq, 23, {kU8, kH, kU8}), DataType::kFloat16);
  set_int(dq, "output_dtype", int64_t(DataType::kFloat));
  EXPECT_EQ(out_type(dq, 23, {kU8, kH, kU8}), DataType::kFloat);
}

TEST(SchemaTypes, GeneratorsFollowDtypeOrTheirInput) {
  ir::Node eye = make("EyeLike", 1, 1);
  EXPECT_EQ(out_type(eye, 9, {kI64}), DataType::kInt64);
  set_int(eye, "dtype", int64_t(DataType::kDouble));
  EXPECT_EQ(out_type(eye, 9, {kI64}), DataType::kDouble);
  ir::Node normal = make("RandomNormal", 0, 1);
  EXPECT_EQ(out_type(normal, 1, {}), DataType::kFloat);  // dtype's default
  set_int(normal, "dtype", int64_t(DataType::kFloat16));
  EXPECT_EQ(out_type(normal, 1, {}), DataType::kFloat16);
  ir::Node like = make("RandomUniformLike", 1, 1);
  EXPECT_EQ(out_type(like, 1, {kH}), DataType::kFloat16);
  ir::Node multinomial = make("Multinomial", 1, 1);
  EXPECT_EQ(out_type(multinomial, 7, {kF}), DataType::kInt32);
  ir::Node window = make("HannWindow", 1, 1);
  EXPECT_EQ(out_type(window, 17, {kI64}), DataType::kFloat);
  set_int(window, "output_datatype", int64_t(DataType::kDouble));
  EXPECT_EQ(out_type(window, 17, {kI64}), DataType::kDouble);
  ir::Node cos = make("ConstantOfShape", 1, 1);
  EXPECT_EQ(out_type(cos, 9, {kI64}), DataType::kFloat);
  ir::Attribute value;
  value.name = "value";
  value.type = ir::AttrType::kTensor;
  value.t = Tensor(DataType::kInt32, Shape{1});
  cos.attributes.push_back(value);
  EXPECT_EQ(out_type(cos, 9, {kI64}), DataType::kInt32);
}

TEST(SchemaTypes, FixedTypesAndStashType) {
  EXPECT_EQ(out_type(make("Shape", 1, 1), 15, {kF}), DataType::kInt64);
  EXPECT_EQ(out_type(make("Size", 1, 1), 13, {kF}), DataType::kInt64);
  EXPECT_EQ(out_type(make("ArgMax", 1, 1), 13, {kF}), DataType::kInt64);
  EXPECT_EQ(out_type(make("NonZero", 1, 1), 13, {kF}), DataType::kInt64);
  EXPECT_EQ(out_type(make("Greater", 2, 1), 13, {kF, kF}), DataType::kBool);
  ir::Node topk = make("TopK", 2, 2);
  EXPECT_EQ(out_type(topk, 11, {kH, kI64}, 0), DataType::kFloat16);
  EXPECT_EQ(out_type(topk, 11, {kH, kI64}, 1), DataType::kInt64);
  ir::Node unique = make("Unique", 1, 4);
  EXPECT_EQ(out_type(unique, 11, {kI8}, 0), DataType::kInt8);
  EXPECT_EQ(out_type(unique, 11, {kI8}, 3), DataType::kInt64);
  ir::Node ln = make("LayerNormalization", 3, 3);
  EXPECT_EQ(out_type(ln, 17, {kH, kH, kH}, 0), DataType::kFloat16);
  EXPECT_EQ(out_type(ln, 17, {kH, kH, kH}, 1), DataType::kFloat);  // stash_type's default
  set_int(ln, "stash_type", int64_t(DataType::kDouble));
  EXPECT_EQ(out_type(ln, 17, {kH, kH, kH}, 2), DataType::kDouble);
  // Split's outputs after the first share its type.
  EXPECT_EQ(out_type(make("Split", 1, 3), 13, {kI8}, 2), DataType::kInt8);
  // Dropout's mask: the data's type before opset 10, bool after.
  EXPECT_EQ(out_type(make("Dropout", 1, 2), 7, {kF}, 1), DataType::kFloat);
  EXPECT_EQ(out_type(make("Dropout", 1, 2), 13, {kF}, 1), DataType::kBool);
}

TEST(SchemaTypes, OpsWithoutAnEntryAreUntyped) {
  EXPECT_EQ(out_type(make("NoSuchOp", 1, 1), 17, {kF}), DataType::kUndefined);
  EXPECT_EQ(out_type(make("Relu", 1, 1, "com.example"), 1, {kF}), DataType::kUndefined);
}

}  // namespace tessera::test
