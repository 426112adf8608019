#include "ops/type_inference.hpp"

#include <set>
#include <string>

#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using ir::TypeInfo;
using Kind = TypeInfo::Kind;
using schema::attr_dtype;

TypeInfo tensor_of(DataType t) { return TypeInfo::tensor(t); }

TypeInfo seq_of(TypeInfo inner) {
  TypeInfo t;
  t.kind = Kind::kSequence;
  t.inner = std::make_shared<TypeInfo>(std::move(inner));
  return t;
}

TypeInfo in(const std::vector<TypeInfo>& inputs, size_t i) {
  return i < inputs.size() ? inputs[i] : TypeInfo();
}

// Element type of a tensor input, or undefined.
DataType elem(const std::vector<TypeInfo>& inputs, size_t i) {
  TypeInfo t = in(inputs, i);
  return t.kind == Kind::kTensor ? t.elem_type : DataType::kUndefined;
}

TypeInfo constant_type(const ir::Node& n) {
  for (const auto& a : n.attributes) {
    if (a.name == "value" || a.name == "sparse_value") return tensor_of(a.t.dtype());
    if (a.name == "value_float" || a.name == "value_floats") return tensor_of(DataType::kFloat);
    if (a.name == "value_int" || a.name == "value_ints") return tensor_of(DataType::kInt64);
    if (a.name == "value_string" || a.name == "value_strings") return tensor_of(DataType::kString);
  }
  return TypeInfo();
}

// Ops the schema table (schema.hpp) does not type.
const std::set<std::string> kInt64Out = {"NonZero", "NonMaxSuppression"};

std::vector<TypeInfo> infer_onnx(const ir::Node& n, int64_t opset,
                                 const std::vector<TypeInfo>& inputs) {
  const std::string& op = n.op_type;
  const size_t nout = n.outputs.size();
  std::vector<TypeInfo> out(nout);
  auto all = [&](TypeInfo t) {
    for (auto& o : out) o = t;
    return out;
  };
  if (kInt64Out.count(op)) return all(tensor_of(DataType::kInt64));
  if (op == "Constant") return all(constant_type(n));
  if (op == "ConstantOfShape") {
    const ir::Attribute* a = n.attr("value");
    return all(tensor_of(a && a->t.defined() ? a->t.dtype() : DataType::kFloat));
  }
  if (op == "EyeLike" || op == "RandomNormalLike" || op == "RandomUniformLike" || op == "Bernoulli")
    return all(tensor_of(attr_dtype(n, "dtype", elem(inputs, 0))));
  if (op == "RandomNormal" || op == "RandomUniform")
    return all(tensor_of(attr_dtype(n, "dtype", DataType::kFloat)));
  if (op == "Multinomial") return all(tensor_of(attr_dtype(n, "dtype", DataType::kInt32)));
  if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow" ||
      op == "MelWeightMatrix")
    return all(tensor_of(attr_dtype(n, "output_datatype", DataType::kFloat)));
  if (op == "QuantizeLinear") {
    DataType t = elem(inputs, 2);
    if (t == DataType::kUndefined) t = attr_dtype(n, "output_dtype", DataType::kUInt8);
    return all(tensor_of(t));
  }
  if (op == "DequantizeLinear") {
    DataType t =
        opset >= 23 ? attr_dtype(n, "output_dtype", DataType::kUndefined) : DataType::kUndefined;
    return all(tensor_of(t != DataType::kUndefined ? t : elem(inputs, 1)));
  }
  if (op == "Attention") {  // Y, present_key (T1), present_value (T2), qk_matmul_output (T1)
    for (size_t i = 0; i < nout; ++i) out[i] = tensor_of(elem(inputs, i == 2 ? 2 : i == 1 ? 1 : 0));
    return out;
  }
  if (op == "ImageDecoder") return all(tensor_of(DataType::kUInt8));
  if (op == "StringSplit") {
    out[0] = tensor_of(DataType::kString);
    if (nout > 1) out[1] = tensor_of(DataType::kInt64);
    return out;
  }
  if (op == "Unique") {
    for (size_t i = 0; i < nout; ++i)
      out[i] = tensor_of(i == 0 ? elem(inputs, 0) : DataType::kInt64);
    return out;
  }
  if (op == "LayerNormalization" || op == "SimplifiedLayerNormalization") {
    // Mean and InvStdDev have the stash type (float by default).
    out[0] = in(inputs, 0);
    for (size_t i = 1; i < nout; ++i)
      out[i] = tensor_of(attr_dtype(n, "stash_type", DataType::kFloat));
    return out;
  }
  if (op == "BitCast") return all(tensor_of(attr_dtype(n, "to", DataType::kUndefined)));
  if (op == "LinearAttention") {
    // present_state has past_state's type S; without past_state it is T.
    out[0] = in(inputs, 0);
    if (nout > 1) {
      DataType s = elem(inputs, 3);
      out[1] = s != DataType::kUndefined ? tensor_of(s) : in(inputs, 0);
    }
    return out;
  }
  // Default: every output has the type of the first input.
  if (!inputs.empty()) return all(inputs[0]);
  return out;
}

// ai.onnx.preview.training optimizers: inputs R, T, then groups of n tensors
// (X, G, states...); outputs X_new, then each state group, typed like their inputs.
std::vector<TypeInfo> infer_training(const ir::Node& n, const std::vector<TypeInfo>& inputs) {
  std::vector<TypeInfo> out(n.outputs.size());
  const size_t groups = n.op_type == "Adam" ? 4 : 3;
  if (n.op_type != "Adam" && n.op_type != "Adagrad" && n.op_type != "Momentum") return out;
  if (inputs.size() < 2 + groups) return out;
  const size_t cnt = (inputs.size() - 2) / groups;
  for (size_t o = 0; o < out.size() && cnt > 0; ++o) {
    size_t g = o / cnt, i = o % cnt;
    out[o] = in(inputs, 2 + (g == 0 ? i : (g + 1) * cnt + i));
  }
  return out;
}

// ai.onnx.ml: most outputs are fixed types; the rest follow an attribute
// (labels, values_*, cast_to) or the input.
std::vector<TypeInfo> infer_ml(const ir::Node& n, int64_t opset,
                               const std::vector<TypeInfo>& inputs) {
  const std::string& op = n.op_type;
  std::vector<TypeInfo> out(n.outputs.size());
  auto all = [&](TypeInfo t) {
    for (auto& o : out) o = t;
    return out;
  };
  auto has = [&](const char* a) { return n.attr(a) != nullptr; };
  static const std::set<std::string> kFloatOut = {
      "FeatureVectorizer", "Normalizer",           "Scaler", "OneHotEncoder", "LinearRegressor",
      "SVMRegressor",      "TreeEnsembleRegressor"};
  if (kFloatOut.count(op)) return all(tensor_of(DataType::kFloat));
  if (op == "ArrayFeatureExtractor" || op == "Binarizer" || op == "Imputer" || op == "TreeEnsemble")
    return all(in(inputs, 0));
  if (op == "CastMap") {
    const ir::Attribute* a = n.attr("cast_to");
    std::string to = a ? a->s : "TO_FLOAT";
    return all(tensor_of(to == "TO_STRING"  ? DataType::kString
                         : to == "TO_INT64" ? DataType::kInt64
                                            : DataType::kFloat));
  }
  if (op == "CategoryMapper" || (op == "LabelEncoder" && opset < 2)) {
    DataType t = elem(inputs, 0);
    if (t == DataType::kString) return all(tensor_of(DataType::kInt64));
    if (t == DataType::kInt64) return all(tensor_of(DataType::kString));
    return out;
  }
  if (op == "LabelEncoder") {
    if (has("values_strings")) return all(tensor_of(DataType::kString));
    if (has("values_int64s")) return all(tensor_of(DataType::kInt64));
    if (has("values_floats")) return all(tensor_of(DataType::kFloat));
    const ir::Attribute* a = n.attr("values_tensor");
    if (a && a->t.defined()) return all(tensor_of(a->t.dtype()));
    return out;
  }
  if (op == "DictVectorizer") {
    TypeInfo m = in(inputs, 0);
    if (m.kind == Kind::kMap && m.inner)
      return all(
          tensor_of(m.inner->kind == Kind::kTensor ? m.inner->elem_type : DataType::kUndefined));
    return out;
  }
  if (op == "LinearClassifier" || op == "SVMClassifier" || op == "TreeEnsembleClassifier") {
    if (!out.empty())
      out[0] = tensor_of(has("classlabels_strings") ? DataType::kString : DataType::kInt64);
    if (out.size() > 1) out[1] = tensor_of(DataType::kFloat);
    return out;
  }
  if (op == "ZipMap") {
    TypeInfo m;
    m.kind = Kind::kMap;
    m.elem_type = has("classlabels_strings") ? DataType::kString : DataType::kInt64;
    m.inner = std::make_shared<TypeInfo>(tensor_of(DataType::kFloat));
    return all(seq_of(m));
  }
  return out;
}

}  // namespace

std::vector<ir::TypeInfo> infer_output_types(const ir::Node& node, int64_t opset,
                                             const std::vector<ir::TypeInfo>& inputs) {
  if (const OpSchema* s = find_schema(node, opset); s && s->type_rule) {
    std::vector<ir::TypeInfo> out = s->type_rule(node, opset, inputs);
    out.resize(node.outputs.size());
    return out;
  }
  if (ir::is_onnx_domain(node.domain)) return infer_onnx(node, opset, inputs);
  if (node.domain == "ai.onnx.preview.training") return infer_training(node, inputs);
  if (node.domain == "ai.onnx.ml") return infer_ml(node, opset, inputs);
  // ai.onnx.preview.FlexAttention: Y has the type of Q.
  if (node.domain == "ai.onnx.preview" && node.op_type == "FlexAttention" && !inputs.empty())
    return std::vector<ir::TypeInfo>(node.outputs.size(), inputs[0]);
  // MatMulIntegerToFloat (optimizer-made) gives its scale's (input 4) type.
  if (node.domain == "com.tessera" && node.op_type == "MatMulIntegerToFloat" && inputs.size() > 4)
    return {ir::TypeInfo::tensor(inputs[4].elem_type)};
  // ONNX Runtime's EmbedLayerNormalization: the embeddings' type, the int32
  // mask index, the embeddings' type.
  if (node.domain == "com.microsoft" && node.op_type == "EmbedLayerNormalization" &&
      inputs.size() > 2)
    return {inputs[2], ir::TypeInfo::tensor(DataType::kInt32), inputs[2]};
  // Its ops whose output type is not their first input's (the ones run as
  // bodies are typed here too, for the ops after them until they expand).
  if (node.domain == "com.microsoft" && node.op_type == "MatMulIntegerToFloat" && inputs.size() > 2)
    return {ir::TypeInfo::tensor(inputs[2].elem_type)};
  if (node.domain == "com.microsoft" && node.op_type == "GatherBlockQuantized" && inputs.size() > 2)
    return {ir::TypeInfo::tensor(inputs[2].elem_type)};
  if (node.domain == "com.microsoft" && node.op_type == "DequantizeLinear" && inputs.size() > 1)
    return {ir::TypeInfo::tensor(inputs[1].elem_type)};
  if (node.domain == "com.microsoft" && node.op_type == "QuantizeLinear")
    return {ir::TypeInfo::tensor(inputs.size() > 2 && !node.inputs[2].empty() ? inputs[2].elem_type
                                                                              : DataType::kUInt8)};
  // The others (Attention, FusedMatMul, QLinearAdd, ...): the first input's.
  if (node.domain == "com.microsoft" && !inputs.empty())
    return std::vector<ir::TypeInfo>(node.outputs.size(), inputs[0]);
  // QuantizedLookup (optimizer-made) gives its table's type.
  if (node.domain == "com.tessera" && node.op_type == "QuantizedLookup" && inputs.size() > 1)
    return {ir::TypeInfo::tensor(inputs[1].elem_type)};
  // DequantizeAdd (optimizer-made): float C, and Q of Y_zero_point's (input 7) type.
  if (node.domain == "com.tessera" && node.op_type == "DequantizeAdd") {
    std::vector<ir::TypeInfo> out = {ir::TypeInfo::tensor(DataType::kFloat)};
    if (node.outputs.size() > 1)
      out.push_back(inputs.size() > 7 ? ir::TypeInfo::tensor(inputs[7].elem_type) : ir::TypeInfo{});
    return out;
  }
  // Tessera's other internal fused ops (optimizer-made) keep their first input's type.
  if (node.domain == "com.tessera" && !inputs.empty())
    return std::vector<ir::TypeInfo>(node.outputs.size(), inputs[0]);
  return std::vector<ir::TypeInfo>(node.outputs.size());
}

}  // namespace tessera::ops
