#include "kernel_test_util.hpp"

#include <random>

#include "ops/type_inference.hpp"

namespace tessera::test {

namespace {
ir::TypeInfo type_of_value(const Value& v) {
  if (v.is_tensor()) return ir::TypeInfo::tensor(v.tensor().dtype());
  if (v.is_sequence()) {
    ir::TypeInfo t;
    t.kind = ir::TypeInfo::Kind::kSequence;
    t.inner = std::make_shared<ir::TypeInfo>(ir::TypeInfo::tensor(v.seq_elem_type()));
    return t;
  }
  return ir::TypeInfo();
}
}  // namespace

std::vector<Value> run_node(const std::string& op_type, std::vector<Value> inputs,
                            std::vector<ir::Attribute> attributes, int64_t opset,
                            size_t num_outputs, const std::string& domain) {
  ir::Node node;
  node.name = "test_" + op_type;
  node.op_type = op_type;
  node.domain = domain;
  node.attributes = std::move(attributes);
  std::vector<ir::TypeInfo> in_types;
  std::vector<DataType> in_dtypes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool present = !inputs[i].is_none();
    node.inputs.push_back(present ? "in" + std::to_string(i) : "");
    in_types.push_back(present ? type_of_value(inputs[i]) : ir::TypeInfo());
    in_dtypes.push_back(present && inputs[i].is_tensor() ? inputs[i].tensor().dtype()
                                                         : DataType::kUndefined);
  }
  for (size_t i = 0; i < num_outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
  auto out_types = ops::infer_output_types(node, opset, in_types);
  const auto& reg = cpu::cpu_kernel_registry();
  auto m = reg.lookup(domain, op_type, opset, in_dtypes);
  if (!m.entry) fail(ErrorCode::kNotImplemented, node.describe(), ": ", m.reason);
  ep::KernelInfo info(node, opset, in_types, out_types,
                      std::vector<const Tensor*>(inputs.size(), nullptr));
  auto kernel = m.entry->factory(info);
  std::vector<Value> outputs(num_outputs);
  std::vector<const Value*> in_ptrs;
  for (auto& v : inputs) in_ptrs.push_back(v.is_none() ? nullptr : &v);
  std::vector<Value*> out_ptrs;
  std::vector<DataType> out_dtypes;
  for (size_t i = 0; i < num_outputs; ++i) {
    out_ptrs.push_back(&outputs[i]);
    out_dtypes.push_back(out_types[i].kind == ir::TypeInfo::Kind::kTensor ? out_types[i].elem_type
                                                                          : DataType::kUndefined);
  }
  ThreadPool pool(2);
  ep::KernelContext ctx(node, in_ptrs, out_ptrs, out_dtypes, default_cpu_allocator(), &pool);
  kernel->compute(ctx);
  return outputs;
}

std::filesystem::path source_root() {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::path start : {fs::read_symlink("/proc/self/exe", ec).parent_path(), fs::current_path()})
    for (fs::path p = start; !p.empty() && p != p.root_path(); p = p.parent_path())
      if (fs::exists(p / "models" / "demo_cnn")) return p;
  return fs::current_path();
}

Tensor random_bytes(DataType t, const Shape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  Tensor x(t, s);
  auto* p = static_cast<uint8_t*>(x.mutable_raw_data());
  for (int64_t i = 0; i < x.num_elements(); ++i) p[i] = uint8_t(byte(rng));
  return x;
}

}  // namespace tessera::test
