#include "onnx/function_inliner.hpp"

#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"

namespace tessera::onnx {

namespace {

using FunctionKey = std::tuple<std::string, std::string, std::string>;  // domain, name, overload

// "" and "ai.onnx" are one domain, for matching calls as for opsets.
std::string canonical_domain(const std::string& d) { return ir::is_onnx_domain(d) ? "" : d; }

// Graph attributes are shared_ptrs; an expanded body must own its subgraphs so
// renaming them cannot touch the function definition (or another expansion).
std::shared_ptr<ir::Graph> clone_graph(const ir::Graph& g);

void clone_subgraphs(ir::Node& n) {
  for (auto& a : n.attributes) {
    if (a.g) a.g = clone_graph(*a.g);
    for (auto& sg : a.graphs)
      if (sg) sg = clone_graph(*sg);
  }
}

std::shared_ptr<ir::Graph> clone_graph(const ir::Graph& g) {
  auto c = std::make_shared<ir::Graph>(g);
  for (auto& n : c->nodes) clone_subgraphs(n);
  return c;
}

template <typename Fn>
void for_each_subgraph(ir::Node& n, Fn&& fn) {
  for (auto& a : n.attributes) {
    if (a.g) fn(*a.g);
    for (auto& sg : a.graphs)
      if (sg) fn(*sg);
  }
}

void collect_names(const ir::Graph& g, std::set<std::string>& names) {
  for (const auto* list : {&g.inputs, &g.outputs, &g.value_info})
    for (const auto& v : *list) names.insert(v.name);
  for (const auto& [name, t] : g.initializers) names.insert(name);
  for (const auto& [name, t] : g.sparse_initializers) names.insert(name);
  for (const auto& n : g.nodes) {
    names.insert(n.name);
    names.insert(n.inputs.begin(), n.inputs.end());
    names.insert(n.outputs.begin(), n.outputs.end());
    for (const auto& a : n.attributes) {
      if (a.g) collect_names(*a.g, names);
      for (const auto& sg : a.graphs)
        if (sg) collect_names(*sg, names);
    }
  }
}

class Inliner {
 public:
  explicit Inliner(ir::Model& model) : model_(model) {
    for (const auto& f : model.functions)
      functions_[{canonical_domain(f.domain), f.name, f.overload}] = &f;
    find_ = [this](const ir::Node& n) -> const ir::Function* {
      auto it = functions_.find({canonical_domain(n.domain), n.op_type, n.overload});
      return it == functions_.end() ? nullptr : it->second;
    };
  }
  Inliner(ir::Model& model, BodyFor body_for) : model_(model), find_(std::move(body_for)) {}

  void run() {
    if (functions_.empty()) return;
    collect_names(model_.graph, names_);
    process_graph(model_.graph);
  }

  // One level: the body's own nodes are kept as they are, so the caller can
  // look at them again with fresh types (and bound the depth).
  std::vector<Expansion> expand_once(ir::Graph& g) {
    collect_names(model_.graph, names_);
    collect_names(g, names_);
    std::vector<ir::Node> nodes = std::move(g.nodes);
    g.nodes.clear();
    std::vector<Expansion> done;
    for (auto& n : nodes) {
      const ir::Function* f = find_(n);
      if (!f) {
        g.nodes.push_back(std::move(n));
        continue;
      }
      Expansion e{n.name, n.op_type, {}};
      merge_opsets(*f);
      for (auto& b : expand(n, *f, g)) {
        e.body_nodes.push_back(b.name);
        g.nodes.push_back(std::move(b));
      }
      done.push_back(std::move(e));
    }
    return done;
  }

 private:
  const ir::Function* find(const ir::Node& n) const { return find_(n); }

  void process_graph(ir::Graph& g) {
    std::vector<ir::Node> nodes = std::move(g.nodes);
    g.nodes.clear();
    process_nodes(std::move(nodes), g);
  }

  // Appends `nodes` to g.nodes, expanding calls (recursively) on the way.
  void process_nodes(std::vector<ir::Node> nodes, ir::Graph& g) {
    for (auto& n : nodes) {
      const ir::Function* f = find(n);
      if (!f) {
        for_each_subgraph(n, [&](ir::Graph& sg) { process_graph(sg); });
        g.nodes.push_back(std::move(n));
        continue;
      }
      for (const ir::Function* open : stack_) {
        if (open == f) {
          std::string chain;
          for (const ir::Function* s : stack_) chain += s->name + " -> ";
          fail(ErrorCode::kInvalidGraph, "function '", f->name, "' is recursive (", chain, f->name,
               "); called from ", n.describe());
        }
      }
      merge_opsets(*f);
      std::vector<ir::Node> body = expand(n, *f, g);
      stack_.push_back(f);
      process_nodes(std::move(body), g);
      stack_.pop_back();
    }
  }

  void merge_opsets(const ir::Function& f) {
    for (const auto& o : f.opset_imports) {
      int64_t have = model_.opset(o.domain);
      if (have == 0) {
        model_.opset_imports.push_back(o);
      } else if (have != o.version) {
        fail(ErrorCode::kInvalidGraph, "function '", f.name, "' imports opset '",
             o.domain.empty() ? "ai.onnx" : o.domain, "' version ", o.version,
             " but the model imports version ", have);
      }
    }
  }

  // A prefix no existing name starts with, so every prefixed name is fresh.
  std::string fresh_prefix(const ir::Node& call, const ir::Function& f) {
    std::string base = (call.name.empty() ? f.name : call.name) + "/" + f.name + "_";
    for (;;) {
      std::string prefix = base + std::to_string(counter_++) + "/";
      auto it = names_.lower_bound(prefix);
      if (it == names_.end() || it->compare(0, prefix.size(), prefix) != 0) return prefix;
    }
  }

  std::vector<ir::Node> expand(const ir::Node& call, const ir::Function& f, ir::Graph& g) {
    if (call.inputs.size() > f.inputs.size() || call.outputs.size() > f.outputs.size())
      fail(ErrorCode::kInvalidGraph, call.describe(), " passes ", call.inputs.size(),
           " inputs and ", call.outputs.size(), " outputs to function '", f.name, "', which takes ",
           f.inputs.size(), " inputs and ", f.outputs.size(), " outputs");
    std::string prefix = fresh_prefix(call, f);
    std::map<std::string, std::string> rename;
    for (size_t i = 0; i < f.inputs.size(); ++i)
      rename[f.inputs[i]] = i < call.inputs.size() ? call.inputs[i] : "";
    for (size_t i = 0; i < f.outputs.size(); ++i)
      if (i < call.outputs.size() && !call.outputs[i].empty())
        rename[f.outputs[i]] = call.outputs[i];

    auto map_name = [&](const std::string& s) -> std::string {
      if (s.empty()) return s;
      auto it = rename.find(s);
      if (it != rename.end()) return it->second;
      std::string r = prefix + s;
      names_.insert(r);
      return r;
    };
    std::function<void(ir::Graph&)> rename_graph = [&](ir::Graph& sg) {
      for (auto* list : {&sg.inputs, &sg.outputs, &sg.value_info})
        for (auto& v : *list) v.name = map_name(v.name);
      std::map<std::string, Tensor> inits;
      for (auto& [name, t] : sg.initializers) inits.emplace(map_name(name), t);
      sg.initializers = std::move(inits);
      for (auto& n : sg.nodes) {
        n.name = prefix + n.name;
        for (auto& s : n.inputs) s = map_name(s);
        for (auto& s : n.outputs) s = map_name(s);
        for_each_subgraph(n, rename_graph);
      }
    };

    std::vector<ir::Node> body;
    body.reserve(f.nodes.size());
    for (size_t k = 0; k < f.nodes.size(); ++k) {
      ir::Node n = f.nodes[k];
      clone_subgraphs(n);
      n.name = prefix + (n.name.empty() ? n.op_type + "_" + std::to_string(k) : n.name);
      names_.insert(n.name);
      for (auto& s : n.inputs) s = map_name(s);
      for (auto& s : n.outputs) s = map_name(s);
      for_each_subgraph(n, rename_graph);
      // After renaming: substituted graphs come from the caller's scope.
      substitute_refs(n, call, f);
      drop_omitted_variadic_inputs(n);
      body.push_back(std::move(n));
    }
    // Every output the call binds must come out of the body: a body that
    // leaves one unmade (a form of the op it does not compute) would leave
    // the caller's value with no producer.
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      if (call.outputs[i].empty()) continue;
      bool made = false;
      for (const auto& n : body)
        for (const auto& o : n.outputs) made |= o == call.outputs[i];
      if (!made)
        fail(ErrorCode::kInvalidGraph, call.describe(), ": its output ", i, " ('", call.outputs[i],
             "') is not computed by function '", f.name,
             "' (that form of the op is not supported)");
    }
    for (const auto& v : f.value_info) {
      if (rename.count(v.name)) continue;  // the caller's own value keeps its own info
      ir::ValueInfo vi = v;
      vi.name = map_name(v.name);
      g.value_info.push_back(std::move(vi));
    }
    return body;
  }

  // Attributes that say ref_attr_name take the caller's value, else the
  // function's default, else they are dropped (the op's own default applies).
  void substitute_refs(ir::Node& n, const ir::Node& call, const ir::Function& f) {
    std::vector<ir::Attribute> out;
    for (auto& a : n.attributes) {
      if (a.ref_attr_name.empty()) {
        for_each_subgraph_attr(a, [&](ir::Graph& sg) {
          for (auto& sn : sg.nodes) substitute_refs(sn, call, f);
        });
        out.push_back(std::move(a));
        continue;
      }
      const ir::Attribute* src = call.attr(a.ref_attr_name);
      if (!src) {
        for (const auto& d : f.attribute_defaults)
          if (d.name == a.ref_attr_name) src = &d;
      }
      if (!src) {
        // A Constant's value has no default to fall back on: say which
        // attribute of the call is missing, not that the body's Constant is empty.
        if (ir::is_onnx_domain(n.domain) && n.op_type == "Constant")
          fail(ErrorCode::kInvalidGraph, call.describe(), " needs attribute '", a.ref_attr_name,
               "' (function '", f.name, "' reads it)");
        continue;
      }
      ir::Attribute v = *src;
      v.name = a.name;
      v.ref_attr_name.clear();
      if (v.g) v.g = clone_graph(*v.g);
      for (auto& sg : v.graphs)
        if (sg) sg = clone_graph(*sg);
      out.push_back(std::move(v));
    }
    n.attributes = std::move(out);
  }

  // An optional input the caller omits is an empty name in the body. Passed to
  // a variadic op it simply drops out: Max(x, <omitted>) is Max(x). This is
  // how bodies with optional inputs (Clip's bounds, LayerNormalization's
  // bias) stay a single straight-line body.
  // What is left is written in the plainest form: one input is Identity, and
  // Sum of two is Add, the form the optimizer's fusions look for (a body's
  // residual or bias sum then fuses like the model's own Add would).
  static void drop_omitted_variadic_inputs(ir::Node& n) {
    static const std::set<std::string> kVariadic = {"Max", "Min", "Sum", "Mean"};
    if (!ir::is_onnx_domain(n.domain) || !kVariadic.count(n.op_type)) return;
    std::erase(n.inputs, std::string());
    if (n.inputs.size() == 1) n.op_type = "Identity";
    if (n.inputs.size() == 2 && n.op_type == "Sum") n.op_type = "Add";
  }

  template <typename Fn>
  static void for_each_subgraph_attr(ir::Attribute& a, Fn&& fn) {
    if (a.g) fn(*a.g);
    for (auto& sg : a.graphs)
      if (sg) fn(*sg);
  }

  ir::Model& model_;
  std::map<FunctionKey, const ir::Function*> functions_;
  BodyFor find_;
  std::set<std::string> names_;
  std::vector<const ir::Function*> stack_;
  int64_t counter_ = 0;
};

}  // namespace

void inline_functions(ir::Model& model) { Inliner(model).run(); }

std::vector<Expansion> expand_nodes(ir::Model& model, ir::Graph& graph, const BodyFor& body_for) {
  return Inliner(model, body_for).expand_once(graph);
}

}  // namespace tessera::onnx
