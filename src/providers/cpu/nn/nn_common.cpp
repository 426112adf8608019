#include "providers/cpu/nn/nn_common.hpp"

#include <algorithm>

#include "ops/window.hpp"

namespace tessera::cpu::nn {

std::string dims_str(const std::vector<int64_t>& d) { return Shape(d).to_string(); }

void WindowAttrs::parse(const ep::KernelInfo& info, bool pool) {
  auto_pad = info.attr_string("auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID")
    info.fail_node("auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got '", auto_pad,
                   "'");
  kernel = info.attr_ints("kernel_shape");
  strides = info.attr_ints("strides");
  pads = info.attr_ints("pads");
  dilations = info.attr_ints("dilations");
  if (pool) ceil_mode = info.attr_int("ceil_mode", 0) != 0;
  for (int64_t s : strides)
    if (s <= 0) info.fail_node("strides must be positive, got ", dims_str(strides));
  for (int64_t d : dilations)
    if (d <= 0) info.fail_node("dilations must be positive, got ", dims_str(dilations));
  for (int64_t k : kernel)
    if (k <= 0) info.fail_node("kernel_shape must be positive, got ", dims_str(kernel));
  for (int64_t p : pads)
    if (p < 0) info.fail_node("pads must be non-negative, got ", dims_str(pads));
  // Kernels keep padded copies of their planes, sized from these: values
  // past 2^31 (a 2^61 pad with a 2^62 stride overflowed those sizes and
  // crashed Conv) describe no real window.
  auto bounded = [&](const char* what, const std::vector<int64_t>& v) {
    for (int64_t x : v)
      if (x > kMaxWindowValue)
        info.fail_node(what, " ", dims_str(v), " holds a value above ", kMaxWindowValue);
  };
  bounded("kernel_shape", kernel);
  bounded("strides", strides);
  bounded("pads", pads);
  bounded("dilations", dilations);
}

void check_padded_extent(const ep::KernelContext& ctx, const std::vector<int64_t>& in,
                         const std::vector<int64_t>& pads_begin,
                         const std::vector<int64_t>& pads_end,
                         const std::vector<int64_t>& strides) {
  int64_t positions = 1;
  bool over = false;
  for (size_t i = 0; i < in.size(); ++i) {
    // (Each term is below 2^62: the dims are a tensor's, the rest bounded
    // by WindowAttrs::parse. The stride covers ceil_mode's last window.)
    const int64_t extent = in[i] + pads_begin[i] + pads_end[i] + strides[i];
    over = over || __builtin_mul_overflow(positions, extent, &positions) ||
           positions > kMaxPaddedPositions;
  }
  if (over)
    ctx.fail_node("pads ", dims_str(pads_begin), " + ", dims_str(pads_end), " and strides ",
                  dims_str(strides), " make the padded input ", dims_str(in),
                  " larger than 2^40 positions a plane");
}

int64_t Window::in_size() const { return Shape(in).num_elements(); }
int64_t Window::out_size() const { return Shape(out).num_elements(); }
int64_t Window::kernel_size() const { return Shape(kernel).num_elements(); }

Window resolve_window(const ep::KernelContext& ctx, const WindowAttrs& a,
                      const std::vector<int64_t>& in, const std::vector<int64_t>& kernel) {
  const size_t r = in.size();
  Window w;
  w.in = in;
  w.kernel = kernel;
  if (kernel.size() != r)
    ctx.fail_node("kernel_shape ", dims_str(kernel), " has ", kernel.size(),
                  " dims but the input has ", r, " spatial dims ", dims_str(in));
  w.strides = a.strides.empty() ? std::vector<int64_t>(r, 1) : a.strides;
  w.dilations = a.dilations.empty() ? std::vector<int64_t>(r, 1) : a.dilations;
  if (w.strides.size() != r) ctx.fail_node("strides ", dims_str(w.strides), " need ", r, " values");
  if (w.dilations.size() != r)
    ctx.fail_node("dilations ", dims_str(w.dilations), " need ", r, " values");
  if (a.auto_pad == "NOTSET" && !a.pads.empty() && a.pads.size() != 2 * r)
    ctx.fail_node("pads ", dims_str(a.pads), " need ", 2 * r, " values for ", r, " spatial dims");
  ops::WindowSpec spec{a.auto_pad, kernel, w.strides, w.dilations, a.pads, a.ceil_mode};
  ops::WindowDims d;
  try {
    d = ops::window_dims(in, spec);
  } catch (const Error& e) {
    ctx.fail_node(e.what());
  }
  w.out = std::move(d.out);
  w.pads_begin = std::move(d.pads_begin);
  w.pads_end = std::move(d.pads_end);
  check_padded_extent(ctx, w.in, w.pads_begin, w.pads_end, w.strides);
  return w;
}

}  // namespace tessera::cpu::nn
