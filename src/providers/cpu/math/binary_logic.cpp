// Logical and comparison binary ops (bool outputs): And, Or, Xor, Equal,
// Less, Greater, LessOrEqual, GreaterOrEqual. float16/bfloat16 compare as float.
#include <string>

#include "providers/cpu/math/binary_kernel.hpp"
#include "providers/cpu/math/math_kernels.hpp"

namespace tessera::cpu {

namespace {

template <int kKind>  // 0 and, 1 or, 2 xor
struct LogicalOp {
  using Types = TypeList<bool>;
  explicit LogicalOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = bool;
  template <typename T>
  bool apply(bool a, bool b) const {
    if constexpr (kKind == 0) return a && b;
    else if constexpr (kKind == 1) return a || b;
    else return a != b;
  }
};

template <typename T>
inline auto cmp_value(const T& v) {
  if constexpr (is_half_v<T>) return float(v);
  else return v;
}

struct EqualOp {
  using Types = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t,
                         uint8_t, uint16_t, uint32_t, uint64_t, bool, std::string>;
  explicit EqualOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = bool;
  template <typename T>
  bool apply(const T& a, const T& b) const {
    return cmp_value(a) == cmp_value(b);
  }
};

template <int kKind>  // 0 <, 1 >, 2 <=, 3 >=
struct CompareOp {
  using Types = NumericTypes;
  explicit CompareOp(const ep::KernelInfo&) {}
  template <typename T>
  using Out = bool;
  template <typename T>
  bool apply(T a, T b) const {
    auto x = cmp_value(a);
    auto y = cmp_value(b);
    if constexpr (kKind == 0) return x < y;
    else if constexpr (kKind == 1) return x > y;
    else if constexpr (kKind == 2) return x <= y;
    else return x >= y;
  }
};

}  // namespace

void add_binary_logic_factories(FactoryMap& m) {
  m["And"] = factory_of<BinaryKernel<LogicalOp<0>>>();
  m["Or"] = factory_of<BinaryKernel<LogicalOp<1>>>();
  m["Xor"] = factory_of<BinaryKernel<LogicalOp<2>>>();
  m["Equal"] = factory_of<BinaryKernel<EqualOp>>();
  m["Less"] = factory_of<BinaryKernel<CompareOp<0>>>();
  m["Greater"] = factory_of<BinaryKernel<CompareOp<1>>>();
  m["LessOrEqual"] = factory_of<BinaryKernel<CompareOp<2>>>();
  m["GreaterOrEqual"] = factory_of<BinaryKernel<CompareOp<3>>>();
}

}  // namespace tessera::cpu
