#include "value_format.hpp"

#include <cmath>
#include <complex>
#include <limits>
#include <sstream>

#include "core/float8.hpp"

namespace tessera::cli {

Shape concrete_shape(const ir::TypeInfo& type, const std::map<std::string, int64_t>& dims) {
  if (!type.shape) return Shape{1};
  std::vector<int64_t> out;
  for (const auto& d : *type.shape) {
    if (d.value && *d.value >= 0) {
      out.push_back(*d.value);
    } else if (auto it = dims.find(d.symbol); !d.symbol.empty() && it != dims.end()) {
      out.push_back(it->second);
    } else {
      out.push_back(1);
    }
  }
  return Shape(std::move(out));
}

namespace {

template <typename T>
void fill_ints(Tensor& t, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> dist(0, 9);
  T* d = t.mutable_data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = T(dist(rng));
}

template <typename T>
void fill_floats(Tensor& t, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  T* d = t.mutable_data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = T(dist(rng));
}

}  // namespace

Tensor random_tensor(DataType dtype, const Shape& shape, std::mt19937_64& rng) {
  Tensor t(dtype, shape);
  const int64_t n = t.num_elements();
  switch (dtype) {
    case DataType::kFloat:
      fill_floats<float>(t, rng);
      break;
    case DataType::kDouble:
      fill_floats<double>(t, rng);
      break;
    case DataType::kFloat16:
      fill_floats<Float16>(t, rng);
      break;
    case DataType::kBFloat16:
      fill_floats<BFloat16>(t, rng);
      break;
    case DataType::kInt8:
      fill_ints<int8_t>(t, rng);
      break;
    case DataType::kUInt8:
      fill_ints<uint8_t>(t, rng);
      break;
    case DataType::kInt16:
      fill_ints<int16_t>(t, rng);
      break;
    case DataType::kUInt16:
      fill_ints<uint16_t>(t, rng);
      break;
    case DataType::kInt32:
      fill_ints<int32_t>(t, rng);
      break;
    case DataType::kUInt32:
      fill_ints<uint32_t>(t, rng);
      break;
    case DataType::kInt64:
      fill_ints<int64_t>(t, rng);
      break;
    case DataType::kUInt64:
      fill_ints<uint64_t>(t, rng);
      break;
    case DataType::kBool: {
      bool* d = t.mutable_data<bool>();
      for (int64_t i = 0; i < n; ++i) d[i] = (rng() & 1) != 0;
      break;
    }
    case DataType::kString: {
      auto* d = t.mutable_data<std::string>();
      for (int64_t i = 0; i < n; ++i) d[i] = str_cat("s", rng() % 10);
      break;
    }
    case DataType::kComplex64:
      fill_floats<std::complex<float>>(t, rng);
      break;
    case DataType::kComplex128:
      fill_floats<std::complex<double>>(t, rng);
      break;
    default: {
      if (is_integer_type(dtype) && is_sub_byte_type(dtype)) {
        for (int64_t i = 0; i < n; ++i)
          set_packed_int(dtype, t.mutable_raw_data(), i, int32_t(rng() % 2));
      } else if (is_float_type(dtype)) {
        std::uniform_real_distribution<float> dist(-1.f, 1.f);
        for (int64_t i = 0; i < n; ++i)
          small_type_from_float(dtype, t.mutable_raw_data(), i, dist(rng));
      } else {
        fail(ErrorCode::kNotImplemented, "cannot make random values of type ",
             data_type_name(dtype));
      }
    }
  }
  return t;
}

Value random_value(const ir::TypeInfo& type, const std::map<std::string, int64_t>& dims,
                   std::mt19937_64& rng) {
  switch (type.kind) {
    case ir::TypeInfo::Kind::kTensor:
    case ir::TypeInfo::Kind::kSparseTensor:
      return random_tensor(type.elem_type, concrete_shape(type, dims), rng);
    case ir::TypeInfo::Kind::kOptional:
      if (type.inner) return random_value(*type.inner, dims, rng);
      break;
    case ir::TypeInfo::Kind::kSequence:
      if (type.inner && type.inner->is_tensor())
        return Value::sequence({random_value(*type.inner, dims, rng)}, type.inner->elem_type);
      break;
    default:
      break;
  }
  fail(ErrorCode::kNotImplemented, "cannot make a random value of type ", type.to_string(),
       "; give this input with --input NAME=FILE.npy");
}

std::string declared_type(const ir::TypeInfo& type) {
  if (!type.is_tensor()) return type.to_string();
  return str_cat(type.to_string(), " ", type.shape_string());
}

std::string describe_value(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return "none";
    case Value::Kind::kTensor:
      return v.tensor().description();
    case Value::Kind::kSequence: {
      std::string s = str_cat("seq(", data_type_name(v.seq_elem_type()), ") of ", v.seq().size());
      for (size_t i = 0; i < v.seq().size() && i < 3; ++i)
        s += str_cat(i ? ", " : ": ", describe_value(v.seq()[i]));
      return s + (v.seq().size() > 3 ? ", ..." : "");
    }
    case Value::Kind::kMap:
      return str_cat("map(", data_type_name(v.map().keys.dtype()), ", ",
                     v.map().values.description(), ")");
    case Value::Kind::kSparseTensor:
      return str_cat("sparse_tensor(", data_type_name(v.sparse().dtype()), ")",
                     v.sparse().dense_shape.to_string(), " ", sparse_format_name(v.sparse().format),
                     ", ", v.sparse().values.num_elements(), " values");
  }
  return "?";
}

std::string element_to_string(const Tensor& t, int64_t i) {
  std::ostringstream os;
  os.precision(7);
  switch (t.dtype()) {
    case DataType::kString:
      os << '"' << t.data<std::string>()[i] << '"';
      break;
    case DataType::kBool:
      os << (t.data<bool>()[i] ? "true" : "false");
      break;
    case DataType::kInt64:
      os << t.data<int64_t>()[i];
      break;
    case DataType::kUInt64:
      os << t.data<uint64_t>()[i];
      break;
    case DataType::kComplex64:
      os << t.data<std::complex<float>>()[i];
      break;
    case DataType::kComplex128:
      os << t.data<std::complex<double>>()[i];
      break;
    default:
      os << t.element_as_double(i);
  }
  return os.str();
}

std::string summarize_tensor(const Tensor& t, int first_n) {
  const int64_t n = t.num_elements();
  if (n == 0) return "(empty)";
  std::string out;
  bool numeric = t.dtype() != DataType::kString && t.dtype() != DataType::kComplex64 &&
                 t.dtype() != DataType::kComplex128;
  if (numeric && n > 1) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    int64_t nans = 0;
    for (int64_t i = 0; i < n; ++i) {
      double x = t.element_as_double(i);
      if (std::isnan(x)) {
        ++nans;
        continue;
      }
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
    }
    std::ostringstream os;
    os.precision(6);
    if (nans < n) os << "min " << lo << "  max " << hi << "  mean " << sum / double(n - nans);
    if (nans) os << (nans < n ? "  " : "") << nans << " NaN";
    out = str_cat(os.str(), "  | ");
  }
  out += n > 1 ? "first: " : "value: ";
  for (int64_t i = 0; i < n && i < first_n; ++i)
    out += str_cat(i ? ", " : "", element_to_string(t, i));
  if (n > first_n) out += ", ...";
  return out;
}

}  // namespace tessera::cli
