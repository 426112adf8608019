// ConstantOfShape, Range, Trilu, OneHot and CumSum. Shapes, counts, k, depth
// and axes are host inputs (the runtime hands them over in host memory);
// the data and OneHot's values stay on the device.
#include <cstring>

#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_index_ops.hpp"
#include "providers/cuda/cuda_shape_ops.hpp"

namespace tessera::cuda {

namespace {

// One host scalar (a 1-element tensor of rank 0 or 1).
const Tensor& host_scalar(const ep::KernelContext& ctx, size_t i, const char* what) {
  const Tensor& t = ctx.required_input(i);
  if (!t.memory_info().host_accessible())
    ctx.fail_node("internal: input ", i, " (", what, ") is not in host memory");
  if (t.num_elements() != 1 || t.rank() > 1)
    ctx.fail_node(what, " must be a scalar, got ", t.description());
  return t;
}

class CudaConstantOfShape : public CudaKernel {
 public:
  CudaConstantOfShape(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env) {
    if (const Tensor* v = info.attr_tensor("value")) {
      if (v->num_elements() != 1) info.fail_node("value must hold one element");
      dtype_ = v->dtype();
      std::memcpy(&bits_, v->raw_data(), size_t(elem_bytes(dtype_)));
    }
  }
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const std::vector<int64_t> dims = host_ints(ctx, 0, "shape");
    for (int64_t d : dims)
      if (d < 0) ctx.fail_node("shape ", Shape(dims).to_string(), " has a negative dim");
    Tensor& y = ctx.output(0, Shape(dims), dtype_);
    check_cuda(
        launch_fill(elem_bytes(dtype_), bits_, y.mutable_raw_data(), y.num_elements(), stream),
        "launch of the fill kernel");
  }

 private:
  DataType dtype_ = DataType::kFloat;
  uint64_t bits_ = 0;  // float 0 unless `value` says otherwise
};

class CudaRange : public CudaKernel {
 public:
  CudaRange(const ep::KernelInfo&, const EnvPtr& env) : CudaKernel(env) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& s = host_scalar(ctx, 0, "start");
    const Tensor& l = host_scalar(ctx, 1, "limit");
    const Tensor& d = host_scalar(ctx, 2, "delta");
    const DataType t = s.dtype();
    const auto type = num_type_of(t);
    if (!type || l.dtype() != t || d.dtype() != t)
      ctx.fail_node("start, limit and delta must share a type the CUDA kernel has, got ",
                    s.description(), ", ", l.description(), ", ", d.description());
    int64_t n = 0, a = 0, step = 0;
    double fa = 0, fstep = 0;
    if (is_integer_type(t)) {
      a = s.element_as_int64(0);
      const int64_t b = l.element_as_int64(0);
      step = d.element_as_int64(0);
      if (step == 0) ctx.fail_node("delta is 0");
      // In 128 bits: the span of two int64 values may not fit in 64.
      using Wide = __int128;
      const Wide span = step > 0 ? Wide(b) - a : Wide(a) - b;
      const Wide abs_step = step > 0 ? Wide(step) : -Wide(step);
      const Wide count = span > 0 ? (span + abs_step - 1) / abs_step : 0;
      if (count > INT64_MAX) ctx.fail_node("the range from ", a, " to ", b, " has too many values");
      n = int64_t(count);
    } else {
      fa = s.element_as_double(0);
      fstep = d.element_as_double(0);
      if (fstep == 0) ctx.fail_node("delta is 0");
      const double count = std::ceil((l.element_as_double(0) - fa) / fstep);
      if (!(count < 1e12)) ctx.fail_node("the range has no valid length (", count, " values)");
      n = count > 0 ? int64_t(count) : 0;
    }
    Tensor& y = ctx.output(0, Shape{n}, t);
    check_cuda(launch_range(*type, a, step, fa, fstep, y.mutable_raw_data(), n, stream),
               "launch of the Range kernel");
  }
};

class CudaTrilu : public CudaKernel {
 public:
  CudaTrilu(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), upper_(info.attr_int("upper", 1) != 0) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() < 2) ctx.fail_node("input must have rank >= 2, got ", x.shape().to_string());
    const int64_t k = ctx.input(1) ? host_scalar(ctx, 1, "k").element_as_int64(0) : 0;
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    const size_t r = x.rank();
    check_cuda(launch_trilu(elem_bytes(x.dtype()), x.raw_data(), y.mutable_raw_data(),
                            x.shape().size_to(r - 2), x.shape()[r - 2], x.shape()[r - 1], k, upper_,
                            stream),
               "launch of the Trilu kernel");
  }

 private:
  bool upper_;
};

class CudaOneHot : public CudaKernel {
 public:
  CudaOneHot(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env), axis_(info.attr_int("axis", -1)) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& ind = ctx.required_input(0);
    const Tensor& values = ctx.required_input(2);
    OneHotIndex index_type = OneHotIndex::kF32;
    if (ind.dtype() == DataType::kInt32)
      index_type = OneHotIndex::kI32;
    else if (ind.dtype() == DataType::kInt64)
      index_type = OneHotIndex::kI64;
    else if (ind.dtype() != DataType::kFloat)
      ctx.fail_node("indices must be int32, int64 or float, got ", ind.description());
    if (values.num_elements() != 2)
      ctx.fail_node("values must hold [off, on], got ", values.description());
    const int64_t depth = int64_t(host_scalar(ctx, 1, "depth").element_as_double(0));
    if (depth < 1) ctx.fail_node("depth must be positive, got ", depth);
    const int64_t r = int64_t(ind.rank()) + 1;
    if (axis_ < -r || axis_ >= r)
      ctx.fail_node("axis ", axis_, " is out of range for output rank ", r);
    const size_t axis = size_t(axis_ < 0 ? axis_ + r : axis_);
    std::vector<int64_t> dims = ind.shape().dims();
    dims.insert(dims.begin() + int64_t(axis), depth);
    Tensor& y = ctx.output(0, Shape(dims), values.dtype());
    check_cuda(launch_one_hot(elem_bytes(values.dtype()), ind.raw_data(), index_type,
                              values.raw_data(), y.mutable_raw_data(), ind.shape().size_to(axis),
                              depth, ind.shape().size_from(axis), stream),
               "launch of the OneHot kernel");
  }

 private:
  int64_t axis_;
};

class CudaCumSum : public CudaKernel {
 public:
  CudaCumSum(const ep::KernelInfo& info, const EnvPtr& env)
      : CudaKernel(env),
        exclusive_(info.attr_int("exclusive", 0) != 0),
        reverse_(info.attr_int("reverse", 0) != 0) {}
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch&) const override {
    const Tensor& x = ctx.required_input(0);
    const auto type = num_type_of(x.dtype());
    if (!type) ctx.fail_node("the CUDA kernel does not sum ", x.description());
    const int64_t a = host_scalar(ctx, 1, "axis").element_as_int64(0);
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    if (x.rank() == 0) {  // a scalar: its own sum, or 0 when exclusive
      if (exclusive_)
        check_cuda(cudaMemsetAsync(y.mutable_raw_data(), 0, y.byte_size(), stream),
                   "cudaMemsetAsync (CumSum of a scalar)");
      else
        copy_device(x, y, stream);
      return;
    }
    const size_t axis = normalized_axis(ctx, a, x.shape());
    check_cuda(
        launch_cumsum(*type, x.raw_data(), y.mutable_raw_data(), x.shape().size_to(axis),
                      x.shape()[axis], x.shape().size_from(axis + 1), exclusive_, reverse_, stream),
        "launch of the CumSum kernel");
  }

 private:
  bool exclusive_, reverse_;
};

std::string check_trilu(const ep::ClaimQuery& q) {
  if (auto r = q.rank(0); r && *r < 2) return str_cat("input of rank ", *r, " (Trilu needs 2+)");
  return "";
}

std::string check_one_hot(const ep::ClaimQuery& q) {
  if (auto r = q.rank(0)) return check_axis_range(q.attr_int("axis", -1), *r + 1);
  return "";
}

std::string check_constant_of_shape(const ep::ClaimQuery& q) {
  const auto* a = q.node().attr("value");
  if (a == nullptr) return "";
  const Tensor& v = a->t;
  if (!v.defined() || v.num_elements() != 1) return "value is not a one-element tensor";
  const int bits = data_type_bits(v.dtype());
  if (v.dtype() == DataType::kString || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
    return str_cat("value of type ", data_type_name(v.dtype()),
                   "; the CUDA kernel fills elements of 1, 2, 4 or 8 bytes");
  return "";
}

}  // namespace

void register_cuda_fill_ops(CudaOpTable& t) {
  const std::vector<DataType> range_types = {
      DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
      DataType::kInt16, DataType::kInt32,  DataType::kInt64};
  t.add<CudaConstantOfShape>(
      {"", "ConstantOfShape", 9, ep::kOpsetMax, {{"T1", {0}, {DataType::kInt64}}}, {0}},
      check_constant_of_shape);
  t.add<CudaRange>({"", "Range", 11, ep::kOpsetMax, {{"T", {0, 1, 2}, range_types}}, {0, 1, 2}},
                   no_check);
  t.add<CudaTrilu>({"",
                    "Trilu",
                    14,
                    ep::kOpsetMax,
                    {{"T", {0}, kCudaMovable}, {"T1", {1}, {DataType::kInt64}}},
                    {1}},
                   check_trilu);
  t.add<CudaOneHot>({"",
                     "OneHot",
                     9,
                     ep::kOpsetMax,
                     {{"T1", {0}, {DataType::kInt32, DataType::kInt64, DataType::kFloat}},
                      {"T2", {1}, kCudaNumeric},
                      {"T3", {2}, kCudaMovable}},
                     {1}},
                    check_one_hot);
  t.add<CudaCumSum>({"",
                     "CumSum",
                     11,
                     ep::kOpsetMax,
                     {{"T", {0}, kCudaArithmetic}, {"T2", {1}, kCudaIndexTypes}},
                     {1}},
                    no_check);
}

}  // namespace tessera::cuda
