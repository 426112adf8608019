// What every oneDNN kernel shares: the provider's environment (engine, thread
// count, bf16 switch), plain row-major memory descriptors over our tensors, a
// per-shape primitive cache, and one way to execute a primitive.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.hpp"
#include "ep/kernel.hpp"

namespace tessera::onednn {

// Set once when the provider is created from its options; kernels hold it.
struct DnnlEnv {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  int num_threads = 0;            // 0: oneDNN's (OpenMP's) default
  bool bf16 = false;              // enable_bf16=1 and the CPU has avx512_bf16
  bool post_ops_in_conv = false;  // fused Conv chains: post-ops inside the primitive
};
using EnvPtr = std::shared_ptr<const DnnlEnv>;

using Dims = dnnl::memory::dims;
using Tag = dnnl::memory::format_tag;
using DType = dnnl::memory::data_type;

// Dense row-major f32 descriptor (a scalar is viewed as [1]).
dnnl::memory::desc plain_desc(const std::vector<int64_t>& dims);
// Row-major f32 descriptor whose last two dims are swapped in memory
// (a transposed view without a copy).
dnnl::memory::desc transposed_desc(const std::vector<int64_t>& dims);
// Wraps tensor memory (no copy).
dnnl::memory wrap(const dnnl::memory::desc& md, const DnnlEnv& env, const void* data);

// Attributes every primitive gets: a user-provided scratchpad (so concurrent
// runs never share one), plus bf16 fast math where the caller allows it.
dnnl::primitive_attr base_attr(const DnnlEnv& env, bool allow_bf16 = false);

// Executes `prim` on the calling thread with the provider's thread count,
// attaching a scratchpad of `scratch` from a per-thread buffer.
void execute(const DnnlEnv& env, const dnnl::primitive& prim, const dnnl::memory::desc& scratch,
             std::unordered_map<int, dnnl::memory> args);
// Copies between layouts once (e.g. constant weights into the layout a primitive
// picked); hot paths keep their reorder primitives in their cache entry.
void reorder(const DnnlEnv& env, const dnnl::memory& src, const dnnl::memory& dst);

// Shapes of the given tensors as one key ([rank, dims..., rank, dims...]).
std::vector<int64_t> shape_key(std::initializer_list<const Tensor*> tensors);

// Primitives per input shape. compute() is const and runs on many threads, so
// the cache is guarded; entries are immutable once made. Bounded: a model
// with ever-changing shapes rebuilds instead of growing without end.
template <typename Entry>
class ShapeCache {
 public:
  template <typename Make>
  std::shared_ptr<const Entry> get(const std::vector<int64_t>& key, Make&& make) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second;
    if (entries_.size() >= kMaxEntries) entries_.clear();
    auto e = std::make_shared<const Entry>(make());
    entries_.emplace(key, e);
    return e;
  }

 private:
  static constexpr size_t kMaxEntries = 64;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> entries_;
};

// Base of every oneDNN kernel: keeps the environment and turns oneDNN errors
// into Tessera errors that name the node.
class DnnlKernel : public ep::OpKernel {
 public:
  DnnlKernel(const ep::KernelInfo& info, EnvPtr env) : env_(std::move(env)), node_(info.node()) {}
  void compute(ep::KernelContext& ctx) const final;

 protected:
  virtual void run(ep::KernelContext& ctx) const = 0;
  const DnnlEnv& env() const { return *env_; }

 private:
  EnvPtr env_;
  const ir::Node& node_;
};

}  // namespace tessera::onednn
