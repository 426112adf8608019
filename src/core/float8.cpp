#include "core/float8.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace tessera {

namespace {

struct MiniFloat {
  int exp_bits, mant_bits, bias;
  bool has_inf;      // e5m2: IEEE-style inf/NaN in the top exponent
  bool fnuz;         // 0x80 is the only NaN; no negative zero
  bool nan_all_ones; // e4m3fn: S.1111.111 is NaN, no inf
};

MiniFloat layout(DataType t) {
  switch (t) {
    case DataType::kFloat8E4M3FN: return {4, 3, 7, false, false, true};
    case DataType::kFloat8E4M3FNUZ: return {4, 3, 8, false, true, false};
    case DataType::kFloat8E5M2: return {5, 2, 15, true, false, false};
    case DataType::kFloat8E5M2FNUZ: return {5, 2, 16, false, true, false};
    case DataType::kFloat4E2M1: return {2, 1, 1, false, false, false};
    default: fail(ErrorCode::kInvalidArgument, "not a small float type: ", data_type_name(t));
  }
}

float decode(const MiniFloat& f, uint32_t bits) {
  int total = 1 + f.exp_bits + f.mant_bits;
  uint32_t sign = (bits >> (total - 1)) & 1u;
  uint32_t exp = (bits >> f.mant_bits) & ((1u << f.exp_bits) - 1);
  uint32_t mant = bits & ((1u << f.mant_bits) - 1);
  uint32_t exp_max = (1u << f.exp_bits) - 1;
  if (f.fnuz && bits == (1u << (total - 1))) return std::numeric_limits<float>::quiet_NaN();
  if (f.has_inf && exp == exp_max)
    return mant ? std::numeric_limits<float>::quiet_NaN()
                : (sign ? -INFINITY : INFINITY);
  if (f.nan_all_ones && exp == exp_max && mant == (1u << f.mant_bits) - 1)
    return std::numeric_limits<float>::quiet_NaN();
  float v;
  if (exp == 0)
    v = std::ldexp(float(mant), 1 - f.bias - f.mant_bits);
  else
    v = std::ldexp(float(mant | (1u << f.mant_bits)), int(exp) - f.bias - f.mant_bits);
  return sign ? -v : v;
}

// Largest finite value's bit pattern (without sign).
uint32_t max_finite_bits(const MiniFloat& f) {
  uint32_t exp_max = (1u << f.exp_bits) - 1;
  uint32_t mant_all = (1u << f.mant_bits) - 1;
  if (f.has_inf) return ((exp_max - 1) << f.mant_bits) | mant_all;
  if (f.nan_all_ones) return (exp_max << f.mant_bits) | (mant_all - 1);
  return (exp_max << f.mant_bits) | mant_all;
}

uint32_t encode(const MiniFloat& f, float v, bool saturate) {
  int total = 1 + f.exp_bits + f.mant_bits;
  uint32_t sign_bit = 1u << (total - 1);
  uint32_t nan_bits = f.fnuz ? sign_bit
                      : f.has_inf ? (((1u << f.exp_bits) - 1) << f.mant_bits) | 1u
                                  : (sign_bit - 1);  // all ones (e4m3fn) / float4 has no NaN
  // float4e2m1 has no NaN; the ONNX reference maps NaN to 0x8 (negative zero).
  if (std::isnan(v)) return (f.exp_bits == 2) ? 0x8u : nan_bits;
  bool neg = std::signbit(v);
  float a = std::fabs(v);
  uint32_t maxb = max_finite_bits(f);
  float max_val = decode(f, maxb);
  uint32_t sign = neg ? sign_bit : 0;
  if (std::isinf(a)) {
    if (saturate || f.exp_bits == 2) return sign | maxb;
    if (f.has_inf) return sign | (((1u << f.exp_bits) - 1) << f.mant_bits);
    return nan_bits;
  }
  // Search the representable magnitudes (at most 128) for the nearest, ties to even.
  uint32_t best = 0;
  float best_err = a;
  for (uint32_t b = 1; b <= maxb; ++b) {
    float d = decode(f, b);
    float err = std::fabs(d - a);
    if (err < best_err || (err == best_err && (b & 1u) == 0)) {
      best = b;
      best_err = err;
    }
  }
  if (a > max_val) {
    // Beyond the largest finite value: rounds to it only within half an ulp.
    float ulp = max_val - decode(f, maxb - 1);
    if (!saturate && f.exp_bits != 2 && a >= max_val + ulp / 2)
      return f.has_inf ? (sign | (((1u << f.exp_bits) - 1) << f.mant_bits)) : nan_bits;
    best = maxb;
  }
  if (best == 0 && f.fnuz) return 0;  // no negative zero
  return sign | best;
}

}  // namespace

float float8_to_float(DataType t, uint8_t bits) {
  if (t == DataType::kFloat8E8M0) {
    if (bits == 0xff) return std::numeric_limits<float>::quiet_NaN();
    return std::ldexp(1.0f, int(bits) - 127);
  }
  return decode(layout(t), bits);
}

uint8_t float_to_float8(DataType t, float v, bool saturate) {
  if (t == DataType::kFloat8E8M0) {
    if (std::isnan(v) || v <= 0) return std::isnan(v) ? 0xff : 0;
    if (std::isinf(v)) return saturate ? 0xfe : 0xff;
    int e;
    float m = std::frexp(v, &e);  // v = m * 2^e, m in [0.5,1)
    int exp = e - 1 + 127;        // floor(log2 v) + bias
    if (m > 0.75f) ++exp;          // round to nearest power of two
    if (exp < 0) exp = 0;
    if (exp > 254) exp = saturate ? 254 : 255;
    return uint8_t(exp);
  }
  return uint8_t(encode(layout(t), v, saturate));
}

int32_t get_packed_int(DataType t, const void* data, int64_t i) {
  auto* b = static_cast<const uint8_t*>(data);
  int bits = data_type_bits(t);
  int per = 8 / bits;
  uint32_t raw = (b[i / per] >> ((i % per) * bits)) & ((1u << bits) - 1);
  if (t == DataType::kInt4 || t == DataType::kInt2) {
    int32_t sign = 1 << (bits - 1);
    return int32_t(raw ^ uint32_t(sign)) - sign;
  }
  return int32_t(raw);
}

void set_packed_int(DataType t, void* data, int64_t i, int32_t v) {
  auto* b = static_cast<uint8_t*>(data);
  int bits = data_type_bits(t);
  int per = 8 / bits;
  bool sgn = t == DataType::kInt4 || t == DataType::kInt2;
  int32_t lo = sgn ? -(1 << (bits - 1)) : 0;
  int32_t hi = sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  v = v < lo ? lo : (v > hi ? hi : v);
  uint32_t mask = (1u << bits) - 1;
  int shift = int(i % per) * bits;
  uint8_t& byte = b[i / per];
  byte = uint8_t((byte & ~(mask << shift)) | ((uint32_t(v) & mask) << shift));
}

float small_type_to_float(DataType t, const void* data, int64_t i) {
  switch (t) {
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kInt2:
    case DataType::kUInt2:
      return float(get_packed_int(t, data, i));
    case DataType::kFloat4E2M1: {
      auto* b = static_cast<const uint8_t*>(data);
      return decode(layout(t), (b[i / 2] >> ((i % 2) * 4)) & 0xfu);
    }
    default:
      return float8_to_float(t, static_cast<const uint8_t*>(data)[i]);
  }
}

void small_type_from_float(DataType t, void* data, int64_t i, float v, bool saturate) {
  switch (t) {
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kInt2:
    case DataType::kUInt2: {
      float r = std::nearbyint(v);
      set_packed_int(t, data, i, std::isnan(r) ? 0 : int32_t(std::fmax(-1e6f, std::fmin(1e6f, r))));
      return;
    }
    case DataType::kFloat4E2M1: {
      auto* b = static_cast<uint8_t*>(data);
      uint32_t bits = encode(layout(t), v, saturate) & 0xfu;
      int shift = int(i % 2) * 4;
      b[i / 2] = uint8_t((b[i / 2] & ~(0xfu << shift)) | (bits << shift));
      return;
    }
    default:
      static_cast<uint8_t*>(data)[i] = float_to_float8(t, v, saturate);
  }
}

}  // namespace tessera
