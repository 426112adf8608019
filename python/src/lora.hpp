// A loaded LoRA adapter, shared by every RunOptions it is active in.
#pragma once
#include <memory>

#include "onnx/adapter_format.hpp"

namespace tessera::python {

struct PyLoraAdapter {
  std::shared_ptr<const onnx::Adapter> adapter;  // null until loaded
};

}  // namespace tessera::python
