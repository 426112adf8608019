#include "ep/plugin_graph.hpp"

#include <exception>

namespace tessera::ep {

namespace {

// Every function here is called from plugin code: none may throw across the
// C boundary, and bad indices answer "nothing" instead of reading out of bounds.
const ir::Node* node_at(const TsrEpGraph* g, size_t i) {
  if (!g || !g->view || i >= g->view->graph->nodes.size()) return nullptr;
  return &g->view->graph->nodes[i];
}

const ir::Attribute* attr_of(const TsrEpGraph* g, size_t node, const char* name,
                             ir::AttrType type) {
  const ir::Node* n = node_at(g, node);
  if (!n || !name) return nullptr;
  const ir::Attribute* a = n->attr(name);
  return a && a->type == type ? a : nullptr;
}

size_t num_nodes(const TsrEpGraph* g) { return g && g->view ? g->view->graph->nodes.size() : 0; }
const char* node_name(const TsrEpGraph* g, size_t i) {
  const ir::Node* n = node_at(g, i);
  return n ? n->name.c_str() : "";
}
const char* node_op_type(const TsrEpGraph* g, size_t i) {
  const ir::Node* n = node_at(g, i);
  return n ? n->op_type.c_str() : "";
}
const char* node_domain(const TsrEpGraph* g, size_t i) {
  const ir::Node* n = node_at(g, i);
  return n ? (n->domain == "ai.onnx" ? "" : n->domain.c_str()) : "";
}
int64_t node_opset(const TsrEpGraph* g, size_t i) {
  const ir::Node* n = node_at(g, i);
  return n ? g->view->opset(*n) : 0;
}
size_t node_num_inputs(const TsrEpGraph* g, size_t i) {
  const ir::Node* n = node_at(g, i);
  return n ? n->inputs.size() : 0;
}
const char* node_input(const TsrEpGraph* g, size_t i, size_t k) {
  const ir::Node* n = node_at(g, i);
  return n && k < n->inputs.size() ? n->inputs[k].c_str() : "";
}
size_t node_num_outputs(const TsrEpGraph* g, size_t i) {
  const ir::Node* n = node_at(g, i);
  return n ? n->outputs.size() : 0;
}
const char* node_output(const TsrEpGraph* g, size_t i, size_t k) {
  const ir::Node* n = node_at(g, i);
  return n && k < n->outputs.size() ? n->outputs[k].c_str() : "";
}

int value_type(const TsrEpGraph* g, const char* value, int32_t* elem_type, int64_t* rank,
               int64_t* dims, size_t max_dims) {
  if (!g || !g->view || !value) return 0;
  const ir::TypeInfo* t = g->view->type_of(value);
  if (!t || !t->is_tensor()) return 0;
  if (elem_type) *elem_type = to_onnx_type(t->elem_type);
  if (rank) *rank = t->shape ? int64_t(t->shape->size()) : -1;
  if (t->shape && dims)
    for (size_t d = 0; d < t->shape->size() && d < max_dims; ++d)
      dims[d] = (*t->shape)[d].value ? *(*t->shape)[d].value : -1;
  return 1;
}

int value_constant(const TsrEpGraph* g, const char* value, TsrEpTensor* out) {
  if (!g || !g->view || !value || !out) return 0;
  const ir::Graph& graph = *g->view->graph;
  auto it = graph.initializers.find(value);
  if (it == graph.initializers.end() || graph.find_input(value)) return 0;
  const Tensor& t = it->second;
  if (!t.memory_info().host_accessible()) return 0;
  out->elem_type = to_onnx_type(t.dtype());
  out->rank = t.rank();
  out->dims = t.shape().dims().data();
  out->data = const_cast<void*>(t.raw_data());
  return 1;
}

int attr_int(const TsrEpGraph* g, size_t node, const char* name, int64_t* out) {
  const ir::Attribute* a = attr_of(g, node, name, ir::AttrType::kInt);
  if (a && out) *out = a->i;
  return a != nullptr;
}
int attr_float(const TsrEpGraph* g, size_t node, const char* name, float* out) {
  const ir::Attribute* a = attr_of(g, node, name, ir::AttrType::kFloat);
  if (a && out) *out = a->f;
  return a != nullptr;
}
int attr_string(const TsrEpGraph* g, size_t node, const char* name, const char** out) {
  const ir::Attribute* a = attr_of(g, node, name, ir::AttrType::kString);
  if (a && out) *out = a->s.c_str();
  return a != nullptr;
}
int attr_ints(const TsrEpGraph* g, size_t node, const char* name, const int64_t** values,
              size_t* count) {
  const ir::Attribute* a = attr_of(g, node, name, ir::AttrType::kInts);
  if (a) {
    if (values) *values = a->ints.data();
    if (count) *count = a->ints.size();
  }
  return a != nullptr;
}
int has_attr(const TsrEpGraph* g, size_t node, const char* name) {
  const ir::Node* n = node_at(g, node);
  return n && name && n->attr(name) != nullptr;
}
size_t node_num_attrs(const TsrEpGraph* g, size_t node) {
  const ir::Node* n = node_at(g, node);
  return n ? n->attributes.size() : 0;
}
const char* node_attr_name(const TsrEpGraph* g, size_t node, size_t i) {
  const ir::Node* n = node_at(g, node);
  return n && i < n->attributes.size() ? n->attributes[i].name.c_str() : "";
}

void claim(TsrEpCapability* cap, const size_t* nodes, size_t count, int fused) {
  if (!cap || (!nodes && count)) return;
  try {
    // A kernel is a compiled single node: the plugin ABI has only compile().
    if (fused) {
      cap->cap.groups.push_back({std::vector<size_t>(nodes, nodes + count), true});
    } else {
      for (size_t k = 0; k < count; ++k) cap->cap.groups.push_back({{nodes[k]}, true});
    }
  } catch (...) {
  }
}

void decline(TsrEpCapability* cap, size_t node, const char* reason) {
  if (!cap) return;
  try {
    cap->cap.declined.push_back({node, reason ? reason : "declined by the plugin"});
  } catch (...) {
  }
}

void* allocate_output(TsrEpComputeContext* c, size_t i, int32_t elem_type, size_t rank,
                      const int64_t* dims) {
  static char empty_output;  // the non-NULL answer for outputs with no elements
  if (!c || !c->ctx) return nullptr;
  try {
    if (i >= c->ctx->num_outputs())
      fail(ErrorCode::kEPFail, "allocate_output: index ", i, " but the group has ",
           c->ctx->num_outputs(), " outputs");
    check(elem_type >= 1 && elem_type <= 25 && elem_type != 8, "allocate_output: element type ",
          elem_type, " is not a numeric ONNX type");
    check(rank == 0 || dims, "allocate_output: no dims for rank ", rank);
    std::vector<int64_t> d(dims, dims + rank);
    for (int64_t v : d) check(v >= 0, "allocate_output: negative dimension ", v, " for output ", i);
    Tensor& t = c->ctx->output(i, Shape(d), static_cast<DataType>(elem_type));
    if (c->allocated.size() <= i) c->allocated.resize(i + 1, 0);
    c->allocated[i] = 1;
    void* p = t.mutable_raw_data();
    return p ? p : &empty_output;
  } catch (const std::exception& e) {
    if (c->error.empty()) c->error = e.what();
    return nullptr;
  }
}

size_t num_outputs(const TsrEpComputeContext* c) { return c && c->ctx ? c->ctx->num_outputs() : 0; }

}  // namespace

const TsrEpHostApi& plugin_host_api() {
  static const TsrEpHostApi api = {
      TESSERA_EP_ABI_VERSION,
      num_nodes,
      node_name,
      node_op_type,
      node_domain,
      node_opset,
      node_num_inputs,
      node_input,
      node_num_outputs,
      node_output,
      value_type,
      value_constant,
      attr_int,
      attr_float,
      attr_string,
      attr_ints,
      has_attr,
      node_num_attrs,
      node_attr_name,
      claim,
      decline,
      allocate_output,
      num_outputs,
  };
  return api;
}

}  // namespace tessera::ep
