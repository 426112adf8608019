#include "providers/cpu/quant/qlinear_conv_rows.hpp"

#include "core/quant_types.hpp"
#include "linalg/igemm_kernel.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu {

namespace {

// The values of constant input i as doubles, or {} (absent: `absent`).
bool constant_values(const ep::KernelInfo& info, size_t i, std::vector<double> absent,
                     std::vector<double>* out) {
  if (!info.has_input(i)) {
    *out = std::move(absent);
    return true;
  }
  const Tensor* t = info.constant_input(i);
  if (!t) return false;
  *out = read_as<double>(*t);
  return true;
}

// Whether every run will take the path: the scales, zero points and bias
// are constants of the shapes QLinearConv allows, and the in-register
// requantization accepts them (see linalg::igemm_conv_requantize_fits).
bool always_taken(const ep::KernelInfo& info, int64_t M, int64_t K) {
  std::vector<double> xs, xz, ws, wz, ys, bias;
  if (!constant_values(info, 1, {}, &xs) || !constant_values(info, 2, {0.0}, &xz) ||
      !constant_values(info, 4, {}, &ws) || !constant_values(info, 5, {0.0}, &wz) ||
      !constant_values(info, 6, {}, &ys) || !constant_values(info, 8, {}, &bias))
    return false;
  auto per_channel = [&](const std::vector<double>& v) {
    return v.size() == 1 || int64_t(v.size()) == M;
  };
  if (xs.size() != 1 || xz.size() != 1 || ys.size() != 1 || !per_channel(ws) || !per_channel(wz))
    return false;
  if (info.has_input(8) && (info.input_type(8) != DataType::kInt32 || int64_t(bias.size()) != M))
    return false;
  std::vector<int32_t> wz32, bias32(bias.begin(), bias.end());
  for (double v : wz) wz32.push_back(int32_t(v));
  const std::vector<float> mult = qlinear_conv_multipliers(xs[0], ws, M);
  linalg::ConvRequantize out;
  out.bias = bias32.empty() ? nullptr : bias32.data();
  out.mult = mult.data();
  out.y_scale = float(ys[0]);
  return linalg::igemm_conv_requantize_fits(K, M, {wz32.data(), int64_t(wz32.size())}, out);
}

}  // namespace

std::vector<float> qlinear_conv_multipliers(double x_scale, const std::vector<double>& w_scale,
                                            int64_t M) {
  std::vector<float> mult(static_cast<size_t>(M));
  for (int64_t m = 0; m < M; ++m)
    mult[size_t(m)] = float(x_scale) * float(w_scale.size() == 1 ? w_scale[0] : w_scale[size_t(m)]);
  return mult;
}

QLinearConvRows plan_qlinear_conv_rows(const ep::KernelInfo& info, int64_t group,
                                       const std::vector<int64_t>& strides,
                                       const std::vector<int64_t>& dilations,
                                       const std::vector<int64_t>& pads,
                                       const std::string& auto_pad) {
  QLinearConvRows plan;
  const Tensor* w = info.num_inputs() > 3 ? info.constant_input(3) : nullptr;
  if (!w || w->rank() != 4 || group != 1 || !is_8bit_integer_type(w->dtype()) ||
      !is_8bit_integer_type(info.input_type(0)) || !is_8bit_integer_type(info.input_type(7)))
    return plan;
  const int64_t M = w->shape()[0], C = w->shape()[1], kh = w->shape()[2], kw = w->shape()[3];
  auto at = [](const std::vector<int64_t>& v, size_t i) { return v.size() > i ? v[i] : 1; };
  const linalg::ConvShape probe{
      C, 0, 0, M, kh, kw, at(strides, 0), at(strides, 1), at(dilations, 0), at(dilations, 1),
      0, 0, 0, 0};
  if (!linalg::igemm_conv_fits(probe) || M <= 0) return plan;
  // (A 1x1 window at stride 1 has no padding under SAME_* either.)
  bool no_pads = true;
  for (int64_t p : pads) no_pads = no_pads && (p == 0 || auto_pad != "NOTSET");
  // A 1x1 layer at stride 1 (the shape of its input is not known at
  // creation): only with 256 input channels or more. Against the
  // filters-by-image product, which packs such an image at little cost,
  // the row path wins by 15-45% on planes of 14 x 14 and 7 x 7 and is
  // within 0-10% on larger ones at that depth; with fewer input channels
  // it loses up to 20% on large planes (bench/microbench: BM_IgemmConv
  // against BM_IgemmRequant).
  if (kh == 1 && kw == 1 && probe.stride_h == 1 && probe.stride_w == 1 && no_pads && C < 256)
    return plan;
  plan.filters = info.prepacked<linalg::PackedConvFilters>(3, "cpu.igemm.conv_rows", {}, [&] {
    return linalg::PackedConvFilters(w->raw_data(), w->dtype() == DataType::kInt8, M, C, kh, kw);
  });
  plan.always = always_taken(info, M, C * kh * kw);
  return plan;
}

}  // namespace tessera::cpu
