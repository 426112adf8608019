// The recurrent ops RNN, GRU and LSTM. X is [seq, batch, input] (layout 0)
// or [batch, seq, input] (layout 1, opset 14); Y is [seq, dirs, batch,
// hidden] or [batch, seq, dirs, hidden]; Y_h (and LSTM's Y_c) [dirs, batch,
// hidden] or [batch, dirs, hidden].
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

OutShapes recurrent(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  if (x->rank() != 3) q.fail("X must be 3-D: ", q.input_desc(0));
  const bool batch_first = q.schema().attr_def("layout") && q.attr_int("layout") != 0;
  const int64_t dirs = q.attr_string("direction") == "bidirectional" ? 2 : 1;
  int64_t hidden = -1;
  if (q.has_attr("hidden_size")) {
    hidden = q.attr_int("hidden_size");
  } else if (const Shape* r = shape_of(q, 2)) {  // R: [dirs, gates * hidden, hidden]
    if (r->rank() != 3) q.fail("R must be 3-D: ", q.input_desc(2));
    hidden = (*r)[2];
  }
  if (hidden < 0) return {};
  const int64_t seq = (*x)[batch_first ? 1 : 0], batch = (*x)[batch_first ? 0 : 1];
  const Shape y = batch_first ? Shape{batch, seq, dirs, hidden} : Shape{seq, dirs, batch, hidden};
  const Shape state = batch_first ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  OutShapes out(q.num_outputs(), state);
  if (!out.empty()) out[0] = y;
  return out;
}

// Each version's attributes; `extra` are the op's own. `activations`
// defaults to the op's functions for one direction (f for RNN; f, g for
// GRU; f, g, h for LSTM), which a bidirectional node applies to both.
std::vector<AttrDef> attrs(int64_t since, const std::vector<AttrDef>& extra, bool output_sequence,
                           std::vector<std::string> activations) {
  std::vector<AttrDef> a = {optional_attr("activation_alpha", AttrType::kFloats),
                            optional_attr("activation_beta", AttrType::kFloats),
                            strings_attr("activations", std::move(activations)),
                            optional_attr("clip", AttrType::kFloat),
                            string_attr("direction", "forward"),
                            optional_attr("hidden_size", AttrType::kInt)};
  a.insert(a.end(), extra.begin(), extra.end());
  if (output_sequence) a.push_back(int_attr("output_sequence", 0));
  if (since >= 14) a.push_back(int_attr("layout", 0));
  return a;
}

}  // namespace

void add_recurrent_schemas(std::vector<OpSchema>& t) {
  // sequence_lens (input 4) is int32; every other input is T.
  // Y and Y_h (and LSTM's Y_c) are T.
  auto types = [](std::vector<int> inputs) {
    std::vector<int> outputs = {0, 1};
    if (inputs.size() > 5) outputs.push_back(2);
    return std::vector<TypeParam>{{"T", std::move(inputs), std::move(outputs), float_types()},
                                  {"T1", {4}, {}, {DataType::kInt32}}};
  };
  auto add = [&](const char* op, int64_t since, std::vector<AttrDef> a, std::vector<int> in) {
    t.push_back({"", op, since, std::move(a), types(std::move(in)), type_of_input0, recurrent});
  };
  const std::vector<std::string> rnn = {"Tanh"}, gru = {"Sigmoid", "Tanh"},
                                 lstm = {"Sigmoid", "Tanh", "Tanh"};
  for (int64_t v : {1, 7, 14}) add("RNN", v, attrs(v, {}, v == 1, rnn), {0, 1, 2, 3, 5});
  // GRU-1's text spells the direction default "foward"; it means forward.
  add("GRU", 1, attrs(1, {}, true, gru), {0, 1, 2, 3, 5});
  for (int64_t v : {3, 7, 14})
    add("GRU", v, attrs(v, {int_attr("linear_before_reset", 0)}, v == 3, gru), {0, 1, 2, 3, 5});
  for (int64_t v : {1, 7, 14})
    add("LSTM", v, attrs(v, {int_attr("input_forget", 0)}, v == 1, lstm), {0, 1, 2, 3, 5, 6, 7});
}

}  // namespace tessera::ops
