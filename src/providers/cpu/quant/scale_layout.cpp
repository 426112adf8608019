#include "providers/cpu/quant/scale_layout.hpp"

namespace tessera::cpu {

ScaleLayout::ScaleLayout(const ep::KernelContext& ctx, const Shape& x, const Shape& scale,
                         int64_t axis, int64_t block_size) {
  const int64_t r = int64_t(x.rank());
  const int64_t n = scale.num_elements();
  if (block_size <= 0 && (scale.rank() == 0 || (n == 1 && scale.rank() == 1 && r <= 1))) {
    kind_ = kTensor;
    return;
  }
  if (block_size <= 0 && scale.rank() == 1 && n == 1 && r >= 1) {
    // A one-element 1-D scale is per-tensor unless the axis really has size 1.
    kind_ = kTensor;
    return;
  }
  if (r == 0) ctx.fail_node("scale ", scale.to_string(), " is not a scalar but x is a scalar");
  if (axis < -r || axis >= r)
    ctx.fail_node("axis ", axis, " out of range for x of shape ", x.to_string());
  if (axis < 0) axis += r;
  dim_ = x[size_t(axis)];
  inner_ = x.size_from(size_t(axis) + 1);
  if (block_size <= 0) {
    if (scale.rank() != 1 || scale[0] != dim_)
      ctx.fail_node("per-axis scale must be 1-D of length ", dim_, " (x ", x.to_string(), ", axis ",
                    axis, "), got ", scale.to_string());
    kind_ = kAxis;
    return;
  }
  kind_ = kBlocked;
  block_ = block_size;
  blocks_ = (dim_ + block_ - 1) / block_;
  bool ok = scale.rank() == x.rank();
  for (size_t d = 0; ok && d < x.rank(); ++d)
    ok = int64_t(d) == axis ? scale[d] == blocks_ : scale[d] == x[d];
  if (!ok)
    ctx.fail_node("blocked scale shape ", scale.to_string(), " does not match x ", x.to_string(),
                  " with axis ", axis, " and block_size ", block_size);
}

}  // namespace tessera::cpu
