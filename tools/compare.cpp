#include "compare.hpp"

#include <cmath>
#include <complex>
#include <sstream>

#include "value_format.hpp"

namespace tessera::cli {
namespace {

// "[1,0,2]" for flat index i in shape s.
std::string index_string(const Shape& s, int64_t i) {
  std::vector<int64_t> idx(s.rank());
  for (size_t d = s.rank(); d-- > 0;) {
    if (s[d] > 0) {
      idx[d] = i % s[d];
      i /= s[d];
    }
  }
  std::string out = "[";
  for (size_t d = 0; d < idx.size(); ++d) out += str_cat(d ? "," : "", idx[d]);
  return out + "]";
}

bool close(double e, double g, const Tolerance& tol) {
  if (std::isnan(e) || std::isnan(g)) return std::isnan(e) && std::isnan(g);
  if (std::isinf(e) || std::isinf(g)) return e == g;
  return std::fabs(g - e) <= tol.atol + tol.rtol * std::fabs(e);
}

bool complex_type(DataType t) { return t == DataType::kComplex64 || t == DataType::kComplex128; }

std::complex<double> complex_at(const Tensor& t, int64_t i) {
  if (t.dtype() == DataType::kComplex64)
    return std::complex<double>(t.data<std::complex<float>>()[i]);
  return t.data<std::complex<double>>()[i];
}

bool elements_equal(const Tensor& e, const Tensor& g, int64_t i, const Tolerance& tol) {
  DataType t = e.dtype();
  if (t == DataType::kString) return e.data<std::string>()[i] == g.data<std::string>()[i];
  if (complex_type(t)) {
    auto a = complex_at(e, i), b = complex_at(g, i);
    return close(a.real(), b.real(), tol) && close(a.imag(), b.imag(), tol);
  }
  if (is_float_type(t)) return close(e.element_as_double(i), g.element_as_double(i), tol);
  if (t == DataType::kUInt64) return e.data<uint64_t>()[i] == g.data<uint64_t>()[i];
  return e.element_as_int64(i) == g.element_as_int64(i);
}

std::optional<std::string> compare_tensors(const Tensor& expected_in, const Tensor& got_in,
                                           const std::string& what, const Tolerance& tol) {
  if (expected_in.dtype() != got_in.dtype())
    return str_cat(what, ": expected type ", data_type_name(expected_in.dtype()), ", got ",
                   data_type_name(got_in.dtype()));
  if (expected_in.shape() != got_in.shape())
    return str_cat(what, ": expected shape ", expected_in.shape().to_string(), ", got ",
                   got_in.shape().to_string(), " (", data_type_name(got_in.dtype()), ")");
  const Tensor e = expected_in.memory_info().host_accessible() ? expected_in : expected_in.clone();
  const Tensor g = got_in.memory_info().host_accessible() ? got_in : got_in.clone();
  const int64_t n = e.num_elements();
  int64_t first = -1, count = 0;
  double max_diff = -1;  // over elements where both are finite
  for (int64_t i = 0; i < n; ++i) {
    if (elements_equal(e, g, i, tol)) continue;
    if (first < 0) first = i;
    ++count;
    if (is_float_type(e.dtype()) || is_integer_type(e.dtype())) {
      double d = std::fabs(e.element_as_double(i) - g.element_as_double(i));
      if (std::isfinite(d)) max_diff = std::max(max_diff, d);
    }
  }
  if (first < 0) return std::nullopt;
  std::ostringstream os;
  os << what << " (" << e.description() << "): element " << index_string(e.shape(), first)
     << " expected " << element_to_string(e, first) << ", got " << element_to_string(g, first)
     << "; " << count << " of " << n << " elements differ";
  if (is_float_type(e.dtype())) {
    os << " (";
    if (max_diff >= 0) os << "max abs diff " << max_diff << ", ";
    os << "rtol " << tol.rtol << ", atol " << tol.atol << ")";
  }
  return os.str();
}

}  // namespace

std::optional<std::string> compare_values(const Value& expected, const Value& got,
                                          const std::string& what, const Tolerance& tol) {
  if (expected.kind() != got.kind())
    return str_cat(what, ": expected a ", expected.kind_name(), ", got a ", got.kind_name(), " (",
                   describe_value(got), ")");
  switch (expected.kind()) {
    case Value::Kind::kNone:
      return std::nullopt;
    case Value::Kind::kTensor:
      return compare_tensors(expected.tensor(), got.tensor(), what, tol);
    case Value::Kind::kSequence: {
      const auto& e = expected.seq();
      const auto& g = got.seq();
      if (e.size() != g.size())
        return str_cat(what, ": expected a sequence of ", e.size(), " elements, got ", g.size());
      for (size_t i = 0; i < e.size(); ++i)
        if (auto m = compare_values(e[i], g[i], str_cat(what, "[", i, "]"), tol)) return m;
      return std::nullopt;
    }
    case Value::Kind::kMap: {
      if (auto m = compare_tensors(expected.map().keys, got.map().keys, what + " keys", tol))
        return m;
      return compare_tensors(expected.map().values, got.map().values, what + " values", tol);
    }
    case Value::Kind::kSparseTensor:  // the same elements, whatever the format
      return compare_tensors(expected.sparse().to_dense(what + " (expected)"),
                             got.sparse().to_dense(what), what, tol);
  }
  return std::nullopt;
}

}  // namespace tessera::cli
