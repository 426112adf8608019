// Kernels keyed by (domain, op type, opset range, type constraints). Each
// kernel family registers its table with one function (register_*_kernels).
#pragma once
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ep/kernel.hpp"

namespace tessera::ep {

constexpr int64_t kOpsetMax = std::numeric_limits<int32_t>::max();

// Input positions whose element type must be one of `allowed`. With
// `variadic`, the last listed position also covers every input after it.
struct TypeConstraint {
  std::string name;  // "T", "T1", ... as in the spec
  std::vector<int> inputs;
  std::vector<DataType> allowed;
  bool variadic = false;
};

struct KernelDef {
  std::string domain;  // "" for ai.onnx
  std::string op_type;
  int64_t since = 1;          // first opset version served
  int64_t until = kOpsetMax;  // last opset version served (inclusive)
  std::vector<TypeConstraint> constraints;
  // Inputs the kernel reads on the host although the provider's memory is a
  // device's (Reshape's shape, Slice's starts...): the runtime places them in
  // host memory, copying them there when they were made on the device, so
  // the kernel never has to copy and wait for them itself.
  std::vector<int> host_inputs = {};
  // Outputs the kernel writes in host memory (Shape's dims): KernelContext::
  // output() allocates them there, and the runtime treats them as host values.
  std::vector<int> host_outputs = {};
};

using KernelFactory = std::function<std::unique_ptr<OpKernel>(const KernelInfo&)>;

// Type lists used across families.
namespace types {
extern const std::vector<DataType> kFloats;        // float, double, float16, bfloat16
extern const std::vector<DataType> kSignedInts;    // int8..int64
extern const std::vector<DataType> kUnsignedInts;  // uint8..uint64
extern const std::vector<DataType> kInts;          // all 8..64-bit integers
extern const std::vector<DataType> kNumeric;       // kFloats + kInts
extern const std::vector<DataType> kAll;           // every tensor element type
std::vector<DataType> join(std::initializer_list<std::vector<DataType>> lists);
}  // namespace types

class KernelRegistry {
 public:
  struct Entry {
    KernelDef def;
    KernelFactory factory;
  };
  struct Match {
    const Entry* entry = nullptr;
    std::string reason;  // why nothing matched (when entry is null)
  };

  void add(KernelDef def, KernelFactory factory);
  template <typename K>
  void add(KernelDef def) {
    add(std::move(def), [](const KernelInfo& info) { return std::make_unique<K>(info); });
  }
  Match lookup(const std::string& domain, const std::string& op_type, int64_t opset,
               const std::vector<DataType>& input_types) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace tessera::ep
