// Prepacked forms of constant inputs (a GEMM's panel-packed weights, a
// convolution's per-group filters, a device's reordered layout), shared by the
// kernels of every session of an environment. Kernels ask for them at
// creation through KernelInfo::prepacked(); the cache holds weak references
// only, so a packed form goes with the last kernel that uses it.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <unordered_map>
#include <vector>

#include "core/tensor.hpp"

namespace tessera::ep {

class PrepackCache {
 public:
  // The packed form of `constant` named `kind` (e.g. "cpu.sgemm.packed_b")
  // with `params` (whatever changes the packed bytes: transposition, groups):
  // made by `make` the first time, then shared with every later caller asking
  // for the same form of a constant with the same type, shape and bytes. The
  // key is a 128-bit digest of the bytes, not the constant's address: a
  // session may give an initializer's memory back once its kernels packed it
  // (Session::released_initializers), and a later session loading the same
  // weights must still find the packed form.
  template <typename T>
  std::shared_ptr<const T> get(const Tensor& constant, const std::string& kind,
                               const std::vector<int64_t>& params, const std::function<T()>& make) {
    auto erased = get_erased(constant, kind, params, typeid(T), [&] {
      return std::shared_ptr<const void>(std::make_shared<const T>(make()));
    });
    return std::static_pointer_cast<const T>(erased);
  }
  // How many packed forms are alive now (for tests and reports).
  size_t size() const;

 private:
  struct Key {
    uint64_t digest[2] = {0, 0};  // of the constant's bytes
    DataType dtype = DataType::kUndefined;
    std::vector<int64_t> dims;
    std::string kind;
    std::vector<int64_t> params;
    std::type_index type = typeid(void);
    bool operator==(const Key&) const = default;
  };
  struct Entry {
    Key key;
    std::weak_ptr<const void> value;
  };
  std::shared_ptr<const void> get_erased(const Tensor& constant, const std::string& kind,
                                         const std::vector<int64_t>& params, std::type_index type,
                                         const std::function<std::shared_ptr<const void>()>& make);
  std::shared_ptr<const void> find(uint64_t hash, const Key& key) const;
  void prune();

  mutable std::mutex mu_;
  std::unordered_multimap<uint64_t, Entry> entries_;
};

}  // namespace tessera::ep
