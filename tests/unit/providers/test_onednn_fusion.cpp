// The oneDNN provider's Conv post-op fusion: which chains become one fused
// group, which must stay split, and that fused outputs match the CPU provider.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "unit/kernel_test_util.hpp"
#include "unit/providers/test_onednn_util.hpp"

using namespace tessera;
using namespace tessera::test::dnnl;
using tessera::test::attr_float;
using tessera::test::attr_ints;

namespace {

// A small graph built node by node; initializers are constants.
struct GraphModel {
  ir::Model model;
  std::vector<std::pair<std::string, Value>> feeds;

  GraphModel() {
    model.ir_version = 8;
    model.opset_imports.push_back({"", 17});
  }
  GraphModel& input(const std::string& name, const Tensor& t) {
    model.graph.inputs.push_back(tensor_info(name, t.shape().dims()));
    feeds.emplace_back(name, Value(t));
    return *this;
  }
  GraphModel& init(const std::string& name, const Tensor& t) {
    model.graph.initializers[name] = t;
    return *this;
  }
  GraphModel& node(const std::string& name, const std::string& op, std::vector<std::string> ins,
                   std::string out, std::vector<ir::Attribute> attrs = {}) {
    ir::Node n;
    n.name = name;
    n.op_type = op;
    n.inputs = std::move(ins);
    n.outputs = {std::move(out)};
    n.attributes = std::move(attrs);
    model.graph.nodes.push_back(std::move(n));
    return *this;
  }
  GraphModel& output(const std::string& name) {
    ir::ValueInfo vi;
    vi.name = name;
    model.graph.outputs.push_back(vi);
    return *this;
  }
  // A 3x3 "same" Conv from `in` (c channels) to `out` (m channels) with bias.
  GraphModel& conv(const std::string& name, const std::string& in, const std::string& out,
                   int64_t c, int64_t m, uint32_t seed) {
    init(name + ".w", random_tensor({m, c, 3, 3}, seed));
    init(name + ".b", random_tensor({m}, seed + 100));
    return node(name, "Conv", {in, name + ".w", name + ".b"}, out,
                {attr_ints("pads", {1, 1, 1, 1})});
  }
};

Tensor scaled(Tensor t, float k) {
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] *= k;
  return t;
}

struct Placement {
  std::map<std::string, std::string> provider, group;  // by node name
  std::set<std::string> groups() const {
    std::set<std::string> out;
    for (const auto& [n, g] : group)
      if (!g.empty()) out.insert(g);
    return out;
  }
};

// Runs with [Dnnl, CPU] and with [CPU] alone, compares every output, and
// returns where each node ran.
// Both ways of running the post-ops (conv_post_ops) are checked.
Placement run_and_compare(const GraphModel& g) {
  auto cpu = session_with(g.model, {{kCpu, {}}});
  auto want = cpu->run(g.feeds);
  std::unique_ptr<Session> dnnl;
  for (const char* mode : {"primitive", "separate"}) {
    SCOPED_TRACE(mode);
    dnnl = session_with(g.model, {{kDnnl, {{"conv_post_ops", mode}}}, {kCpu, {}}});
    auto got = dnnl->run(g.feeds);
    EXPECT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size() && i < want.size(); ++i)
      expect_close(got[i].tensor(), want[i].tensor());
  }
  Placement p;
  for (const auto& a : dnnl->node_assignments()) {
    p.provider[a.node_name] = a.provider;
    p.group[a.node_name] = a.fused_group;
  }
  return p;
}

}  // namespace

TEST(OnednnFusion, ConvReluIsOneFusedGroup) {
  GraphModel g;
  g.input("x", random_tensor({2, 3, 8, 8}, 1)).conv("conv", "x", "c", 3, 8, 2);
  g.node("relu", "Relu", {"c"}, "y").output("y");
  Placement p = run_and_compare(g);
  EXPECT_EQ(p.provider["conv"], kDnnl);
  EXPECT_EQ(p.provider["relu"], kDnnl);
  EXPECT_FALSE(p.group["conv"].empty());
  EXPECT_EQ(p.group["conv"], p.group["relu"]);
  EXPECT_EQ(p.groups().size(), 1u);
}

TEST(OnednnFusion, ProfilesNameAFusedGroupByItsOps) {
  GraphModel g;
  g.input("x", random_tensor({1, 3, 8, 8}, 1)).conv("conv", "x", "c", 3, 8, 2);
  g.node("relu", "Relu", {"c"}, "y").output("y");
  SessionOptions o;
  o.enable_profiling = true;
  o.profile_file_prefix = (std::filesystem::temp_directory_path() / "tessera_fused").string();
  auto s = Session::create_from_model(g.model, o, {{kDnnl, {}}, {kCpu, {}}});
  s->run(g.feeds);
  const std::string path = s->end_profiling();
  std::ifstream f(path);
  const std::string trace((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  EXPECT_NE(trace.find("\"op_name\":\"Conv+Relu\""), std::string::npos) << trace;
}

TEST(OnednnFusion, ResNetBlockFusesConvAddRelu) {
  // conv1 -> relu1 -> conv2 -> Add(., x) -> relu2: the residual is the block's input.
  GraphModel g;
  g.input("x", random_tensor({1, 4, 6, 6}, 3)).conv("conv1", "x", "c1", 4, 4, 4);
  g.node("relu1", "Relu", {"c1"}, "r1").conv("conv2", "r1", "c2", 4, 4, 5);
  g.node("add", "Add", {"c2", "x"}, "s").node("relu2", "Relu", {"s"}, "y").output("y");
  Placement p = run_and_compare(g);
  EXPECT_EQ(p.groups().size(), 2u);
  EXPECT_EQ(p.group["conv1"], p.group["relu1"]);
  EXPECT_FALSE(p.group["conv2"].empty());
  EXPECT_NE(p.group["conv1"], p.group["conv2"]);
  EXPECT_EQ(p.group["conv2"], p.group["add"]);
  EXPECT_EQ(p.group["conv2"], p.group["relu2"]);
  for (const auto& [n, prov] : p.provider) EXPECT_EQ(prov, kDnnl) << n;
}

TEST(OnednnFusion, ConvAddWithoutActivationAndSideFirst) {
  // Add(side, conv) with the side from another branch; LeakyRelu's alpha carried over.
  GraphModel g;
  g.input("x", random_tensor({1, 2, 5, 7}, 6)).input("s", random_tensor({1, 3, 5, 7}, 7));
  g.conv("conv", "x", "c", 2, 3, 8).node("add", "Add", {"s", "c"}, "a");
  g.node("lrelu", "LeakyRelu", {"a"}, "y", {attr_float("alpha", 0.2f)}).output("y");
  Placement p = run_and_compare(g);
  EXPECT_EQ(p.groups().size(), 1u);
  EXPECT_EQ(p.group["conv"], p.group["lrelu"]);
  EXPECT_EQ(p.group["conv"], p.group["add"]);

  GraphModel h;  // Conv + Add alone, then Sigmoid on the same chain
  h.input("x", random_tensor({1, 2, 5, 7}, 6)).input("s", random_tensor({1, 3, 5, 7}, 7));
  h.conv("conv", "x", "c", 2, 3, 8).node("add", "Add", {"c", "s"}, "y").output("y");
  p = run_and_compare(h);
  EXPECT_EQ(p.groups().size(), 1u);
  EXPECT_EQ(p.group["conv"], p.group["add"]);
}

TEST(OnednnFusion, ConvClipLikeMobileNet) {
  // Inputs scaled so that both bounds of Clip(0, 6) cut.
  GraphModel g;
  g.input("x", scaled(random_tensor({1, 8, 7, 7}, 9), 6.0f)).conv("conv", "x", "c", 8, 8, 10);
  Tensor lo(DataType::kFloat, Shape({})), hi(DataType::kFloat, Shape({}));
  lo.mutable_data<float>()[0] = 0.0f;
  hi.mutable_data<float>()[0] = 6.0f;
  g.init("lo", lo).init("hi", hi).node("clip", "Clip", {"c", "lo", "hi"}, "y").output("y");
  Placement p = run_and_compare(g);
  EXPECT_EQ(p.groups().size(), 1u);
  EXPECT_EQ(p.group["conv"], p.group["clip"]);
  EXPECT_EQ(p.provider["clip"], kDnnl);
}

TEST(OnednnFusion, IntermediateWithOtherReadersStaysSplit) {
  // c is read by Relu and by Sigmoid; s is also a graph output.
  GraphModel g;
  g.input("x", random_tensor({1, 3, 6, 6}, 11)).conv("conv", "x", "c", 3, 4, 12);
  g.node("relu", "Relu", {"c"}, "y").node("sig", "Sigmoid", {"c"}, "z");
  g.output("y").output("z");
  Placement p = run_and_compare(g);
  EXPECT_TRUE(p.groups().empty());
  EXPECT_EQ(p.provider["conv"], kDnnl);
  EXPECT_EQ(p.provider["relu"], kDnnl);

  GraphModel h;  // the Add's result is a graph output, so the Relu cannot join
  h.input("x", random_tensor({1, 3, 6, 6}, 11)).input("s", random_tensor({1, 4, 6, 6}, 13));
  h.conv("conv", "x", "c", 3, 4, 12).node("add", "Add", {"c", "s"}, "a");
  h.node("relu", "Relu", {"a"}, "y").output("a").output("y");
  p = run_and_compare(h);
  EXPECT_EQ(p.groups().size(), 1u);
  EXPECT_EQ(p.group["conv"], p.group["add"]);
  EXPECT_TRUE(p.group["relu"].empty());
}

TEST(OnednnFusion, UnsupportedActivationOrBroadcastStaysSplit) {
  // Clip's min is a graph input (not constant): no oneDNN post-op can take it.
  GraphModel g;
  Tensor hi(DataType::kFloat, Shape({}));
  hi.mutable_data<float>()[0] = 0.5f;
  Tensor lo(DataType::kFloat, Shape({}));
  lo.mutable_data<float>()[0] = -0.5f;
  g.input("x", random_tensor({1, 3, 6, 6}, 14)).input("lo", lo).init("hi", hi);
  g.conv("conv", "x", "c", 3, 4, 15).node("clip", "Clip", {"c", "lo", "hi"}, "y").output("y");
  Placement p = run_and_compare(g);
  EXPECT_TRUE(p.groups().empty());
  EXPECT_EQ(p.provider["conv"], kDnnl);
  EXPECT_EQ(p.provider["clip"], kCpu);

  // An Add whose other input would grow the Conv output (1 -> 4 channels).
  GraphModel h;
  h.input("x", random_tensor({1, 3, 6, 6}, 16)).input("s", random_tensor({1, 4, 6, 6}, 17));
  h.conv("conv", "x", "c", 3, 1, 18).node("add", "Add", {"c", "s"}, "a");
  h.node("relu", "Relu", {"a"}, "y").output("y");
  p = run_and_compare(h);
  EXPECT_TRUE(p.groups().empty());
  EXPECT_EQ(p.provider["add"], kCpu);
}

TEST(OnednnFusion, BroadcastResidualIsExpandedAtRunTime) {
  // A per-channel side [1, 4, 1, 1] still fuses; the kernel broadcasts it.
  GraphModel g;
  g.input("x", random_tensor({2, 3, 6, 6}, 19)).input("s", random_tensor({1, 4, 1, 1}, 20));
  g.conv("conv", "x", "c", 3, 4, 21).node("add", "Add", {"c", "s"}, "a");
  g.node("relu", "Relu", {"a"}, "y").output("y");
  Placement p = run_and_compare(g);
  EXPECT_EQ(p.groups().size(), 1u);
  EXPECT_EQ(p.group["conv"], p.group["relu"]);
}

TEST(OnednnFusion, TwoConvsIntoOneAddFuseOnce) {
  // A downsampling block: both branches are Convs read only by the Add, which
  // must join exactly one of them.
  GraphModel g;
  g.input("x", random_tensor({1, 3, 6, 6}, 22)).conv("main", "x", "a", 3, 4, 23);
  g.conv("down", "x", "b", 3, 4, 24).node("add", "Add", {"a", "b"}, "s");
  g.node("relu", "Relu", {"s"}, "y").output("y");
  Placement p = run_and_compare(g);
  EXPECT_EQ(p.groups().size(), 1u);
  EXPECT_FALSE(p.group["add"].empty());
  EXPECT_EQ(p.group["add"], p.group["relu"]);
  EXPECT_NE(p.group["main"].empty(), p.group["down"].empty());
  EXPECT_EQ(p.provider["main"], kDnnl);
  EXPECT_EQ(p.provider["down"], kDnnl);
}
