// A malformed-model corpus generated here: every truncation and many byte
// corruptions of a valid model, lying lengths, wrong wire types, hostile
// sizes and nesting. Each must throw tessera::Error; none may crash.
#include <gtest/gtest.h>

#include "onnx/model_reader.hpp"
#include "onnx/model_writer.hpp"
#include "onnx_test_util.hpp"

using namespace tessera;
using test::expect_error;
using test::Msg;

namespace {

ir::Model parse(const std::string& b) { return onnx::parse_model(b.data(), b.size(), "", "model.onnx"); }

std::string small_model() {
  ir::Model m;
  m.ir_version = 9;
  m.opset_imports = {{"", 19}};
  m.graph.name = "g";
  m.graph.inputs.push_back(
      {"x", ir::TypeInfo::tensor(DataType::kFloat, std::vector<ir::Dim>{{2, ""}, {std::nullopt, "N"}}), ""});
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat), ""});
  m.graph.initializers.emplace("w", Tensor::from_vector<float>({1, 2}, {2}));
  m.graph.initializers.emplace("s", Tensor::from_vector<std::string>({"ab"}, {1}));
  ir::Node n;
  n.name = "n0";
  n.op_type = "Add";
  n.inputs = {"x", "w"};
  n.outputs = {"y"};
  ir::Attribute a;
  a.name = "axes";
  a.type = ir::AttrType::kInts;
  a.ints = {1, 2};
  n.attributes.push_back(a);
  a = ir::Attribute{};
  a.name = "body";
  a.type = ir::AttrType::kGraph;
  a.g = std::make_shared<ir::Graph>();
  a.g->nodes.push_back(n);
  n.attributes.push_back(a);
  m.graph.nodes.push_back(n);
  return onnx::serialize_model(m);
}

// Parses, accepting success or tessera::Error; anything else fails the test.
void parse_survives(const std::string& bytes, const std::string& what) {
  try {
    parse(bytes);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.onnx"), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": non-tessera exception: " << e.what();
  }
}

// graph { node[0..3], node[3] { attribute[0], attribute[1] { <payload> } } }
std::string model_with_attribute_payload(const std::string& payload) {
  Msg node_ok;
  node_ok.str(4, "Relu");
  Msg bad_attr;
  bad_attr.bytes = payload;
  Msg node3;
  node3.str(4, "Foo").msg(5, Msg().str(1, "a0").varint(20, 2).varint(3, 1)).msg(5, bad_attr);
  Msg graph;
  graph.msg(1, node_ok).msg(1, node_ok).msg(1, node_ok).msg(1, node3);
  return Msg().varint(1, 8).msg(7, graph).bytes;
}

}  // namespace

TEST(OnnxMalformed, ValidSmallModelParses) {
  ir::Model m = parse(small_model());
  EXPECT_EQ(m.graph.nodes.size(), 1u);
}

TEST(OnnxMalformed, EveryTruncationThrowsOrParses) {
  std::string full = small_model();
  size_t parsed = 0;
  for (size_t len = 0; len < full.size(); ++len) {
    std::string cut = full.substr(0, len);
    try {
      parse(cut);
      ++parsed;
    } catch (const Error&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "truncation at " << len << ": non-tessera exception: " << e.what();
    }
  }
  // Only a cut that drops the trailing opset_import field whole is still a model.
  EXPECT_EQ(parsed, 1u);
}

TEST(OnnxMalformed, CorruptedBytesNeverCrash) {
  std::string full = small_model();
  for (size_t i = 0; i < full.size(); ++i) {
    for (uint8_t v : {uint8_t(0x00), uint8_t(0xff), uint8_t(0x80), uint8_t(0x7f),
                      uint8_t(full[i] ^ 0x01), uint8_t(full[i] ^ 0x08)}) {
      std::string bad = full;
      bad[i] = char(v);
      parse_survives(bad, "byte " + std::to_string(i));
    }
  }
}

TEST(OnnxMalformed, LengthPastEndNamesThePath) {
  Msg lying;
  lying.str(1, "a1").lying_length(4, 1000000, std::string(12, 'x'));
  std::string bytes = model_with_attribute_payload(lying.bytes);
  expect_error([&] { parse(bytes); }, ErrorCode::kInvalidProtobuf,
               "model.onnx: graph.node[3].attribute[1]: field 4: length 1000000 past end of data "
               "(12 bytes left)");
}

TEST(OnnxMalformed, HugeDeclaredLengths) {
  Msg m;
  m.varint(1, 8).lying_length(7, uint64_t(1) << 62, "abc");
  expect_error([&] { parse(m.bytes); }, ErrorCode::kInvalidProtobuf, "past end of data (3 bytes left)");
  Msg max;
  max.lying_length(7, ~uint64_t(0));
  expect_error([&] { parse(max.bytes); }, ErrorCode::kInvalidProtobuf, "past end of data");
  // An initializer claiming 2^40 floats backed by a few bytes.
  Msg t;
  t.varint(1, uint64_t(1) << 40).varint(2, 1).str(8, "w").str(9, "abcd");
  Msg g;
  g.msg(5, t);
  expect_error([&] { parse(Msg().msg(7, g).bytes); }, ErrorCode::kInvalidProtobuf,
               "graph.initializer[0]: tensor 'w' (float[1099511627776]): raw_data has 4 bytes");
}

TEST(OnnxMalformed, WrongWireTypes) {
  Msg m;
  m.str(1, "not a varint").msg(7, Msg());
  expect_error([&] { parse(m.bytes); }, ErrorCode::kInvalidProtobuf,
               "field 1 (ir_version) has wire type length-delimited, expected varint");
  Msg g;
  g.varint(1, 5);  // node as a varint
  expect_error([&] { parse(Msg().msg(7, g).bytes); }, ErrorCode::kInvalidProtobuf,
               "graph.node[0]: field 1 (node) has wire type varint");
  Msg attr;
  attr.str(1, "f").varint(2, 3);  // f is fixed32
  expect_error([&] { parse(model_with_attribute_payload(attr.bytes)); },
               ErrorCode::kInvalidProtobuf, "graph.node[3].attribute[1]: field 2 (f) has wire type varint");
  std::string bad_wt = Msg().varint(1, 8).bytes + std::string("\x0e", 1);  // field 1, wire type 6
  expect_error([&] { parse(bad_wt); }, ErrorCode::kInvalidProtobuf, "invalid wire type 6");
  std::string end_group = std::string("\x0c", 1);  // field 1, end-group
  expect_error([&] { parse(end_group); }, ErrorCode::kInvalidProtobuf, "unexpected end-group");
}

TEST(OnnxMalformed, UnknownFieldsAndGroupsAreSkipped) {
  Msg m;
  m.varint(1, 8).varint(999, 5).f32(998, 1).f64(997, 2).str(996, "junk");
  // An unknown group (field 50) with a nested group inside.
  onnx::WireWriter w(m.bytes);
  w.raw_varint((50 << 3) | 3);
  w.raw_varint((51 << 3) | 3);
  w.raw_varint((1 << 3) | 0);
  w.raw_varint(7);
  w.raw_varint((51 << 3) | 4);
  w.raw_varint((50 << 3) | 4);
  m.msg(7, Msg().str(2, "g").varint(100, 1));
  ir::Model model = parse(m.bytes);
  EXPECT_EQ(model.ir_version, 8);
  EXPECT_EQ(model.graph.name, "g");
  std::string open_group = Msg().msg(7, Msg()).bytes + std::string("\x93\x03", 2);
  expect_error([&] { parse(open_group); }, ErrorCode::kInvalidProtobuf, "not closed");
}

TEST(OnnxMalformed, BadVarints) {
  std::string eleven = std::string("\x08", 1) + std::string(10, '\xff') + std::string("\x01", 1);
  expect_error([&] { parse(eleven); }, ErrorCode::kInvalidProtobuf, "varint");
  std::string truncated = std::string("\x08\xff\xff", 3);
  expect_error([&] { parse(truncated); }, ErrorCode::kInvalidProtobuf, "truncated varint");
  Msg t;
  t.varint(2, 7).varint(1, 1).lying_length(7, 2, "\xff\xff");  // packed int64 cut mid-varint
  expect_error([&] { parse(Msg().msg(7, Msg().msg(5, t)).bytes); }, ErrorCode::kInvalidProtobuf,
               "truncated packed varint");
  Msg f;
  f.varint(2, 1).varint(1, 1).str(4, "abcdef");  // packed floats, not a multiple of 4
  expect_error([&] { parse(Msg().msg(7, Msg().msg(5, f)).bytes); }, ErrorCode::kInvalidProtobuf,
               "not a multiple of 4");
}

TEST(OnnxMalformed, NegativeDimsAndBadTypes) {
  Msg t;
  t.varint(1, uint64_t(-2)).varint(2, 1).str(8, "w");
  expect_error([&] { parse(Msg().msg(7, Msg().msg(5, t)).bytes); }, ErrorCode::kInvalidProtobuf,
               "dims[0] is negative (-2)");
  Msg attr;
  attr.str(1, "a").varint(20, 77);
  expect_error([&] { parse(model_with_attribute_payload(attr.bytes)); },
               ErrorCode::kInvalidProtobuf, "attribute 'a' has invalid type 77");
  Msg vi;
  vi.str(1, "x").msg(2, Msg().msg(1, Msg().varint(1, 1000)));
  expect_error([&] { parse(Msg().msg(7, Msg().msg(11, vi)).bytes); }, ErrorCode::kInvalidProtobuf,
               "graph.input[0].type.tensor_type: elem_type 1000 is not a valid data type");
}

TEST(OnnxMalformed, DeepNestingIsRefused) {
  // Subgraphs inside subgraphs: graph > node > attribute > g > node > ...
  Msg g;
  g.str(2, "leaf");
  for (int i = 0; i < 100; ++i) {
    Msg attr;
    attr.str(1, "body").varint(20, 5).msg(6, g);
    Msg node;
    node.str(4, "If").msg(5, attr);
    g = Msg();
    g.msg(1, node);
  }
  expect_error([&] { parse(Msg().msg(7, g).bytes); }, ErrorCode::kInvalidProtobuf,
               "nested deeper than 64");
  // A sequence type nested 5000 deep: refused, no stack overflow.
  std::string type = Msg().msg(1, Msg().varint(1, 1)).bytes;
  for (int i = 0; i < 5000; ++i) type = Msg().msg(4, Msg().str(1, type)).bytes;
  Msg vi;
  vi.str(1, "x").str(2, type);
  expect_error([&] { parse(Msg().msg(7, Msg().msg(11, vi)).bytes); }, ErrorCode::kInvalidProtobuf,
               "nested deeper");
  // A modest nesting is fine.
  Msg ok;
  ok.str(2, "leaf");
  for (int i = 0; i < 10; ++i) {
    Msg attr;
    attr.str(1, "body").varint(20, 5).msg(6, ok);
    ok = Msg();
    ok.msg(1, Msg().str(4, "If").msg(5, attr));
  }
  EXPECT_NO_THROW(parse(Msg().msg(7, ok).bytes));
}

TEST(OnnxMalformed, Files) {
  test::TempDir dir;
  expect_error([&] { onnx::load_model(dir.file("x.onnx")); }, ErrorCode::kNoSuchFile,
               "model file '" + dir.file("x.onnx") + "' does not exist");
  test::write_file(dir.file("empty.onnx"), "");
  expect_error([&] { onnx::load_model(dir.file("empty.onnx")); }, ErrorCode::kInvalidProtobuf,
               dir.file("empty.onnx") + ": empty");
  test::write_file(dir.file("garbage.onnx"), "This is not a model, just some text.\n");
  expect_error([&] { onnx::load_model(dir.file("garbage.onnx")); }, ErrorCode::kInvalidProtobuf,
               dir.file("garbage.onnx"));
  test::write_file(dir.file("nograph.onnx"), Msg().varint(1, 8).bytes);
  expect_error([&] { onnx::load_model(dir.file("nograph.onnx")); }, ErrorCode::kInvalidProtobuf,
               "has no graph");
}

TEST(OnnxMalformed, DuplicateInitializer) {
  Msg t;
  t.varint(1, 1).varint(2, 1).str(8, "w").f32(4, 1);
  expect_error([&] { parse(Msg().msg(7, Msg().msg(5, t).msg(5, t)).bytes); },
               ErrorCode::kInvalidGraph, "duplicate initializer 'w'");
}
