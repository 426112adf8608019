#include "ep/kernel_registry.hpp"

#include <algorithm>

#include "ir/graph.hpp"

namespace tessera::ep {

namespace types {
const std::vector<DataType> kFloats = {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                       DataType::kBFloat16};
const std::vector<DataType> kSignedInts = {DataType::kInt8, DataType::kInt16, DataType::kInt32,
                                           DataType::kInt64};
const std::vector<DataType> kUnsignedInts = {DataType::kUInt8, DataType::kUInt16,
                                             DataType::kUInt32, DataType::kUInt64};
std::vector<DataType> join(std::initializer_list<std::vector<DataType>> lists) {
  std::vector<DataType> out;
  for (const auto& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}
const std::vector<DataType> kInts = join({kSignedInts, kUnsignedInts});
const std::vector<DataType> kNumeric = join({kFloats, kInts});
const std::vector<DataType> kAll = [] {
  std::vector<DataType> v;
  for (int32_t i = 1; i <= kMaxDataType; ++i) v.push_back(static_cast<DataType>(i));
  return v;
}();
}  // namespace types

void KernelRegistry::add(KernelDef def, KernelFactory factory) {
  entries_.push_back({std::move(def), std::move(factory)});
}

static bool same_domain(const std::string& a, const std::string& b) {
  return a == b || (ir::is_onnx_domain(a) && ir::is_onnx_domain(b));
}

KernelRegistry::Match KernelRegistry::lookup(const std::string& domain,
                                             const std::string& op_type, int64_t opset,
                                             const std::vector<DataType>& input_types) const {
  Match m;
  std::string ranges;
  std::string type_reason;
  bool any_op = false;
  for (const auto& e : entries_) {
    if (e.def.op_type != op_type || !same_domain(e.def.domain, domain)) continue;
    any_op = true;
    if (opset < e.def.since || opset > e.def.until) {
      ranges += str_cat(ranges.empty() ? "" : ", ", e.def.since, "-",
                        e.def.until == kOpsetMax ? std::string("") : std::to_string(e.def.until));
      continue;
    }
    bool ok = true;
    for (const auto& c : e.def.constraints) {
      for (int idx : c.inputs) {
        size_t last =
            c.variadic && idx == c.inputs.back() ? input_types.size() : size_t(idx) + 1;
        for (size_t k = size_t(idx); k < last && k < input_types.size(); ++k) {
          DataType t = input_types[k];
          if (t == DataType::kUndefined) continue;  // omitted optional input
          if (std::find(c.allowed.begin(), c.allowed.end(), t) == c.allowed.end()) {
            ok = false;
            type_reason = str_cat("input ", k, " has type ", data_type_name(t),
                                  ", which constraint ", c.name, " does not allow");
          }
        }
      }
    }
    if (ok) {
      m.entry = &e;
      return m;
    }
  }
  if (!any_op)
    m.reason = "no kernel for this op";
  else if (!type_reason.empty())
    m.reason = type_reason;
  else
    m.reason = str_cat("no kernel for opset ", opset, " (kernels cover opsets ", ranges, ")");
  return m;
}

}  // namespace tessera::ep
