// Attention (opset 23+) on the fused kernel of attention.cu: 3-D or 4-D
// Q/K/V, grouped-query heads, a bool or float mask (broadcast, possibly
// covering fewer keys), is_causal, scale, softcap and (opset 25) sliding
// windows. The KV cache (past_key/past_value, present_key/present_value),
// nonpad_kv_seqlen and the qk_matmul_output output are declined: they run on
// the CPU provider.
#include <cmath>
#include <optional>
#include <string>

#include "ops/shape_rules.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_reduce.hpp"

namespace tessera::cuda {

namespace {

// The q row lives in shared memory beside the scores (attention.cu).
constexpr int64_t kMaxHeadSize = 4096;

MaskKind mask_kind(const ep::KernelContext& ctx, const Tensor& m) {
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

// The geometry of Q, K and V of these dims (and the mask's); fails the node
// when they do not fit together or the head is too large for the kernel.
AttentionShape plan(const ep::KernelContext& ctx, const std::vector<int64_t>& q,
                    const std::vector<int64_t>& k, const std::vector<int64_t>& v,
                    const Tensor* mask, int64_t q_heads, int64_t kv_heads) {
  AttentionShape s;
  if (std::string why =
          plan_attention(q, k, v, mask ? &mask->shape().dims() : nullptr, q_heads, kv_heads, s);
      !why.empty())
    ctx.fail_node(why);
  if (s.head_size > kMaxHeadSize)
    ctx.fail_node("head size ", s.head_size, " is above the CUDA kernel's ", kMaxHeadSize);
  if (mask) s.mask_kind = mask_kind(ctx, *mask);
  return s;
}

// Enqueues the fused kernel on Q, K and V of type t at those addresses, with
// the scratch it needs for long key rows.
void launch(DataType t, const void* q, const void* k, const void* v, const Tensor* mask,
            const AttentionShape& s, Tensor& y, AttentionKernel pick, Scratch& scratch,
            cudaStream_t stream) {
  const ElemType e = elem_type(t);
  const AttentionKernel chosen = choose_attention_kernel(e, s, pick);
  void* sc = scratch.bytes(attention_scratch_bytes(s, chosen));
  check_cuda(launch_attention(e, q, k, v, mask ? mask->raw_data() : nullptr, y.mutable_raw_data(),
                              s, chosen, sc, stream),
             "launch of the attention kernel");
}

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
    AttentionShape s =
        plan(ctx, q.shape().dims(), k.shape().dims(), v.shape().dims(), mask, q_heads_, kv_heads_);
    s.scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(s.head_size)));
    s.softcap = softcap_;
    s.causal = causal_;
    s.left_window = left_;
    s.right_window = right_;
    Tensor& y = ctx.output(0, q.rank() == 4 ? Shape{s.batch, s.q_heads, s.q_len, s.v_head_size}
                                            : Shape{s.batch, s.q_len, s.q_heads * s.v_head_size});
    launch(q.dtype(), q.raw_data(), k.raw_data(), v.raw_data(), mask, s, y,
           env().options().attention_kernel, scratch, stream);
  }

 private:
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

// com.tessera MultiHeadAttention, the optimizer's fusion of the attention
// block torch exports (src/optimizer/attention_fusion.cpp), on the same
// kernel: Q, K and V hold [B, S, H * D] whatever their shape (B is what is
// left after S * H * D), the optional mask is added to the scores
// (right-aligned to [B, H, S, S]), and Y is [B, S, H * D] under the
// output_shape attribute. With packed_qkv, input 0 holds [B, S, 3 * H * D]
// (Q, K and V side by side, inputs 1 and 2 omitted), read in place through
// row strides of 3 * H * D. The GPT form (a bool keep mask with
// masked_value, input 4) is declined.
class CudaMultiHeadAttention : public CudaKernel {
 public:
  CudaMultiHeadAttention(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        heads_(info.attr_int("num_heads", 0)),
        head_size_(info.attr_int("head_size", 0)),
        seq_(info.attr_int("seq_len", 0)),
        scale_(info.attr_float("scale", 1.0f)),
        packed_(info.attr_int("packed_qkv", 0) != 0),
        out_shape_(info.attr_ints("output_shape")) {
    if (heads_ <= 0 || head_size_ <= 0 || seq_ <= 0)
      info.fail_node("num_heads, head_size and seq_len must be positive");
  }

  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    if (ctx.input(4)) ctx.fail_node("the keep mask (input 4) is not supported by the CUDA kernel");
    if (packed_ && (ctx.input(1) || ctx.input(2)))
      ctx.fail_node(
          "with packed_qkv, inputs 1 and 2 (K, V) must be omitted: input 0 holds all three");
    const Tensor& q = ctx.required_input(0);
    const Tensor& k = packed_ ? q : ctx.required_input(1);
    const Tensor& v = packed_ ? q : ctx.required_input(2);
    const Tensor* mask = ctx.input(3);
    // Elements of one (batch, position) row in each input: Q, K and V side by
    // side when packed.
    const int64_t hd = heads_ * head_size_, width = packed_ ? 3 * hd : hd, row = seq_ * width;
    for (const Tensor* t : {&q, &k, &v})
      if (t->dtype() != q.dtype() || t->num_elements() != q.num_elements() ||
          q.num_elements() % row != 0)
        ctx.fail_node(
            packed_ ? "the packed QKV must hold B x " : "Q, K and V must each hold B x ", seq_,
            " x ", packed_ ? "3 x " : "", heads_, " x ", head_size_, " elements of one type, got ",
            q.description(),
            packed_ ? std::string() : str_cat(", ", k.description(), ", ", v.description()));
    if (mask && mask->dtype() == DataType::kBool)
      ctx.fail_node("the mask ", mask->description(), " must be additive (a float type)");
    const int64_t batch = q.num_elements() / row;
    const std::vector<int64_t> dims = {batch, seq_, hd};
    AttentionShape s = plan(ctx, dims, dims, dims, mask, heads_, heads_);
    s.scale = scale_;
    const auto* base = static_cast<const unsigned char*>(q.raw_data());
    const void* kp = k.raw_data();
    const void* vp = v.raw_data();
    if (packed_) {
      // Each of Q, K and V: rows of the packed tensor, 3 * H * D apart.
      for (int64_t* st : {s.q_strides, s.k_strides, s.v_strides}) {
        st[0] = row;
        st[2] = width;
      }
      const size_t part = size_t(hd) * data_type_storage_bytes(q.dtype(), 1);
      kp = base + part;
      vp = base + 2 * part;
    }
    Tensor& y = ctx.output(0, output_shape(batch * seq_ * hd));
    launch(q.dtype(), base, kp, vp, mask, s, y, env().options().attention_kernel, scratch, stream);
  }

 private:
  // output_shape with its -1 resolved against `total` elements, as Reshape does.
  Shape output_shape(int64_t total) const {
    return ops::reshape_shape(Shape{total}, out_shape_, /*allowzero=*/true, "the attention output",
                              "output_shape");
  }

  int64_t heads_, head_size_, seq_;
  float scale_;
  bool packed_;
  std::vector<int64_t> out_shape_;
};

std::string check_multi_head_attention(const ep::ClaimQuery& q) {
  // Made only in sessions of the CPU provider alone, but a saved optimized
  // model may bring it here.
  if (q.attr_int("seq_first", 0) != 0)
    return "the sequence-first form (seq_first) is not supported by the CUDA kernel";
  if (q.has_input(4) || q.node().attr("masked_value"))
    return "the GPT form (a bool keep mask with masked_value) is not supported by the CUDA kernel";
  if (q.attr_int("head_size", 0) > kMaxHeadSize)
    return str_cat("head size ", q.attr_int("head_size", 0), " is above the CUDA kernel's ",
                   kMaxHeadSize);
  if (q.has_input(3))
    if (auto r = q.rank(3); r && (*r == 0 || *r > 4))
      return str_cat("the mask has rank ", *r, ", not 1 to 4");
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
  t.add<CudaMultiHeadAttention>(
      {"com.tessera", "MultiHeadAttention", 1, ep::kOpsetMax, {{"T", {0, 1, 2, 3}, kCudaFloats}}},
      check_multi_head_attention);
}

}  // namespace tessera::cuda
