// The CUDA indexing, fill, layout, TopK and Resize kernels without a GPU:
// what the provider claims and declines (with which reason) for one-node
// models, and for every conformance model of these ops (the suite's own
// graphs, as the partitioner sees them).
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "onnx/model_reader.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;
using tessera::test::attr_tensor;

namespace {

Tensor zeros(DataType t, std::vector<int64_t> dims) {
  Tensor out(t, Shape(dims));
  if (out.byte_size() > 0) std::memset(out.mutable_raw_data(), 0, out.byte_size());
  return out;
}
Tensor floats(std::vector<int64_t> dims) { return zeros(DataType::kFloat, dims); }
Tensor i64(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>(v, Shape{int64_t(v.size())});
}

}  // namespace

TEST(CudaIndexOpsClaims, ClaimsTheIndexingOpsOnEveryMovableType) {
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kInt64, DataType::kUInt8,
                     DataType::kBool, DataType::kDouble}) {
    const std::string n(data_type_name(t));
    OneNode ge("GatherElements", 13, {attr_int("axis", -1)});
    ge.input("x", zeros(t, {2, 3})).input("i", zeros(DataType::kInt32, {2, 2})).output("y");
    EXPECT_EQ(claim(ge), "") << n;
    OneNode gnd("GatherND", 13, {attr_int("batch_dims", 1)});
    gnd.input("x", zeros(t, {2, 3, 4})).input("i", zeros(DataType::kInt64, {2, 1})).output("y");
    EXPECT_EQ(claim(gnd), "") << n;
    OneNode se("ScatterElements", 18, {attr_string("reduction", "max")});
    se.input("x", zeros(t, {4}))
        .input("i", zeros(DataType::kInt64, {2}))
        .input("u", zeros(t, {2}))
        .output("y");
    EXPECT_EQ(claim(se), "") << n;
    OneNode snd("ScatterND", 16, {attr_string("reduction", "add")});
    snd.input("x", zeros(t, {4, 2}))
        .input("i", zeros(DataType::kInt64, {1, 1}))
        .input("u", zeros(t, {1, 2}))
        .output("y");
    EXPECT_EQ(claim(snd), "") << n;
    OneNode tile("Tile", 13);
    tile.input("x", zeros(t, {2, 3})).input("r", i64({2, 1}), true).output("y");
    EXPECT_EQ(claim(tile), "") << n;
    OneNode pad("Pad", 19, {attr_string("mode", "wrap")});
    pad.input("x", zeros(t, {2, 3})).input("p", i64({1, 1, 1, 1})).output("y");
    EXPECT_EQ(claim(pad), "") << n;
    OneNode trilu("Trilu", 14, {attr_int("upper", 0)});
    trilu.input("x", zeros(t, {3, 3})).output("y");
    EXPECT_EQ(claim(trilu), "") << n;
    OneNode d2s("DepthToSpace", 13, {attr_int("blocksize", 2), attr_string("mode", "CRD")});
    d2s.input("x", zeros(t, {1, 8, 2, 2})).output("y");
    EXPECT_EQ(claim(d2s), "") << n;
    OneNode oh("OneHot", 11);
    oh.input("i", zeros(DataType::kInt64, {3}))
        .input("d", i64({4}), true)
        .input("v", zeros(t, {2}))
        .output("y");
    EXPECT_EQ(claim(oh), "") << n;
  }
}

TEST(CudaIndexOpsClaims, ClaimsFillsScansTopKAndResize) {
  OneNode cos("ConstantOfShape", 20,
              {attr_tensor("value", Tensor::from_vector<int32_t>({7}, Shape{1}))});
  cos.input("s", i64({2, 3})).output("y");
  EXPECT_EQ(claim(cos), "");
  OneNode range("Range", 11);
  range.input("a", Tensor::from_vector<float>({0.f}, Shape{}))
      .input("b", Tensor::from_vector<float>({5.f}, Shape{}))
      .input("d", Tensor::from_vector<float>({0.5f}, Shape{}))
      .output("y");
  EXPECT_EQ(claim(range), "");
  OneNode cumsum("CumSum", 14, {attr_int("exclusive", 1), attr_int("reverse", 1)});
  cumsum.input("x", zeros(DataType::kFloat16, {2, 5})).input("a", i64({1})).output("y");
  EXPECT_EQ(claim(cumsum), "");
  OneNode topk("TopK", 11, {attr_int("axis", 0), attr_int("largest", 0)});
  topk.input("x", floats({9, 2})).input("k", i64({3})).output("v").output("i");
  EXPECT_EQ(claim(topk), "");
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    OneNode resize("Resize", 19, {attr_string("mode", mode)});
    resize.input("x", floats({1, 1, 4, 4}))
        .omitted()
        .input("s", Tensor::from_vector<float>({1, 1, 2, 2}, Shape{4}), true)
        .output("y");
    EXPECT_EQ(claim(resize), "") << mode;
  }
}

TEST(CudaIndexOpsClaims, DeclinesWhatTheKernelsDoNotDoAndSaysWhy) {
  OneNode aa("Resize", 18, {attr_string("mode", "linear"), attr_int("antialias", 1)});
  aa.input("x", floats({1, 1, 4, 4}))
      .omitted()
      .input("s", Tensor::from_vector<float>({1, 1, 0.5f, 0.5f}, Shape{4}), true)
      .output("y");
  expect_has(claim(aa), "antialias is not written for CUDA");
  OneNode coord("Resize", 13, {attr_string("coordinate_transformation_mode", "sideways")});
  coord.input("x", floats({1, 4}))
      .omitted()
      .input("s", Tensor::from_vector<float>({1, 2}, Shape{2}), true)
      .output("y");
  expect_has(claim(coord), "unknown coordinate_transformation_mode 'sideways'");
  OneNode wrap("Pad", 18, {attr_string("mode", "wrap")});  // wrap came with opset 19
  wrap.input("x", floats({2, 3})).input("p", i64({1, 1, 1, 1})).output("y");
  expect_has(claim(wrap), "unknown pad mode 'wrap'");
  OneNode trilu("Trilu", 14);
  trilu.input("x", floats({3})).output("y");
  expect_has(claim(trilu), "input of rank 1 (Trilu needs 2+)");
  OneNode tile("Tile", 13);
  tile.input("x", floats({2, 2, 2, 2, 2})).input("r", i64({2, 2, 2, 2, 2}), true).output("y");
  expect_has(claim(tile), "input of rank 5 with 5 repeated dims");
  OneNode d2s("DepthToSpace", 13, {attr_int("blocksize", 2)});
  d2s.input("x", floats({8, 2, 2})).output("y");
  expect_has(claim(d2s), "input of rank 3 (needs 4)");
  OneNode topk("TopK", 11, {attr_int("axis", 2)});
  topk.input("x", floats({3, 4})).input("k", i64({1})).output("v").output("i");
  expect_has(claim(topk), "axis 2 is out of range for rank 2");
  OneNode se("ScatterElements", 18, {attr_string("reduction", "avg")});
  se.input("x", floats({4}))
      .input("i", zeros(DataType::kInt64, {2}))
      .input("u", floats({2}))
      .output("y");
  expect_has(claim(se), "unknown reduction 'avg'");
  OneNode f8("ScatterND", 13);  // float8 values have no arithmetic in the kernel
  f8.input("x", zeros(DataType::kFloat8E4M3FN, {4}))
      .input("i", zeros(DataType::kInt64, {1, 1}))
      .input("u", zeros(DataType::kFloat8E4M3FN, {1}))
      .output("y");
  EXPECT_NE(claim(f8), "");
  OneNode roi("RoiAlign", 16, {attr_string("coordinate_transformation_mode", "corners")});
  roi.input("x", floats({1, 1, 4, 4}))
      .input("r", floats({1, 4}))
      .input("b", zeros(DataType::kInt64, {1}))
      .output("y");
  expect_has(claim(roi), "unknown coordinate_transformation_mode 'corners'");
  OneNode roi_ok("RoiAlign", 16, {attr_string("mode", "max")});
  roi_ok.input("x", floats({1, 1, 4, 4}))
      .input("r", floats({1, 4}))
      .input("b", zeros(DataType::kInt64, {1}))
      .output("y");
  EXPECT_EQ(claim(roi_ok), "");
  OneNode gnd("GatherND", 13);
  gnd.input("x", floats({2, 2, 2, 2, 2, 2, 2, 2, 2}))
      .input("i", zeros(DataType::kInt64, {1, 9}))
      .output("y");
  EXPECT_NE(claim(gnd), "");
}

// Every conformance model of these ops (when the suite is on this machine):
// CUDA claims every node, except the cases whose feature the kernels decline
// on purpose, each with its reason.
TEST(CudaIndexOpsClaims, ClaimsTheConformanceModelsOfTheseOps) {
  namespace fs = std::filesystem;
  const fs::path root = "/work/shared/conformance/onnx-node";
  if (!fs::exists(root)) GTEST_SKIP() << "the conformance suite is not at " << root;
  const std::vector<std::string> prefixes = {"test_gatherelements",
                                             "test_gather_elements",
                                             "test_gathernd",
                                             "test_scatternd",
                                             "test_scatter_elements",
                                             "test_scatter_with_axis",
                                             "test_scatter_without_axis",
                                             "test_tile",
                                             "test_constant_pad",
                                             "test_reflect_pad",
                                             "test_edge_pad",
                                             "test_wrap_pad",
                                             "test_tril",
                                             "test_triu",
                                             "test_onehot",
                                             "test_cumsum",
                                             "test_depthtospace",
                                             "test_spacetodepth",
                                             "test_constantofshape",
                                             "test_range",
                                             "test_resize",
                                             "test_top_k",
                                             "test_nonzero",
                                             "test_roialign"};
  const std::vector<std::string> kOps = {
      "GatherElements", "GatherND",     "ScatterND",       "ScatterElements", "Scatter",
      "Tile",           "Pad",          "Trilu",           "OneHot",          "CumSum",
      "DepthToSpace",   "SpaceToDepth", "ConstantOfShape", "Range",           "Resize",
      "TopK",           "NonZero",      "RoiAlign"};
  // Features declined on purpose, by reason.
  const std::vector<std::string> accepted = {"antialias is not written for CUDA"};
  int models = 0, claimed = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    bool ours = false;
    for (const auto& p : prefixes) ours = ours || name.rfind(p, 0) == 0;
    if (!ours || !fs::exists(entry.path() / "model.onnx")) continue;
    const ir::Model model = onnx::load_model((entry.path() / "model.onnx").string());
    ++models;
    const std::vector<std::string> reasons = cuda_claims(model);
    for (size_t i = 0; i < reasons.size(); ++i) {
      // Expanded cases (function bodies) hold other ops too: only ours count.
      if (std::find(kOps.begin(), kOps.end(), model.graph.nodes[i].op_type) == kOps.end()) continue;
      if (reasons[i].empty()) {
        ++claimed;
        continue;
      }
      bool expected = false;
      for (const auto& a : accepted) expected = expected || reasons[i].find(a) != std::string::npos;
      EXPECT_TRUE(expected) << name << ": node " << model.graph.nodes[i].op_type
                            << " declined: " << reasons[i];
    }
  }
  EXPECT_GT(models, 100) << "conformance models of these ops found";
  EXPECT_GT(claimed, 100);
}
