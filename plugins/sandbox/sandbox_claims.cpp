// Which nodes the sandbox takes, and what it keeps of them for compute.
#include <map>
#include <set>

#include "sandbox_ops.hpp"

namespace sandbox {

namespace {

// Op type -> the attributes the sandbox understands (any other is declined).
const std::map<std::string, std::set<std::string>>& op_table() {
  static const std::map<std::string, std::set<std::string>> t = {
      {"Relu", {}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"Exp", {}},
      {"Log", {}},
      {"Neg", {}},
      {"Abs", {}},
      {"Sqrt", {}},
      {"Erf", {}},
      {"Reciprocal", {}},
      {"Floor", {}},
      {"Ceil", {}},
      {"LeakyRelu", {"alpha"}},
      {"Elu", {"alpha"}},
      {"Softplus", {}},
      {"Add", {}},
      {"Sub", {}},
      {"Mul", {}},
      {"Div", {}},
      {"MatMul", {}},
      {"Gemm", {"alpha", "beta", "transA", "transB"}},
      {"Conv", {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}},
      {"MaxPool",
       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}},
      {"AveragePool",
       {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads",
        "strides"}},
      {"GlobalAveragePool", {}},
      {"GlobalMaxPool", {}},
      {"Softmax", {"axis"}},
      {"LogSoftmax", {"axis"}},
  };
  return t;
}

bool is_spatial(const std::string& op) {
  return op == "Conv" || op == "MaxPool" || op == "AveragePool";
}

int64_t rank_of(const TsrEpHostApi& h, const TsrEpGraph* g, const char* value) {
  int32_t type = 0;
  int64_t rank = -1;
  int64_t dims[16];
  if (!h.value_type(g, value, &type, &rank, dims, 16)) return -1;
  return rank;
}

// Spatial dims of Conv/pooling: from kernel_shape, else the weights' rank,
// else the input's (intermediate values often have no static shape). -1: unknown.
int64_t spatial_rank(const TsrEpHostApi& h, const TsrEpGraph* g, size_t node) {
  const int64_t* ks = nullptr;
  size_t n = 0;
  if (h.attr_ints(g, node, "kernel_shape", &ks, &n)) return int64_t(n);
  for (size_t i : {size_t(1), size_t(0)}) {
    if (i >= h.node_num_inputs(g, node)) continue;
    const char* v = h.node_input(g, node, i);
    TsrEpTensor c;
    if (*v && h.value_constant(g, v, &c)) return int64_t(c.rank) - 2;
    int64_t r = rank_of(h, g, v);
    if (r >= 0) return r - 2;
  }
  return -1;
}

}  // namespace

std::string claim_reason(const TsrEpHostApi& h, const TsrEpGraph* g, size_t node) {
  const std::string op = h.node_op_type(g, node);
  if (*h.node_domain(g, node)) return "the sandbox runs only ai.onnx ops";
  auto it = op_table().find(op);
  if (it == op_table().end()) return "the sandbox has no kernel for " + op;
  const int64_t opset = h.node_opset(g, node);
  // Before opset 7 the arithmetic ops broadcast by attribute, not by numpy rules.
  if (opset < 7 && (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Gemm"))
    return "legacy broadcasting (opset < 7) is not supported";
  for (size_t a = 0; a < h.node_num_attrs(g, node); ++a) {
    std::string name = h.node_attr_name(g, node, a);
    if (!it->second.count(name)) return "attribute '" + name + "' is not supported";
  }
  for (size_t i = 0; i < h.node_num_inputs(g, node); ++i) {
    const char* v = h.node_input(g, node, i);
    if (!*v) continue;
    int32_t type = 0;
    int64_t rank = -1;
    if (!h.value_type(g, v, &type, &rank, nullptr, 0))
      return std::string("input '") + v + "' has no static tensor type";
    if (type != 1) return std::string("input '") + v + "' is not float32";
  }
  for (size_t i = 0; i < h.node_num_outputs(g, node); ++i) {
    const char* v = h.node_output(g, node, i);
    int32_t type = 0;
    int64_t rank = -1;
    if (*v && i > 0) return "only the first output is supported";
    if (*v && h.value_type(g, v, &type, &rank, nullptr, 0) && type != 1)
      return "output is not float32";
  }
  if (is_spatial(op)) {
    int64_t spatial = spatial_rank(h, g, node);
    if (spatial != 1 && spatial != 2) return "only 1-D and 2-D spatial ops (with a known rank)";
    int64_t v = 0;
    if (h.attr_int(g, node, "ceil_mode", &v) && v) return "ceil_mode=1 is not supported";
    if (h.attr_int(g, node, "storage_order", &v) && v) return "storage_order=1 is not supported";
  }
  if (op == "Conv" && h.node_num_inputs(g, node) < 2) return "Conv without weights";
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    int64_t rank = rank_of(h, g, h.node_input(g, node, 0));
    if (rank >= 0 && rank < 3) return "global pooling needs an input rank of at least 3";
  }
  return "";
}

OpDesc describe_node(const TsrEpHostApi& h, const TsrEpGraph* g, size_t node) {
  OpDesc d;
  d.name = h.node_name(g, node);
  d.op = h.node_op_type(g, node);
  d.opset = h.node_opset(g, node);
  for (size_t i = 0; i < h.node_num_inputs(g, node); ++i)
    d.inputs.push_back(h.node_input(g, node, i));
  for (size_t i = 0; i < h.node_num_outputs(g, node); ++i)
    d.outputs.push_back(h.node_output(g, node, i));
  auto ints = [&](const char* name) {
    const int64_t* v = nullptr;
    size_t n = 0;
    return h.attr_ints(g, node, name, &v, &n) ? Dims(v, v + n) : Dims{};
  };
  d.alpha = d.op == "LeakyRelu" ? 0.01f : 1.0f;
  d.beta = 1.0f;
  h.attr_float(g, node, "alpha", &d.alpha);
  h.attr_float(g, node, "beta", &d.beta);
  h.attr_int(g, node, "transA", &d.trans_a);
  h.attr_int(g, node, "transB", &d.trans_b);
  h.attr_int(g, node, "group", &d.group);
  h.attr_int(g, node, "count_include_pad", &d.count_include_pad);
  d.has_axis = h.attr_int(g, node, "axis", &d.axis);
  const char* pad = nullptr;
  if (h.attr_string(g, node, "auto_pad", &pad)) d.auto_pad = pad;
  d.kernel_shape = ints("kernel_shape");
  d.strides = ints("strides");
  d.pads = ints("pads");
  d.dilations = ints("dilations");
  return d;
}

}  // namespace sandbox
