// MaxPool, AveragePool and their global forms (1-D to 3-D) through oneDNN's
// pooling_v2 primitive (the one with dilation), on plain row-major tensors.
#include "providers/onednn/dnnl_ops.hpp"
#include "providers/onednn/dnnl_window.hpp"

namespace tessera::onednn {

namespace {

struct PoolEntry {
  dnnl::pooling_v2_forward prim;
  dnnl::memory::desc scratch, src_md, dst_md;
};

class PoolKernel final : public DnnlKernel {
 public:
  PoolKernel(const ep::KernelInfo& info, EnvPtr env) : DnnlKernel(info, std::move(env)) {
    const std::string& op = info.node().op_type;
    global_ = op == "GlobalAveragePool" || op == "GlobalMaxPool";
    bool max = op == "MaxPool" || op == "GlobalMaxPool";
    if (!global_) {
      window_ = WindowAttrs::read(info);
      window_.kernel = info.attr_ints("kernel_shape");
    }
    alg_ = max ? dnnl::algorithm::pooling_max
           : info.attr_int("count_include_pad", 0) ? dnnl::algorithm::pooling_avg_include_padding
                                                   : dnnl::algorithm::pooling_avg_exclude_padding;
  }

 protected:
  void run(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    size_t rank = x.rank();
    if (rank < 3 || rank > 5) ctx.fail_node("X ", x.shape().to_string(), " must have rank 3 to 5");
    std::vector<int64_t> in(x.shape().dims().begin() + 2, x.shape().dims().end());
    WindowAttrs a = window_;
    if (global_) a.kernel = in;
    if (a.kernel.size() != in.size())
      ctx.fail_node("kernel_shape has ", a.kernel.size(), " dims but X ", x.shape().to_string(),
                    " has ", in.size(), " spatial dims");
    for (int64_t d : in)
      if (d == 0) ctx.fail_node("X ", x.shape().to_string(), " has an empty spatial dim");
    WindowGeometry geo = window_geometry(a, in, ctx);
    std::vector<int64_t> out = {x.shape()[0], x.shape()[1]};
    out.insert(out.end(), geo.out.begin(), geo.out.end());
    Tensor& y = ctx.output(0, Shape(out));
    if (y.num_elements() == 0) return;
    auto e = cache_.get(shape_key({&x}), [&] {
      PoolEntry p;
      p.src_md = plain_desc(x.shape().dims());
      p.dst_md = plain_desc(out);
      Dims strides, kernel(a.kernel.begin(), a.kernel.end()), dil;
      for (size_t i = 0; i < in.size(); ++i) {
        strides.push_back(a.strides.empty() ? 1 : a.strides[i]);
        dil.push_back(a.dilations.empty() ? 0 : a.dilations[i] - 1);  // oneDNN counts gaps
      }
      dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg_, p.src_md,
                                       p.dst_md, strides, kernel, dil,
                                       Dims(geo.pad_l.begin(), geo.pad_l.end()),
                                       Dims(geo.pad_r.begin(), geo.pad_r.end()));
      dnnl::pooling_v2_forward::primitive_desc pd(d, base_attr(env()), env().engine);
      p.prim = dnnl::pooling_v2_forward(pd);
      p.scratch = pd.scratchpad_desc();
      return p;
    });
    execute(env(), e->prim, e->scratch,
            {{DNNL_ARG_SRC, wrap(e->src_md, env(), x.raw_data())},
             {DNNL_ARG_DST, wrap(e->dst_md, env(), y.mutable_raw_data())}});
  }

 private:
  bool global_ = false;
  WindowAttrs window_;
  dnnl::algorithm alg_;
  ShapeCache<PoolEntry> cache_;
};

// An unknown static rank is checked by the kernel at run time.
std::string check_rank(const ClaimQuery& q) {
  auto r = q.rank(0);
  if (r && (*r < 3 || *r > 5)) return "only 1-D to 3-D pooling (X of rank 3 to 5)";
  return "";
}

std::string check_pool(const ClaimQuery& q) {
  if (auto why = check_rank(q); !why.empty()) return why;
  if (q.has_output(1)) return "the Indices output is not supported";
  auto kernel = q.attr_ints("kernel_shape");
  size_t spatial = kernel.size();
  if (spatial < 1 || spatial > 3) return "kernel_shape must have 1 to 3 dims";
  if (auto r = q.rank(0); r && *r != spatial + 2) return "kernel_shape does not match X's rank";
  for (int64_t k : kernel)
    if (k < 1) return "kernel_shape must be positive";
  if (q.node().op_type == "AveragePool" && q.attr_int("ceil_mode", 0) &&
      q.attr_int("count_include_pad", 0))
    return "AveragePool with both ceil_mode and count_include_pad";
  return check_window_attrs(q.attr_string("auto_pad", "NOTSET"), q.attr_ints("strides"),
                            q.attr_ints("dilations"), q.attr_ints("pads"), spatial);
}

}  // namespace

void register_dnnl_pool(DnnlOpTable& t) {
  std::vector<ep::TypeConstraint> T = {{"T", {0}, kF32}};
  t.add<PoolKernel>({"", "MaxPool", 1, ep::kOpsetMax, T}, check_pool);
  t.add<PoolKernel>({"", "AveragePool", 1, ep::kOpsetMax, T}, check_pool);
  t.add<PoolKernel>({"", "GlobalMaxPool", 1, ep::kOpsetMax, T}, check_rank);
  t.add<PoolKernel>({"", "GlobalAveragePool", 1, ep::kOpsetMax, T}, check_rank);
}

}  // namespace tessera::onednn
