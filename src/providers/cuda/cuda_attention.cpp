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
    const size_t rank = q.rank();
    if ((rank != 3 && rank != 4) || k.rank() != rank || v.rank() != rank)
      ctx.fail_node("Q ", q.description(), ", K ", k.description(), " and V ", v.description(),
                    " must all be 3-D or all 4-D");
    if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
      ctx.fail_node("Q, K and V must have one element type for the CUDA kernel, got ",
                    q.description(), ", ", k.description(), ", ", v.description());
    AttentionShape s;
    const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
    int64_t kd = 0;  // K's head size
    if (rank == 4) {
      s.batch = qs[0], s.q_heads = qs[1], s.q_len = qs[2], s.head_size = qs[3];
      s.kv_heads = ks[1], s.kv_len = ks[2], kd = ks[3];
      s.v_head_size = vs[3];
      if (vs[1] != s.kv_heads || vs[2] != s.kv_len)
        ctx.fail_node("V ", v.description(), " must have K's heads and sequence length (K ",
                      k.description(), ")");
    } else {
      if (q_heads_ <= 0 || kv_heads_ <= 0 || qs[2] % q_heads_ != 0 || ks[2] % kv_heads_ != 0 ||
          vs[2] % kv_heads_ != 0)
        ctx.fail_node("3-D Q ", q.description(), ", K ", k.description(), ", V ", v.description(),
                      " need q_num_heads (", q_heads_, ") and kv_num_heads (", kv_heads_,
                      ") that divide their hidden sizes");
      s.batch = qs[0], s.q_len = qs[1], s.q_heads = q_heads_, s.head_size = qs[2] / q_heads_;
      s.kv_len = ks[1], s.kv_heads = kv_heads_, kd = ks[2] / kv_heads_;
      s.v_head_size = vs[2] / kv_heads_;
      if (vs[1] != s.kv_len)
        ctx.fail_node("V ", v.description(), " must have K's sequence length (K ", k.description(),
                      ")");
    }
    if (ks[0] != s.batch || vs[0] != s.batch || kd != s.head_size || s.kv_heads <= 0 ||
        s.q_heads % s.kv_heads != 0)
      ctx.fail_node("incompatible Q ", q.description(), ", K ", k.description(), ", V ",
                    v.description(),
                    " (one batch size, one head size for Q and K, and query heads a multiple "
                    "of key/value heads)");
    if (s.head_size > kMaxHeadSize)
      ctx.fail_node("head size ", s.head_size, " is above the CUDA kernel's ", kMaxHeadSize);
    // {batch, head, sequence} strides; the head dim is contiguous.
    const auto strides = [&](int64_t heads, int64_t len, int64_t dim, int64_t* st) {
      if (rank == 4) {
        st[0] = heads * len * dim, st[1] = len * dim, st[2] = dim;
      } else {
        st[0] = len * heads * dim, st[1] = dim, st[2] = heads * dim;
      }
    };
    strides(s.q_heads, s.q_len, s.head_size, s.q_strides);
    strides(s.kv_heads, s.kv_len, s.head_size, s.k_strides);
    strides(s.kv_heads, s.kv_len, s.v_head_size, s.v_strides);
    strides(s.q_heads, s.q_len, s.v_head_size, s.y_strides);
    s.scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(s.head_size)));
    s.softcap = softcap_;
    s.causal = causal_;
    s.left_window = left_;
    s.right_window = right_;
    const Tensor* mask = ctx.input(3);
    if (mask) set_mask(ctx, *mask, s);

    Tensor& y = ctx.output(0, rank == 4 ? Shape{s.batch, s.q_heads, s.q_len, s.v_head_size}
                                        : Shape{s.batch, s.q_len, s.q_heads * s.v_head_size});
    void* sc = scratch.bytes(attention_scratch_bytes(s));
    check_cuda(
        launch_attention(elem_type(q.dtype()), q.raw_data(), k.raw_data(), v.raw_data(),
                         mask ? mask->raw_data() : nullptr, y.mutable_raw_data(), s, sc, stream),
        "launch of the attention kernel");
  }

 private:
  // The mask right-aligned to [batch, q_heads, q_len, kv_len]: each dim 1 or
  // equal, and the last one may be shorter (the keys after it are masked).
  static void set_mask(const ep::KernelContext& ctx, const Tensor& m, AttentionShape& s) {
    switch (m.dtype()) {
      case DataType::kBool:
        s.mask_kind = MaskKind::kBool;
        break;
      case DataType::kFloat:
        s.mask_kind = MaskKind::kF32;
        break;
      case DataType::kFloat16:
        s.mask_kind = MaskKind::kF16;
        break;
      case DataType::kBFloat16:
        s.mask_kind = MaskKind::kBF16;
        break;
      default:
        ctx.fail_node("attn_mask ", m.description(),
                      " must be bool, float, float16 or bfloat16 for the CUDA kernel");
    }
    if (m.rank() == 0 || m.rank() > 4)
      ctx.fail_node("attn_mask must have rank 1 to 4, got ", m.description());
    int64_t md[4] = {1, 1, 1, 1};
    for (size_t d = 0; d < m.rank(); ++d) md[4 - m.rank() + d] = m.shape()[d];
    const int64_t want[4] = {s.batch, s.q_heads, s.q_len, s.kv_len};
    for (int d = 0; d < 4; ++d)
      if (md[d] != 1 && md[d] != want[d] && !(d == 3 && md[d] < want[d]))
        ctx.fail_node("attn_mask ", m.description(), " does not broadcast to [", want[0], ", ",
                      want[1], ", ", want[2], ", ", want[3], "]");
    int64_t stride = 1;
    for (int d = 3; d >= 0; --d) {
      s.mask_strides[d] = md[d] == 1 ? 0 : stride;
      stride *= md[d];
    }
    if (md[3] != 1 && md[3] < s.kv_len) s.mask_keys = md[3];
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
