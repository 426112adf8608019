// MatMul (numpy semantics: 1-D promotion and batch broadcasting) and Gemm
// (transposes as strided views, alpha as an output scale, beta*C as a sum
// post-op over Y pre-filled with C) through oneDNN's matmul primitive.
#include <algorithm>

#include "providers/onednn/dnnl_ops.hpp"

namespace tessera::onednn {

namespace {

constexpr size_t kMaxRank = 12;  // DNNL_MAX_NDIMS

struct MatMulEntry {
  dnnl::matmul prim;
  dnnl::memory::desc scratch, a_md, b_md, y_md;
};

class MatMulKernel final : public DnnlKernel {
 public:
  MatMulKernel(const ep::KernelInfo& info, EnvPtr env) : DnnlKernel(info, std::move(env)) {}

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    if (a.rank() == 0 || b.rank() == 0 || a.rank() > kMaxRank || b.rank() > kMaxRank)
      ctx.fail_node("A ", a.shape().to_string(), " and B ", b.shape().to_string(),
                    " must have rank 1 to ", kMaxRank);
    std::vector<int64_t> ad = a.shape().dims(), bd = b.shape().dims();
    if (ad.size() == 1) ad.insert(ad.begin(), 1);
    if (bd.size() == 1) bd.push_back(1);
    size_t r = std::max(ad.size(), bd.size());
    ad.insert(ad.begin(), r - ad.size(), 1);
    bd.insert(bd.begin(), r - bd.size(), 1);
    if (ad[r - 1] != bd[r - 2])
      ctx.fail_node("A ", a.shape().to_string(), " and B ", b.shape().to_string(),
                    " have different inner dimensions");
    std::vector<int64_t> yd(r);
    for (size_t i = 0; i + 2 < r; ++i) {
      if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1)
        ctx.fail_node("A ", a.shape().to_string(), " and B ", b.shape().to_string(),
                      " do not broadcast");
      yd[i] = ad[i] == 1 ? bd[i] : ad[i];
    }
    yd[r - 2] = ad[r - 2];
    yd[r - 1] = bd[r - 1];
    std::vector<int64_t> out = yd;
    if (b.rank() == 1) out.erase(out.end() - 1);
    if (a.rank() == 1) out.erase(out.end() - (b.rank() == 1 ? 1 : 2));
    Tensor& y = ctx.output(0, Shape(out));
    if (y.num_elements() == 0) return;
    if (ad[r - 1] == 0) {
      std::fill_n(y.mutable_data<float>(), y.num_elements(), 0.0f);
      return;
    }
    auto e = cache_.get(shape_key({&a, &b}), [&] {
      MatMulEntry m;
      m.a_md = plain_desc(ad);
      m.b_md = plain_desc(bd);
      m.y_md = plain_desc(yd);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(m.a_md, m.b_md, m.y_md),
                                      base_attr(env(), true), env().engine);
      m.prim = dnnl::matmul(pd);
      m.scratch = pd.scratchpad_desc();
      return m;
    });
    execute(env(), e->prim, e->scratch,
            {{DNNL_ARG_SRC, wrap(e->a_md, env(), a.raw_data())},
             {DNNL_ARG_WEIGHTS, wrap(e->b_md, env(), b.raw_data())},
             {DNNL_ARG_DST, wrap(e->y_md, env(), y.mutable_raw_data())}});
  }

 private:
  ShapeCache<MatMulEntry> cache_;
};

class GemmKernel final : public DnnlKernel {
 public:
  GemmKernel(const ep::KernelInfo& info, EnvPtr env)
      : DnnlKernel(info, std::move(env)),
        trans_a_(info.attr_int("transA", 0) != 0),
        trans_b_(info.attr_int("transB", 0) != 0),
        alpha_(info.attr_float("alpha", 1.0f)),
        beta_(info.attr_float("beta", 1.0f)) {}

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    const Tensor* c = ctx.input(2);
    if (a.rank() != 2 || b.rank() != 2)
      ctx.fail_node("A ", a.shape().to_string(), " and B ", b.shape().to_string(),
                    " must be 2-D");
    int64_t m = a.shape()[trans_a_ ? 1 : 0], k = a.shape()[trans_a_ ? 0 : 1];
    int64_t kb = b.shape()[trans_b_ ? 1 : 0], n = b.shape()[trans_b_ ? 0 : 1];
    if (k != kb)
      ctx.fail_node("A ", a.shape().to_string(), " (transA=", trans_a_, ") and B ",
                    b.shape().to_string(), " (transB=", trans_b_, ") have different K");
    Tensor& y = ctx.output(0, Shape({m, n}));
    if (y.num_elements() == 0) return;
    bool use_c = c && beta_ != 0.0f;
    if (use_c) fill_with_c(ctx, *c, m, n, y.mutable_data<float>());
    if (k == 0) {
      float* out = y.mutable_data<float>();
      for (int64_t i = 0; i < m * n; ++i) out[i] = use_c ? beta_ * out[i] : 0.0f;
      return;
    }
    auto key = shape_key({&a, &b});
    key.push_back(use_c);
    auto e = cache_.get(key, [&] {
      MatMulEntry g;
      g.a_md = trans_a_ ? transposed_desc({m, k}) : plain_desc({m, k});
      g.b_md = trans_b_ ? transposed_desc({k, n}) : plain_desc({k, n});
      g.y_md = plain_desc({m, n});
      dnnl::primitive_attr attr = base_attr(env(), true);
      if (alpha_ != 1.0f) attr.set_output_scales(0, {alpha_});
      if (use_c) {
        dnnl::post_ops po;
        po.append_sum(beta_);  // Y = alpha*A*B + beta*(Y as filled with C)
        attr.set_post_ops(po);
      }
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(g.a_md, g.b_md, g.y_md), attr,
                                      env().engine);
      g.prim = dnnl::matmul(pd);
      g.scratch = pd.scratchpad_desc();
      return g;
    });
    execute(env(), e->prim, e->scratch,
            {{DNNL_ARG_SRC, wrap(e->a_md, env(), a.raw_data())},
             {DNNL_ARG_WEIGHTS, wrap(e->b_md, env(), b.raw_data())},
             {DNNL_ARG_DST, wrap(e->y_md, env(), y.mutable_raw_data())}});
  }

 private:
  // C broadcasts unidirectionally to [M, N] (scalar, [N], [1,N], [M,1], [M,N]).
  static void fill_with_c(const ep::KernelContext& ctx, const Tensor& c, int64_t m, int64_t n,
                          float* y) {
    std::vector<int64_t> cd = c.shape().dims();
    if (cd.size() > 2) ctx.fail_node("C ", c.shape().to_string(), " has rank above 2");
    cd.insert(cd.begin(), 2 - cd.size(), 1);
    if ((cd[0] != 1 && cd[0] != m) || (cd[1] != 1 && cd[1] != n))
      ctx.fail_node("C ", c.shape().to_string(), " does not broadcast to [", m, ",", n, "]");
    const float* cv = c.data<float>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        y[i * n + j] = cv[(cd[0] == 1 ? 0 : i) * cd[1] + (cd[1] == 1 ? 0 : j)];
  }

  bool trans_a_, trans_b_;
  float alpha_, beta_;
  ShapeCache<MatMulEntry> cache_;
};

std::string check_matmul(const ClaimQuery& q) {
  // Static ranks are often unknown (after Reshape); the kernel checks at run time.
  for (size_t i : {0, 1}) {
    auto r = q.rank(i);
    if (r && (*r < 1 || *r > kMaxRank)) return "inputs must have rank 1 to 12";
  }
  return "";
}

std::string check_gemm(const ClaimQuery& q) {
  for (size_t i : {0, 1})
    if (auto r = q.rank(i); r && *r != 2) return "A and B must be 2-D";
  if (auto r = q.rank(2); r && *r > 2) return "C has rank above 2";
  return "";
}

}  // namespace

void register_dnnl_matmul(DnnlOpTable& t) {
  t.add<MatMulKernel>({"", "MatMul", 1, ep::kOpsetMax, {{"T", {0, 1}, kF32}}}, check_matmul);
  t.add<GemmKernel>({"", "Gemm", 7, ep::kOpsetMax, {{"T", {0, 1, 2}, kF32}}}, check_gemm);
}

}  // namespace tessera::onednn
