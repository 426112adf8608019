// Cast and CastLike between every element type the spec allows. Three kinds
// of element: the byte-addressable numeric types and bool (converted directly,
// in parallel), the 8/4/2-bit types (through float, or int for the packed
// integers), and strings (parsed and formatted).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/float8.hpp"
#include "linalg/half_convert.hpp"
#include "providers/cpu/math/elementwise.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class RoundMode { kUp, kDown, kNearest };

bool is_small(DataType t) {
  switch (t) {
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kFloat4E2M1:
    case DataType::kUInt4:
    case DataType::kInt4:
    case DataType::kUInt2:
    case DataType::kInt2:
      return true;
    default:
      return false;
  }
}
bool is_half(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16; }
bool is_packed_int(DataType t) {
  return t == DataType::kUInt4 || t == DataType::kInt4 || t == DataType::kUInt2 ||
         t == DataType::kInt2;
}

template <typename D, typename S>
inline D convert(S s) {
  if constexpr (std::is_same_v<D, S>) {
    return s;
  } else if constexpr (std::is_same_v<D, bool>) {
    return load(s) != 0;
  } else if constexpr (is_float_v<D>) {
    if constexpr (std::is_same_v<S, bool>)
      return store<D>(float(s));
    else if constexpr (std::is_same_v<D, double>)
      return double(load(s));
    else
      return store<D>(static_cast<float>(load(s)));
  } else {  // integer destination
    if constexpr (std::is_same_v<S, bool>)
      return D(s);
    else if constexpr (std::is_integral_v<S>)
      return static_cast<D>(s);  // wraps (C++20)
    else
      return float_to_int<D>(double(load(s)));
  }
}

// Encodes to float8e8m0 (a bare power-of-two exponent) with the rounding
// the round_mode attribute asks for.
uint8_t to_e8m0(double v, bool saturate, RoundMode mode) {
  if (std::isnan(v)) return 0xff;
  if (std::isinf(v)) return v > 0 && saturate ? 0xfe : 0xff;
  if (v <= 0) return saturate ? 0 : 0xff;  // zero and negatives are below E8M0_MIN
  int e;
  double m = std::frexp(v, &e);  // v = m * 2^e, m in [0.5, 1)
  int exp = e - 1;               // v = (2m) * 2^exp, 2m in [1, 2)
  double frac = 2 * m;
  if (frac > 1) {
    if (mode == RoundMode::kUp || (mode == RoundMode::kNearest && frac >= 1.5)) ++exp;
  }
  int biased = exp + 127;
  if (biased > 254) return saturate ? 0xfe : 0xff;
  if (biased < 0) return saturate ? 0 : 0xff;
  return uint8_t(biased);
}

// Wraps an integer into a packed 2/4-bit type's range (discarding high bits,
// as the spec asks for fixed-point to fixed-point casts).
int32_t wrap_packed(DataType t, int64_t v) {
  int bits = data_type_bits(t);
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t raw = uint64_t(v) & mask;
  if (t == DataType::kInt4 || t == DataType::kInt2) {
    uint64_t sign = uint64_t(1) << (bits - 1);
    return int32_t(int64_t(raw ^ sign) - int64_t(sign));
  }
  return int32_t(raw);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A string element as a number: integers exactly, anything else through double.
struct Parsed {
  bool is_int = false;
  int64_t i = 0;
  uint64_t u = 0;
  bool is_uint = false;
  double d = 0;
};

Parsed parse_number(const ep::KernelContext& ctx, const std::string& s) {
  Parsed p;
  std::string t = s;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  size_t start = 0;
  while (start < t.size() && std::isspace(static_cast<unsigned char>(t[start]))) ++start;
  t = t.substr(start);
  const char* b = t.data();
  const char* e = t.data() + t.size();
  const char* ib = (!t.empty() && t[0] == '+') ? b + 1 : b;
  auto ri = std::from_chars(ib, e, p.i);
  if (ri.ec == std::errc() && ri.ptr == e && !t.empty()) {
    p.is_int = true;
    p.d = double(p.i);
    return p;
  }
  auto ru = std::from_chars(ib, e, p.u);
  if (ru.ec == std::errc() && ru.ptr == e && !t.empty()) {
    p.is_uint = true;
    p.d = double(p.u);
    return p;
  }
  std::string l = lower(t);
  if (l == "inf" || l == "+inf" || l == "infinity" || l == "+infinity") {
    p.d = std::numeric_limits<double>::infinity();
  } else if (l == "-inf" || l == "-infinity") {
    p.d = -std::numeric_limits<double>::infinity();
  } else if (l == "nan" || l == "+nan" || l == "-nan") {
    p.d = std::numeric_limits<double>::quiet_NaN();
  } else if (l == "true") {
    p.is_int = true;
    p.i = 1;
    p.d = 1;
  } else if (l == "false") {
    p.is_int = true;
  } else {
    auto rd = std::from_chars(ib, e, p.d);
    if (rd.ec == std::errc::result_out_of_range) {
      p.d = std::strtod(t.c_str(), nullptr);  // gives +-inf or 0 as appropriate
    } else if (rd.ec != std::errc() || rd.ptr != e || t.empty()) {
      ctx.fail_node("cannot parse string \"", s, "\" as a number");
    }
  }
  return p;
}

template <typename D>
D from_parsed(const Parsed& p) {
  if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool>) {
    if (p.is_int) return static_cast<D>(p.i);
    if (p.is_uint) return static_cast<D>(p.u);
    return float_to_int<D>(p.d);
  } else if constexpr (std::is_same_v<D, bool>) {
    return p.is_int ? p.i != 0 : (p.is_uint ? p.u != 0 : p.d != 0);
  } else {
    return convert<D, double>(p.d);
  }
}

template <typename V>
std::string format_number(V v) {
  if constexpr (std::is_same_v<V, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_integral_v<V>) {
    return std::to_string(v);
  } else {
    auto x = load(v);
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "INF" : "-INF";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), x);  // shortest round-trip form
    return std::string(buf, r.ptr);
  }
}

class CastKernel final : public ep::OpKernel {
 public:
  explicit CastKernel(const ep::KernelInfo& info) : like_(info.node().op_type == "CastLike") {
    if (!like_) {
      const ir::Attribute* a = info.node().attr("to");
      if (!a) info.fail_node("required attribute 'to' is missing");
      if (a->type == ir::AttrType::kString) {  // opset 1 spells the type by name
        to_ = data_type_from_name(lower(a->s));
        if (to_ == DataType::kUndefined) info.fail_node("unknown 'to' type \"", a->s, "\"");
      } else {
        int64_t v = info.attr_int("to");
        if (!is_valid_data_type(int32_t(v)) || v == 0)
          info.fail_node("'to' is ", v, ", which is not a tensor element type");
        to_ = static_cast<DataType>(v);
      }
    }
    saturate_ = info.attr_int("saturate", 1) != 0;
    std::string rm = info.attr_string("round_mode", "up");
    if (rm == "up")
      round_ = RoundMode::kUp;
    else if (rm == "down")
      round_ = RoundMode::kDown;
    else if (rm == "nearest")
      round_ = RoundMode::kNearest;
    else
      info.fail_node("round_mode must be \"up\", \"down\" or \"nearest\", got \"", rm, "\"");
    same_type_ = !like_ && to_ != DataType::kString && info.input_type(0) == to_;
  }

  // A Cast to the type it has takes its input's buffer (compute()).
  bool writes_over_input(size_t i) const override { return i == 0 && same_type_; }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    DataType to = to_;
    if (like_) to = ctx.required_input(1).dtype();
    if (to == x.dtype() && to != DataType::kString) {
      // A Cast to the type it has: the optimizer removes those whose input
      // type inference knows (eliminate_redundant_casts), so this serves the
      // rest (a graph output, a value of an op without a schema entry). The
      // input's buffer when the executor lets this node take it over, else
      // one copy of its bytes.
      Tensor& same = ctx.output_reusing(0, 0, x.shape());
      if (same.raw_data() != x.raw_data() && x.byte_size() > 0)
        std::memcpy(same.mutable_raw_data(), x.raw_data(), x.byte_size());
      return;
    }
    Tensor& out = ctx.output(0, x.shape(), to);
    const int64_t n = x.num_elements();
    if (n == 0) return;
    const DataType from = x.dtype();
    // The edges of a half model's float region (compute_half_in_float).
    if (from == DataType::kFloat && is_half(to)) {
      auto* y = static_cast<uint16_t*>(out.mutable_raw_data());
      if (to == DataType::kFloat16)
        linalg::floats_to_halves(x.data<float>(), y, n);
      else
        linalg::floats_to_bfloats(x.data<float>(), y, n);
      return;
    }
    if (is_half(from) && to == DataType::kFloat) {
      const auto* h = static_cast<const uint16_t*>(x.raw_data());
      if (from == DataType::kFloat16)
        linalg::halves_to_floats(h, out.mutable_data<float>(), n);
      else
        linalg::bfloats_to_floats(h, out.mutable_data<float>(), n);
      return;
    }
    const ir::Node& what = ctx.node();  // described only on error
    if (is_sub_byte_type(to)) std::memset(out.mutable_raw_data(), 0, out.byte_size());

    if (from == DataType::kString) {
      const std::string* s = x.data<std::string>();
      if (to == DataType::kString) {
        std::copy(s, s + n, out.mutable_data<std::string>());
        return;
      }
      if (is_small(to)) {
        for (int64_t i = 0; i < n; ++i) {
          Parsed p = parse_number(ctx, s[i]);
          write_small(out, i, to, p.d, p.is_int ? &p.i : nullptr);
        }
        return;
      }
      visit_type(NumericBoolTypes{}, to, what, [&](auto td) {
        using D = typename decltype(td)::type;
        D* o = out.mutable_data<D>();
        for (int64_t i = 0; i < n; ++i) o[i] = from_parsed<D>(parse_number(ctx, s[i]));
      });
      return;
    }
    if (is_small(from)) {
      // Packed integers read exactly as integers; the float kinds as float.
      const void* raw = x.raw_data();
      auto read = [&](int64_t i, int64_t* iv) {
        if (is_packed_int(from)) {
          *iv = get_packed_int(from, raw, i);
          return double(*iv);
        }
        return double(small_type_to_float(from, raw, i));
      };
      if (to == DataType::kString) {
        std::string* o = out.mutable_data<std::string>();
        for (int64_t i = 0; i < n; ++i) {
          int64_t iv = 0;
          double d = read(i, &iv);
          o[i] = is_packed_int(from) ? std::to_string(iv) : format_number(float(d));
        }
        return;
      }
      if (is_small(to)) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t iv = 0;
          double d = read(i, &iv);
          write_small(out, i, to, d, is_packed_int(from) ? &iv : nullptr);
        }
        return;
      }
      visit_type(NumericBoolTypes{}, to, what, [&](auto td) {
        using D = typename decltype(td)::type;
        D* o = out.mutable_data<D>();
        for (int64_t i = 0; i < n; ++i) {
          int64_t iv = 0;
          double d = read(i, &iv);
          if (is_packed_int(from))
            o[i] = convert<D, int64_t>(iv);
          else
            o[i] = convert<D, float>(float(d));
        }
      });
      return;
    }
    visit_type(NumericBoolTypes{}, from, what, [&](auto ts) {
      using S = typename decltype(ts)::type;
      const S* src = x.data<S>();
      if (to == DataType::kString) {
        std::string* o = out.mutable_data<std::string>();
        for (int64_t i = 0; i < n; ++i) o[i] = format_number(src[i]);
        return;
      }
      if (is_small(to)) {
        for (int64_t i = 0; i < n; ++i) {
          if constexpr (std::is_integral_v<S>) {
            int64_t iv = int64_t(src[i]);
            write_small(out, i, to, double(src[i]), &iv);
          } else {
            write_small(out, i, to, double(load(src[i])), nullptr);
          }
        }
        return;
      }
      visit_type(NumericBoolTypes{}, to, what, [&](auto td) {
        using D = typename decltype(td)::type;
        if constexpr (std::is_same_v<S, bool>) {
          // Read as bytes and tested against zero: a branch per random
          // element costs more than the conversion, and this form vectorises.
          unary_map(ctx.thread_pool(), reinterpret_cast<const uint8_t*>(src), out.mutable_data<D>(),
                    n, 1.0, [](uint8_t v) { return convert<D, bool>(v != 0); });
        } else {
          unary_map(ctx.thread_pool(), src, out.mutable_data<D>(), n, 1.0,
                    [](S v) { return convert<D, S>(v); });
        }
      });
    });
  }

 private:
  // Writes element i of a small-type output. `iv` is the exact integer value
  // when the source is an integer (used for the packed integer targets).
  void write_small(Tensor& out, int64_t i, DataType to, double d, const int64_t* iv) const {
    void* raw = out.mutable_raw_data();
    if (to == DataType::kFloat8E8M0) {
      static_cast<uint8_t*>(raw)[i] = to_e8m0(d, saturate_, round_);
    } else if (is_packed_int(to)) {
      // Like the other fixed-point targets: truncate, then keep the low bits.
      set_packed_int(to, raw, i, wrap_packed(to, iv ? *iv : float_to_int<int64_t>(d)));
    } else {
      small_type_from_float(to, raw, i, float(d), saturate_);
    }
  }

  bool like_;
  DataType to_ = DataType::kUndefined;
  bool same_type_ = false;
  bool saturate_ = true;
  RoundMode round_ = RoundMode::kUp;
};

}  // namespace

void add_cast_factories(FactoryMap& m) {
  m["Cast"] = factory_of<CastKernel>();
  m["CastLike"] = factory_of<CastKernel>();
}

}  // namespace tessera::cpu
