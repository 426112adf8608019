// The ai.onnx.ml ops that read or build maps: CastMap, DictVectorizer,
// ZipMap; and CategoryMapper (a fixed string <-> int64 dictionary).
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "providers/cpu/ml/ml_common.hpp"

namespace tessera::cpu::ml {

namespace {

const MapValue& input_map(const ep::KernelContext& ctx) {
  const Value* v = ctx.input_value(0);
  if (!v || !v->is_map()) ctx.fail_node("input 0 must be a map, got ", v ? v->kind_name() : "nothing");
  const MapValue& m = v->map();
  if (m.keys.num_elements() != m.values.num_elements())
    ctx.fail_node("map has ", m.keys.num_elements(), " keys but ", m.values.num_elements(),
                  " values");
  return m;
}

class CastMapKernel : public ep::OpKernel {
 public:
  explicit CastMapKernel(const ep::KernelInfo& info) {
    std::string to = info.attr_string("cast_to", "TO_FLOAT");
    if (to == "TO_FLOAT") to_ = DataType::kFloat;
    else if (to == "TO_STRING") to_ = DataType::kString;
    else if (to == "TO_INT64") to_ = DataType::kInt64;
    else info.fail_node("cast_to '", to, "' is not one of TO_FLOAT, TO_STRING, TO_INT64");
    std::string form = info.attr_string("map_form", "DENSE");
    if (form != "DENSE" && form != "SPARSE")
      info.fail_node("map_form '", form, "' is not one of DENSE, SPARSE");
    sparse_ = form == "SPARSE";
    max_map_ = info.attr_int("max_map", 1);
    if (sparse_ && max_map_ < 0) info.fail_node("max_map must be >= 0, got ", max_map_);
  }
  void compute(ep::KernelContext& ctx) const override {
    const MapValue& m = input_map(ctx);
    if (m.keys.dtype() != DataType::kInt64)
      ctx.fail_node("map keys must be int64, got ", m.keys.description());
    const DataType vt = m.values.dtype();
    if (vt != DataType::kFloat && vt != DataType::kString)
      ctx.fail_node("map values must be float or string, got ", m.values.description());
    const int64_t n = m.keys.num_elements();
    const int64_t* keys = m.keys.data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    const int64_t len = sparse_ ? max_map_ : n;
    for (int64_t k = 0; sparse_ && k < n; ++k)
      if (keys[k] < 0 || keys[k] >= max_map_)
        ctx.fail_node("key ", keys[k], " is outside [0, max_map=", max_map_, ") for SPARSE form");
    Tensor& y = ctx.output(0, Shape{1, len}, to_);
    // Missing SPARSE positions hold zero (the string "0" for TO_STRING).
    for (int64_t i = 0; i < len; ++i) put(ctx, y, i, nullptr, 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t src = order[size_t(i)];
      put(ctx, y, sparse_ ? keys[src] : i, &m.values, src);
    }
  }

 private:
  void put(const ep::KernelContext& ctx, Tensor& y, int64_t pos, const Tensor* vals, int64_t src) const {
    if (!vals) {
      if (to_ == DataType::kString) y.mutable_data<std::string>()[pos] = "0";
      else if (to_ == DataType::kFloat) y.mutable_data<float>()[pos] = 0.f;
      else y.mutable_data<int64_t>()[pos] = 0;
      return;
    }
    if (vals->dtype() == DataType::kFloat) {
      float v = vals->data<float>()[src];
      if (to_ == DataType::kString) y.mutable_data<std::string>()[pos] = std::to_string(v);
      else if (to_ == DataType::kFloat) y.mutable_data<float>()[pos] = v;
      else y.mutable_data<int64_t>()[pos] = int64_t(v);
      return;
    }
    const std::string& s = vals->data<std::string>()[src];
    try {
      if (to_ == DataType::kString) y.mutable_data<std::string>()[pos] = s;
      else if (to_ == DataType::kFloat) y.mutable_data<float>()[pos] = std::stof(s);
      else y.mutable_data<int64_t>()[pos] = std::stoll(s);
    } catch (const std::logic_error&) {
      ctx.fail_node("map value '", s, "' cannot be converted to ", data_type_name(to_));
    }
  }

  DataType to_ = DataType::kFloat;
  bool sparse_ = false;
  int64_t max_map_ = 1;
};

class DictVectorizerKernel : public ep::OpKernel {
 public:
  explicit DictVectorizerKernel(const ep::KernelInfo& info) {
    auto ints = info.attr_ints("int64_vocabulary");
    auto strs = info.attr_strings("string_vocabulary");
    if (ints.empty() == strs.empty())
      info.fail_node("exactly one of int64_vocabulary and string_vocabulary must be given");
    for (size_t i = 0; i < ints.size(); ++i) int_pos_.emplace(ints[i], int64_t(i));
    for (size_t i = 0; i < strs.size(); ++i) str_pos_.emplace(strs[i], int64_t(i));
    string_keys_ = !strs.empty();
    size_ = int64_t(ints.size() + strs.size());
  }
  void compute(ep::KernelContext& ctx) const override {
    const MapValue& m = input_map(ctx);
    const DataType want = string_keys_ ? DataType::kString : DataType::kInt64;
    if (m.keys.dtype() != want)
      ctx.fail_node("map keys are ", m.keys.description(), " but the vocabulary is ",
                    data_type_name(want));
    const DataType vt = m.values.dtype();
    Tensor& y = ctx.output(0, Shape{1, size_}, vt);
    auto fill = [&](auto tag) {
      using T = decltype(tag);
      T* d = y.mutable_data<T>();
      std::fill(d, d + size_, T{});
      const T* v = m.values.data<T>();
      for (int64_t i = 0; i < m.keys.num_elements(); ++i) {
        int64_t pos = -1;
        if (string_keys_) {
          auto it = str_pos_.find(m.keys.data<std::string>()[i]);
          if (it != str_pos_.end()) pos = it->second;
        } else {
          auto it = int_pos_.find(m.keys.data<int64_t>()[i]);
          if (it != int_pos_.end()) pos = it->second;
        }
        if (pos >= 0) d[pos] = v[i];  // keys outside the vocabulary are dropped
      }
    };
    switch (vt) {
      case DataType::kFloat: fill(float{}); break;
      case DataType::kDouble: fill(double{}); break;
      case DataType::kInt64: fill(int64_t{}); break;
      case DataType::kString: fill(std::string{}); break;
      default: ctx.fail_node("map values of type ", data_type_name(vt), " are not supported");
    }
  }

 private:
  std::unordered_map<int64_t, int64_t> int_pos_;
  std::unordered_map<std::string, int64_t> str_pos_;
  bool string_keys_ = false;
  int64_t size_ = 0;
};

class ZipMapKernel : public ep::OpKernel {
 public:
  explicit ZipMapKernel(const ep::KernelInfo& info) {
    auto ints = info.attr_ints("classlabels_int64s");
    auto strs = info.attr_strings("classlabels_strings");
    if (ints.empty() == strs.empty())
      info.fail_node("exactly one of classlabels_int64s and classlabels_strings must be given");
    keys_ = strs.empty() ? Tensor::from_vector(ints, Shape{int64_t(ints.size())})
                         : Tensor::from_vector(strs, Shape{int64_t(strs.size())});
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.dtype() != DataType::kFloat) ctx.fail_node("X must be float, got ", x.description());
    const int64_t C = keys_.num_elements();
    const int64_t cols = x.rank() == 0 ? 1 : x.shape()[x.rank() - 1];
    if (x.rank() > 2 || cols != C)
      ctx.fail_node("X ", x.description(), " must be [N,", C, "] or [", C, "] for ", C, " labels");
    const int64_t rows = C == 0 ? 0 : x.num_elements() / C;
    Sequence out;
    out.reserve(static_cast<size_t>(rows));
    const float* s = x.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<float> v(s + r * C, s + (r + 1) * C);
      out.push_back(Value::map(MapValue{keys_, Tensor::from_vector(v, Shape{C})}));
    }
    ctx.set_output(0, Value::sequence(std::move(out), DataType::kFloat));
  }

 private:
  Tensor keys_;  // shared by every output map (tensors are immutable once built)
};

class CategoryMapperKernel : public ep::OpKernel {
 public:
  explicit CategoryMapperKernel(const ep::KernelInfo& info)
      : ints_(info.attr_ints("cats_int64s")),
        strs_(info.attr_strings("cats_strings")),
        def_int_(info.attr_int("default_int64", -1)),
        def_str_(info.attr_string("default_string", "_Unused")) {
    if (ints_.size() != strs_.size())
      info.fail_node("cats_int64s has ", ints_.size(), " entries but cats_strings has ",
                     strs_.size());
    for (size_t i = 0; i < ints_.size(); ++i) {
      to_str_[ints_[i]] = i;
      to_int_[strs_[i]] = i;
    }
  }
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const int64_t n = x.num_elements();
    if (x.dtype() == DataType::kString) {
      Tensor& y = ctx.output(0, x.shape(), DataType::kInt64);
      for (int64_t i = 0; i < n; ++i) {
        auto it = to_int_.find(x.data<std::string>()[i]);
        y.mutable_data<int64_t>()[i] = it == to_int_.end() ? def_int_ : ints_[it->second];
      }
    } else if (x.dtype() == DataType::kInt64) {
      Tensor& y = ctx.output(0, x.shape(), DataType::kString);
      for (int64_t i = 0; i < n; ++i) {
        auto it = to_str_.find(x.data<int64_t>()[i]);
        y.mutable_data<std::string>()[i] = it == to_str_.end() ? def_str_ : strs_[it->second];
      }
    } else {
      ctx.fail_node("X must be string or int64, got ", x.description());
    }
  }

 private:
  std::vector<int64_t> ints_;
  std::vector<std::string> strs_;
  int64_t def_int_;
  std::string def_str_;
  std::unordered_map<int64_t, size_t> to_str_;
  std::unordered_map<std::string, size_t> to_int_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_cast_map(const ep::KernelInfo& i) {
  return std::make_unique<CastMapKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_dict_vectorizer(const ep::KernelInfo& i) {
  return std::make_unique<DictVectorizerKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_zip_map(const ep::KernelInfo& i) {
  return std::make_unique<ZipMapKernel>(i);
}
std::unique_ptr<ep::OpKernel> make_category_mapper(const ep::KernelInfo& i) {
  return std::make_unique<CategoryMapperKernel>(i);
}

}  // namespace tessera::cpu::ml
