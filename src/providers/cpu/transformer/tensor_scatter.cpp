// TensorScatter (opset 24): writes `update` into a copy of the cache along the
// sequence axis at each batch's write index, linearly or circularly.
#include <cstring>
#include <string>

#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

class TensorScatterKernel : public ep::OpKernel {
 public:
  explicit TensorScatterKernel(const ep::KernelInfo& info)
      : axis_(info.attr_int("axis", -2)),
        circular_(info.attr_string("mode", "linear") == "circular") {
    std::string m = info.attr_string("mode", "linear");
    if (m != "linear" && m != "circular")
      info.fail_node("mode must be linear or circular, got '", m, "'");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& past = ctx.required_input(0);
    const Tensor& upd = ctx.required_input(1);
    const int64_t r = int64_t(past.rank());
    if (r < 2 || upd.rank() != past.rank() || upd.dtype() != past.dtype())
      ctx.fail_node("past_cache ", past.description(), " and update ", upd.description(),
                    " must have the same type and rank >= 2");
    int64_t axis = axis_ < 0 ? axis_ + r : axis_;
    if (axis <= 0 || axis >= r)
      ctx.fail_node("axis ", axis_, " must be in [1, ", r, ") (not the batch axis)");
    for (int64_t d = 0; d < r; ++d)
      if (d != axis && past.shape()[size_t(d)] != upd.shape()[size_t(d)])
        ctx.fail_node("update ", upd.shape().to_string(), " differs from past_cache ",
                      past.shape().to_string(), " outside axis ", axis);
    const int64_t B = past.shape()[0], maxs = past.shape()[size_t(axis)],
                  seq = upd.shape()[size_t(axis)];
    if (seq > maxs) ctx.fail_node("update sequence length ", seq, " exceeds cache length ", maxs);
    std::vector<int64_t> wi(size_t(B), 0);
    if (const Tensor* w = ctx.input(2)) {
      wi = w->to_int64_vector();
      if (int64_t(wi.size()) != B) ctx.fail_node("write_indices must have shape [", B, "]");
    }
    for (int64_t b = 0; b < B; ++b)
      if (wi[size_t(b)] < 0 || (!circular_ && wi[size_t(b)] + seq > maxs))
        ctx.fail_node("write index ", wi[size_t(b)], " + sequence length ", seq,
                      " exceeds max_sequence_length ", maxs, " in linear mode");
    if (is_sub_byte_type(past.dtype())) ctx.fail_node("sub-byte element types are not supported");
    Tensor& out = ctx.output(0, past.shape(), past.dtype());
    const bool str = past.dtype() == DataType::kString;
    const size_t es = str ? sizeof(std::string) : size_t(data_type_bits(past.dtype()) / 8);
    const int64_t inner = past.shape().size_from(size_t(axis) + 1);
    const int64_t outer = past.shape().size_to(size_t(axis));  // includes batch
    const int64_t per_batch = outer / (B > 0 ? B : 1);
    auto copy = [&](char* dst, const char* src, int64_t n) {
      if (str) {
        for (int64_t i = 0; i < n; ++i)
          reinterpret_cast<std::string*>(dst)[i] = reinterpret_cast<const std::string*>(src)[i];
      } else {
        std::memcpy(dst, src, size_t(n) * es);
      }
    };
    char* od = static_cast<char*>(out.mutable_raw_data());
    const char* pd = static_cast<const char*>(past.raw_data());
    const char* ud = static_cast<const char*>(upd.raw_data());
    copy(od, pd, past.num_elements());
    for (int64_t o = 0; o < outer; ++o) {
      int64_t b = per_batch > 0 ? o / per_batch : 0;
      for (int64_t s = 0; s < seq; ++s) {
        int64_t dst = wi[size_t(b)] + s;
        if (circular_) dst %= maxs;
        copy(od + size_t((o * maxs + dst) * inner) * es, ud + size_t((o * seq + s) * inner) * es,
             inner);
      }
    }
  }

 private:
  int64_t axis_;
  bool circular_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_tensor_scatter(const ep::KernelInfo& info) {
  return std::make_unique<TensorScatterKernel>(info);
}

}  // namespace tessera::cpu
