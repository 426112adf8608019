// ONNX Runtime's com.microsoft SparseToDenseMatMul: Y = alpha * op(A) * op(B)
// with A a sparse tensor (COO or CSR: a sparse input, or a sparse initializer,
// which stays sparse for this reader; a dense A is taken as COO of its
// non-zeros) and B and Y dense.
// The work is one row update of Y per stored value of A, so it scales with
// A's non-zeros, not with its dense size.
#include <cstring>
#include <utility>

#include "core/sparse_tensor.hpp"
#include "providers/cpu/math/type_dispatch.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu::nn {

namespace {

using SparseTypes = TypeList<float, double, int32_t, int64_t, uint32_t, uint64_t>;

// Calls fn(row, col, value index) for each stored value of a 2-D sparse A.
template <typename Fn>
void for_each_entry(const SparseTensor& a, Fn&& fn) {
  const int64_t nnz = a.values.num_elements();
  const int64_t cols = a.dense_shape[1];
  if (a.format == SparseFormat::kCoo) {
    if (nnz == 0) return;
    const int64_t* ix = a.indices.data<int64_t>();
    const bool linear = a.indices.rank() == 1;
    for (int64_t i = 0; i < nnz; ++i)
      linear ? fn(ix[i] / cols, ix[i] % cols, i) : fn(ix[2 * i], ix[2 * i + 1], i);
    return;
  }
  if (nnz == 0) return;
  const int64_t* outer = a.outer.data<int64_t>();
  const int64_t* inner = a.indices.data<int64_t>();
  for (int64_t r = 0; r < a.dense_shape[0]; ++r)
    for (int64_t i = outer[r]; i < outer[r + 1]; ++i) fn(r, inner[i], i);
}

class SparseToDenseMatMulKernel final : public ep::OpKernel {
 public:
  explicit SparseToDenseMatMulKernel(const ep::KernelInfo& info)
      : alpha_(info.attr_float("alpha", 1.0f)),
        trans_a_(info.attr_int("transA", 0) != 0),
        trans_b_(info.attr_int("transB", 0) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    const Value* av = ctx.input_value(0);
    if (av == nullptr || av->is_none()) ctx.fail_node("input A is missing");
    SparseTensor dense_as_coo;
    if (av->is_tensor()) dense_as_coo = SparseTensor::coo_from_dense(av->tensor());
    const SparseTensor& a = av->is_tensor() ? dense_as_coo : av->sparse();
    if (a.format != SparseFormat::kCoo && a.format != SparseFormat::kCsr)
      ctx.fail_node("A must be a COO or CSR sparse tensor, got ", sparse_format_name(a.format));
    if (a.dense_shape.rank() != 2)
      ctx.fail_node("A must be 2-D, got dense shape ", a.dense_shape.to_string());
    a.validate(str_cat(ctx.node().describe(), ": input A"));
    const Tensor& b = ctx.required_input(1);
    if (b.rank() != 2) ctx.fail_node("B must be 2-D, got ", b.description());
    if (b.dtype() != a.dtype())
      ctx.fail_node("A holds ", data_type_name(a.dtype()), " but B is ", b.description());
    const int64_t m = trans_a_ ? a.dense_shape[1] : a.dense_shape[0];
    const int64_t k = trans_a_ ? a.dense_shape[0] : a.dense_shape[1];
    const int64_t kb = trans_b_ ? b.shape()[1] : b.shape()[0];
    const int64_t n = trans_b_ ? b.shape()[0] : b.shape()[1];
    if (k != kb)
      ctx.fail_node("inner dimensions differ: op(A) is [", m, ",", k, "] and op(B) is [", kb, ",",
                    n, "]");
    visit_type(SparseTypes{}, a.dtype(), ctx.node(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& y = ctx.output(0, Shape({m, n}), a.dtype());
      T* py = y.mutable_data<T>();
      std::memset(py, 0, y.byte_size());
      const T* pb = b.data<T>();
      const T* pv = a.values.data<T>();
      const T alpha = static_cast<T>(alpha_);
      for_each_entry(a, [&](int64_t r, int64_t c, int64_t i) {
        if (trans_a_) std::swap(r, c);
        const T s = alpha * pv[i];
        T* row = py + r * n;
        if (trans_b_) {
          for (int64_t j = 0; j < n; ++j) row[j] += s * pb[j * k + c];
        } else {
          const T* brow = pb + c * n;
          for (int64_t j = 0; j < n; ++j) row[j] += s * brow[j];
        }
      });
    });
  }

 private:
  float alpha_;
  bool trans_a_, trans_b_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_sparse_to_dense_matmul(const ep::KernelInfo& info) {
  return std::make_unique<SparseToDenseMatMulKernel>(info);
}

}  // namespace tessera::cpu::nn
