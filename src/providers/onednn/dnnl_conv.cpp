// Conv (1-D to 3-D, grouped, dilated, any auto_pad) through oneDNN's
// convolution primitive with the bias fused in, and, for fused groups
// (dnnl_fusion.cpp), a residual add and an activation as post-ops. Tensors stay plain row-major
// between nodes; the primitive picks its weights layout, and constant weights
// are reordered into it once per cached shape. (Should a primitive ever pick
// another src/dst layout, those are reordered per run.)
#include "ops/broadcast.hpp"
#include "providers/onednn/dnnl_fusion.hpp"
#include "providers/onednn/dnnl_ops.hpp"
#include "providers/onednn/dnnl_window.hpp"

namespace tessera::onednn {

namespace {

// A reorder between a plain and a picked layout, made once per shape.
struct Relayout {
  std::optional<dnnl::reorder> prim;
  dnnl::memory::desc scratch;

  static Relayout make(const DnnlEnv& env, const dnnl::memory::desc& from,
                       const dnnl::memory::desc& to) {
    Relayout r;
    if (from == to) return r;
    dnnl::reorder::primitive_desc pd(env.engine, from, env.engine, to, base_attr(env));
    r.prim = dnnl::reorder(pd);
    r.scratch = pd.scratchpad_desc();
    return r;
  }
  void run(const DnnlEnv& env, const dnnl::memory& from, const dnnl::memory& to) const {
    execute(env, *prim, scratch, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
  }
};

struct ConvEntry {
  dnnl::convolution_forward prim;
  dnnl::memory::desc scratch;
  dnnl::memory::desc src_plain, src_md, dst_plain, dst_md, w_plain, w_md, bias_md;
  Relayout src_in, dst_out, w_in;
  dnnl::memory weights;  // constant weights reordered into w_md (when that differs)
  Shape out_shape;
  // Post-ops run as one in-place pass after the convolution (binary add with
  // the activation as its post-op, or eltwise alone), when not in the primitive.
  std::optional<dnnl::primitive> after;
  dnnl::memory::desc after_scratch;
  bool after_is_binary = false;
};

std::vector<int64_t> dims_of(const Tensor& t) { return t.shape().dims(); }

class ConvKernel final : public DnnlKernel {
 public:
  ConvKernel(const ep::KernelInfo& info, EnvPtr env, ConvFusion fusion)
      : DnnlKernel(info, std::move(env)),
        fusion_(std::move(fusion)),
        window_(WindowAttrs::read(info)),
        kernel_shape_(info.attr_ints("kernel_shape")),
        group_(info.attr_int("group", 1)),
        weights_constant_(info.constant_input(1) != nullptr) {
    window_.ceil_mode = false;
  }

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(size_t(fusion_.x));
    const Tensor& w = ctx.required_input(size_t(fusion_.w));
    const Tensor* b = fusion_.b >= 0 ? ctx.input(size_t(fusion_.b)) : nullptr;
    const size_t rank = x.rank();
    if (rank < 3 || rank > 5 || w.rank() != rank)
      ctx.fail_node("X ", x.shape().to_string(), " and W ", w.shape().to_string(),
                    " must both have rank 3 to 5");
    const int64_t n = x.shape()[0], c = x.shape()[1], m = w.shape()[0];
    if (group_ < 1 || m % group_ != 0 || c != w.shape()[1] * group_)
      ctx.fail_node("X ", x.shape().to_string(), " has ", c, " channels but W ",
                    w.shape().to_string(), " with group ", group_, " expects ",
                    w.shape()[1] * group_);
    if (b && (b->rank() != 1 || b->shape()[0] != m))
      ctx.fail_node("B ", b->shape().to_string(), " must have ", m, " elements");
    std::vector<int64_t> in(x.shape().dims().begin() + 2, x.shape().dims().end());
    WindowAttrs a = window_;
    a.kernel.assign(w.shape().dims().begin() + 2, w.shape().dims().end());
    if (!kernel_shape_.empty() && kernel_shape_ != a.kernel)
      ctx.fail_node("kernel_shape does not match W ", w.shape().to_string());
    WindowGeometry geo = window_geometry(a, in, ctx);
    std::vector<int64_t> out_dims = {n, m};
    out_dims.insert(out_dims.end(), geo.out.begin(), geo.out.end());
    const Tensor* side = fusion_.side >= 0 ? &ctx.required_input(size_t(fusion_.side)) : nullptr;
    Tensor side_buf;
    if (side) side = residual_like_output(ctx, *side, Shape(out_dims), side_buf);
    Tensor& y = ctx.output(0, Shape(out_dims));
    if (y.num_elements() == 0) return;
    if (c == 0 || w.num_elements() == 0)
      ctx.fail_node("X ", x.shape().to_string(), " or W ", w.shape().to_string(), " is empty");

    auto key = shape_key({&x, &w, b});
    auto e = cache_.get(key, [&] { return make_entry(x, w, b != nullptr, a, geo, out_dims); });

    std::unordered_map<int, dnnl::memory> args;
    // Inputs in the picked layouts, through scratch tensors when they differ.
    Tensor src_buf, dst_buf, w_buf;
    dnnl::memory src = wrap(e->src_plain, env(), x.raw_data());
    if (e->src_in.prim) {
      src_buf = Tensor(DataType::kUInt8, Shape({int64_t(e->src_md.get_size())}), ctx.allocator());
      dnnl::memory to = wrap(e->src_md, env(), src_buf.raw_data());
      e->src_in.run(env(), src, to);
      src = to;
    }
    args[DNNL_ARG_SRC] = src;
    if (weights_constant_ && e->w_in.prim) {
      args[DNNL_ARG_WEIGHTS] = e->weights;
    } else {
      dnnl::memory wm = wrap(e->w_plain, env(), w.raw_data());
      if (e->w_in.prim) {
        w_buf = Tensor(DataType::kUInt8, Shape({int64_t(e->w_md.get_size())}), ctx.allocator());
        dnnl::memory to = wrap(e->w_md, env(), w_buf.raw_data());
        e->w_in.run(env(), wm, to);
        wm = to;
      }
      args[DNNL_ARG_WEIGHTS] = wm;
    }
    if (b) args[DNNL_ARG_BIAS] = wrap(e->bias_md, env(), b->raw_data());
    dnnl::memory dst = wrap(e->dst_plain, env(), y.mutable_raw_data());
    dnnl::memory dst_picked = dst;
    if (e->dst_out.prim) {
      dst_buf = Tensor(DataType::kUInt8, Shape({int64_t(e->dst_md.get_size())}), ctx.allocator());
      dst_picked = wrap(e->dst_md, env(), dst_buf.raw_data());
    }
    args[DNNL_ARG_DST] = dst_picked;
    for (size_t k = 0; k < fusion_.post.size() && fusion_.in_primitive; ++k)
      if (fusion_.post[k].add)
        args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(k)) | DNNL_ARG_SRC_1] =
            wrap(e->dst_plain, env(), side->raw_data());
    execute(env(), e->prim, e->scratch, std::move(args));
    if (e->dst_out.prim) e->dst_out.run(env(), dst_picked, dst);
    if (e->after) {
      if (e->after_is_binary)
        execute(env(), *e->after, e->after_scratch,
                {{DNNL_ARG_SRC_0, dst},
                 {DNNL_ARG_SRC_1, wrap(e->dst_plain, env(), side->raw_data())},
                 {DNNL_ARG_DST, dst}});
      else
        execute(env(), *e->after, e->after_scratch, {{DNNL_ARG_SRC, dst}, {DNNL_ARG_DST, dst}});
    }
  }

 private:
  ConvEntry make_entry(const Tensor& x, const Tensor& w, bool has_bias, const WindowAttrs& a,
                       const WindowGeometry& geo, const std::vector<int64_t>& out_dims) const {
    const DnnlEnv& en = env();
    std::vector<int64_t> wd = dims_of(w);
    if (group_ > 1) {  // oneDNN's grouped weights: [g, M/g, C/g, k...], same bytes
      wd[0] /= group_;
      wd.insert(wd.begin(), group_);
    }
    ConvEntry e;
    e.src_plain = plain_desc(dims_of(x));
    e.dst_plain = plain_desc(out_dims);
    e.w_plain = plain_desc(wd);
    e.bias_md = plain_desc({w.shape()[0]});
    auto any = [](const dnnl::memory::desc& md) {
      return dnnl::memory::desc(md.dims(), DType::f32, Tag::any);
    };
    Dims strides, dilates, pl(geo.pad_l.begin(), geo.pad_l.end()),
        pr(geo.pad_r.begin(), geo.pad_r.end());
    for (size_t i = 0; i < a.kernel.size(); ++i) {
      strides.push_back(a.strides.empty() ? 1 : a.strides[i]);
      dilates.push_back(a.dilations.empty() ? 0 : a.dilations[i] - 1);  // oneDNN counts gaps
    }
    auto prop = dnnl::prop_kind::forward_inference;
    auto alg = dnnl::algorithm::convolution_direct;
    // Plain src/dst: measured faster end to end than letting oneDNN pick
    // blocked layouts, which costs two reorders per Conv while tensors stay
    // plain between nodes. Weights are free to take any layout (reordered once).
    const auto& src_req = e.src_plain;
    const auto& dst_req = e.dst_plain;
    auto desc = has_bias
                    ? dnnl::convolution_forward::desc(prop, alg, src_req, any(e.w_plain), e.bias_md,
                                                      dst_req, strides, dilates, pl, pr)
                    : dnnl::convolution_forward::desc(prop, alg, src_req, any(e.w_plain), dst_req,
                                                      strides, dilates, pl, pr);
    dnnl::convolution_forward::primitive_desc pd(desc, conv_attr(e.dst_plain), en.engine);
    e.prim = dnnl::convolution_forward(pd);
    if (!fusion_.in_primitive && !fusion_.post.empty()) make_after(e);
    e.scratch = pd.scratchpad_desc();
    e.src_md = pd.src_desc();
    e.dst_md = pd.dst_desc();
    e.w_md = pd.weights_desc();
    e.src_in = Relayout::make(en, e.src_plain, e.src_md);
    e.dst_out = Relayout::make(en, e.dst_md, e.dst_plain);
    e.w_in = Relayout::make(en, e.w_plain, e.w_md);
    if (weights_constant_ && e.w_in.prim) {
      e.weights = dnnl::memory(e.w_md, en.engine);  // owned by the cache entry
      e.w_in.run(en, wrap(e.w_plain, en, w.raw_data()), e.weights);
    }
    e.out_shape = Shape(out_dims);
    return e;
  }

  // The residual as a plain tensor of the output's shape: itself, or broadcast
  // into `buf` (the claim could not always see its shape).
  static const Tensor* residual_like_output(ep::KernelContext& ctx, const Tensor& side,
                                            const Shape& out, Tensor& buf) {
    if (side.dtype() != DataType::kFloat)
      ctx.fail_node("the residual Add's other input is ", std::string(data_type_name(side.dtype())),
                    ", not float");
    if (side.shape() == out) return &side;
    Shape both;
    try {
      both = ops::broadcast_shapes({out, side.shape()});
    } catch (const Error& e) {
      ctx.fail_node("the residual Add: ", e.what());
    }
    if (both != out)
      ctx.fail_node("the residual Add's other input ", side.shape().to_string(),
                    " would broadcast the Conv output ", out.to_string(), " to ", both.to_string(),
                    "; a fused Conv+Add cannot grow its output");
    buf = Tensor(DataType::kFloat, out, ctx.allocator());
    ops::BroadcastIndexer bi({side.shape()}, out);
    const float* src = side.data<float>();
    float* dst = buf.mutable_data<float>();
    const int64_t stride = bi.inner_stride(0);
    ops::for_each_broadcast_row(bi, 0, bi.num_rows(),
                                [&](int64_t o, const int64_t* off, int64_t n) {
                                  for (int64_t k = 0; k < n; ++k)
                                    dst[o + k] = src[off[0] + k * stride];
                                });
    return &buf;
  }

  // The separate pass: [add] then [activation], both in place on the output.
  void make_after(ConvEntry& e) const {
    const DnnlEnv& en = env();
    const PostOp* act = nullptr;
    bool add = false;
    for (const PostOp& p : fusion_.post) {
      if (p.add)
        add = true;
      else
        act = &p;
    }
    if (add) {
      dnnl::primitive_attr attr = base_attr(en);
      if (act) {
        dnnl::post_ops po;
        po.append_eltwise(1.0f, act->eltwise.alg, act->eltwise.alpha, act->eltwise.beta);
        attr.set_post_ops(po);
      }
      dnnl::binary::desc d(dnnl::algorithm::binary_add, e.dst_plain, e.dst_plain, e.dst_plain);
      dnnl::binary::primitive_desc pd(d, attr, en.engine);
      e.after = dnnl::binary(pd);
      e.after_scratch = pd.scratchpad_desc();
      e.after_is_binary = true;
    } else {
      dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, act->eltwise.alg,
                                    e.dst_plain, act->eltwise.alpha, act->eltwise.beta);
      dnnl::eltwise_forward::primitive_desc pd(d, base_attr(en), en.engine);
      e.after = dnnl::eltwise_forward(pd);
      e.after_scratch = pd.scratchpad_desc();
    }
  }

  // bf16 fast math where allowed, plus the fused steps in order. The residual
  // is a binary add over a plain tensor shaped like the output (`dst`).
  dnnl::primitive_attr conv_attr(const dnnl::memory::desc& dst) const {
    dnnl::primitive_attr attr = base_attr(env(), true);
    if (fusion_.post.empty() || !fusion_.in_primitive) return attr;
    dnnl::post_ops po;
    for (const PostOp& p : fusion_.post) {
      if (p.add)
        po.append_binary(dnnl::algorithm::binary_add, dst);
      else
        po.append_eltwise(1.0f, p.eltwise.alg, p.eltwise.alpha, p.eltwise.beta);
    }
    attr.set_post_ops(po);
    return attr;
  }

  ConvFusion fusion_;
  WindowAttrs window_;
  std::vector<int64_t> kernel_shape_;
  int64_t group_;
  bool weights_constant_;
  ShapeCache<ConvEntry> cache_;
};

std::string check_conv(const ClaimQuery& q) {
  // The spatial rank from W, else from kernel_shape; the kernel checks the rest at run time.
  auto ks = q.attr_ints("kernel_shape");
  auto w = q.rank(1);
  if (!w && ks.empty()) return "W's rank is not known (and no kernel_shape)";
  size_t rank = w ? *w : ks.size() + 2;
  if (rank < 3 || rank > 5) return "only 1-D to 3-D convolutions (W of rank 3 to 5)";
  if (auto xr = q.rank(0); xr && *xr != rank) return "X and W ranks differ";
  if (q.attr_int("group", 1) < 1) return "group must be positive";
  if (!ks.empty() && ks.size() != rank - 2) return "kernel_shape does not match W's rank";
  return check_window_attrs(q.attr_string("auto_pad", "NOTSET"), q.attr_ints("strides"),
                            q.attr_ints("dilations"), q.attr_ints("pads"), rank - 2);
}

}  // namespace

std::unique_ptr<ep::OpKernel> make_conv_kernel(const ep::KernelInfo& info, const EnvPtr& env,
                                               ConvFusion fusion) {
  return std::make_unique<ConvKernel>(info, env, std::move(fusion));
}

void register_dnnl_conv(DnnlOpTable& t) {
  t.add(
      {"", "Conv", 1, ep::kOpsetMax, {{"T", {0, 1, 2}, kF32}}},
      [](const ep::KernelInfo& info, const EnvPtr& env) {
        return make_conv_kernel(info, env, ConvFusion{});
      },
      check_conv);
}

}  // namespace tessera::onednn
