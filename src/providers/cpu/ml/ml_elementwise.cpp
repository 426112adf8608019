// The per-element and per-row ai.onnx.ml transforms: ArrayFeatureExtractor,
// Binarizer, Imputer, Scaler, Normalizer, FeatureVectorizer, OneHotEncoder.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "providers/cpu/ml/ml_common.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu::ml {

namespace {

// Calls fn(T{}) for the element types these ops accept.
template <typename Fn>
void dispatch(const ep::KernelContext& ctx, DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kFloat: fn(float{}); return;
    case DataType::kDouble: fn(double{}); return;
    case DataType::kInt64: fn(int64_t{}); return;
    case DataType::kInt32: fn(int32_t{}); return;
    case DataType::kString: fn(std::string{}); return;
    default: ctx.fail_node("element type ", data_type_name(t), " is not supported");
  }
}

// Last-axis length of x, treating a scalar as one feature.
int64_t feature_count(const Tensor& x) { return x.rank() == 0 ? 1 : x.shape()[x.rank() - 1]; }

class ArrayFeatureExtractorKernel : public ep::OpKernel {
 public:
  explicit ArrayFeatureExtractorKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& yi = ctx.required_input(1);
    if (yi.dtype() != DataType::kInt64) ctx.fail_node("Y must be int64, got ", yi.description());
    auto idx = read_all(yi);
    const int64_t last = feature_count(x);
    for (int64_t i : idx)
      if (i < 0 || i >= last)
        ctx.fail_node("index ", i, " is out of range for last dimension ", last, " of X ",
                      x.description());
    std::vector<int64_t> dims;
    if (x.rank() <= 1) {
      dims = {1, int64_t(idx.size())};
    } else {
      dims.assign(x.shape().dims().begin(), x.shape().dims().end() - 1);
      dims.push_back(int64_t(idx.size()));
    }
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    const int64_t rows = last == 0 ? 0 : x.num_elements() / last;
    dispatch(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* src = x.data<T>();
      T* dst = y.mutable_data<T>();
      for (int64_t r = 0; r < rows; ++r)
        for (size_t k = 0; k < idx.size(); ++k) dst[r * int64_t(idx.size()) + int64_t(k)] = src[r * last + idx[k]];
    });
  }

 private:
  static std::vector<int64_t> read_all(const Tensor& t) {
    std::vector<int64_t> v(size_t(t.num_elements()));
    for (int64_t i = 0; i < t.num_elements(); ++i) v[size_t(i)] = t.element_as_int64(i);
    return v;
  }
};

class BinarizerKernel : public ep::OpKernel {
 public:
  explicit BinarizerKernel(const ep::KernelInfo& info) : thr_(info.attr_float("threshold", 0.f)) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    dispatch(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, std::string>) {
        ctx.fail_node("X must be numeric, got ", x.description());
      } else {
        const T* s = x.data<T>();
        T* d = y.mutable_data<T>();
        for (int64_t i = 0; i < x.num_elements(); ++i) d[i] = double(s[i]) > double(thr_) ? T(1) : T(0);
      }
    });
  }

 private:
  float thr_;
};

class ImputerKernel : public ep::OpKernel {
 public:
  explicit ImputerKernel(const ep::KernelInfo& info)
      : fvals_(info.attr_floats("imputed_value_floats")),
        ivals_(info.attr_ints("imputed_value_int64s")),
        frep_(info.attr_float("replaced_value_float", 0.f)),
        irep_(info.attr_int("replaced_value_int64", 0)) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& y = ctx.output(0, x.shape(), x.dtype());
    const int64_t F = feature_count(x);
    const bool is_float = x.dtype() == DataType::kFloat || x.dtype() == DataType::kDouble;
    const size_t nv = is_float ? fvals_.size() : ivals_.size();
    if (nv != 1 && int64_t(nv) != F)
      ctx.fail_node("imputed_value_", is_float ? "floats" : "int64s", " has ", nv,
                    " values; expected 1 or the feature count ", F, " of X ", x.description());
    dispatch(ctx, x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, std::string>) {
        ctx.fail_node("X must be numeric, got ", x.description());
      } else {
        const T* s = x.data<T>();
        T* d = y.mutable_data<T>();
        for (int64_t i = 0; i < x.num_elements(); ++i) {
          size_t f = nv == 1 ? 0 : size_t(i % F);
          bool hit;
          if constexpr (std::is_floating_point_v<T>)
            hit = s[i] == T(frep_) || (std::isnan(frep_) && std::isnan(s[i]));
          else
            hit = int64_t(s[i]) == irep_;
          if (!hit)
            d[i] = s[i];
          else if constexpr (std::is_floating_point_v<T>)
            d[i] = T(fvals_[f]);
          else
            d[i] = T(ivals_[f]);
        }
      }
    });
  }

 private:
  std::vector<float> fvals_;
  std::vector<int64_t> ivals_;
  float frep_;
  int64_t irep_;
};

class ScalerKernel : public ep::OpKernel {
 public:
  explicit ScalerKernel(const ep::KernelInfo& info)
      : offset_(info.attr_floats("offset")), scale_(info.attr_floats("scale")) {
    if (offset_.empty()) offset_ = {0.f};
    if (scale_.empty()) scale_ = {1.f};
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const int64_t F = feature_count(x);
    for (const auto* v : {&offset_, &scale_})
      if (v->size() != 1 && int64_t(v->size()) != F)
        ctx.fail_node("offset/scale have ", v->size(), " values; expected 1 or the feature count ",
                      F, " of X ", x.description());
    auto in = read_as<double>(x);
    Tensor& y = ctx.output(0, x.shape(), DataType::kFloat);
    float* d = y.mutable_data<float>();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      size_t fo = offset_.size() == 1 ? 0 : size_t(i % F);
      size_t fs = scale_.size() == 1 ? 0 : size_t(i % F);
      d[i] = float((in[size_t(i)] - offset_[fo]) * scale_[fs]);
    }
  }

 private:
  std::vector<float> offset_, scale_;
};

class NormalizerKernel : public ep::OpKernel {
 public:
  explicit NormalizerKernel(const ep::KernelInfo& info) {
    std::string n = info.attr_string("norm", "MAX");
    if (n == "MAX") norm_ = 0;
    else if (n == "L1") norm_ = 1;
    else if (n == "L2") norm_ = 2;
    else info.fail_node("norm '", n, "' is not one of MAX, L1, L2");
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() > 2) ctx.fail_node("X must be [N,C] or [C], got ", x.description());
    const int64_t C = feature_count(x);
    auto v = read_as<double>(x);
    Tensor& y = ctx.output(0, x.shape(), DataType::kFloat);
    float* d = y.mutable_data<float>();
    const int64_t rows = C == 0 ? 0 : x.num_elements() / C;
    for (int64_t r = 0; r < rows; ++r) {
      double* row = v.data() + r * C;
      double div = 0;
      if (norm_ == 0) {
        div = *std::max_element(row, row + C);
      } else if (norm_ == 1) {
        for (int64_t c = 0; c < C; ++c) div += std::fabs(row[c]);
      } else {
        for (int64_t c = 0; c < C; ++c) div += row[c] * row[c];
        div = std::sqrt(div);
      }
      for (int64_t c = 0; c < C; ++c) d[r * C + c] = float(div == 0 ? row[c] : row[c] / div);
    }
  }

 private:
  int norm_ = 0;
};

class FeatureVectorizerKernel : public ep::OpKernel {
 public:
  explicit FeatureVectorizerKernel(const ep::KernelInfo& info)
      : dims_(info.attr_ints("inputdimensions")) {
    for (int64_t d : dims_)
      if (d < 0) info.fail_node("inputdimensions has a negative entry ", d);
  }
  void compute(ep::KernelContext& ctx) const override {
    if (ctx.num_inputs() != dims_.size())
      ctx.fail_node("has ", ctx.num_inputs(), " inputs but inputdimensions lists ", dims_.size());
    int64_t total = 0, N = -1;
    std::vector<Matrix> ms;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      ms.push_back(read_matrix(ctx, ctx.required_input(i)));
      if (N >= 0 && ms.back().rows != N)
        ctx.fail_node("input ", i, " has ", ms.back().rows, " rows, input 0 has ", N);
      N = ms.back().rows;
      total += dims_[i];
    }
    if (N < 0) N = 1;
    Tensor& y = ctx.output(0, Shape{N, total}, DataType::kFloat);
    float* d = y.mutable_data<float>();
    std::fill(d, d + N * total, 0.f);
    int64_t off = 0;
    for (size_t i = 0; i < ms.size(); ++i) {
      const int64_t take = std::min(ms[i].cols, dims_[i]);
      for (int64_t r = 0; r < N; ++r)
        for (int64_t c = 0; c < take; ++c)
          d[r * total + off + c] = float(ms[i].data[size_t(r * ms[i].cols + c)]);
      off += dims_[i];
    }
  }

 private:
  std::vector<int64_t> dims_;
};

class OneHotEncoderKernel : public ep::OpKernel {
 public:
  explicit OneHotEncoderKernel(const ep::KernelInfo& info) : zeros_(info.attr_int("zeros", 1) != 0) {
    auto ints = info.attr_ints("cats_int64s");
    auto strs = info.attr_strings("cats_strings");
    if (ints.empty() == strs.empty())
      info.fail_node("exactly one of cats_int64s and cats_strings must be given");
    for (size_t i = 0; i < ints.size(); ++i) int_pos_.emplace(ints[i], int64_t(i));
    for (size_t i = 0; i < strs.size(); ++i) str_pos_.emplace(strs[i], int64_t(i));
    ncats_ = int64_t(ints.size() + strs.size());
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    auto dims = x.shape().dims();
    dims.push_back(ncats_);
    Tensor& y = ctx.output(0, Shape(dims), DataType::kFloat);
    float* d = y.mutable_data<float>();
    std::fill(d, d + y.num_elements(), 0.f);
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      int64_t pos = -1;
      if (x.dtype() == DataType::kString) {
        auto it = str_pos_.find(x.data<std::string>()[i]);
        if (it != str_pos_.end()) pos = it->second;
      } else {
        auto it = int_pos_.find(int64_t(x.element_as_double(i)));
        if (it != int_pos_.end()) pos = it->second;
      }
      if (pos >= 0)
        d[i * ncats_ + pos] = 1.f;
      else if (!zeros_)
        ctx.fail_node("element ", i, " of X ", x.description(),
                      " is not a known category and zeros=0");
    }
  }

 private:
  bool zeros_;
  std::unordered_map<int64_t, int64_t> int_pos_;
  std::unordered_map<std::string, int64_t> str_pos_;
  int64_t ncats_ = 0;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_array_feature_extractor(const ep::KernelInfo& i) {
  return std::make_unique<ArrayFeatureExtractorKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_binarizer(const ep::KernelInfo& i) {
  return std::make_unique<BinarizerKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_imputer(const ep::KernelInfo& i) {
  return std::make_unique<ImputerKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_scaler(const ep::KernelInfo& i) {
  return std::make_unique<ScalerKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_normalizer(const ep::KernelInfo& i) {
  return std::make_unique<NormalizerKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_feature_vectorizer(const ep::KernelInfo& i) {
  return std::make_unique<FeatureVectorizerKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_one_hot_encoder(const ep::KernelInfo& i) {
  return std::make_unique<OneHotEncoderKernel>(i);
}

}  // namespace tessera::cpu::ml
