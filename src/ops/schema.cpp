#include "ops/schema.hpp"

#include <algorithm>
#include <tuple>

#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

std::string key_domain(const std::string& d) { return ir::is_onnx_domain(d) ? "" : d; }

std::vector<OpSchema> build_table() {
  std::vector<OpSchema> t;
  add_elementwise_schemas(t);
  add_shape_op_schemas(t);
  add_tensor_op_schemas(t);
  add_reduce_schemas(t);
  add_nn_schemas(t);
  add_quant_schemas(t);
  add_sequence_schemas(t);
  add_control_flow_schemas(t);
  add_ml_schemas(t);
  add_training_schemas(t);
  add_generator_schemas(t);
  add_signal_schemas(t);
  add_image_schemas(t);
  add_index_schemas(t);
  add_recurrent_schemas(t);
  add_norm_loss_schemas(t);
  add_string_schemas(t);
  add_conv_extra_schemas(t);
  add_attention_schemas(t);
  add_contrib_schemas(t);
  add_data_dependent_schemas(t);
  add_contrib_body_schemas(t);
  // Lookups bisect by (domain, op, since).
  std::sort(t.begin(), t.end(), [](const OpSchema& a, const OpSchema& b) {
    return std::tie(a.domain, a.op_type, a.since) < std::tie(b.domain, b.op_type, b.since);
  });
  return t;
}

const ir::Attribute* node_attr(const OpSchema& s, const ir::Node& n, const std::string& name,
                               ir::AttrType type) {
  const AttrDef* def = s.attr_def(name);
  if (!def)
    fail(ErrorCode::kRuntimeException, "internal: the schema of ", s.op_type, " (since ", s.since,
         ") has no attribute '", name, "'");
  const ir::Attribute* a = n.attr(name);
  if (!a) {
    if (def->required)
      fail(ErrorCode::kInvalidArgument, n.describe(), ": required attribute '", name,
           "' is missing");
    return nullptr;
  }
  if (a->type != type)
    fail(ErrorCode::kInvalidArgument, n.describe(), ": attribute '", name, "' is ",
         ir::attr_type_name(a->type), ", expected ", ir::attr_type_name(type));
  return a;
}

}  // namespace

const std::vector<OpSchema>& all_schemas() {
  static const std::vector<OpSchema> table = build_table();
  return table;
}

const OpSchema* find_schema(const std::string& domain, const std::string& op_type, int64_t opset) {
  const auto& t = all_schemas();
  const std::string d = key_domain(domain);
  // The last entry of (d, op_type) with since <= opset.
  auto it = std::upper_bound(
      t.begin(), t.end(), std::tie(d, op_type, opset),
      [](const auto& k, const OpSchema& s) { return k < std::tie(s.domain, s.op_type, s.since); });
  if (it == t.begin()) return nullptr;
  --it;
  return it->domain == d && it->op_type == op_type ? &*it : nullptr;
}

const OpSchema* find_schema(const ir::Node& node, int64_t opset) {
  return find_schema(node.domain, node.op_type, opset);
}

const OpSchema& schema_of(const ir::Node& node, int64_t opset) {
  const OpSchema* s = find_schema(node, opset);
  if (!s)
    fail(ErrorCode::kNotImplemented, node.describe(), ": no schema for opset ", opset,
         " of this op");
  return *s;
}

const AttrDef* latest_attr_def(const std::string& domain, const std::string& op_type,
                               const std::string& name) {
  const std::string d = key_domain(domain);
  const AttrDef* found = nullptr;
  for (const OpSchema& s : all_schemas())  // ordered by since: the last one wins
    if (s.domain == d && s.op_type == op_type)
      if (const AttrDef* a = s.attr_def(name)) found = a;
  return found;
}

int64_t attr_int_any_version(const ir::Node& n, const std::string& name, int64_t fallback) {
  const ir::Attribute* a = n.attr(name);
  if (a && a->type == ir::AttrType::kInt) return a->i;
  const AttrDef* d = latest_attr_def(n.domain, n.op_type, name);
  return d && d->type == ir::AttrType::kInt && !d->required ? d->i : fallback;
}

bool attr_is_default(const ir::Node& n, const std::string& name) {
  const ir::Attribute* a = n.attr(name);
  if (!a) return true;
  const AttrDef* d = latest_attr_def(n.domain, n.op_type, name);
  return d && a->type == ir::AttrType::kInt && d->type == ir::AttrType::kInt && a->i == d->i;
}

const AttrDef* OpSchema::attr_def(const std::string& name) const {
  for (const auto& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

int64_t OpSchema::attr_int(const ir::Node& n, const std::string& name) const {
  const ir::Attribute* a = node_attr(*this, n, name, ir::AttrType::kInt);
  return a ? a->i : attr_def(name)->i;
}

float OpSchema::attr_float(const ir::Node& n, const std::string& name) const {
  const ir::Attribute* a = node_attr(*this, n, name, ir::AttrType::kFloat);
  return a ? a->f : attr_def(name)->f;
}

std::string OpSchema::attr_string(const ir::Node& n, const std::string& name) const {
  const ir::Attribute* a = node_attr(*this, n, name, ir::AttrType::kString);
  return a ? a->s : attr_def(name)->s;
}

std::vector<int64_t> OpSchema::attr_ints(const ir::Node& n, const std::string& name) const {
  const ir::Attribute* a = node_attr(*this, n, name, ir::AttrType::kInts);
  return a ? a->ints : attr_def(name)->ints;
}

std::vector<std::string> OpSchema::attr_strings(const ir::Node& n, const std::string& name) const {
  const ir::Attribute* a = node_attr(*this, n, name, ir::AttrType::kStrings);
  return a ? a->strings : attr_def(name)->strings;
}

}  // namespace tessera::ops
