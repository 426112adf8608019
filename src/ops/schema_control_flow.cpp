// Control flow: If, Loop and Scan. Their output types are their bodies'
// output types; their shapes depend on the branch taken or the iterations
// run, so no static rule gives them.
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::TypeInfo;

std::vector<TypeInfo> if_types(const ir::Node& n, int64_t, const std::vector<TypeInfo>&) {
  std::vector<TypeInfo> out(n.outputs.size());
  const std::vector<TypeInfo> body = graph_output_types(n, "then_branch");
  for (size_t i = 0; i < out.size() && i < body.size(); ++i) out[i] = body[i];
  return out;
}

// The body's outputs are cond, the N loop-carried values, then K scan
// outputs; a loop-carried output the body leaves untyped has its initial
// value's type (input 2 + i).
std::vector<TypeInfo> loop_types(const ir::Node& n, int64_t, const std::vector<TypeInfo>& in) {
  std::vector<TypeInfo> out(n.outputs.size());
  const std::vector<TypeInfo> body = graph_output_types(n, "body");
  for (size_t i = 0; i < out.size() && i + 1 < body.size(); ++i) {
    out[i] = body[i + 1];
    if (out[i].kind == TypeInfo::Kind::kUnknown && i + 2 < in.size()) out[i] = in[i + 2];
  }
  return out;
}

std::vector<TypeInfo> scan_types(const ir::Node& n, int64_t, const std::vector<TypeInfo>&) {
  std::vector<TypeInfo> out(n.outputs.size());
  const std::vector<TypeInfo> body = graph_output_types(n, "body");
  for (size_t i = 0; i < out.size() && i < body.size(); ++i) out[i] = body[i];
  return out;
}

}  // namespace

void add_control_flow_schemas(std::vector<OpSchema>& t) {
  // The carried values (V) may each have their own type: only the condition
  // and the trip count are constrained.
  const TypeParam cond{"B", {0}, {}, bool_type()};
  t.push_back({"",
               "If",
               1,
               {required_attr("then_branch", ir::AttrType::kGraph),
                required_attr("else_branch", ir::AttrType::kGraph)},
               {cond},
               if_types,
               unknown_shapes});
  t.push_back({"",
               "Loop",
               1,
               {required_attr("body", ir::AttrType::kGraph)},
               {{"I", {0}, {}, int64_type()}, {"B", {1}, {}, bool_type()}},
               loop_types,
               unknown_shapes});
  t.push_back({"",
               "Scan",
               8,
               {required_attr("body", ir::AttrType::kGraph),
                required_attr("num_scan_inputs", ir::AttrType::kInt), ints_attr("directions")},
               {{"I", {0}, {}, int64_type()}},
               scan_types,
               unknown_shapes});
  t.push_back({"",
               "Scan",
               9,
               {required_attr("body", ir::AttrType::kGraph),
                required_attr("num_scan_inputs", ir::AttrType::kInt), ints_attr("scan_input_axes"),
                ints_attr("scan_input_directions"), ints_attr("scan_output_axes"),
                ints_attr("scan_output_directions")},
               {},
               scan_types,
               unknown_shapes});
}

}  // namespace tessera::ops
