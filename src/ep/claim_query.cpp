#include "ep/claim_query.hpp"

namespace tessera::ep {

std::optional<size_t> ClaimQuery::rank(size_t i) const {
  auto d = dims(i);
  if (!d) return std::nullopt;
  return d->size();
}

std::optional<std::vector<std::optional<int64_t>>> ClaimQuery::dims(size_t i) const {
  if (!has_input(i)) return std::nullopt;
  if (const Tensor* c = constant(i)) {
    std::vector<std::optional<int64_t>> out;
    for (int64_t d : c->shape().dims()) out.push_back(d);
    return out;
  }
  const ir::TypeInfo* t = view_.type_of(node_.inputs[i]);
  if (!t || !t->is_tensor() || !t->shape) return std::nullopt;
  std::vector<std::optional<int64_t>> out;
  for (const auto& d : *t->shape) out.push_back(d.value);
  return out;
}

const Tensor* ClaimQuery::constant(size_t i) const {
  if (!has_input(i)) return nullptr;
  const std::string& name = node_.inputs[i];
  auto it = view_.graph->initializers.find(name);
  if (it == view_.graph->initializers.end() || view_.graph->find_input(name)) return nullptr;
  return &it->second;
}

int64_t ClaimQuery::attr_int(const char* name, int64_t def) const {
  const auto* a = node_.attr(name);
  return a && a->type == ir::AttrType::kInt ? a->i : def;
}
float ClaimQuery::attr_float(const char* name, float def) const {
  const auto* a = node_.attr(name);
  return a && a->type == ir::AttrType::kFloat ? a->f : def;
}
std::string ClaimQuery::attr_string(const char* name, const std::string& def) const {
  const auto* a = node_.attr(name);
  return a && a->type == ir::AttrType::kString ? a->s : def;
}
std::vector<int64_t> ClaimQuery::attr_ints(const char* name) const {
  const auto* a = node_.attr(name);
  return a && a->type == ir::AttrType::kInts ? a->ints : std::vector<int64_t>{};
}

std::vector<float> ClaimQuery::attr_floats(const char* name) const {
  const auto* a = node_.attr(name);
  return a && a->type == ir::AttrType::kFloats ? a->floats : std::vector<float>{};
}

}  // namespace tessera::ep
