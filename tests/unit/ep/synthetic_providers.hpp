// Synthetic providers for partitioner and executor tests: each claims a chosen
// set of element-wise float ops (Relu, Neg, Sigmoid, Add of equal shapes),
// optionally fused through compile(), optionally in a memory space of its own
// whose kernels refuse pointers that are not theirs.
#pragma once
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ep/execution_provider.hpp"
#include "ep/node_groups.hpp"
#include "ep/provider_abilities.hpp"

namespace tessera::test {

// The reference semantics of the ops the synthetic providers run.
inline Tensor eval_elementwise(const std::string& op, const std::vector<const Tensor*>& in,
                               const std::shared_ptr<Allocator>& alloc) {
  Tensor out(DataType::kFloat, in[0]->shape(), alloc);
  const float* a = in[0]->data<float>();
  float* o = out.mutable_data<float>();
  const int64_t n = out.num_elements();
  if (op == "Add") {
    check(in.size() == 2 && in[1]->shape() == in[0]->shape(), "synthetic Add: shapes differ");
    const float* b = in[1]->data<float>();
    for (int64_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
  } else {
    for (int64_t i = 0; i < n; ++i)
      o[i] = op == "Relu"  ? std::max(a[i], 0.f)
             : op == "Neg" ? -a[i]
                           : 1.f / (1.f + std::exp(-a[i]));
  }
  return out;
}

// Memory that is host memory underneath but presented as another device, so
// the runtime must copy at its borders.
inline MemoryInfo other_memory() {
  MemoryInfo m;
  m.name = "Other";
  m.device_type = DeviceType::kGPU;
  m.vendor_id = 0x7E57;
  return m;
}

inline void require_space(const Tensor& t, const MemoryInfo& mine, const std::string& who) {
  if (!t.memory_info().same_space(mine))
    fail(ErrorCode::kEPFail, who, ": got a tensor in ", t.memory_info().to_string(), ", expected ",
         mine.to_string());
}

class OtherSpaceTransfer : public ep::DataTransfer {
 public:
  bool can_copy(const MemoryInfo& s, const MemoryInfo& d) const override {
    return (s.same_space(other_memory()) && d.host_accessible()) ||
           (d.same_space(other_memory()) && s.host_accessible());
  }
  void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                    ep::Stream*) const override {
    for (size_t i = 0; i < src.size(); ++i) {
      ++copies;
      std::copy_n(static_cast<const char*>(src[i]->raw_data()), src[i]->byte_size(),
                  static_cast<char*>(dst[i]->mutable_raw_data()));
    }
  }
  mutable int copies = 0;
};

class ElementwiseKernel : public ep::OpKernel {
 public:
  ElementwiseKernel(std::string op, MemoryInfo mem) : op_(std::move(op)), mem_(std::move(mem)) {}
  void compute(ep::KernelContext& ctx) const override {
    std::vector<const Tensor*> in;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      in.push_back(&ctx.required_input(i));
      require_space(*in.back(), mem_, ctx.node().describe());
    }
    ctx.set_output(0, eval_elementwise(op_, in, ctx.allocator()));
  }

 private:
  std::string op_;
  MemoryInfo mem_;
};

// Runs a fused group by evaluating its nodes in order on private temporaries.
class FusedElementwiseKernel : public ep::OpKernel {
 public:
  FusedElementwiseKernel(std::vector<ir::Node> nodes, MemoryInfo mem)
      : nodes_(std::move(nodes)), mem_(std::move(mem)) {}
  void compute(ep::KernelContext& ctx) const override {
    std::map<std::string, Tensor> env;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      env[ctx.node().inputs[i]] = ctx.required_input(i);
      require_space(ctx.required_input(i), mem_, ctx.node().name);
    }
    for (const auto& n : nodes_) {
      std::vector<const Tensor*> in;
      for (const auto& name : n.inputs) in.push_back(&env.at(name));
      env[n.outputs[0]] = eval_elementwise(n.op_type, in, ctx.allocator());
    }
    for (size_t k = 0; k < ctx.num_outputs(); ++k) ctx.set_output(k, env.at(ctx.node().outputs[k]));
  }

 private:
  std::vector<ir::Node> nodes_;
  MemoryInfo mem_;
};

class SyntheticProvider : public ep::ExecutionProvider, public ep::FusedCompiler {
 public:
  SyntheticProvider(std::string name, std::set<std::string> ops, bool fuse = false,
                    bool other_space = false)
      : name_(std::move(name)), ops_(std::move(ops)), fuse_(fuse) {
    if (other_space) {
      info_ = other_memory();
      transfer_ = std::make_unique<OtherSpaceTransfer>();
    }
    alloc_ = std::make_shared<CpuAllocator>(info_);
    for (const auto& op : ops_) {
      MemoryInfo mem = info_;
      registry_.add({"", op, 1, ep::kOpsetMax, {{"T", {0}, {DataType::kFloat}}}},
                    [op, mem](const ep::KernelInfo&) {
                      return std::make_unique<ElementwiseKernel>(op, mem);
                    });
    }
  }
  const std::string& name() const override { return name_; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return alloc_; }
  const ep::KernelRegistry& kernel_registry() const override { return registry_; }
  const ep::DataTransfer* data_transfer() const override { return transfer_.get(); }

  ep::Capability get_capability(const ep::GraphView& view) const override {
    if (!fuse_) return ExecutionProvider::get_capability(view);
    ep::Capability cap;
    cap.groups = ep::group_supported_nodes(
        view, [&](size_t i) { return ops_.count(view.graph->nodes[i].op_type) > 0; });
    return cap;
  }
  std::vector<std::unique_ptr<ep::OpKernel>> compile(
      const ep::GraphView& view, const std::vector<ep::FusedGroup>& groups) const override {
    std::vector<std::unique_ptr<ep::OpKernel>> out;
    for (const auto& g : groups) {
      compiled_sizes.push_back(g.nodes.size());
      std::vector<ir::Node> nodes;
      for (size_t i : g.nodes) nodes.push_back(view.graph->nodes[i]);
      out.push_back(std::make_unique<FusedElementwiseKernel>(std::move(nodes), info_));
    }
    return out;
  }
  const OtherSpaceTransfer* transfer() const { return transfer_.get(); }
  mutable std::vector<size_t> compiled_sizes;  // nodes per compiled group, in compile order

 private:
  std::string name_;
  std::set<std::string> ops_;
  bool fuse_;
  MemoryInfo info_ = cpu_memory_info();
  std::shared_ptr<Allocator> alloc_;
  std::unique_ptr<OtherSpaceTransfer> transfer_;
  ep::KernelRegistry registry_;
};

// Claims exactly the given groups (as far as they are candidates): for
// testing the partitioner's passes on shapes of claims a real provider might make.
class ScriptedProvider : public ep::ExecutionProvider {
 public:
  ScriptedProvider(std::string name, std::vector<ep::NodeGroup> groups)
      : name_(std::move(name)), groups_(std::move(groups)) {}
  const std::string& name() const override { return name_; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return default_cpu_allocator(); }
  const ep::KernelRegistry& kernel_registry() const override { return registry_; }
  ep::Capability get_capability(const ep::GraphView&) const override { return {groups_, {}}; }

 private:
  std::string name_;
  std::vector<ep::NodeGroup> groups_;
  MemoryInfo info_ = cpu_memory_info();
  ep::KernelRegistry registry_;
};

}  // namespace tessera::test
