// LabelEncoder, all three versions, as one lookup table built at load:
//  v1: classes_strings, string -> index (default_int64) or index -> string (default_string);
//  v2: keys_*/values_* lists of strings, int64s or floats, with default_*;
//  v4: adds keys_tensor/values_tensor/default_tensor (int16/int32/double too).
// Float keys match NaN to NaN; a repeated key maps to its last value.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "providers/cpu/ml/ml_common.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu::ml {

namespace {

enum class KeyKind { kString, kInt, kFloat };

KeyKind key_kind(DataType t) {
  if (t == DataType::kString) return KeyKind::kString;
  return is_float_type(t) ? KeyKind::kFloat : KeyKind::kInt;
}

// One direction of the mapping: keys of one kind to positions in `values`.
struct Table {
  KeyKind kind = KeyKind::kString;
  std::unordered_map<std::string, int64_t> by_string;
  std::unordered_map<int64_t, int64_t> by_int;
  std::map<double, int64_t> by_float;
  int64_t nan_pos = -1;
  Tensor values;  // 1-D, the output element type
  Tensor def;     // one element of the output type

  void add_keys(const Tensor& keys) {
    kind = key_kind(keys.dtype());
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      if (kind == KeyKind::kString) {
        by_string[keys.data<std::string>()[i]] = i;
      } else if (kind == KeyKind::kInt) {
        by_int[keys.element_as_int64(i)] = i;
      } else {
        double k = keys.element_as_double(i);
        if (std::isnan(k)) nan_pos = i;
        else by_float[k] = i;
      }
    }
  }
  // Position of element i of x in values, or -1.
  int64_t find(const Tensor& x, int64_t i) const {
    if (kind == KeyKind::kString) {
      auto it = by_string.find(x.data<std::string>()[i]);
      return it == by_string.end() ? -1 : it->second;
    }
    if (kind == KeyKind::kInt) {
      auto it = by_int.find(x.element_as_int64(i));
      return it == by_int.end() ? -1 : it->second;
    }
    double v = x.element_as_double(i);
    if (std::isnan(v)) return nan_pos;
    auto it = by_float.find(v);
    return it == by_float.end() ? -1 : it->second;
  }
};

template <typename T>
Tensor vec1(const std::vector<T>& v) {
  return Tensor::from_vector(v, Shape{int64_t(v.size())});
}

Tensor make_default(const ep::KernelInfo& info, DataType out) {
  if (const Tensor* t = info.attr_tensor("default_tensor")) {
    if (t->num_elements() != 1 || t->dtype() != out)
      info.fail_node("default_tensor ", t->description(), " must hold one ", data_type_name(out),
                     " value, the type of values_*");
    return t->clone().reshaped(Shape{1});
  }
  Tensor d(out, Shape{1});
  if (out == DataType::kString) {
    d.mutable_data<std::string>()[0] = info.attr_string("default_string", "_Unused");
  } else {
    double v = is_float_type(out) ? double(info.attr_float("default_float", -0.0f))
                                  : double(info.attr_int("default_int64", -1));
    write_from<double>(d, &v);
  }
  return d;
}

class LabelEncoderKernel : public ep::OpKernel {
 public:
  explicit LabelEncoderKernel(const ep::KernelInfo& info) {
    if (info.opset() < 2) {
      // v1: both directions over classes_strings; the input type picks one.
      auto classes = info.attr_strings("classes_strings");
      std::vector<int64_t> idx(classes.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = int64_t(i);
      from_string_.add_keys(vec1(classes));
      from_string_.values = vec1(idx);
      from_string_.def = vec1(std::vector<int64_t>{info.attr_int("default_int64", -1)});
      from_int_.add_keys(vec1(idx));
      from_int_.values = vec1(classes);
      from_int_.def = vec1(std::vector<std::string>{info.attr_string("default_string", "_Unused")});
      v1_ = true;
      return;
    }
    Tensor keys = pick(info, "keys");
    Tensor values = pick(info, "values");
    if (keys.num_elements() != values.num_elements())
      info.fail_node("keys_* has ", keys.num_elements(), " entries but values_* has ",
                     values.num_elements());
    from_string_.add_keys(keys);
    from_string_.values = values;
    from_string_.def = make_default(info, values.dtype());
    key_type_ = keys.dtype();
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Table* t = &from_string_;
    if (v1_) {
      if (x.dtype() == DataType::kInt64) t = &from_int_;
      else if (x.dtype() != DataType::kString)
        ctx.fail_node("X must be string or int64, got ", x.description());
    } else if (key_kind(x.dtype()) != t->kind) {
      ctx.fail_node("X ", x.description(), " does not match the keys' type ",
                    data_type_name(key_type_));
    }
    Tensor& y = ctx.output(0, x.shape(), t->values.dtype());
    auto run = [&](auto tag) {
      using T = decltype(tag);
      const T* vals = t->values.data<T>();
      const T def = t->def.data<T>()[0];
      T* d = y.mutable_data<T>();
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        int64_t p = t->find(x, i);
        d[i] = p < 0 ? def : vals[p];
      }
    };
    switch (t->values.dtype()) {
      case DataType::kString: run(std::string{}); break;
      case DataType::kInt64: run(int64_t{}); break;
      case DataType::kInt32: run(int32_t{}); break;
      case DataType::kInt16: run(int16_t{}); break;
      case DataType::kFloat: run(float{}); break;
      case DataType::kDouble: run(double{}); break;
      default:
        ctx.fail_node("values of type ", data_type_name(t->values.dtype()), " are not supported");
    }
  }

 private:
  // The one keys_* (or values_*) attribute that is set, as a 1-D tensor.
  static Tensor pick(const ep::KernelInfo& info, const std::string& p) {
    std::vector<Tensor> found;
    if (info.has_attr(p + "_strings")) found.push_back(vec1(info.attr_strings(p + "_strings")));
    if (info.has_attr(p + "_int64s")) found.push_back(vec1(info.attr_ints(p + "_int64s")));
    if (info.has_attr(p + "_floats")) found.push_back(vec1(info.attr_floats(p + "_floats")));
    if (const Tensor* t = info.attr_tensor(p + "_tensor")) {
      if (info.opset() < 4) info.fail_node(p, "_tensor needs ai.onnx.ml opset 4");
      static const DataType kOk[] = {DataType::kString, DataType::kInt64, DataType::kInt32,
                                     DataType::kInt16,  DataType::kFloat, DataType::kDouble};
      if (std::find(std::begin(kOk), std::end(kOk), t->dtype()) == std::end(kOk))
        info.fail_node(p, "_tensor of type ", data_type_name(t->dtype()), " is not supported");
      found.push_back(t->clone().reshaped(Shape{t->num_elements()}));
    }
    if (found.size() != 1)
      info.fail_node("exactly one of the ", p, "_* attributes must be set, found ", found.size());
    return found[0];
  }

  Table from_string_;  // v2+: the only table; v1: string -> int64
  Table from_int_;     // v1 only: int64 -> string
  bool v1_ = false;
  DataType key_type_ = DataType::kUndefined;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_label_encoder(const ep::KernelInfo& i) {
  return std::make_unique<LabelEncoderKernel>(i);
}

}  // namespace tessera::cpu::ml
