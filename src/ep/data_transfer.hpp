// Copies between memory spaces. A provider whose memory is not plain host
// memory supplies one; the runtime inserts copies where a value crosses
// spaces, and only there.
#pragma once
#include <vector>

#include "core/tensor.hpp"

namespace tessera::ep {

// An ordered queue of work on a device; null means "synchronous".
class Stream {
 public:
  virtual ~Stream() = default;
  virtual void synchronize() = 0;
};

class DataTransfer {
 public:
  virtual ~DataTransfer() = default;
  virtual bool can_copy(const MemoryInfo& src, const MemoryInfo& dst) const = 0;
  // Copies each src into the same-shaped, already allocated dst. With a
  // stream the copies may be asynchronous on it.
  virtual void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                            Stream* stream) const = 0;
};

// Host-to-host copies (memcpy; strings by assignment).
class HostDataTransfer : public DataTransfer {
 public:
  bool can_copy(const MemoryInfo& src, const MemoryInfo& dst) const override {
    return src.host_accessible() && dst.host_accessible();
  }
  void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                    Stream* stream) const override;
};

}  // namespace tessera::ep
