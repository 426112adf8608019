#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "providers/cpu/math/type_dispatch.hpp"

using namespace tessera;
using namespace tessera::cpu;

TEST(CpuTypeDispatch, CallsTheInstantiationOfTheElementType) {
  std::string seen;
  ir::Node node;
  node.op_type = "Relu";
  visit_type(FloatTypes{}, DataType::kFloat16, node, [&](auto tag) {
    using T = typename decltype(tag)::type;
    seen = data_type_name(data_type_of<T>());
  });
  EXPECT_EQ(seen, data_type_name(DataType::kFloat16));
}

TEST(CpuTypeDispatch, AMissingTypeNamesTheNodeOnlyThen) {
  ir::Node node;
  node.op_type = "Relu";
  node.domain = "";
  node.name = "act_3";
  try {
    visit_type(FloatTypes{}, DataType::kInt32, node, [](auto) { FAIL() << "dispatched"; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotImplemented);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Relu node 'act_3': element type int32 is not supported"), std::string::npos)
        << msg;
  }
  // A description given as text is used as it is.
  try {
    visit_type(FloatTypes{}, DataType::kInt64, std::string("Pow exponent"), [](auto) {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Pow exponent: element type int64"), std::string::npos)
        << e.what();
  }
}
