// Runs one node through the CPU provider's kernel registry, without a
// session: for kernel unit tests.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/value.hpp"
#include "ep/kernel_registry.hpp"
#include "ir/graph.hpp"
#include "providers/cpu/cpu_provider.hpp"

namespace tessera::test {

inline ir::Attribute attr_int(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = v;
  return a;
}
inline ir::Attribute attr_float(const std::string& name, float v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloat;
  a.f = v;
  return a;
}
inline ir::Attribute attr_ints(const std::string& name, std::vector<int64_t> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInts;
  a.ints = std::move(v);
  return a;
}
inline ir::Attribute attr_floats(const std::string& name, std::vector<float> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloats;
  a.floats = std::move(v);
  return a;
}
inline ir::Attribute attr_string(const std::string& name, std::string v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kString;
  a.s = std::move(v);
  return a;
}
inline ir::Attribute attr_tensor(const std::string& name, Tensor t) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kTensor;
  a.t = std::move(t);
  return a;
}

// Runs `op_type` at `opset` on the inputs (an undefined Value marks an
// omitted optional input); returns `num_outputs` outputs. Output element
// types are inferred by the ops/ type inference. Throws what the kernel throws.
std::vector<Value> run_node(const std::string& op_type, std::vector<Value> inputs,
                            std::vector<ir::Attribute> attributes = {}, int64_t opset = 21,
                            size_t num_outputs = 1, const std::string& domain = "");

// A tensor of 8-bit type t (int8 or uint8) and shape s, every byte uniform
// over 0..255 from `seed`.
Tensor random_bytes(DataType t, const Shape& s, uint32_t seed);

// A node named "<op>_<first output>" in the default domain.
inline ir::Node make_node(const std::string& op, std::vector<std::string> in,
                          std::vector<std::string> out, std::vector<ir::Attribute> attrs = {}) {
  ir::Node n;
  n.name = op + "_" + out[0];
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attributes = std::move(attrs);
  return n;
}

// The checkout holding models/: searched upward from the test binary
// (normally <root>/build/) and from the working directory.
std::filesystem::path source_root();

}  // namespace tessera::test
