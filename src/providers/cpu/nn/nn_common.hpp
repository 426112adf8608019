// Shared helpers for the nn/ kernels: float-family dispatch (float16 and
// bfloat16 are computed in float through conversion buffers, double in
// double) and the window geometry that Conv, ConvTranspose and the pools share.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "ep/kernel.hpp"
#include "linalg/half_convert.hpp"

namespace tessera::cpu::nn {

// The element type computations run in: double for double, float otherwise.
template <typename C>
struct ComputeInput {
  const C* data = nullptr;
  std::vector<C> store;
};

// Views a float/double tensor as C (zero-copy when the types match) or
// converts float16/bfloat16 into a buffer (vector conversions into float).
template <typename C>
const C* to_compute(const Tensor& t, std::vector<C>& store) {
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DataType::kFloat:
      if constexpr (std::is_same_v<C, float>) return t.data<float>();
      break;
    case DataType::kDouble:
      if constexpr (std::is_same_v<C, double>) return t.data<double>();
      break;
    default:
      break;
  }
  store.resize(size_t(n));
  switch (t.dtype()) {
    case DataType::kFloat: {
      const float* p = t.data<float>();
      for (int64_t i = 0; i < n; ++i) store[size_t(i)] = C(p[i]);
      break;
    }
    case DataType::kDouble: {
      const double* p = t.data<double>();
      for (int64_t i = 0; i < n; ++i) store[size_t(i)] = C(p[i]);
      break;
    }
    case DataType::kFloat16: {
      const auto* h = static_cast<const uint16_t*>(t.raw_data());
      if constexpr (std::is_same_v<C, float>) {
        linalg::halves_to_floats(h, store.data(), n);
      } else {
        for (int64_t i = 0; i < n; ++i) store[size_t(i)] = C(Float16::to_float(h[i]));
      }
      break;
    }
    case DataType::kBFloat16: {
      const auto* h = static_cast<const uint16_t*>(t.raw_data());
      if constexpr (std::is_same_v<C, float>) {
        linalg::bfloats_to_floats(h, store.data(), n);
      } else {
        for (int64_t i = 0; i < n; ++i) store[size_t(i)] = C(float(BFloat16::from_bits(h[i])));
      }
      break;
    }
    default:
      fail(ErrorCode::kInvalidArgument, "nn kernel: unsupported element type ",
           data_type_name(t.dtype()), " for ", t.description());
  }
  return store.data();
}

// Destination for results in C: writes in place for float/double outputs,
// or into a buffer converted by finish() for float16/bfloat16.
template <typename C>
class ComputeOutput {
 public:
  explicit ComputeOutput(Tensor& t) : t_(t) {
    if (t.dtype() == data_type_of<C>()) {
      p_ = t.mutable_data<C>();
    } else {
      store_.resize(size_t(t.num_elements()));
      p_ = store_.data();
    }
  }
  C* data() { return p_; }
  void finish() {
    if (store_.empty()) return;
    const int64_t n = t_.num_elements();
    switch (t_.dtype()) {
      case DataType::kFloat16: {
        auto* d = static_cast<uint16_t*>(t_.mutable_raw_data());
        if constexpr (std::is_same_v<C, float>) {
          linalg::floats_to_halves(store_.data(), d, n);
        } else {
          for (int64_t i = 0; i < n; ++i) d[i] = Float16::from_float(float(store_[size_t(i)]));
        }
        break;
      }
      case DataType::kBFloat16: {
        auto* d = static_cast<uint16_t*>(t_.mutable_raw_data());
        if constexpr (std::is_same_v<C, float>) {
          linalg::floats_to_bfloats(store_.data(), d, n);
        } else {
          for (int64_t i = 0; i < n; ++i) d[i] = BFloat16::from_float(float(store_[size_t(i)]));
        }
        break;
      }
      case DataType::kFloat: {
        float* d = t_.mutable_data<float>();
        for (int64_t i = 0; i < n; ++i) d[i] = float(store_[size_t(i)]);
        break;
      }
      case DataType::kDouble: {
        double* d = t_.mutable_data<double>();
        for (int64_t i = 0; i < n; ++i) d[i] = double(store_[size_t(i)]);
        break;
      }
      default:
        fail(ErrorCode::kInvalidArgument, "nn kernel: unsupported output type ",
             data_type_name(t_.dtype()));
    }
  }

 private:
  Tensor& t_;
  C* p_ = nullptr;
  std::vector<C> store_;
};

// Calls fn.template operator()<C>() with C = double for double, float for the
// other float types.
template <typename Fn>
void dispatch_compute(DataType t, Fn&& fn) {
  if (t == DataType::kDouble)
    fn.template operator()<double>();
  else
    fn.template operator()<float>();
}

// Attributes of a sliding window (Conv, ConvTranspose, pools).
// The largest kernel_shape, strides, pads or dilations value a window takes.
inline constexpr int64_t kMaxWindowValue = (int64_t(1) << 31) - 1;
// The most positions a padded input plane may span (kernels copy planes
// with their padding; past this a size could overflow).
inline constexpr int64_t kMaxPaddedPositions = int64_t(1) << 40;

struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, pads, dilations;
  bool ceil_mode = false;

  // Reads auto_pad/kernel_shape/strides/pads/dilations (ceil_mode if `pool`).
  void parse(const ep::KernelInfo& info, bool pool);
};

// Resolved geometry for one input shape.
struct Window {
  std::vector<int64_t> in, out, kernel, strides, pads_begin, pads_end, dilations;
  size_t rank() const { return in.size(); }
  int64_t in_size() const;
  int64_t out_size() const;
  int64_t kernel_size() const;
};

// Computes output sizes and explicit pads for spatial dims `in`, with
// `kernel` (already inferred for Conv) and the pooling rule for ceil_mode.
// Errors name the node and the shapes.
Window resolve_window(const ep::KernelContext& ctx, const WindowAttrs& a,
                      const std::vector<int64_t>& in, const std::vector<int64_t>& kernel);

// Fails unless the spatial dims `in`, padded (and one stride further, for
// ceil_mode's last window), span at most kMaxPaddedPositions positions.
void check_padded_extent(const ep::KernelContext& ctx, const std::vector<int64_t>& in,
                         const std::vector<int64_t>& pads_begin,
                         const std::vector<int64_t>& pads_end, const std::vector<int64_t>& strides);

std::string dims_str(const std::vector<int64_t>& d);

}  // namespace tessera::cpu::nn
