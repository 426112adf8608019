// Concat and Split: with the tensors seen as [outer, axis * inner], each
// input of Concat (output of Split) is one block of columns of the larger
// tensor, so each is one 2-D copy (cudaMemcpy2DAsync), or one plain copy
// when outer is 1.
#include "ep/op_shape.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"

namespace tessera::cuda {

namespace {

// The cudaMemcpy2D pitch limit (cudaDevAttrMaxPitch is 2^31 - 1 on the GPUs
// built for); wider rows are copied one by one.
constexpr size_t kMaxPitch = 2147483647;

// Copies `rows` rows of `width` bytes from src (rows `spitch` apart) to dst
// (rows `dpitch` apart).
void copy_rows(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t rows,
               cudaStream_t stream) {
  if (width == 0 || rows == 0) return;
  if (rows == 1 || (width == dpitch && width == spitch)) {
    check_cuda(cudaMemcpyAsync(dst, src, width * rows, cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync (Concat/Split)");
    return;
  }
  if (dpitch <= kMaxPitch && spitch <= kMaxPitch) {
    check_cuda(
        cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToDevice, stream),
        "cudaMemcpy2DAsync (Concat/Split)");
    return;
  }
  for (size_t r = 0; r < rows; ++r)
    check_cuda(cudaMemcpyAsync(static_cast<char*>(dst) + r * dpitch,
                               static_cast<const char*>(src) + r * spitch, width,
                               cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync (Concat/Split, one row)");
}

// The output shape is the schema's rule, which checks the axis and the
// inputs' dims; the element types are checked here.
class CudaConcat : public CudaKernel {
 public:
  CudaConcat(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    std::vector<const Tensor*> ins;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      ins.push_back(&ctx.required_input(i));
      if (ins.back()->dtype() != ins[0]->dtype())
        ctx.fail_node("inputs have different types: ", ins[0]->description(), " and ",
                      ins.back()->description());
    }
    const Shape out = shape_.output(ctx, ins);
    const Shape& s0 = ins[0]->shape();
    const size_t axis = normalized_axis(ctx, shape_.schema().attr_int(ctx.node(), "axis"), s0);
    const std::vector<int64_t>& dims = out.dims();
    Tensor& y = ctx.output(0, out, ins[0]->dtype());
    if (y.num_elements() == 0) return;
    const size_t bytes = size_t(elem_bytes(y.dtype()));
    const size_t outer = size_t(s0.size_to(axis)), inner = size_t(s0.size_from(axis + 1));
    const size_t out_row = size_t(dims[axis]) * inner * bytes;
    size_t offset = 0;  // bytes into each output row
    for (const Tensor* t : ins) {
      const size_t row = size_t(t->shape()[axis]) * inner * bytes;
      copy_rows(static_cast<char*>(y.mutable_raw_data()) + offset, out_row, t->raw_data(), row, row,
                outer, stream);
      offset += row;
    }
  }

 private:
  ep::OpShape shape_;
};

// The parts' shapes are the schema's rule (sizes from the attribute or input
// 1, equal parts, or num_outputs).
class CudaSplit : public CudaKernel {
 public:
  CudaSplit(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env), shape_(info) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const ops::OutShapes parts = shape_.outputs(ctx, {&x, ctx.input(1)});  // split: host memory
    const size_t axis =
        normalized_axis(ctx, shape_.schema().attr_int(ctx.node(), "axis"), x.shape());
    const int64_t dim = x.shape()[axis];
    const size_t bytes = size_t(elem_bytes(x.dtype()));
    const size_t outer = size_t(x.shape().size_to(axis)),
                 inner = size_t(x.shape().size_from(axis + 1));
    const size_t in_row = size_t(dim) * inner * bytes;
    size_t offset = 0;  // bytes into each input row
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      if (i >= parts.size() || !parts[i]) ctx.fail_node("the shape of output ", i, " is not known");
      Tensor& y = ctx.output(i, *parts[i], x.dtype());
      const size_t row = size_t((*parts[i])[axis]) * inner * bytes;
      if (ctx.has_output(i))
        copy_rows(y.mutable_raw_data(), row, static_cast<const char*>(x.raw_data()) + offset,
                  in_row, row, outer, stream);
      offset += row;
    }
  }

 private:
  ep::OpShape shape_;
};

std::string check_concat(const ep::ClaimQuery& q) {
  const auto rank = q.rank(0);
  if (rank && *rank == 0) return "the inputs are scalars";
  if (!q.node().attr("axis")) return "the axis attribute is missing";
  return check_axis_range(q.attr_int("axis", 0), rank);
}

std::string check_split(const ep::ClaimQuery& q) {
  return check_axis_range(q.attr_int("axis", 0), q.rank(0));
}

}  // namespace

void register_cuda_concat_split(CudaOpTable& t) {
  // Concat 4+ (the axis is required from 4 on); every input in T.
  t.add<CudaConcat>({"", "Concat", 4, ep::kOpsetMax, {{"T", {0}, kCudaMovable, true}}},
                    check_concat);
  // Split 2-12: sizes in the `split` attribute; 13+: in input 1 (host), or
  // num_outputs (18+), or equal parts.
  const ep::TypeConstraint any{"T", {0}, kCudaMovable};
  t.add<CudaSplit>({"", "Split", 2, 12, {any}}, check_split);
  t.add<CudaSplit>({"", "Split", 13, ep::kOpsetMax, {any, {"split", {1}, {DataType::kInt64}}}, {1}},
                   check_split);
}

}  // namespace tessera::cuda
