// The nn/ family's kernel table: conv, pooling, normalization, Gemm/MatMul,
// Dropout. One row per span of opsets over which the allowed types stay put.
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/nn/nn_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelDef;
using ep::kOpsetMax;
using ep::TypeConstraint;

const std::vector<DataType> kF3 = {DataType::kFloat16, DataType::kFloat, DataType::kDouble};
const std::vector<DataType> kF4 = {DataType::kFloat16, DataType::kFloat, DataType::kDouble,
                                   DataType::kBFloat16};
const std::vector<DataType> kGemmInts = {DataType::kUInt32, DataType::kUInt64, DataType::kInt32,
                                         DataType::kInt64};
const std::vector<DataType> kFloat8 = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ,
                                       DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ};

void add(ep::KernelRegistry& r, const char* op, int64_t since, int64_t until,
         std::vector<TypeConstraint> cons, nn::Factory f) {
  r.add(KernelDef{"", op, since, until, std::move(cons)},
        [f](const ep::KernelInfo& info) { return f(info); });
}

TypeConstraint T(std::vector<int> inputs, std::vector<DataType> allowed, const char* name = "T") {
  return TypeConstraint{name, std::move(inputs), std::move(allowed)};
}

// Ops whose only constraint is T on input 0: float/double/half through
// `last_f3`, bfloat16 added after.
void add_float_op(ep::KernelRegistry& r, const char* op, int64_t since, int64_t last_f3,
                  nn::Factory f) {
  add(r, op, since, last_f3, {T({0}, kF3)}, f);
  add(r, op, last_f3 + 1, kOpsetMax, {T({0}, kF4)}, f);
}

}  // namespace

void register_nn_kernels(ep::KernelRegistry& r) {
  using ep::types::join;
  add(r, "Gemm", 1, 8, {T({0, 1, 2}, kF3)}, nn::make_gemm);
  add(r, "Gemm", 9, 12, {T({0, 1, 2}, join({kF3, kGemmInts}))}, nn::make_gemm);
  add(r, "Gemm", 13, kOpsetMax, {T({0, 1, 2}, join({kF4, kGemmInts}))}, nn::make_gemm);
  add(r, "MatMul", 1, 8, {T({0, 1}, kF3)}, nn::make_matmul);
  add(r, "MatMul", 9, 12, {T({0, 1}, join({kF3, kGemmInts}))}, nn::make_matmul);
  add(r, "MatMul", 13, kOpsetMax, {T({0, 1}, join({kF4, kGemmInts}))}, nn::make_matmul);
  // ONNX Runtime's alpha * op(A) op(B) (its optimized models), on MatMul's kernel.
  for (const char* op : {"FusedMatMul", "TransposeMatMul"})
    r.add({"com.microsoft", op, 1, kOpsetMax, {T({0, 1}, kF4)}}, nn::make_matmul);
  r.add({"com.microsoft",
         "SparseToDenseMatMul",
         1,
         kOpsetMax,
         {T({0, 1}, {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64,
                     DataType::kUInt32, DataType::kUInt64})}},
        nn::make_sparse_to_dense_matmul);

  add(r, "Conv", 1, 21, {T({0, 1, 2}, kF3)}, nn::make_conv);
  add(r, "Conv", 22, kOpsetMax, {T({0, 1, 2}, kF4)}, nn::make_conv);
  add(r, "ConvTranspose", 1, 21, {T({0, 1, 2}, kF3)}, nn::make_conv_transpose);
  add(r, "ConvTranspose", 22, kOpsetMax, {T({0, 1, 2}, kF4)}, nn::make_conv_transpose);

  const std::vector<DataType> k8 = {DataType::kInt8, DataType::kUInt8};
  add(r, "MaxPool", 1, 11, {T({0}, kF3)}, nn::make_max_pool);
  add(r, "MaxPool", 12, 21, {T({0}, join({kF3, k8}))}, nn::make_max_pool);
  add(r, "MaxPool", 22, kOpsetMax, {T({0}, join({kF4, k8}))}, nn::make_max_pool);
  add_float_op(r, "AveragePool", 1, 21, nn::make_average_pool);
  add_float_op(r, "LpPool", 1, 21, nn::make_lp_pool);
  add_float_op(r, "GlobalAveragePool", 1, 21, nn::make_global_pool);
  add_float_op(r, "GlobalMaxPool", 1, 21, nn::make_global_pool);
  add_float_op(r, "GlobalLpPool", 1, 21, nn::make_global_pool);
  add_float_op(r, "MaxRoiPool", 1, 21, nn::make_max_roi_pool);
  add(r, "MaxUnpool", 9, 21, {T({0}, kF3, "T1"), T({1}, {DataType::kInt64}, "T2")},
      nn::make_max_unpool);
  add(r, "MaxUnpool", 22, kOpsetMax, {T({0}, kF4, "T1"), T({1}, {DataType::kInt64}, "T2")},
      nn::make_max_unpool);

  add(r, "BatchNormalization", 1, 13, {T({0, 1, 2, 3, 4}, kF3)}, nn::make_batch_norm);
  add(r, "BatchNormalization", 14, 14, {T({0, 1, 2}, kF4), T({3, 4}, kF4, "U")},
      nn::make_batch_norm);
  add(r, "BatchNormalization", 15, kOpsetMax,
      {T({0}, kF4), T({1, 2}, kF4, "T1"), T({3, 4}, kF4, "T2")}, nn::make_batch_norm);
  add_float_op(r, "InstanceNormalization", 1, 21, nn::make_instance_norm);
  add(r, "LayerNormalization", 17, kOpsetMax, {T({0, 1, 2}, kF4)}, nn::make_layer_norm);
  // ONNX Runtime registers LayerNormalization (same attributes and outputs)
  // and its RMS form SimplifiedLayerNormalization in the default domain for
  // every opset, and its optimizer writes them into models of any opset: so
  // do these, for such models.
  add(r, "LayerNormalization", 1, 16, {T({0, 1, 2}, kF4)}, nn::make_layer_norm);
  add(r, "SimplifiedLayerNormalization", 1, kOpsetMax, {T({0, 1}, kF4)},
      nn::make_simplified_layer_norm);
  add(r, "GroupNormalization", 18, kOpsetMax, {T({0, 1, 2}, kF4)}, nn::make_group_norm);
  add(r, "RMSNormalization", 23, kOpsetMax, {T({0}, kF4), T({1}, kF4, "V")}, nn::make_rms_norm);
  add_float_op(r, "LRN", 1, 12, nn::make_lrn);
  add_float_op(r, "MeanVarianceNormalization", 9, 12, nn::make_mvn);
  add_float_op(r, "LpNormalization", 1, 21, nn::make_lp_norm);

  add(r, "Dropout", 1, 11, {T({0}, kF3)}, nn::make_dropout);
  add(r, "Dropout", 12, 12, {T({0}, kF3), T({1}, kF3, "T1"), T({2}, {DataType::kBool}, "T2")},
      nn::make_dropout);
  add(r, "Dropout", 13, 21, {T({0}, kF4), T({1}, kF3, "T1"), T({2}, {DataType::kBool}, "T2")},
      nn::make_dropout);
  add(r, "Dropout", 22, kOpsetMax,
      {T({0}, join({kF4, kFloat8})), T({1}, join({kF4, kFloat8}), "T1"),
       T({2}, {DataType::kBool}, "T2")},
      nn::make_dropout);
}

}  // namespace tessera::cpu
