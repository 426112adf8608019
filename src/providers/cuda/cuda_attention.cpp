// Attention (opset 23+) on the fused kernel of attention.cu: 3-D or 4-D
// Q/K/V, grouped-query heads, a bool or float mask (broadcast, possibly
// covering fewer keys), is_causal, scale, softcap and (opset 25) sliding
// windows. The KV cache (past_key/past_value, present_key/present_value),
// nonpad_kv_seqlen and the qk_matmul_output output are declined: they run on
// the CPU provider.
#include <cmath>
#include <optional>
#include <string>

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_reduce.hpp"

namespace tessera::cuda {

namespace {

// The q row lives in shared memory beside the scores (attention.cu).
constexpr int64_t kMaxHeadSize = 4096;

class CudaAttention : public CudaKernel {
 public:
  CudaAttention(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        causal_(info.attr_int("is_causal", 0) != 0),
        q_heads_(info.attr_int("q_num_heads", 0)),
        kv_heads_(info.attr_int("kv_num_heads", 0)),
        has_scale_(info.has_attr("scale")),
        scale_(info.attr_float("scale", 1.0f)),
        softcap_(info.attr_float("softcap", 0.0f)),
        left_(info.opset() >= 25 ? info.attr_int("left_window_size", -1) : -1),
        right_(info.opset() >= 25 ? info.attr_int("right_window_size", -1) : -1) {}

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    for (size_t i = 4; i <= 6; ++i)
      if (ctx.input(i))
        ctx.fail_node("input ", i, " (", i == 6 ? "nonpad_kv_seqlen" : "past_key/past_value",
                      ") is not supported by the CUDA kernel");
    for (size_t o = 1; o <= 3; ++o)
      if (ctx.has_output(o))
        ctx.fail_node("output ", o, " (", o == 3 ? "qk_matmul_output" : "present_key/present_value",
                      ") is not supported by the CUDA kernel");
    const Tensor& q = ctx.required_input(0);
    const Tensor& k = ctx.required_input(1);
    const Tensor& v = ctx.required_input(2);
    const Tensor* mask = ctx.input(3);
    if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
      ctx.fail_node("Q, K and V must have one element type for the CUDA kernel, got ",
                    q.description(), ", ", k.description(), ", ", v.description());
    AttentionShape s;
    if (std::string why =
            plan_attention(q.shape().dims(), k.shape().dims(), v.shape().dims(),
                           mask ? &mask->shape().dims() : nullptr, q_heads_, kv_heads_, s);
        !why.empty())
      ctx.fail_node(why);
    if (s.head_size > kMaxHeadSize)
      ctx.fail_node("head size ", s.head_size, " is above the CUDA kernel's ", kMaxHeadSize);
    s.scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(s.head_size)));
    s.softcap = softcap_;
    s.causal = causal_;
    s.left_window = left_;
    s.right_window = right_;
    if (mask) s.mask_kind = mask_kind(ctx, *mask);
    const size_t rank = q.rank();

    Tensor& y = ctx.output(0, rank == 4 ? Shape{s.batch, s.q_heads, s.q_len, s.v_head_size}
                                        : Shape{s.batch, s.q_len, s.q_heads * s.v_head_size});
    void* sc = scratch.bytes(attention_scratch_bytes(s));
    check_cuda(
        launch_attention(elem_type(q.dtype()), q.raw_data(), k.raw_data(), v.raw_data(),
                         mask ? mask->raw_data() : nullptr, y.mutable_raw_data(), s, sc, stream),
        "launch of the attention kernel");
  }

 private:
  static MaskKind mask_kind(const ep::KernelContext& ctx, const Tensor& m) {
    switch (m.dtype()) {
      case DataType::kBool:
        return MaskKind::kBool;
      case DataType::kFloat:
        return MaskKind::kF32;
      case DataType::kFloat16:
        return MaskKind::kF16;
      case DataType::kBFloat16:
        return MaskKind::kBF16;
      default:
        ctx.fail_node("attn_mask ", m.description(),
                      " must be bool, float, float16 or bfloat16 for the CUDA kernel");
    }
  }

  bool causal_;
  int64_t q_heads_, kv_heads_;
  bool has_scale_;
  float scale_, softcap_;
  int64_t left_, right_;
};

std::string check_attention(const ep::ClaimQuery& q) {
  if (q.has_input(4) || q.has_input(5) || q.has_output(1) || q.has_output(2))
    return "past_key/past_value and present_key/present_value (the KV cache) are not supported "
           "by the CUDA kernel";
  if (q.has_input(6)) return "nonpad_kv_seqlen is not supported by the CUDA kernel";
  if (q.has_output(3)) return "the qk_matmul_output output is not supported by the CUDA kernel";
  std::optional<size_t> rank;
  for (size_t i = 0; i < 3; ++i) {
    const auto r = q.rank(i);
    if (!r) continue;
    if (*r != 3 && *r != 4) return str_cat("input ", i, " has rank ", *r, ", not 3 or 4");
    if (rank && *rank != *r) return "Q, K and V do not all have the same rank";
    rank = r;
  }
  if (rank && *rank == 3 &&
      (q.attr_int("q_num_heads", 0) <= 0 || q.attr_int("kv_num_heads", 0) <= 0))
    return "3-D inputs need q_num_heads and kv_num_heads";
  if (q.has_input(3))
    if (auto r = q.rank(3); r && (*r == 0 || *r > 4))
      return str_cat("attn_mask has rank ", *r, ", not 1 to 4");
  if (auto d = q.dims(0); d && d->size() == 4 && d->back() && *d->back() > kMaxHeadSize)
    return str_cat("head size ", *d->back(), " is above the CUDA kernel's ", kMaxHeadSize);
  return "";
}

}  // namespace

void register_cuda_attention(CudaOpTable& t) {
  std::vector<DataType> masks = kCudaFloats;
  masks.push_back(DataType::kBool);
  t.add<CudaAttention>({"",
                        "Attention",
                        23,
                        ep::kOpsetMax,
                        {{"T1", {0, 1}, kCudaFloats}, {"T2", {2}, kCudaFloats}, {"U", {3}, masks}}},
                       check_attention);
}

}  // namespace tessera::cuda
