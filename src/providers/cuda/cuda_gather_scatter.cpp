// GatherElements, GatherND, ScatterElements (and Scatter, its old name) and
// ScatterND with every reduction. Indices are checked on the device: a bad
// one is skipped and fails the node when the run next waits for its stream
// (cuda_index_ops.hpp). Scatters copy the data into the output and update it
// in place; their reductions are atomic, so duplicate indices combine (in an
// order the device picks: float sums may round differently from the CPU's
// in-order sums). With reduction "none", duplicates leave one of the updates,
// as the spec allows.
#include "ep/op_shape.hpp"
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_index_ops.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"

namespace tessera::cuda {

namespace {

bool is_int64(const ep::KernelContext& ctx, const Tensor& indices) {
  if (indices.dtype() != DataType::kInt32 && indices.dtype() != DataType::kInt64)
    ctx.fail_node("indices must be int32 or int64, got ", indices.description());
  return indices.dtype() == DataType::kInt64;
}

std::optional<ScatterReduction> parse_reduction(const std::string& r) {
  if (r == "none") return ScatterReduction::kNone;
  if (r == "add") return ScatterReduction::kAdd;
  if (r == "mul") return ScatterReduction::kMul;
  if (r == "max") return ScatterReduction::kMax;
  if (r == "min") return ScatterReduction::kMin;
  return std::nullopt;
}

// The plan of GatherElements/ScatterElements for `indices` into `data`.
ElementsPlan elements_plan(const ep::KernelContext& ctx, const Shape& data, const Shape& indices,
                           int64_t axis_attr) {
  const size_t axis = normalized_axis(ctx, axis_attr, data);
  if (indices.rank() != data.rank())
    ctx.fail_node("indices ", indices.to_string(), " and data ", data.to_string(),
                  " must have one rank");
  if (data.rank() > size_t(kMaxIndexRank))
    ctx.fail_node("data of rank ", data.rank(), "; the CUDA kernel takes at most ", kMaxIndexRank);
  ElementsPlan p;
  p.rank = int(data.rank());
  p.axis = int(axis);
  p.axis_dim = data[axis];
  int64_t stride = 1;
  for (size_t k = data.rank(); k-- > 0;) {
    p.dims[k] = indices[k];
    p.data_strides[k] = stride;
    stride *= data[k];
  }
  return p;
}

class CudaGatherElements : public CudaKernel {
 public:
  CudaGatherElements(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), axis_(info.attr_int("axis", 0)) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    const bool i64 = is_int64(ctx, indices);
    const ElementsPlan p = elements_plan(ctx, data.shape(), indices.shape(), axis_);
    for (size_t k = 0; k < data.rank(); ++k)
      if (int(k) != p.axis && indices.shape()[k] > data.shape()[k])
        ctx.fail_node("indices ", indices.shape().to_string(), " exceed data ",
                      data.shape().to_string(), " on axis ", k);
    Tensor& y = ctx.output(0, indices.shape(), data.dtype());
    if (y.num_elements() == 0) return;
    IndexError* error = deferred_index_check(ctx, stream, scratch, "indices");
    check_cuda(
        launch_gather_elements(elem_bytes(data.dtype()), data.raw_data(), indices.raw_data(), i64,
                               y.mutable_raw_data(), y.num_elements(), p, error, stream),
        "launch of the GatherElements kernel");
  }

 private:
  int64_t axis_;
};

class CudaScatterElements : public CudaKernel {
 public:
  CudaScatterElements(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        axis_(info.attr_int("axis", 0)),
        reduction_(*parse_reduction(info.attr_string("reduction", "none"))) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    const Tensor& updates = ctx.required_input(2);
    const bool i64 = is_int64(ctx, indices);
    if (updates.shape() != indices.shape() || updates.dtype() != data.dtype())
      ctx.fail_node("updates ", updates.description(), " must have the indices' shape ",
                    indices.shape().to_string(), " and the data's type");
    const ElementsPlan p = elements_plan(ctx, data.shape(), indices.shape(), axis_);
    for (size_t k = 0; k < data.rank(); ++k)
      if (int(k) != p.axis && indices.shape()[k] > data.shape()[k])
        ctx.fail_node("indices ", indices.shape().to_string(), " exceed data ",
                      data.shape().to_string(), " on axis ", k);
    Tensor& y = ctx.output(0, data.shape(), data.dtype());
    copy_device(data, y, stream);
    if (indices.num_elements() == 0) return;
    IndexError* error = deferred_index_check(ctx, stream, scratch, "indices");
    check_cuda(launch_scatter_elements(
                   elem_bytes(data.dtype()), num_type_of(data.dtype()).value_or(NumType::kF32),
                   reduction_, indices.raw_data(), i64, updates.raw_data(), y.mutable_raw_data(),
                   indices.num_elements(), p, error, stream),
               "launch of the ScatterElements kernel");
  }

 private:
  int64_t axis_;
  ScatterReduction reduction_;
};

// The GatherND/ScatterND plan: tuples of indices' last dim into `data` after
// `batch` leading dims.
NdPlan nd_plan(const ep::KernelContext& ctx, const Shape& data, const Shape& indices,
               size_t batch) {
  if (indices.rank() < 1 || indices.rank() <= batch || data.rank() <= batch)
    ctx.fail_node("indices ", indices.to_string(), " and data ", data.to_string(),
                  " need rank above batch_dims ", batch);
  const int64_t m = indices[indices.rank() - 1];
  if (m < 1 || size_t(m) > data.rank() - batch || m > kMaxIndexRank)
    ctx.fail_node("index tuples of ", m, " values cannot index data ", data.to_string(), " after ",
                  batch, " batch dims");
  for (size_t k = 0; k < batch; ++k)
    if (indices[k] != data[k])
      ctx.fail_node("indices ", indices.to_string(), " and data ", data.to_string(),
                    " differ in batch dim ", k);
  NdPlan p;
  p.m = int(m);
  p.slice = data.size_from(batch + size_t(m));
  p.batch_stride = data.size_from(batch);
  p.tuples_per_batch = 1;
  for (size_t k = batch; k + 1 < indices.rank(); ++k) p.tuples_per_batch *= indices[k];
  int64_t stride = p.slice;
  for (int j = p.m; j-- > 0;) {
    p.dims[j] = data[batch + size_t(j)];
    p.strides[j] = stride;
    stride *= p.dims[j];
  }
  return p;
}

class CudaGatherND : public CudaKernel {
 public:
  CudaGatherND(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), batch_(info.attr_int("batch_dims", 0)) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    if (indices.dtype() != DataType::kInt64)
      ctx.fail_node("indices must be int64, got ", indices.description());
    if (batch_ < 0) ctx.fail_node("batch_dims ", batch_, " is negative");
    const NdPlan p = nd_plan(ctx, data.shape(), indices.shape(), size_t(batch_));
    std::vector<int64_t> dims(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
    for (size_t k = size_t(batch_) + size_t(p.m); k < data.rank(); ++k)
      dims.push_back(data.shape()[k]);
    Tensor& y = ctx.output(0, Shape(dims), data.dtype());
    if (y.num_elements() == 0) return;
    IndexError* error = deferred_index_check(ctx, stream, scratch, "indices");
    check_cuda(launch_gather_nd(elem_bytes(data.dtype()), data.raw_data(), indices.data<int64_t>(),
                                y.mutable_raw_data(), y.num_elements(), p, error, stream),
               "launch of the GatherND kernel");
  }

 private:
  int64_t batch_;
};

class CudaScatterND : public CudaKernel {
 public:
  CudaScatterND(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), reduction_(*parse_reduction(info.attr_string("reduction", "none"))) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    const Tensor& updates = ctx.required_input(2);
    if (indices.dtype() != DataType::kInt64)
      ctx.fail_node("indices must be int64, got ", indices.description());
    const NdPlan p = nd_plan(ctx, data.shape(), indices.shape(), 0);
    std::vector<int64_t> want(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
    for (size_t k = size_t(p.m); k < data.rank(); ++k) want.push_back(data.shape()[k]);
    if (updates.shape() != Shape(want) || updates.dtype() != data.dtype())
      ctx.fail_node("updates ", updates.description(), " must be ", Shape(want).to_string(),
                    " of the data's type");
    Tensor& y = ctx.output(0, data.shape(), data.dtype());
    copy_device(data, y, stream);
    if (updates.num_elements() == 0) return;
    IndexError* error = deferred_index_check(ctx, stream, scratch, "indices");
    check_cuda(launch_scatter_nd(elem_bytes(data.dtype()),
                                 num_type_of(data.dtype()).value_or(NumType::kF32), reduction_,
                                 indices.data<int64_t>(), updates.raw_data(), y.mutable_raw_data(),
                                 updates.num_elements(), p, error, stream),
               "launch of the ScatterND kernel");
  }

 private:
  ScatterReduction reduction_;
};

std::string check_rank(const ep::ClaimQuery& q, size_t i) {
  if (auto r = q.rank(i); r && *r > size_t(kMaxIndexRank))
    return str_cat("input ", i, " has rank ", *r, "; the CUDA kernel takes at most ",
                   kMaxIndexRank);
  return "";
}

std::string check_gather_elements(const ep::ClaimQuery& q) {
  if (auto why = check_rank(q, 0); !why.empty()) return why;
  const auto rank = q.rank(0);
  if (rank && *rank == 0) return "the data is a scalar";
  return check_axis_range(q.attr_int("axis", 0), rank);
}

// A reduction the kernel has.
std::string check_reduction(const ep::ClaimQuery& q) {
  const std::string r = q.attr_string("reduction", "none");
  if (!parse_reduction(r)) return str_cat("unknown reduction '", r, "'");
  return "";
}

std::string check_scatter_elements(const ep::ClaimQuery& q) {
  if (auto why = check_gather_elements(q); !why.empty()) return why;
  return check_reduction(q);
}

std::string check_gather_nd(const ep::ClaimQuery& q) {
  if (auto why = check_rank(q, 0); !why.empty()) return why;
  if (auto d = q.dims(1); d && !d->empty() && d->back() && *d->back() > kMaxIndexRank)
    return str_cat("index tuples of ", *d->back(), " values; the CUDA kernel takes at most ",
                   kMaxIndexRank);
  if (q.attr_int("batch_dims", 0) < 0) return "batch_dims is negative";
  return "";
}

std::string check_scatter_nd(const ep::ClaimQuery& q) {
  if (auto why = check_gather_nd(q); !why.empty()) return why;
  return check_reduction(q);
}

}  // namespace

void register_cuda_gather_scatter(CudaOpTable& t) {
  const ep::TypeConstraint any{"T", {0}, kCudaMovable};
  const ep::TypeConstraint ind{"Tind", {1}, kCudaIndexTypes};
  const ep::TypeConstraint i64{"Tind", {1}, {DataType::kInt64}};
  t.add<CudaGatherElements>({"", "GatherElements", 11, ep::kOpsetMax, {any, ind}},
                            check_gather_elements);
  t.add<CudaGatherND>({"", "GatherND", 11, ep::kOpsetMax, {any, i64}}, check_gather_nd);
  // Updates (input 2) share the data's type. The reductions compute, so
  // the types are those the kernel has arithmetic for (float8 and complex
  // values are left to the CPU even without a reduction: a claim check
  // cannot see the element type).
  const ep::TypeConstraint moved{"T", {0, 2}, kCudaNumeric};
  t.add<CudaScatterElements>({"", "Scatter", 9, 10, {moved, ind}}, check_scatter_elements);
  t.add<CudaScatterElements>({"", "ScatterElements", 11, 15, {moved, ind}}, check_scatter_elements);
  t.add<CudaScatterElements>({"", "ScatterElements", 16, ep::kOpsetMax, {moved, ind}},
                             check_scatter_elements);
  t.add<CudaScatterND>({"", "ScatterND", 11, 15, {moved, i64}}, check_scatter_nd);
  t.add<CudaScatterND>({"", "ScatterND", 16, ep::kOpsetMax, {moved, i64}}, check_scatter_nd);
}

}  // namespace tessera::cuda
