// RandomNormal, RandomUniform, RandomNormalLike, RandomUniformLike,
// Bernoulli, Multinomial. With a `seed` attribute every run draws the same
// numbers (the engine is seeded from the float seed's bits each run);
// without one, each run draws a fresh seed from random_device plus a counter.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>

#include "providers/cpu/element_convert.hpp"
#include "providers/cpu/random/random_kernels.hpp"

namespace tessera::cpu::rnd {

namespace {

const std::vector<DataType> kFloat3 = {DataType::kFloat16, DataType::kFloat, DataType::kDouble};
const std::vector<DataType> kFloat4 = {DataType::kFloat16, DataType::kFloat, DataType::kDouble,
                                       DataType::kBFloat16};

bool contains(const std::vector<DataType>& v, DataType t) {
  return std::find(v.begin(), v.end(), t) != v.end();
}

// Per-kernel seed source. The counter is the only state that changes across
// runs; it is atomic so concurrent runs each get their own stream.
class SeedSource {
 public:
  explicit SeedSource(const ep::KernelInfo& info) : seeded_(info.has_attr("seed")) {
    if (seeded_) {
      seed_ = float_bits(info.attr_float("seed"));
    } else {
      std::random_device rd;
      seed_ = rd();
    }
  }
  std::mt19937 engine() const {
    if (seeded_) return std::mt19937(seed_);
    std::seed_seq seq{seed_, uint32_t(counter_.fetch_add(1, std::memory_order_relaxed))};
    return std::mt19937(seq);
  }

 private:
  bool seeded_;
  uint32_t seed_ = 0;
  mutable std::atomic<uint64_t> counter_{0};
};

// The output type: the dtype attribute, else `fallback`; must be in `allowed`.
DataType output_dtype(const ep::KernelInfo& info, DataType fallback,
                      const std::vector<DataType>& allowed) {
  DataType t = fallback;
  if (info.has_attr("dtype")) {
    int64_t d = info.attr_int("dtype");
    if (d <= 0 || !is_valid_data_type(int32_t(d))) info.fail_node("dtype ", d, " is not a data type");
    t = static_cast<DataType>(d);
  }
  if (t == DataType::kUndefined) info.fail_node("the output type is unknown; set the dtype attribute");
  if (!contains(allowed, t))
    info.fail_node("output type ", data_type_name(t), " is not allowed at opset ", info.opset());
  return t;
}

// Fills `out` with gen(engine) converted to its element type.
template <typename Gen>
void fill(ep::KernelContext& ctx, Tensor& out, std::mt19937& eng, Gen&& gen) {
  bool ok = dispatch_real(out.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* p = out.mutable_data<T>();
    for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = from_double<T>(gen(eng, i));
  });
  if (!ok) ctx.fail_node("cannot produce ", data_type_name(out.dtype()), " values");
}

enum class Dist { kNormal, kUniform };

// RandomNormal / RandomUniform (shape attribute) and their *Like forms
// (shape of input 0).
class RandomDistKernel : public ep::OpKernel {
 public:
  RandomDistKernel(const ep::KernelInfo& info, Dist dist, bool like)
      : seeds_(info), dist_(dist), like_(like) {
    const auto& allowed = info.opset() >= 22 ? kFloat4 : kFloat3;
    if (like) {
      dtype_ = output_dtype(info, info.input_type(0), allowed);
    } else {
      dtype_ = output_dtype(info, DataType::kFloat, allowed);
      auto dims = info.attr_ints("shape");
      if (!info.has_attr("shape")) info.fail_node("required attribute 'shape' is missing");
      for (int64_t d : dims)
        if (d < 0) info.fail_node("shape has a negative dimension ", d);
      shape_ = Shape(dims);
    }
    if (dist == Dist::kNormal) {
      a_ = info.attr_float("mean", 0.0f);
      b_ = info.attr_float("scale", 1.0f);
      if (!(b_ >= 0)) info.fail_node("scale must be >= 0, got ", b_);
    } else {
      a_ = info.attr_float("low", 0.0f);
      b_ = info.attr_float("high", 1.0f);
      if (!(a_ <= b_)) info.fail_node("low (", a_, ") must not exceed high (", b_, ")");
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    Shape shape = like_ ? ctx.required_input(0).shape() : shape_;
    Tensor& out = ctx.output(0, shape, dtype_);
    auto eng = seeds_.engine();
    if (dist_ == Dist::kNormal) {
      if (b_ == 0) {
        fill(ctx, out, eng, [&](std::mt19937&, int64_t) { return a_; });
        return;
      }
      std::normal_distribution<double> d(a_, b_);
      fill(ctx, out, eng, [&](std::mt19937& e, int64_t) { return d(e); });
    } else {
      std::uniform_real_distribution<double> d(0.0, 1.0);
      double lo = a_, hi = b_;
      fill(ctx, out, eng, [&](std::mt19937& e, int64_t) {
        double v = lo + d(e) * (hi - lo);
        return v < hi ? v : lo;  // keep the half-open range despite rounding
      });
    }
  }

 private:
  SeedSource seeds_;
  Dist dist_;
  bool like_;
  DataType dtype_;
  Shape shape_;
  double a_ = 0, b_ = 1;
};

template <Dist D, bool Like>
class RandomKernel : public RandomDistKernel {
 public:
  explicit RandomKernel(const ep::KernelInfo& info) : RandomDistKernel(info, D, Like) {}
};

class BernoulliKernel : public ep::OpKernel {
 public:
  explicit BernoulliKernel(const ep::KernelInfo& info) : seeds_(info) {
    auto allowed = ep::types::join({ep::types::kNumeric, {DataType::kBool}});
    dtype_ = output_dtype(info, info.input_type(0), allowed);
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    std::vector<double> p(size_t(x.num_elements()));
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      p[size_t(i)] = x.element_as_double(i);
      if (!(p[size_t(i)] >= 0.0 && p[size_t(i)] <= 1.0))
        ctx.fail_node("probabilities must lie in [0, 1], element ", i, " of ", x.description(),
                      " is ", p[size_t(i)]);
    }
    Tensor& out = ctx.output(0, x.shape(), dtype_);
    auto eng = seeds_.engine();
    std::uniform_real_distribution<double> d(0.0, 1.0);
    fill(ctx, out, eng,
         [&](std::mt19937& e, int64_t i) { return d(e) < p[size_t(i)] ? 1.0 : 0.0; });
  }

 private:
  SeedSource seeds_;
  DataType dtype_;
};

class MultinomialKernel : public ep::OpKernel {
 public:
  explicit MultinomialKernel(const ep::KernelInfo& info)
      : seeds_(info), samples_(info.attr_int("sample_size", 1)) {
    dtype_ = output_dtype(info, DataType::kInt32, {DataType::kInt32, DataType::kInt64});
    if (samples_ < 0) info.fail_node("sample_size must be >= 0, got ", samples_);
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() != 2) ctx.fail_node("input must be [batch_size, class_size], got ", x.description());
    int64_t batch = x.shape()[0], classes = x.shape()[1];
    if (classes == 0 && samples_ > 0) ctx.fail_node("cannot sample from zero classes");
    Tensor& out = ctx.output(0, Shape{batch, samples_}, dtype_);
    auto eng = seeds_.engine();
    std::uniform_real_distribution<double> d(0.0, 1.0);
    std::vector<double> cdf(static_cast<size_t>(classes));
    std::vector<int64_t> picks(size_t(batch * samples_));
    for (int64_t b = 0; b < batch; ++b) {
      // Unnormalised log-probabilities: shift by the max before exp for range.
      double mx = -INFINITY;
      for (int64_t c = 0; c < classes; ++c) mx = std::max(mx, x.element_as_double(b * classes + c));
      double total = 0;
      for (int64_t c = 0; c < classes; ++c) {
        total += std::exp(x.element_as_double(b * classes + c) - mx);
        cdf[size_t(c)] = total;
      }
      if (!(total > 0) || !std::isfinite(total))
        ctx.fail_node("row ", b, " of ", x.description(), " has no valid probabilities");
      for (int64_t s = 0; s < samples_; ++s) {
        double u = d(eng) * total;
        auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
        picks[size_t(b * samples_ + s)] = std::min<int64_t>(it - cdf.begin(), classes - 1);
      }
    }
    fill(ctx, out, eng, [&](std::mt19937&, int64_t i) { return double(picks[size_t(i)]); });
  }

 private:
  SeedSource seeds_;
  int64_t samples_;
  DataType dtype_;
};

}  // namespace

void register_random_basic(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  auto any15 = ep::types::join(
      {ep::types::kInts,
       {DataType::kFloat16, DataType::kFloat, DataType::kDouble, DataType::kString,
        DataType::kBool, DataType::kComplex64, DataType::kComplex128}});
  auto any16 = ep::types::join({any15, {DataType::kBFloat16}});
  struct Range {
    int64_t since, until;
    const std::vector<DataType>& any;
    const std::vector<DataType>& floats;
  };
  for (const Range& v : {Range{1, 21, any15, kFloat3}, Range{22, ep::kOpsetMax, any16, kFloat4}}) {
    r.add<RandomKernel<Dist::kNormal, false>>({"", "RandomNormal", v.since, v.until, {}});
    r.add<RandomKernel<Dist::kUniform, false>>({"", "RandomUniform", v.since, v.until, {}});
    r.add<RandomKernel<Dist::kNormal, true>>(
        {"", "RandomNormalLike", v.since, v.until, {TypeConstraint{"T1", {0}, v.any}}});
    r.add<RandomKernel<Dist::kUniform, true>>(
        {"", "RandomUniformLike", v.since, v.until, {TypeConstraint{"T1", {0}, v.any}}});
    r.add<MultinomialKernel>({"", "Multinomial", v.since == 1 ? 7 : v.since, v.until,
                              {TypeConstraint{"T1", {0}, v.floats}}});
    r.add<BernoulliKernel>({"", "Bernoulli", v.since == 1 ? 15 : v.since, v.until,
                            {TypeConstraint{"T1", {0}, v.floats}}});
  }
}

}  // namespace tessera::cpu::rnd
