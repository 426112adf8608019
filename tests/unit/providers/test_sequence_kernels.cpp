#include <gtest/gtest.h>

#include "unit/kernel_test_util.hpp"

namespace tessera {
namespace {

using test::attr_int;
using test::run_node;

Value i64(std::vector<int64_t> v, Shape s) { return Tensor::from_vector<int64_t>(v, std::move(s)); }
Value f32(std::vector<float> v, Shape s) { return Tensor::from_vector<float>(v, std::move(s)); }
Value seq_i64(std::vector<std::vector<int64_t>> items) {
  Sequence s;
  for (auto& v : items) s.push_back(i64(v, Shape{int64_t(v.size())}));
  return Value::sequence(std::move(s), DataType::kInt64);
}
std::vector<int64_t> vals(const Value& v) { return v.tensor().to_int64_vector(); }

TEST(SequenceKernels, ConstructLengthAt) {
  auto s = run_node("SequenceConstruct", {i64({1, 2}, {2}), i64({3}, {1}), i64({4, 5, 6}, {3})}, {},
                    11)[0];
  ASSERT_TRUE(s.is_sequence());
  EXPECT_EQ(s.seq().size(), 3u);
  EXPECT_EQ(s.seq_elem_type(), DataType::kInt64);
  auto len = run_node("SequenceLength", {s}, {}, 11)[0];
  EXPECT_EQ(len.tensor().dtype(), DataType::kInt64);
  EXPECT_EQ(vals(len), std::vector<int64_t>{3});
  EXPECT_EQ(vals(run_node("SequenceAt", {s, i64({1}, {})}, {}, 11)[0]), std::vector<int64_t>{3});
  EXPECT_EQ(vals(run_node("SequenceAt", {s, Tensor::scalar<int32_t>(-1)}, {}, 11)[0]),
            (std::vector<int64_t>{4, 5, 6}));
  EXPECT_THROW(run_node("SequenceAt", {s, i64({3}, {})}, {}, 11), Error);
  EXPECT_THROW(run_node("SequenceAt", {s, i64({-4}, {})}, {}, 11), Error);
}

TEST(SequenceKernels, ConstructRejectsMixedTypes) {
  EXPECT_THROW(run_node("SequenceConstruct", {i64({1}, {1}), f32({1}, {1})}, {}, 11), Error);
}

TEST(SequenceKernels, EmptyHasDtype) {
  auto s = run_node("SequenceEmpty", {}, {attr_int("dtype", int64_t(DataType::kInt32))}, 11)[0];
  ASSERT_TRUE(s.is_sequence());
  EXPECT_TRUE(s.seq().empty());
  EXPECT_EQ(s.seq_elem_type(), DataType::kInt32);
  auto d = run_node("SequenceEmpty", {}, {}, 11)[0];
  EXPECT_EQ(d.seq_elem_type(), DataType::kFloat);
}

TEST(SequenceKernels, InsertPositions) {
  auto s = seq_i64({{1}, {2}, {3}});
  auto back = run_node("SequenceInsert", {s, i64({9}, {1})}, {}, 11)[0];
  ASSERT_EQ(back.seq().size(), 4u);
  EXPECT_EQ(vals(back.seq()[3]), std::vector<int64_t>{9});
  auto front = run_node("SequenceInsert", {s, i64({9}, {1}), i64({0}, {})}, {}, 11)[0];
  EXPECT_EQ(vals(front.seq()[0]), std::vector<int64_t>{9});
  auto neg = run_node("SequenceInsert", {s, i64({9}, {1}), i64({-1}, {})}, {}, 11)[0];
  EXPECT_EQ(vals(neg.seq()[2]), std::vector<int64_t>{9});
  auto at_end = run_node("SequenceInsert", {s, i64({9}, {1}), i64({3}, {})}, {}, 11)[0];
  EXPECT_EQ(vals(at_end.seq()[3]), std::vector<int64_t>{9});
  EXPECT_THROW(run_node("SequenceInsert", {s, i64({9}, {1}), i64({4}, {})}, {}, 11), Error);
  EXPECT_THROW(run_node("SequenceInsert", {s, f32({9}, {1})}, {}, 11), Error);
  // The input sequence is left as it was.
  EXPECT_EQ(s.seq().size(), 3u);
}

TEST(SequenceKernels, EraseNegativeAndOutOfRange) {
  auto s = seq_i64({{1}, {2}, {3}});
  auto last = run_node("SequenceErase", {s}, {}, 11)[0];
  ASSERT_EQ(last.seq().size(), 2u);
  EXPECT_EQ(vals(last.seq()[1]), std::vector<int64_t>{2});
  auto first = run_node("SequenceErase", {s, i64({-3}, {})}, {}, 11)[0];
  EXPECT_EQ(vals(first.seq()[0]), std::vector<int64_t>{2});
  try {
    run_node("SequenceErase", {s, i64({3}, {})}, {}, 11);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test_SequenceErase"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_node("SequenceErase", {Value::sequence({}, DataType::kInt64)}, {}, 11), Error);
}

TEST(SequenceKernels, SplitToSequenceDefaultAndKeepdims) {
  auto x = f32({1, 2, 3, 4, 5, 6}, {3, 2});
  auto s = run_node("SplitToSequence", {x}, {}, 11)[0];
  ASSERT_EQ(s.seq().size(), 3u);
  EXPECT_EQ(s.seq()[1].tensor().shape(), (Shape{1, 2}));
  auto sq = run_node("SplitToSequence", {x}, {attr_int("axis", 1), attr_int("keepdims", 0)}, 11)[0];
  ASSERT_EQ(sq.seq().size(), 2u);
  EXPECT_EQ(sq.seq()[1].tensor().shape(), (Shape{3}));
  const float* d = sq.seq()[1].tensor().data<float>();
  EXPECT_EQ(d[0], 2);
  EXPECT_EQ(d[1], 4);
  EXPECT_EQ(d[2], 6);
}

TEST(SequenceKernels, SplitToSequenceScalarAndList) {
  auto x = i64({0, 1, 2, 3, 4}, {5});
  auto s = run_node("SplitToSequence", {x, i64({2}, {})}, {}, 24)[0];
  ASSERT_EQ(s.seq().size(), 3u);
  EXPECT_EQ(vals(s.seq()[2]), std::vector<int64_t>{4});
  auto l = run_node("SplitToSequence", {x, Tensor::from_vector<int32_t>({1, 4}, {2})}, {}, 11)[0];
  ASSERT_EQ(l.seq().size(), 2u);
  EXPECT_EQ(vals(l.seq()[1]), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_THROW(run_node("SplitToSequence", {x, i64({1, 1}, {2})}, {}, 11), Error);
  EXPECT_THROW(run_node("SplitToSequence", {x, i64({0}, {})}, {}, 11), Error);
  // An empty list of lengths, and lengths whose sum passes int64: errors.
  EXPECT_THROW(run_node("SplitToSequence", {x, i64({}, {0})}, {}, 11), Error);
  EXPECT_THROW(
      run_node("SplitToSequence", {x, i64({int64_t(1) << 62, int64_t(1) << 62}, {2})}, {}, 11),
      Error);
}

TEST(SequenceKernels, SplitToSequenceStrings) {
  Value x = Tensor::from_vector<std::string>({"a", "b", "c"}, {3});
  auto s = run_node("SplitToSequence", {x}, {attr_int("keepdims", 0)}, 11)[0];
  ASSERT_EQ(s.seq().size(), 3u);
  EXPECT_EQ(s.seq()[2].tensor().data<std::string>()[0], "c");
  EXPECT_EQ(s.seq()[2].tensor().rank(), 0u);
}

TEST(SequenceKernels, ConcatFromSequence) {
  Sequence items = {f32({1, 2}, {1, 2}), f32({3, 4, 5, 6}, {2, 2})};
  auto s = Value::sequence(items, DataType::kFloat);
  auto y = run_node("ConcatFromSequence", {s}, {attr_int("axis", 0)}, 11)[0];
  EXPECT_EQ(y.tensor().shape(), (Shape{3, 2}));
  EXPECT_EQ(y.tensor().data<float>()[4], 5);
  EXPECT_THROW(run_node("ConcatFromSequence", {s}, {attr_int("axis", 1)}, 11), Error);

  Sequence same = {f32({1, 2}, {2}), f32({3, 4}, {2})};
  auto st = run_node("ConcatFromSequence", {Value::sequence(same, DataType::kFloat)},
                     {attr_int("axis", -1), attr_int("new_axis", 1)}, 11)[0];
  EXPECT_EQ(st.tensor().shape(), (Shape{2, 2}));
  const float* d = st.tensor().data<float>();
  EXPECT_EQ(d[0], 1);
  EXPECT_EQ(d[1], 3);
  EXPECT_EQ(d[2], 2);
  EXPECT_EQ(d[3], 4);
  EXPECT_THROW(run_node("ConcatFromSequence", {Value::sequence({}, DataType::kFloat)},
                        {attr_int("axis", 0)}, 11),
               Error);
}

TEST(SequenceKernels, OptionalRoundTrip) {
  auto x = f32({1, 2}, {2});
  auto opt = run_node("Optional", {x}, {}, 15)[0];
  ASSERT_TRUE(opt.is_tensor());
  auto has = run_node("OptionalHasElement", {opt}, {}, 18)[0];
  EXPECT_TRUE(has.tensor().data<bool>()[0]);
  EXPECT_EQ(has.tensor().rank(), 0u);
  auto got = run_node("OptionalGetElement", {opt}, {}, 18)[0];
  EXPECT_EQ(got.tensor().data<float>()[1], 2);
  // Opset 18 also accepts plain sequences.
  auto s = seq_i64({{1}});
  auto gs = run_node("OptionalGetElement", {s}, {}, 18)[0];
  EXPECT_TRUE(gs.is_sequence());
}

TEST(SequenceKernels, OptionalEmpty) {
  ir::Attribute type;
  type.name = "type";
  type.type = ir::AttrType::kTypeProto;
  type.tp = ir::TypeInfo::tensor(DataType::kFloat);
  auto none = run_node("Optional", {}, {type}, 15)[0];
  EXPECT_TRUE(none.is_none());
  auto has = run_node("OptionalHasElement", {Value()}, {}, 18)[0];
  EXPECT_FALSE(has.tensor().data<bool>()[0]);
  auto has0 = run_node("OptionalHasElement", {}, {}, 18)[0];
  EXPECT_FALSE(has0.tensor().data<bool>()[0]);
  EXPECT_THROW(run_node("OptionalGetElement", {Value()}, {}, 18), Error);
  EXPECT_THROW(run_node("Optional", {}, {}, 15), Error);
}

// SequenceMap with a stand-in body that doubles its first input and adds the
// second (a tensor passed to every iteration, or the matching sequence item).
class AddTwiceBody : public ep::SubgraphRunner {
 public:
  const std::vector<std::string>& input_names() const override { return in_; }
  const std::vector<std::string>& output_names() const override { return out_; }
  std::vector<Value> run(const ep::KernelContext&, std::vector<Value> inputs) const override {
    const Tensor& a = inputs[0].tensor();
    const Tensor& b = inputs[1].tensor();
    Tensor y(DataType::kFloat, a.shape());
    for (int64_t i = 0; i < a.num_elements(); ++i)
      y.mutable_data<float>()[i] = 2 * a.data<float>()[i] + b.data<float>()[0];
    return {Value(y)};
  }

 private:
  std::vector<std::string> in_{"a", "b"}, out_{"y"};
};

std::vector<Value> run_map(std::vector<Value> inputs) {
  AddTwiceBody body;
  ir::Node node;
  node.name = "map";
  node.op_type = "SequenceMap";
  node.inputs = {"s", "t"};
  node.outputs = {"o"};
  const auto& reg = cpu::cpu_kernel_registry();
  auto m = reg.lookup("", "SequenceMap", 17, {DataType::kUndefined, DataType::kUndefined});
  EXPECT_NE(m.entry, nullptr) << m.reason;
  ir::TypeInfo out_t;
  out_t.kind = ir::TypeInfo::Kind::kSequence;
  out_t.inner = std::make_shared<ir::TypeInfo>(ir::TypeInfo::tensor(DataType::kFloat));
  ep::KernelInfo info(node, 17, {ir::TypeInfo(), ir::TypeInfo()}, {out_t}, {nullptr, nullptr},
                      [&](const std::string& n) -> const ep::SubgraphRunner* {
                        return n == "body" ? &body : nullptr;
                      });
  auto k = m.entry->factory(info);
  std::vector<Value> outs(1);
  ep::KernelContext ctx(node, {&inputs[0], &inputs[1]}, {&outs[0]}, {DataType::kUndefined},
                        default_cpu_allocator(), nullptr);
  k->compute(ctx);
  return outs;
}

TEST(SequenceKernels, SequenceMapTensorAndSequenceInputs) {
  auto s = Value::sequence({f32({1, 2}, {2}), f32({3}, {1})}, DataType::kFloat);
  auto out = run_map({s, f32({10}, {1})})[0];
  ASSERT_TRUE(out.is_sequence());
  ASSERT_EQ(out.seq().size(), 2u);
  EXPECT_EQ(out.seq()[0].tensor().data<float>()[1], 14);
  EXPECT_EQ(out.seq()[1].tensor().data<float>()[0], 16);
  auto s2 = Value::sequence({f32({1}, {1}), f32({2}, {1})}, DataType::kFloat);
  auto out2 = run_map({s, s2})[0];
  EXPECT_EQ(out2.seq()[1].tensor().data<float>()[0], 8);
  auto empty = run_map({Value::sequence({}, DataType::kFloat), f32({1}, {1})})[0];
  EXPECT_TRUE(empty.seq().empty());
  EXPECT_EQ(empty.seq_elem_type(), DataType::kFloat);
  auto short_seq = Value::sequence({f32({1}, {1})}, DataType::kFloat);
  EXPECT_THROW(run_map({s, short_seq}), Error);
}

}  // namespace
}  // namespace tessera
