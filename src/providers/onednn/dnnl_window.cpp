#include "providers/onednn/dnnl_window.hpp"

#include <algorithm>

namespace tessera::onednn {

WindowAttrs WindowAttrs::read(const ep::KernelInfo& info) {
  WindowAttrs a;
  a.auto_pad = info.attr_string("auto_pad", "NOTSET");
  a.strides = info.attr_ints("strides");
  a.dilations = info.attr_ints("dilations");
  a.pads = info.attr_ints("pads");
  a.ceil_mode = info.attr_int("ceil_mode", 0) != 0;
  return a;
}

WindowGeometry window_geometry(const WindowAttrs& a, const std::vector<int64_t>& in,
                               const ep::KernelContext& ctx) {
  const size_t n = in.size();
  WindowGeometry g;
  g.out.resize(n);
  g.pad_l.resize(n);
  g.pad_r.resize(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t k = a.kernel[i];
    int64_t s = a.strides.empty() ? 1 : a.strides[i];
    int64_t d = a.dilations.empty() ? 1 : a.dilations[i];
    int64_t range = (k - 1) * d + 1;
    int64_t pl = 0, pr = 0, out = 0;
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      out = (in[i] + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + range - in[i]);
      pl = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pr = total - pl;
    } else {
      if (a.auto_pad != "VALID" && !a.pads.empty()) {
        pl = a.pads[i];
        pr = a.pads[i + n];
      }
      int64_t span = in[i] + pl + pr - range;
      if (span < 0)
        ctx.fail_node("window of ", range, " (kernel ", k, ", dilation ", d,
                      ") is larger than the padded input (", in[i], " + ", pl, " + ", pr,
                      ") on spatial axis ", i);
      out = (a.ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // A ceil-mode window must start inside the input or its begin padding.
      if (a.ceil_mode && (out - 1) * s >= in[i] + pl) --out;
    }
    // oneDNN derives the output size from the padding, so the end padding
    // must cover the last window exactly (more than `pr` in ceil mode).
    g.pad_r[i] = std::max(pr, (out - 1) * s + range - in[i] - pl);
    g.pad_l[i] = pl;
    g.out[i] = out;
  }
  return g;
}

std::string check_window_attrs(const std::string& auto_pad, const std::vector<int64_t>& strides,
                               const std::vector<int64_t>& dilations,
                               const std::vector<int64_t>& pads, size_t spatial) {
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    return "auto_pad '" + auto_pad + "' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER";
  if (!strides.empty() && strides.size() != spatial) return "strides do not match the rank";
  if (!dilations.empty() && dilations.size() != spatial) return "dilations do not match the rank";
  if (!pads.empty() && pads.size() != 2 * spatial) return "pads do not match the rank";
  for (int64_t s : strides)
    if (s < 1) return "strides must be positive";
  for (int64_t d : dilations)
    if (d < 1) return "dilations must be positive";
  for (int64_t p : pads)
    if (p < 0) return "negative pads are not supported by oneDNN";
  return "";
}

}  // namespace tessera::onednn
