// CenterCropPad (opset 18): crops or zero-pads each listed axis to the target
// size around the centre. A byte-wise copy, so every fixed-size type works.
#include <cstring>
#include <string>

#include "providers/cpu/vision/vision_kernels.hpp"

namespace tessera::cpu {

namespace {

class CenterCropPadKernel : public ep::OpKernel {
 public:
  explicit CenterCropPadKernel(const ep::KernelInfo& info) : axes_(info.attr_ints("axes")) {}

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    auto target = ctx.required_input(1).to_int64_vector();
    const int64_t r = int64_t(x.rank());
    std::vector<int64_t> axes = axes_;
    if (axes.empty())
      for (int64_t i = 0; i < r; ++i) axes.push_back(i);
    if (target.size() != axes.size())
      ctx.fail_node("shape has ", target.size(), " entries for ", axes.size(), " axes (input ",
                    x.shape().to_string(), ")");
    std::vector<int64_t> od = x.shape().dims(), src_start(size_t(r), 0), dst_start(size_t(r), 0);
    std::vector<bool> seen(size_t(r), false);
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t a = axes[k];
      if (a < -r || a >= r) ctx.fail_node("axis ", a, " out of range for rank ", r);
      if (a < 0) a += r;
      if (seen[size_t(a)]) ctx.fail_node("axis ", a, " listed twice");
      seen[size_t(a)] = true;
      int64_t dim = x.shape()[size_t(a)], t = target[k];
      if (t < 0) ctx.fail_node("negative target size ", t, " for axis ", a);
      if (t < dim) src_start[size_t(a)] = (dim - t) / 2;
      else dst_start[size_t(a)] = (t - dim) / 2;
      od[size_t(a)] = t;
    }
    Shape out_shape(od);
    Tensor& y = ctx.output(0, out_shape, x.dtype());
    const DataType t = x.dtype();
    if (is_sub_byte_type(t)) ctx.fail_node("sub-byte element types are not supported");
    const bool str = t == DataType::kString;
    const size_t es = str ? sizeof(std::string) : size_t(data_type_bits(t) / 8);
    if (!str) std::memset(y.mutable_raw_data(), 0, y.byte_size());
    // Copy the overlap region row by row (innermost dimension contiguous).
    std::vector<int64_t> copy(static_cast<size_t>(r));
    int64_t rows = 1;
    for (int64_t d = 0; d < r; ++d) {
      copy[size_t(d)] = std::min(x.shape()[size_t(d)], od[size_t(d)]);
      if (d + 1 < r) rows *= copy[size_t(d)];
    }
    if (out_shape.num_elements() == 0 || x.num_elements() == 0) return;
    const int64_t inner = r > 0 ? copy[size_t(r - 1)] : 1;
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(y.mutable_raw_data());
    for (int64_t row = 0; row < rows; ++row) {
      int64_t so = 0, doff = 0;
      std::vector<int64_t> idx(size_t(r), 0);
      for (int64_t rem = row, d = r - 2; d >= 0; --d) {
        idx[size_t(d)] = rem % copy[size_t(d)];
        rem /= copy[size_t(d)];
      }
      for (int64_t d = 0; d < r; ++d) {
        so = so * x.shape()[size_t(d)] + idx[size_t(d)] + src_start[size_t(d)];
        doff = doff * od[size_t(d)] + idx[size_t(d)] + dst_start[size_t(d)];
      }
      if (str) {
        auto* s = reinterpret_cast<const std::string*>(src) + so;
        auto* o = reinterpret_cast<std::string*>(dst) + doff;
        for (int64_t i = 0; i < inner; ++i) o[i] = s[i];
      } else {
        std::memcpy(dst + size_t(doff) * es, src + size_t(so) * es, size_t(inner) * es);
      }
    }
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_center_crop_pad(const ep::KernelInfo& info) {
  return std::make_unique<CenterCropPadKernel>(info);
}

}  // namespace tessera::cpu
