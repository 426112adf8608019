// RoiAlign (10+) on the device: avg or max, output_half_pixel (opset 10's
// only form) or half_pixel, fixed or adaptive sampling; float, float16,
// bfloat16 and double, computed in float as the CPU provider does. Batch
// indices and box coordinates are checked on the device and reported when
// the run next waits for its stream.
#include "providers/cuda/cuda_call.hpp"
#include "providers/cuda/cuda_index_ops.hpp"
#include "providers/cuda/roi_align_launch.hpp"

namespace tessera::cuda {

namespace {

constexpr int64_t kMaxSamplingRatio = 1 << 16;

class CudaRoiAlign : public CudaKernel {
 public:
  CudaRoiAlign(const ep::KernelInfo& info, const EnvPtr& env) : CudaKernel(env) {
    const std::string mode = info.attr_string("mode", "avg");
    const std::string ctm = info.attr_string("coordinate_transformation_mode", "half_pixel");
    if (mode != "avg" && mode != "max") info.fail_node("mode must be avg or max, got '", mode, "'");
    if (info.opset() >= 16 && ctm != "half_pixel" && ctm != "output_half_pixel")
      info.fail_node("unknown coordinate_transformation_mode '", ctm, "'");
    params_.half_pixel = info.opset() >= 16 && ctm == "half_pixel";
    params_.max = mode == "max";
    params_.out_h = info.attr_int("output_height", 1);
    params_.out_w = info.attr_int("output_width", 1);
    params_.sampling_ratio = info.attr_int("sampling_ratio", 0);
    params_.spatial_scale = info.attr_float("spatial_scale", 1.0f);
    if (params_.out_h < 1 || params_.out_w < 1 || params_.sampling_ratio < 0 ||
        params_.sampling_ratio > kMaxSamplingRatio)
      info.fail_node("output_height/output_width must be >= 1 and sampling_ratio in [0, ",
                     kMaxSamplingRatio, "]");
  }
  void run(ep::KernelContext& ctx, cudaStream_t stream, Scratch& scratch) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& rois = ctx.required_input(1);
    const Tensor& bidx = ctx.required_input(2);
    const auto type = num_type_of(x.dtype());
    if (!type || !is_float_type(x.dtype()) || rois.dtype() != x.dtype())
      ctx.fail_node("X and rois must share a float type, got ", x.description(), " and ",
                    rois.description());
    if (x.rank() != 4) ctx.fail_node("X must be 4-D (N, C, H, W), got ", x.shape().to_string());
    if (rois.rank() != 2 || rois.shape()[1] != 4)
      ctx.fail_node("rois must be [num_rois, 4], got ", rois.shape().to_string());
    const int64_t num_rois = rois.shape()[0];
    if (bidx.dtype() != DataType::kInt64 || bidx.rank() != 1 || bidx.shape()[0] != num_rois)
      ctx.fail_node("batch_indices must be int64 [", num_rois, "], got ", bidx.description());
    RoiAlignParams p = params_;
    p.batch = x.shape()[0];
    p.channels = x.shape()[1];
    p.height = x.shape()[2];
    p.width = x.shape()[3];
    Tensor& y = ctx.output(0, Shape{num_rois, p.channels, p.out_h, p.out_w}, x.dtype());
    if (y.num_elements() == 0) return;
    IndexError* bad_index = deferred_index_check(ctx, stream, scratch, "batch_indices", false);
    auto* bad_box = static_cast<IndexError*>(scratch.lasting_bytes(sizeof(IndexError)));
    check_cuda(cudaMemsetAsync(bad_box, 0, sizeof(IndexError), stream),
               "cudaMemsetAsync (RoiAlign's box error flag)");
    scratch.defer_check([bad_box, scale = p.spatial_scale, node = ctx.node().describe()] {
      IndexError found{};
      check_cuda(cudaMemcpy(&found, bad_box, sizeof(IndexError), cudaMemcpyDeviceToHost),
                 "cudaMemcpy (reading RoiAlign's box error flag)");
      if (found.flag != 0)
        fail(ErrorCode::kInvalidArgument, node, ": rois[", found.index,
             "] has a coordinate that is not finite or (times spatial_scale ", scale,
             ") beyond 2^24");
    });
    check_cuda(launch_roi_align(*type, x.raw_data(), rois.raw_data(), bidx.data<int64_t>(),
                                y.mutable_raw_data(), num_rois, p, bad_index, bad_box, stream),
               "launch of the RoiAlign kernel");
  }

 private:
  RoiAlignParams params_;
};

std::string check_roi_align(const ep::ClaimQuery& q) {
  if (auto r = q.rank(0); r && *r != 4) return str_cat("X of rank ", *r, " (needs 4)");
  const std::string mode = q.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") return str_cat("unknown mode '", mode, "'");
  const std::string ctm = q.attr_string("coordinate_transformation_mode", "half_pixel");
  if (q.opset() >= 16 && ctm != "half_pixel" && ctm != "output_half_pixel")
    return str_cat("unknown coordinate_transformation_mode '", ctm, "'");
  const int64_t ratio = q.attr_int("sampling_ratio", 0);
  if (q.attr_int("output_height", 1) < 1 || q.attr_int("output_width", 1) < 1 || ratio < 0 ||
      ratio > kMaxSamplingRatio)
    return "output_height/output_width below 1 or sampling_ratio outside [0, 65536]";
  return "";
}

}  // namespace

void register_cuda_roi_align(CudaOpTable& t) {
  const ep::TypeConstraint t1{
      "T1", {0, 1}, {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kDouble}};
  const ep::TypeConstraint t2{"T2", {2}, {DataType::kInt64}};
  t.add<CudaRoiAlign>({"", "RoiAlign", 10, ep::kOpsetMax, {t1, t2}}, check_roi_align);
}

}  // namespace tessera::cuda
