// `tessera inspect`: what a model declares (inputs, outputs, opsets, metadata,
// ops) and where a session would run each node.
#include <iostream>
#include <map>

#include "cli_args.hpp"
#include "commands.hpp"
#include "onnx/model_reader.hpp"
#include "runtime/session.hpp"
#include "value_format.hpp"

namespace tessera::cli {

namespace {

void print_io(const char* title, const std::vector<ir::ValueInfo>& values) {
  std::cout << title << " (" << values.size() << "):\n";
  for (const auto& v : values) std::cout << "  " << v.name << ": " << declared_type(v.type) << "\n";
}

void print_model(const ir::Model& m) {
  const auto& g = m.graph;
  std::vector<ir::ValueInfo> inputs;
  for (const auto& in : g.inputs)
    if (!g.initializers.count(in.name)) inputs.push_back(in);
  print_io("inputs", inputs);
  print_io("outputs", g.outputs);
  size_t init_bytes = 0;
  for (const auto& [name, t] : g.initializers) init_bytes += t.byte_size();
  std::cout << "initializers: " << g.initializers.size() << " (" << init_bytes << " bytes)";
  if (inputs.size() != g.inputs.size())
    std::cout << ", " << g.inputs.size() - inputs.size() << " of them overridable graph inputs";
  std::cout << "\n";

  std::cout << "opset imports:";
  for (const auto& o : m.opset_imports)
    std::cout << " " << (o.domain.empty() ? "ai.onnx" : o.domain) << "=" << o.version;
  std::cout << "\n";
  std::cout << "ir_version: " << m.ir_version << "\n";
  std::cout << "producer: " << (m.producer_name.empty() ? "(none)" : m.producer_name)
            << (m.producer_version.empty() ? "" : str_cat(" ", m.producer_version)) << "\n";
  if (!m.domain.empty()) std::cout << "domain: " << m.domain << "\n";
  if (m.model_version) std::cout << "model_version: " << m.model_version << "\n";
  if (!g.name.empty()) std::cout << "graph: " << g.name << "\n";
  if (!m.doc_string.empty()) std::cout << "doc_string: " << m.doc_string << "\n";
  if (!m.metadata_props.empty()) {
    std::cout << "metadata_props:\n";
    for (const auto& [k, v] : m.metadata_props) std::cout << "  " << k << ": " << v << "\n";
  }
  if (!m.functions.empty()) std::cout << "model-local functions: " << m.functions.size() << "\n";

  std::map<std::string, int> counts;
  for (const auto& n : g.nodes)
    counts[ir::is_onnx_domain(n.domain) ? n.op_type : str_cat(n.domain, ".", n.op_type)]++;
  std::cout << "nodes: " << g.nodes.size() << "\n";
  for (const auto& [op, count] : counts) std::cout << "  " << op << ": " << count << "\n";
}

// "name [batch,128,768]" for each output of the node named `node_name` in the
// optimized graph: its static shape, full or partial (a symbol, or '?'
// where a dim is unknown), or '?' where not even its rank is known.
std::string output_shapes(const ir::Graph& g, const std::string& node_name) {
  std::string out;
  for (const auto& n : g.nodes) {
    if (n.name != node_name) continue;
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      const ir::ValueInfo* vi = g.find_value_info(o);
      out += str_cat(out.empty() ? "" : ", ", o, " ", vi ? vi->type.shape_string() : "?");
    }
    break;
  }
  return out;
}

void print_assignments(const Session& session, bool shapes) {
  auto assignments = session.node_assignments();
  std::string used;
  for (const auto& p : session.providers()) used += str_cat(used.empty() ? "" : ", ", p);
  std::cout << "\nsession providers: " << used << "\n";
  std::cout << "optimized graph: " << session.model().graph.nodes.size() << " nodes\n";
  std::map<std::string, int> per_provider;
  for (const auto& a : assignments) per_provider[a.provider]++;
  for (const auto& [p, count] : per_provider) std::cout << "  " << p << ": " << count << " nodes\n";
  // Whether runs are captured and replayed (CUDA graphs), or why they cannot be.
  std::cout << "run capture: " << session.run_capture().status << "\n";
  // The algorithm the optimizer chose for a node (a convolution's
  // "winograd_4x4"), shown beside its op.
  std::map<std::string, std::string> algorithm;
  for (const auto& n : session.model().graph.nodes)
    if (const ir::Attribute* at = n.attr("algorithm");
        at && at->type == ir::AttrType::kString && !n.name.empty())
      algorithm[n.name] = at->s;
  std::cout << "node assignments (run order):\n";
  for (const auto& a : assignments) {
    auto it = algorithm.find(a.node_name);
    std::cout << "  " << (a.node_name.empty() ? "(unnamed)" : a.node_name) << " ["
              << (ir::is_onnx_domain(a.domain) ? "" : str_cat(a.domain, ".")) << a.op_type
              << (it == algorithm.end() ? "" : str_cat(", ", it->second)) << "] -> " << a.provider
              << "\n";
    if (shapes && !a.node_name.empty())
      std::cout << "      out: " << output_shapes(session.model().graph, a.node_name) << "\n";
    if (!a.expanded_from.empty()) std::cout << "      from " << a.expanded_from << "\n";
    for (const auto& [provider, reason] : a.declined)
      std::cout << "      declined by " << provider << ": " << reason << "\n";
  }
  if (!session.expanded_ops().empty()) {
    std::cout << "ops run through their function body (no provider has a kernel):\n";
    for (const auto& e : session.expanded_ops())
      std::cout << "  " << e.node_name << " [" << e.op_type << "] -> body " << e.body << " ("
                << e.body_nodes.size() << " nodes)\n";
  }
}

}  // namespace

int cmd_inspect(const std::vector<std::string>& argv) {
  Args args("inspect", argv, {"--providers", "--opt-level", "--threads", "--config"},
            {"--help", "--timings", "--shapes"});
  if (args.has("--help")) {
    print_usage(std::cout);
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError("tessera inspect needs exactly one MODEL");
  const std::string path = args.positional()[0];
  SessionOptions options = session_options_from(args);
  std::vector<ProviderSpec> providers;
  if (auto p = args.get("--providers")) providers = parse_providers(*p);

  ir::Model model = onnx::load_model(path);
  std::cout << "model " << path << "\n";
  print_model(model);
  std::cout.flush();
  // The declared model is worth seeing even when no session can be made of it.
  std::unique_ptr<Session> session;
  try {
    // With --timings the session parses the file itself, so "parse" is timed too.
    session = args.has("--timings")
                  ? Session::create(path, options, providers)
                  : Session::create_from_model(std::move(model), options, providers);
  } catch (const Error& e) {
    std::cout << "\nno session could be created: (" << error_code_name(e.code()) << ") " << e.what()
              << "\n";
    return 1;
  }
  print_assignments(*session, args.has("--shapes"));
  if (args.has("--timings"))
    std::cout << "\nsession creation timings:\n" << session->creation_timings().to_text();
  return 0;
}

}  // namespace tessera::cli
