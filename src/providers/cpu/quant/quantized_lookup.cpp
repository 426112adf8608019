// com.tessera QuantizedLookup (optimizer/quantize_pair_fusion.cpp): y[i] =
// table[x[i]], x and y 8-bit (either signedness, x read as its byte), the
// table 256 constant bytes of y's type. The optimizer makes it from a
// DequantizeLinear -> [Relu | Clip] -> QuantizeLinear chain, with the table
// computed by the same loops those kernels run, so the bytes are theirs.
#include "linalg/quantize.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {

class QuantizedLookupKernel final : public ep::OpKernel {
 public:
  explicit QuantizedLookupKernel(const ep::KernelInfo&) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& table = ctx.required_input(1);
    if (table.num_elements() != 256)
      ctx.fail_node("table ", table.description(), " must have 256 elements");
    Tensor& y = ctx.output(0, x.shape(), table.dtype());
    const auto* xd = static_cast<const uint8_t*>(x.raw_data());
    const auto* t = static_cast<const uint8_t*>(table.raw_data());
    auto* yd = static_cast<uint8_t*>(y.mutable_raw_data());
    // A byte costs a fraction of an operation (64 a few instructions with
    // VBMI): only tensors of some 160 KB and up are worth waking workers for.
    ctx.thread_pool().parallel_for(x.num_elements(), 0.125, [&](int64_t b, int64_t e) {
      linalg::lookup_8bit(xd + b, e - b, t, yd + b);
    });
  }
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_quantized_lookup(const ep::KernelInfo& info) {
  return std::make_unique<QuantizedLookupKernel>(info);
}

}  // namespace tessera::cpu
