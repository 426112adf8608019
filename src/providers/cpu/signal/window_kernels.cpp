// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix: generators
// whose output type comes from the output_datatype attribute.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "providers/cpu/element_convert.hpp"
#include "providers/cpu/signal/signal_kernels.hpp"

namespace tessera::cpu::signal {

namespace {

const std::vector<DataType>& numeric_out_types() {
  static const std::vector<DataType> t = ep::types::join({ep::types::kInts, ep::types::kFloats});
  return t;
}

DataType output_datatype(const ep::KernelInfo& info) {
  int64_t d = info.attr_int("output_datatype", int64_t(DataType::kFloat));
  const auto& allowed = numeric_out_types();
  if (d <= 0 || !is_valid_data_type(int32_t(d)) ||
      std::find(allowed.begin(), allowed.end(), static_cast<DataType>(d)) == allowed.end())
    info.fail_node("output_datatype ", d, " is not a numeric data type");
  return static_cast<DataType>(d);
}

int64_t scalar_int(const ep::KernelContext& ctx, size_t i, const char* what) {
  const Tensor& t = ctx.required_input(i);
  if (t.num_elements() != 1) ctx.fail_node(what, " must be a scalar, got ", t.description());
  return t.element_as_int64(0);
}

template <typename Fn>
void fill_double(ep::KernelContext& ctx, Tensor& out, Fn&& value_at) {
  bool ok = dispatch_real(out.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* p = out.mutable_data<T>();
    for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = from_double<T>(value_at(i));
  });
  if (!ok) ctx.fail_node("cannot produce ", data_type_name(out.dtype()), " values");
}

enum class Window { kHann, kHamming, kBlackman };

template <Window W>
class WindowKernel : public ep::OpKernel {
 public:
  explicit WindowKernel(const ep::KernelInfo& info)
      : dtype_(output_datatype(info)), periodic_(info.attr_int("periodic", 1) != 0) {}

  void compute(ep::KernelContext& ctx) const override {
    int64_t size = scalar_int(ctx, 0, "size");
    if (size < 0) ctx.fail_node("size must be >= 0, got ", size);
    Tensor& y = ctx.output(0, Shape{size}, dtype_);
    // A periodic window is the first `size` points of a symmetric one of size+1.
    double denom = double(periodic_ ? size : size - 1);
    fill_double(ctx, y, [&](int64_t i) {
      if (denom <= 0) return 1.0;
      double t = 2.0 * std::numbers::pi * double(i) / denom;
      switch (W) {
        case Window::kHann:
          return 0.5 - 0.5 * std::cos(t);
        case Window::kHamming:
          return 25.0 / 46.0 - (21.0 / 46.0) * std::cos(t);
        case Window::kBlackman:
          return 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t);
      }
      return 0.0;
    });
  }

 private:
  DataType dtype_;
  bool periodic_;
};

// Triangular filters on the mel scale, following the spec's reference:
// num_mel_bins + 2 edge points evenly spaced in mel, mapped to spectrogram
// bins by floor((dft_length + 1) * hz / sample_rate).
class MelWeightMatrixKernel : public ep::OpKernel {
 public:
  explicit MelWeightMatrixKernel(const ep::KernelInfo& info) : dtype_(output_datatype(info)) {}

  void compute(ep::KernelContext& ctx) const override {
    int64_t mels = scalar_int(ctx, 0, "num_mel_bins");
    int64_t dft_length = scalar_int(ctx, 1, "dft_length");
    int64_t rate = scalar_int(ctx, 2, "sample_rate");
    const Tensor& lo_t = ctx.required_input(3);
    const Tensor& hi_t = ctx.required_input(4);
    if (lo_t.num_elements() != 1 || hi_t.num_elements() != 1)
      ctx.fail_node("lower_edge_hertz and upper_edge_hertz must be scalars, got ",
                    lo_t.description(), " and ", hi_t.description());
    double lo = lo_t.element_as_double(0), hi = hi_t.element_as_double(0);
    if (mels <= 0 || dft_length <= 0 || rate <= 0)
      ctx.fail_node("num_mel_bins (", mels, "), dft_length (", dft_length, ") and sample_rate (",
                    rate, ") must be positive");
    if (!(lo >= 0 && lo <= hi))
      ctx.fail_node("need 0 <= lower_edge_hertz <= upper_edge_hertz, got ", lo, " and ", hi);
    int64_t bins = dft_length / 2 + 1;
    // The output first: sizes too large to hold fail there, naming them,
    // before the tables below (mels + 2 edges, bins x mels weights) are sized.
    Tensor& y = ctx.output(0, Shape{bins, mels}, dtype_);
    auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
    double lo_mel = to_mel(lo), step = (to_mel(hi) - lo_mel) / double(mels + 2);
    std::vector<int64_t> edge(size_t(mels + 2));
    for (int64_t i = 0; i < mels + 2; ++i) {
      double hz = 700.0 * (std::pow(10.0, (double(i) * step + lo_mel) / 2595.0) - 1.0);
      double e = std::floor(double(dft_length + 1) * hz / double(rate));
      if (!(e < 0x1p62))
        ctx.fail_node("upper_edge_hertz ", hi, " is too large for sample_rate ", rate);
      edge[size_t(i)] = int64_t(e);
    }
    std::vector<double> w(size_t(bins * mels), 0.0);
    auto set = [&](int64_t j, int64_t i, double v) {
      if (j >= 0 && j < bins) w[size_t(j * mels + i)] = v;
    };
    for (int64_t i = 0; i < mels; ++i) {
      int64_t l = edge[size_t(i)], c = edge[size_t(i + 1)], r = edge[size_t(i + 2)];
      if (c == l)
        set(c, i, 1.0);
      else
        // Only bins [0, bins) are stored: a huge edge must not mean a huge loop.
        for (int64_t j = std::max<int64_t>(l, 0); j <= std::min(c, bins - 1); ++j)
          set(j, i, double(j - l) / double(c - l));
      if (r > c)
        for (int64_t j = std::max<int64_t>(c, 0); j < std::min(r, bins); ++j)
          set(j, i, double(r - j) / double(r - c));
    }
    fill_double(ctx, y, [&](int64_t k) { return w[size_t(k)]; });
  }

 private:
  DataType dtype_;
};

}  // namespace

void register_windows(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  const std::vector<DataType> kIdx = {DataType::kInt32, DataType::kInt64};
  r.add<WindowKernel<Window::kHann>>(
      {"", "HannWindow", 17, ep::kOpsetMax, {TypeConstraint{"T1", {0}, kIdx}}});
  r.add<WindowKernel<Window::kHamming>>(
      {"", "HammingWindow", 17, ep::kOpsetMax, {TypeConstraint{"T1", {0}, kIdx}}});
  r.add<WindowKernel<Window::kBlackman>>(
      {"", "BlackmanWindow", 17, ep::kOpsetMax, {TypeConstraint{"T1", {0}, kIdx}}});
  r.add<MelWeightMatrixKernel>(
      {"",
       "MelWeightMatrix",
       17,
       ep::kOpsetMax,
       {TypeConstraint{"T1", {0, 1, 2}, kIdx}, TypeConstraint{"T2", {3, 4}, ep::types::kFloats}}});
}

}  // namespace tessera::cpu::signal
