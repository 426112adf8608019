// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim features
// of every head by position-dependent angles, halves or interleaved pairs.
// ONNX Runtime's com.microsoft RotaryEmbedding, which that op was adopted
// from, runs here too: its inputs are (input, position_ids, cos_cache,
// sin_cache), position_ids required and either [B, S] or one start position
// [1] (token s then sits at start + s), and a 3-D input without num_heads
// takes its head size from the caches (2 * cos_cache's width).
#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/transformer/rotary.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

class RotaryEmbeddingKernel : public ep::OpKernel {
 public:
  RotaryEmbeddingKernel(const ep::KernelInfo& info, bool microsoft)
      : microsoft_(microsoft),
        interleaved_(info.attr_int("interleaved", 0) != 0),
        num_heads_(info.attr_int("num_heads", 0)),
        rot_dim_(info.attr_int("rotary_embedding_dim", 0)) {
    if (microsoft_ && info.attr_int("is_packed_batching", 0) != 0)
      info.fail_node("is_packed_batching = 1 (ragged batches) is not supported");
    if (microsoft_ && info.attr_float("scale", 1.0f) != 1.0f)
      info.fail_node("scale = ", info.attr_float("scale", 1.0f), " is not supported (only 1)");
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& cos_t = ctx.required_input(microsoft_ ? 2 : 1);
    const Tensor& sin_t = ctx.required_input(microsoft_ ? 3 : 2);
    const Tensor* pos_t = microsoft_ ? &ctx.required_input(1) : ctx.input(3);
    int64_t B, S, H, D;
    // Element (b, s, h, d) lives at b*sb + s*ss + h*sh + d.
    int64_t sb, ss, sh;
    if (x.rank() == 4) {  // (B, H, S, D)
      B = x.shape()[0], H = x.shape()[1], S = x.shape()[2], D = x.shape()[3];
      sb = H * S * D, sh = S * D, ss = D;
    } else if (x.rank() == 3 && microsoft_ && num_heads_ <= 0) {  // heads of the caches' size
      const int64_t d = cos_t.rank() == 2 ? 2 * cos_t.shape()[1] : 0;
      if (d == 0 || x.shape()[2] % d != 0 || (rot_dim_ > 0 && rot_dim_ != d))
        ctx.fail_node("3-D input ", x.shape().to_string(), " without num_heads needs its width ",
                      "to be a multiple of 2 * cos_cache's width (", cos_t.shape().to_string(),
                      ")");
      B = x.shape()[0], S = x.shape()[1], D = d, H = x.shape()[2] / d;
      sb = S * H * D, ss = H * D, sh = D;
    } else if (x.rank() == 3) {  // (B, S, H*D)
      if (num_heads_ <= 0 || x.shape()[2] % num_heads_ != 0)
        ctx.fail_node("3-D input ", x.shape().to_string(),
                      " needs num_heads dividing the hidden size (num_heads = ", num_heads_, ")");
      B = x.shape()[0], S = x.shape()[1], H = num_heads_, D = x.shape()[2] / num_heads_;
      sb = S * H * D, ss = H * D, sh = D;
    } else {
      ctx.fail_node("input must be 3-D or 4-D, got ", x.shape().to_string());
    }
    const int64_t R = rot_dim_ > 0 ? rot_dim_ : D;
    if (R > D || R % 2 != 0)
      ctx.fail_node("rotary_embedding_dim ", R, " must be even and <= head size ", D);
    const int64_t half = R / 2;
    std::vector<int64_t> pos;
    if (pos_t && microsoft_ && pos_t->num_elements() == 1 && pos_t->rank() <= 1) {
      // One start position, checked before start + s could overflow.
      const int64_t start = pos_t->data<int64_t>()[0];
      if (start < 0 || start > (cos_t.rank() > 0 ? cos_t.shape()[0] : 0))
        ctx.fail_node("start position ", start, " out of range for cache ",
                      cos_t.shape().to_string());
      pos.resize(size_t(B * S));
      for (int64_t i = 0; i < B * S; ++i) pos[size_t(i)] = start + i % S;
    } else if (pos_t) {
      if (pos_t->rank() != 2 || pos_t->shape()[0] != B || pos_t->shape()[1] != S)
        ctx.fail_node("position_ids must be [", B, ", ", S, "]", microsoft_ ? " or [1]" : "",
                      ", got ", pos_t->shape().to_string());
      const int64_t* pd = pos_t->data<int64_t>();
      pos.assign(pd, pd + B * S);
    }
    if (pos_t) {
      if (cos_t.rank() != 2 || cos_t.shape()[1] != half || sin_t.shape() != cos_t.shape())
        ctx.fail_node("cos_cache/sin_cache must be [max_position, ", half,
                      "] with position_ids, got ", cos_t.shape().to_string(), " and ",
                      sin_t.shape().to_string());
      for (int64_t p : pos)
        if (p < 0 || p >= cos_t.shape()[0])
          ctx.fail_node("position id ", p, " out of range for cache ", cos_t.shape().to_string());
    } else if (cos_t.rank() != 3 || cos_t.shape()[0] != B || cos_t.shape()[1] != S ||
               cos_t.shape()[2] != half || sin_t.shape() != cos_t.shape()) {
      ctx.fail_node("cos_cache/sin_cache must be [", B, ", ", S, ", ", half,
                    "] without position_ids, got ", cos_t.shape().to_string(), " and ",
                    sin_t.shape().to_string());
    }
    std::vector<float> out = read_as<float>(x);
    // Float caches are read in place: they may be long (every position a
    // model allows) while a run reads a few rows of them.
    std::vector<float> cv, sv;
    const float* cd = cos_t.dtype() == DataType::kFloat ? cos_t.data<float>()
                                                        : (cv = read_as<float>(cos_t)).data();
    const float* sd = sin_t.dtype() == DataType::kFloat ? sin_t.data<float>()
                                                        : (sv = read_as<float>(sin_t)).data();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t row = pos.empty() ? (b * S + s) : pos[size_t(b * S + s)];
        for (int64_t h = 0; h < H; ++h)
          rotate_head(out.data() + b * sb + s * ss + h * sh, half, cd + row * half, sd + row * half,
                      interleaved_);
      }
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    write_from(y, out.data());
  }

 private:
  bool microsoft_, interleaved_;
  int64_t num_heads_, rot_dim_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_rotary_embedding(const ep::KernelInfo& info) {
  return std::make_unique<RotaryEmbeddingKernel>(info, false);
}

std::unique_ptr<ep::OpKernel> make_ms_rotary_embedding(const ep::KernelInfo& info) {
  return std::make_unique<RotaryEmbeddingKernel>(info, true);
}

}  // namespace tessera::cpu
