// Bad input at run time: each error is a tessera::Error that names the node
// (name and op type) and the shapes it was given, never a crash.
#include <gtest/gtest.h>

#include "runtime/session.hpp"

namespace tessera::test {
namespace {

ir::Attribute int_attr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = v;
  return a;
}

// One node named "bad_<op>" over inputs declared without shapes, so the
// session's own feed checks pass and the kernel meets the bad values.
std::unique_ptr<Session> session_for(const std::string& op, const std::vector<Tensor>& inputs,
                                     std::vector<ir::Attribute> attrs = {}, int64_t opset = 18) {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports.push_back({"", opset});
  ir::Node n;
  n.name = "bad_" + op;
  n.op_type = op;
  n.attributes = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    m.graph.inputs.push_back({name, ir::TypeInfo::tensor(inputs[i].dtype()), ""});
  }
  n.outputs = {"out"};
  m.graph.outputs.push_back({"out", ir::TypeInfo(), ""});
  m.graph.nodes.push_back(std::move(n));
  return Session::create_from_model(std::move(m));
}

std::string run_error(const std::string& op, const std::vector<Tensor>& inputs,
                      std::vector<ir::Attribute> attrs = {}, int64_t opset = 18) {
  auto s = session_for(op, inputs, std::move(attrs), opset);
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i)
    feeds.emplace_back("in" + std::to_string(i), inputs[i]);
  try {
    s->run(feeds);
  } catch (const Error& e) {
    EXPECT_NE(e.code(), ErrorCode::kFail) << e.what();
    return e.what();
  }
  ADD_FAILURE() << op << ": expected an error";
  return "";
}

// The message names the node by name and op type and lists every input shape.
void expect_names(const std::string& msg, const std::string& op,
                  const std::vector<std::string>& shapes) {
  EXPECT_NE(msg.find(op), std::string::npos) << msg;
  EXPECT_NE(msg.find("'bad_" + op + "'"), std::string::npos) << msg;
  for (const auto& s : shapes) EXPECT_NE(msg.find(s), std::string::npos) << s << " in: " << msg;
}

Tensor f32(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(v, std::move(s)); }
Tensor i64(std::vector<int64_t> v, Shape s) {
  return Tensor::from_vector<int64_t>(v, std::move(s));
}

TEST(RuntimeErrors, ShapesThatDoNotBroadcast) {
  auto msg = run_error("Add", {f32({1, 2, 3, 4, 5, 6}, Shape{2, 3}), f32({1, 2, 3, 4}, Shape{4})});
  expect_names(msg, "Add", {"float[2,3]", "float[4]"});
  msg = run_error("Where", {Tensor::from_vector<bool>({true, false}, Shape{2}),
                            f32({1, 2, 3}, Shape{3}), f32({1}, Shape{1})});
  expect_names(msg, "Where", {"bool[2]", "float[3]"});
}

TEST(RuntimeErrors, WrongRankForAnInput) {
  auto msg = run_error("MatMul", {f32({1, 2, 3, 4, 5, 6}, Shape{2, 3}), f32({1, 2}, Shape{2, 1})});
  expect_names(msg, "MatMul", {"float[2,3]", "float[2,1]"});
  msg =
      run_error("Gemm", {f32({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 2, 2}), f32({1, 2}, Shape{2, 1})});
  expect_names(msg, "Gemm", {"float[2,2,2]", "float[2,1]"});
}

TEST(RuntimeErrors, ReshapeToAnImpossibleShape) {
  auto msg = run_error("Reshape", {f32({1, 2, 3, 4, 5, 6}, Shape{2, 3}), i64({4, 2}, Shape{2})});
  expect_names(msg, "Reshape", {"float[2,3]", "int64[2]"});
  msg = run_error("Reshape", {f32({1, 2, 3, 4, 5, 6}, Shape{2, 3}), i64({-1, -1}, Shape{2})});
  expect_names(msg, "Reshape", {"float[2,3]"});
  msg = run_error("Reshape", {f32({1, 2, 3, 4, 5, 6}, Shape{2, 3}), i64({4, -1}, Shape{2})});
  expect_names(msg, "Reshape", {"float[2,3]"});
  // Sizes whose product overflows int64 (with or without a -1): an error, not a wrapped count.
  for (int64_t last : {int64_t(8), int64_t(-1)}) {
    msg = run_error("Reshape", {f32({1, 2, 3, 4, 5, 6}, Shape{2, 3}),
                                i64({int64_t(1) << 62, 8, last}, Shape{3})});
    expect_names(msg, "Reshape", {"float[2,3]"});
    EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
  }
}

TEST(RuntimeErrors, GatherIndexOutOfRange) {
  Tensor data = f32({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  auto msg = run_error("Gather", {data, i64({0, 3}, Shape{2})});
  expect_names(msg, "Gather", {"float[3,2]", "int64[2]"});
  EXPECT_NE(msg.find("3"), std::string::npos);
  msg = run_error("Gather", {data, i64({-4}, Shape{1})});
  expect_names(msg, "Gather", {"float[3,2]", "int64[1]"});
  msg = run_error("Gather", {data, i64({2}, Shape{1})}, {int_attr("axis", 1)});
  expect_names(msg, "Gather", {"float[3,2]"});
}

TEST(RuntimeErrors, GatherElementsIndexOutOfRange) {
  auto msg =
      run_error("GatherElements", {f32({1, 2, 3, 4}, Shape{2, 2}), i64({0, 1, 2, 0}, Shape{2, 2})});
  expect_names(msg, "GatherElements", {"float[2,2]", "int64[2,2]"});
  msg = run_error("GatherElements", {f32({1, 2, 3, 4}, Shape{2, 2}), i64({0, -3}, Shape{1, 2})},
                  {int_attr("axis", 1)});
  expect_names(msg, "GatherElements", {"float[2,2]", "int64[1,2]"});
}

TEST(RuntimeErrors, GatherNDIndexOutOfRange) {
  auto msg =
      run_error("GatherND", {f32({1, 2, 3, 4}, Shape{2, 2}), i64({0, 1, 2, 0}, Shape{2, 2})});
  expect_names(msg, "GatherND", {"float[2,2]", "int64[2,2]"});
  // Index tuple longer than the data's rank.
  msg = run_error("GatherND", {f32({1, 2, 3, 4}, Shape{2, 2}), i64({0, 0, 0}, Shape{1, 3})});
  expect_names(msg, "GatherND", {"float[2,2]", "int64[1,3]"});
}

TEST(RuntimeErrors, ScatterNDIndexOutOfRange) {
  auto msg = run_error("ScatterND",
                       {f32({1, 2, 3, 4}, Shape{4}), i64({5}, Shape{1, 1}), f32({9}, Shape{1})});
  expect_names(msg, "ScatterND", {"float[4]", "int64[1,1]", "float[1]"});
  // Updates of the wrong shape.
  msg = run_error("ScatterND", {f32({1, 2, 3, 4}, Shape{4}), i64({1, 2}, Shape{2, 1}),
                                f32({9, 8, 7}, Shape{3})});
  expect_names(msg, "ScatterND", {"float[4]", "int64[2,1]", "float[3]"});
}

TEST(RuntimeErrors, ScatterElementsIndexOutOfRange) {
  auto msg = run_error("ScatterElements", {f32({1, 2, 3, 4}, Shape{2, 2}), i64({0, 2}, Shape{1, 2}),
                                           f32({9, 9}, Shape{1, 2})});
  expect_names(msg, "ScatterElements", {"float[2,2]", "int64[1,2]"});
  msg = run_error(
      "ScatterElements",
      {f32({1, 2, 3, 4}, Shape{2, 2}), i64({0, -3}, Shape{1, 2}), f32({9, 9}, Shape{1, 2})},
      {int_attr("axis", 1)});
  expect_names(msg, "ScatterElements", {"float[2,2]", "int64[1,2]"});
}

TEST(RuntimeErrors, WrongTypeForAGraphInputNamesTheInputAndTypes) {
  auto s = session_for("Relu", {f32({1}, Shape{1})});
  try {
    s->run({{"in0", Tensor::from_vector<int64_t>({1}, Shape{1})}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(msg.find("'in0'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("float"), std::string::npos) << msg;
    EXPECT_NE(msg.find("int64"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace tessera::test
