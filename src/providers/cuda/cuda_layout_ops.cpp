// Tile, Pad, DepthToSpace and SpaceToDepth. Tile and the two block
// rearrangements are strided copies (copy_plan.hpp): each output element
// reads one input element at a fixed stride per output dim (0 for Tile's
// repeats). Pad maps each output coordinate to an input one per axis, or to
// the fill value (index_ops.cu).
#include "ep/op_shape.hpp"
#include "ops/pad_extents.hpp"
#include "providers/cuda/copy_plan.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_index_ops.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"
#include "providers/cuda/shape_ops_launch.hpp"

namespace tessera::cuda {

namespace {

// y = x walked by `src` over the output dims `dims`.
void copy_strided(const ep::KernelContext& ctx, const Tensor& x, Tensor& y,
                  const std::vector<int64_t>& dims, const CopyOperand& src, cudaStream_t stream) {
  if (y.num_elements() == 0) return;
  CopyPlan plan;
  try {
    plan = plan_copy(dims, {src});
  } catch (const Error& e) {
    ctx.fail_node(e.what());
  }
  check_cuda(launch_strided_copy(elem_bytes(x.dtype()), x.raw_data(), y.mutable_raw_data(),
                                 y.num_elements(), plan, stream),
             "launch of the strided copy kernel");
}

class CudaTile : public CudaKernel {
 public:
  CudaTile(const ep::KernelInfo&, const EnvPtr& env) : CudaKernel(env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const std::vector<int64_t> reps = host_ints(ctx, 1, "repeats");
    const size_t r = x.rank();
    if (reps.size() != r)
      ctx.fail_node("repeats ", Shape(reps).to_string(), " should have ", r,
                    " values for input of shape ", x.shape().to_string());
    const std::vector<int64_t> in_strides = dense_strides(x.shape().dims());
    std::vector<int64_t> out(r), dims;
    CopyOperand src{{}, 0, x.num_elements()};
    for (size_t k = 0; k < r; ++k) {
      if (reps[k] < 0) ctx.fail_node("repeats ", Shape(reps).to_string(), " has a negative value");
      out[k] = x.shape()[k] * reps[k];
      // Output coordinate k seen as (repeat, position): the repeat reads the
      // same input again (stride 0).
      dims.push_back(reps[k]);
      src.strides.push_back(0);
      dims.push_back(x.shape()[k]);
      src.strides.push_back(in_strides[k]);
    }
    Tensor& y = ctx.output(0, Shape(out), x.dtype());
    copy_strided(ctx, x, y, dims, src, stream);
  }
};

// DepthToSpace (DCR or CRD) and SpaceToDepth on [N, C, H, W]: the output
// seen as six dims, each with its stride in the input.
class CudaBlockRearrange : public CudaKernel {
 public:
  CudaBlockRearrange(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        shape_(info),
        to_space_(info.node().op_type == "DepthToSpace"),
        crd_(info.attr_string("mode", "DCR") == "CRD"),
        block_(info.attr_int("blocksize")) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape out = shape_.output(ctx, {&x});  // checks rank 4 and divisibility
    const int64_t b = block_, N = x.shape()[0], C = x.shape()[1], H = x.shape()[2],
                  W = x.shape()[3];
    Tensor& y = ctx.output(0, out, x.dtype());
    std::vector<int64_t> dims;
    CopyOperand src{{}, 0, x.num_elements()};
    if (to_space_) {
      // Output [N, C', H, b, W, b] (C' = C / b^2): element (n, c, h, i, w, j).
      const int64_t Cp = C / (b * b), hw = H * W;
      dims = {N, Cp, H, b, W, b};
      if (crd_)
        src.strides = {C * hw, b * b * hw, W, b * hw, 1, hw};
      else
        src.strides = {C * hw, hw, W, b * Cp * hw, 1, Cp * hw};
    } else {
      // Output [N, b, b, C, H / b, W / b]: element (n, i, j, c, h, w) reads
      // x[n, c, h * b + i, w * b + j].
      dims = {N, b, b, C, H / b, W / b};
      src.strides = {C * H * W, W, 1, H * W, b * W, b};
    }
    copy_strided(ctx, x, y, dims, src, stream);
  }

 private:
  ep::OpShape shape_;
  bool to_space_, crd_;
  int64_t block_;
};

class CudaPad : public CudaKernel {
 public:
  CudaPad(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        opset_(info.opset()),
        pads_attr_(info.opset() < 2 ? info.attr_ints("paddings") : info.attr_ints("pads")),
        value_attr_(info.attr_float("value", 0.f)) {
    const std::string m = info.attr_string("mode", "constant");
    if (m == "constant")
      mode_ = PadMode::kConstant;
    else if (m == "reflect")
      mode_ = PadMode::kReflect;
    else if (m == "edge")
      mode_ = PadMode::kEdge;
    else if (m == "wrap" && opset_ >= 19)
      mode_ = PadMode::kWrap;
    else
      info.fail_node("unknown pad mode '", m, "'");
  }
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const Shape& in = x.shape();
    const int64_t r = int64_t(in.rank());
    if (r > kMaxIndexRank)
      ctx.fail_node("input of rank ", r, "; the CUDA kernel takes at most ", kMaxIndexRank);
    const std::vector<int64_t> pads = opset_ < 11 ? pads_attr_ : host_ints(ctx, 1, "pads");
    const std::vector<int64_t> axes =
        opset_ >= 18 && ctx.input(3) ? host_ints(ctx, 3, "axes") : std::vector<int64_t>{};
    const ops::PadExtents e = ops::pad_extents(ctx.node(), in, pads, axes);
    PadPlan p;
    p.rank = int(r);
    p.mode = mode_;
    const std::vector<int64_t> st = dense_strides(in.dims());
    const std::vector<int64_t>&begin = e.begin, &end = e.end, &dims = e.dims;
    for (size_t k = 0; k < size_t(r); ++k) {
      // Negative pads crop first; the rest pads around the cropped range.
      p.lo[k] = std::max<int64_t>(0, -begin[k]);
      p.len[k] = in[k] - std::max<int64_t>(0, -end[k]) - p.lo[k];
      p.pb[k] = std::max<int64_t>(0, begin[k]);
      p.out_dims[k] = dims[k];
      p.in_strides[k] = st[k];
      if (p.len[k] <= 0 && dims[k] > 0 && mode_ != PadMode::kConstant)
        ctx.fail_node("cannot pad an empty axis ", k, " of shape ", in.to_string(),
                      " in a mode other than constant");
    }
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    if (y.num_elements() == 0) return;
    const Tensor* cv = opset_ >= 11 ? ctx.input(2) : nullptr;
    const void* fill = nullptr;
    uint64_t bits = 0;
    if (cv && cv->num_elements() > 0) {
      if (cv->dtype() != x.dtype())
        ctx.fail_node("constant_value ", cv->description(), " does not match data ",
                      x.description());
      fill = cv->raw_data();  // in device memory
    } else if (opset_ < 11) {
      bits = scalar_bits(ctx, x.dtype(), double(value_attr_));
    }
    check_cuda(launch_pad(elem_bytes(x.dtype()), x.raw_data(), fill, bits, y.mutable_raw_data(),
                          y.num_elements(), p, stream),
               "launch of the Pad kernel");
  }

 private:
  int64_t opset_;
  std::vector<int64_t> pads_attr_;
  float value_attr_;
  PadMode mode_ = PadMode::kConstant;
};

std::string check_tile(const ep::ClaimQuery& q) {
  const auto r = q.rank(0);
  if (!r || *r <= size_t(kMaxCopyRank / 2)) return "";
  // Each repeated dim becomes two dims of the copy.
  size_t repeated = *r;
  if (const Tensor* reps = q.constant(1)) {
    repeated = 0;
    for (int64_t v : reps->to_int64_vector()) repeated += v != 1;
  }
  if (*r + repeated > size_t(kMaxCopyRank))
    return str_cat("input of rank ", *r, " with ", repeated,
                   " repeated dims; the CUDA copy takes at most ", kMaxCopyRank, " dims");
  return "";
}

std::string check_block(const ep::ClaimQuery& q) {
  if (auto r = q.rank(0); r && *r != 4) return str_cat("input of rank ", *r, " (needs 4)");
  if (q.attr_int("blocksize", 0) < 1) return "blocksize is missing or not positive";
  const std::string mode = q.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") return str_cat("unknown mode '", mode, "'");
  return "";
}

std::string check_pad(const ep::ClaimQuery& q) {
  if (auto r = q.rank(0); r && *r > size_t(kMaxIndexRank))
    return str_cat("input of rank ", *r, "; the CUDA kernel takes at most ", kMaxIndexRank);
  const std::string m = q.attr_string("mode", "constant");
  if (m != "constant" && m != "reflect" && m != "edge" && !(m == "wrap" && q.opset() >= 19))
    return str_cat("unknown pad mode '", m, "'");
  return "";
}

}  // namespace

void register_cuda_layout_ops(CudaOpTable& t) {
  const ep::TypeConstraint any{"T", {0}, kCudaMovable};
  t.add<CudaTile>({"", "Tile", 6, ep::kOpsetMax, {any, {"T1", {1}, {DataType::kInt64}}}, {1}},
                  check_tile);
  t.add<CudaBlockRearrange>({"", "DepthToSpace", 1, ep::kOpsetMax, {any}}, check_block);
  t.add<CudaBlockRearrange>({"", "SpaceToDepth", 1, ep::kOpsetMax, {any}}, check_block);
  t.add<CudaPad>({"", "Pad", 1, 10, {any}}, check_pad);
  t.add<CudaPad>({"",
                  "Pad",
                  11,
                  ep::kOpsetMax,
                  {{"T", {0, 2}, kCudaMovable}, {"Tind", {3}, kCudaIndexTypes}},
                  {1, 3}},
                 check_pad);
}

}  // namespace tessera::cuda
