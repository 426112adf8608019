// The quant family's kernel table. Type lists follow each opset version's
// constraints in Operators.md / Changelog.md.
#include "providers/cpu/half_via_float.hpp"
#include "providers/cpu/kernel_families.hpp"
#include "providers/cpu/quant/quant_kernels.hpp"

namespace tessera::cpu {

namespace {
using DT = DataType;
using ep::KernelDef;
using ep::kOpsetMax;

const std::vector<DT> k8 = {DT::kInt8, DT::kUInt8};
const std::vector<DT> kF8 = {DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ, DT::kFloat8E5M2,
                             DT::kFloat8E5M2FNUZ};
const std::vector<DT> kHalfFloats = {DT::kFloat, DT::kFloat16, DT::kBFloat16};

std::vector<DT> join(std::initializer_list<std::vector<DT>> l) { return ep::types::join(l); }

// Quantized element types by the opset that introduced them.
std::vector<DT> quant_types(int64_t opset) {
  std::vector<DT> t = k8;
  if (opset >= 19) t = join({t, kF8});
  if (opset >= 21) t = join({t, {DT::kInt16, DT::kUInt16, DT::kUInt4, DT::kInt4}});
  if (opset >= 23) t = join({t, {DT::kFloat4E2M1}});
  if (opset >= 25) t = join({t, {DT::kUInt2, DT::kInt2}});
  return t;
}
}  // namespace

void register_quant_kernels(ep::KernelRegistry& r) {
  // QuantizeLinear: x (T1), y_scale (T2), y_zero_point (T3).
  struct Range {
    int64_t since, until;
  };
  for (Range v : {Range{10, 12}, Range{13, 18}, Range{19, 20}, Range{21, 22}, Range{23, 23},
                  Range{24, 24}, Range{25, kOpsetMax}}) {
    std::vector<DT> x =
        v.since >= 19 ? join({kHalfFloats, {DT::kInt32}}) : std::vector<DT>{DT::kFloat, DT::kInt32};
    std::vector<DT> scale = v.since >= 23   ? join({kHalfFloats, {DT::kInt32}})
                            : v.since >= 19 ? kHalfFloats
                                            : std::vector<DT>{DT::kFloat};
    if (v.since >= 24) scale.push_back(DT::kFloat8E8M0);
    r.add(KernelDef{"",
                    "QuantizeLinear",
                    v.since,
                    v.until,
                    {{"T1", {0}, x}, {"T2", {1}, scale}, {"T3", {2}, quant_types(v.since)}}},
          make_quantize_linear);
    std::vector<DT> qx = join({quant_types(v.since), {DT::kInt32}});
    std::vector<DT> dscale = v.since >= 19 ? kHalfFloats : std::vector<DT>{DT::kFloat};
    if (v.since >= 24) dscale.push_back(DT::kFloat8E8M0);
    r.add(
        KernelDef{
            "", "DequantizeLinear", v.since, v.until, {{"T1", {0, 2}, qx}, {"T2", {1}, dscale}}},
        make_dequantize_linear);
  }
  r.add(KernelDef{"", "DynamicQuantizeLinear", 11, kOpsetMax, {{"T1", {0}, {DT::kFloat}}}},
        make_dynamic_quantize_linear);
  r.add(KernelDef{"", "MatMulInteger", 10, kOpsetMax, {{"T1", {0, 2}, k8}, {"T2", {1, 3}, k8}}},
        make_matmul_integer);
  // The optimizer's fusion of a dynamically quantized MatMul (MatMulInteger,
  // Cast, Mul, Add).
  r.add(KernelDef{"com.tessera",
                  "MatMulIntegerToFloat",
                  1,
                  kOpsetMax,
                  {{"T1", {0, 2}, k8}, {"T2", {1, 3}, k8}, {"T", {4, 5}, {DT::kFloat}}}},
        make_matmul_integer_to_float);
  // ONNX Runtime's block-quantized weights (its 4-bit quantizer); half A
  // through float.
  const std::vector<DT> t1 = {DT::kFloat, DT::kFloat16, DT::kBFloat16};
  r.add(KernelDef{"com.microsoft",
                  "MatMulNBits",
                  1,
                  kOpsetMax,
                  {{"T1", {0, 2, 5}, t1},
                   {"T2", {1}, {DT::kUInt8}},
                   {"T3", {3}, join({{DT::kUInt8}, t1})},
                   {"T4", {4}, {DT::kInt32}}}},
        float_or_half_via_float(make_matmul_nbits));
  // Its block-quantized embedding tables (language models).
  r.add(KernelDef{"com.microsoft",
                  "GatherBlockQuantized",
                  1,
                  kOpsetMax,
                  {{"T1", {0, 3}, {DT::kUInt8, DT::kInt4, DT::kUInt4}},
                   {"Tind", {1}, {DT::kInt32, DT::kInt64}},
                   {"T2", {2}, t1}}},
        make_gather_block_quantized);
  // The optimizer's 8-bit map of DequantizeLinear -> [Relu | Clip] -> QuantizeLinear.
  r.add(
      KernelDef{"com.tessera", "QuantizedLookup", 1, kOpsetMax, {{"T1", {0}, k8}, {"T2", {1}, k8}}},
      make_quantized_lookup);
  // The optimizer's residual join DequantizeLinear -> Add -> [Relu] -> [QuantizeLinear].
  r.add(KernelDef{"com.tessera",
                  "DequantizeAdd",
                  1,
                  kOpsetMax,
                  {{"T1", {0, 2}, k8}, {"T2", {3}, join({{DT::kFloat}, k8})}}},
        make_dequantize_add);
  r.add(KernelDef{"", "ConvInteger", 10, kOpsetMax, {{"T1", {0, 2}, k8}, {"T2", {1, 3}, k8}}},
        make_conv_integer);
  r.add(KernelDef{"",
                  "QLinearConv",
                  10,
                  kOpsetMax,
                  {{"T1", {0, 2}, k8},
                   {"T2", {3, 5}, k8},
                   {"T3", {7}, k8},
                   {"T4", {8}, {DT::kInt32}},
                   {"S", {1, 4, 6}, {DT::kFloat}}}},
        make_qlinear_conv);
  r.add(KernelDef{"",
                  "QLinearMatMul",
                  10,
                  20,
                  {{"T1", {0, 2}, k8},
                   {"T2", {3, 5}, k8},
                   {"T3", {7}, k8},
                   {"S", {1, 4, 6}, {DT::kFloat}}}},
        make_qlinear_matmul);
  std::vector<DT> q21 = join({k8, kF8});
  r.add(KernelDef{"",
                  "QLinearMatMul",
                  21,
                  kOpsetMax,
                  {{"T1", {0, 2}, q21},
                   {"T2", {3, 5}, q21},
                   {"T3", {7}, q21},
                   {"TS", {1, 4, 6}, kHalfFloats}}},
        make_qlinear_matmul);
}

}  // namespace tessera::cpu
