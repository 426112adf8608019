// BitCast (opset 26): the same bytes under another element type of the same
// bit width. Sub-byte types share one packing (low bits first), so a byte copy
// is exact for them too; bytes are little endian on every supported host.
#include <cstring>

#include "providers/cpu/extras/extras_kernels.hpp"

namespace tessera::cpu {

namespace {

class BitCastKernel : public ep::OpKernel {
 public:
  explicit BitCastKernel(const ep::KernelInfo& info) {
    int64_t to = info.attr_int("to");
    if (!is_valid_data_type(int32_t(to)) || to == int64_t(DataType::kUndefined) ||
        to == int64_t(DataType::kString))
      info.fail_node("'to' must be a non-string tensor element type, got ", to);
    to_ = static_cast<DataType>(to);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.dtype() == DataType::kString) ctx.fail_node("cannot bitcast a string tensor");
    if (data_type_bits(x.dtype()) != data_type_bits(to_))
      ctx.fail_node("cannot bitcast ", data_type_name(x.dtype()), " (", data_type_bits(x.dtype()),
                    " bits) to ", data_type_name(to_), " (", data_type_bits(to_), " bits)");
    Tensor& y = ctx.output(0, x.shape(), to_);
    if (x.byte_size() > 0) std::memcpy(y.mutable_raw_data(), x.raw_data(), x.byte_size());
  }

 private:
  DataType to_ = DataType::kUndefined;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_bitcast_kernel(const ep::KernelInfo& info) {
  return std::make_unique<BitCastKernel>(info);
}

}  // namespace tessera::cpu
