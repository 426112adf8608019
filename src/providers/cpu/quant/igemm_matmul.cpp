#include "providers/cpu/quant/igemm_matmul.hpp"

#include <vector>

#include "core/quant_types.hpp"
#include "providers/cpu/quant/element_io.hpp"

namespace tessera::cpu {

namespace {

// The zero points of `t` as int32: none, one, or `len` of them (a 1-D
// vector). False for any other shape.
bool zero_points(const Tensor* t, int64_t len, std::vector<int32_t>& out) {
  out.clear();
  if (!t) return true;
  if (t->num_elements() != 1 && !(t->rank() == 1 && t->shape()[0] == len)) return false;
  for (double v : read_as<double>(*t)) out.push_back(int32_t(v));
  return true;
}

linalg::ZeroPoints view(const std::vector<int32_t>& z) { return {z.data(), int64_t(z.size())}; }

}  // namespace

std::shared_ptr<const linalg::PackedBInt8> pack_constant_int8_b(const ep::KernelInfo& info,
                                                                size_t i) {
  const Tensor* b = info.num_inputs() > i ? info.constant_input(i) : nullptr;
  if (!b || b->rank() != 2 || !is_8bit_integer_type(b->dtype())) return nullptr;
  return info.prepacked<linalg::PackedBInt8>(i, "cpu.igemm.packed_b", {}, [&] {
    linalg::PackedBInt8 packed(b->shape()[0], b->shape()[1], b->raw_data(), b->shape()[1],
                               b->dtype() == DataType::kInt8);
    // Weights get the AVX2 pair tile where that path runs (igemm.hpp).
    if (linalg::igemm_best_path() == linalg::IgemmPath::kAvx2) packed.prepare_pairs();
    return packed;
  });
}

bool igemm_matmul(ep::KernelContext& ctx, const MatMulPlan& p, const Tensor& a, const Tensor& b,
                  const Tensor* azp, const Tensor* bzp, const linalg::PackedBInt8* packed,
                  const linalg::IgemmToFloat* to_float, int32_t* into,
                  const linalg::IgemmStore* each) {
  if (!is_8bit_integer_type(a.dtype()) || !is_8bit_integer_type(b.dtype())) return false;
  std::vector<int32_t> za, zb;
  if (!zero_points(azp, p.M, za) || !zero_points(bzp, p.N, zb)) return false;
  const bool a_signed = a.dtype() == DataType::kInt8, b_signed = b.dtype() == DataType::kInt8;
  const auto* a8 = static_cast<const uint8_t*>(a.raw_data());
  Tensor* y = into || each ? nullptr
                           : &ctx.output(0, p.out, to_float ? DataType::kFloat : DataType::kInt32);
  int32_t* y32 = into ? into : y && !to_float ? y->mutable_data<int32_t>() : nullptr;
  // An empty product (a batch of 0 had reached p.b_offset[0] of an empty
  // list below: found by scripts/fuzz_models.py).
  if (p.batch == 0 || p.M == 0 || p.N == 0) return true;
  ThreadPool* pool = &ctx.thread_pool();
  // rows x N of the product into the output from element `offset` on.
  auto product = [&](int64_t rows, const uint8_t* a_rows, linalg::ZeroPoints a_zero,
                     const linalg::PackedBInt8& pb, int64_t offset) {
    if (each)
      linalg::igemm_each(
          rows, a_rows, p.K, a_signed, a_zero, pb, view(zb),
          [&](int64_t m, int64_t n0, int64_t width, const int32_t* v) {
            (*each)(offset / p.N + m, n0, width, v);
          },
          pool);
    else if (to_float)
      linalg::igemm_to_float(rows, a_rows, p.K, a_signed, a_zero, pb, view(zb), *to_float,
                             y->mutable_data<float>() + offset, p.N, pool);
    else
      linalg::igemm(rows, a_rows, p.K, a_signed, a_zero, pb, view(zb), y32 + offset, p.N, pool);
  };
  auto packed_for = [&](int64_t b_offset, linalg::PackedBInt8& local) {
    if (packed && packed->depth() == p.K && packed->cols() == p.N &&
        packed->b_signed() == b_signed && b_offset == 0)
      return packed;
    // (A constant B's data may be gone once packed: read only here.)
    local = linalg::PackedBInt8(p.K, p.N, static_cast<const uint8_t*>(b.raw_data()) + b_offset, p.N,
                                b_signed);
    return static_cast<const linalg::PackedBInt8*>(&local);
  };
  // One B under a dense run of A's matrices: their rows are one tall A.
  bool fold = true;
  for (int64_t i = 0; i < p.batch; ++i)
    fold = fold && p.b_offset[size_t(i)] == p.b_offset[0] && p.a_offset[size_t(i)] == i * p.M * p.K;
  if (fold) {
    std::vector<int32_t> za_rows;
    if (za.size() > 1)  // per row of each matrix, repeated down the tall A
      for (int64_t i = 0; i < p.batch; ++i) za_rows.insert(za_rows.end(), za.begin(), za.end());
    linalg::PackedBInt8 local;
    const linalg::PackedBInt8* pb = packed_for(p.b_offset[0], local);
    product(p.batch * p.M, a8, view(za.size() > 1 ? za_rows : za), *pb, 0);
    return true;
  }
  for (int64_t i = 0; i < p.batch; ++i) {
    linalg::PackedBInt8 local;
    const linalg::PackedBInt8* pb = packed_for(p.b_offset[size_t(i)], local);
    product(p.M, a8 + p.a_offset[size_t(i)], view(za), *pb, i * p.M * p.N);
  }
  return true;
}

bool igemm_matmul_requantize(ep::KernelContext& ctx, const MatMulPlan& p, const Tensor& a,
                             const Tensor& b, const Tensor* azp, const Tensor* bzp,
                             const linalg::PackedBInt8* packed, float mult,
                             linalg::IgemmRequantize q, uint8_t* out) {
  if (!is_8bit_integer_type(a.dtype()) || !is_8bit_integer_type(b.dtype())) return false;
  std::vector<int32_t> za, zb;
  if (!zero_points(azp, p.M, za) || !zero_points(bzp, p.N, zb)) return false;
  for (int64_t i = 0; i < p.batch; ++i)
    if (p.b_offset[size_t(i)] != p.b_offset[0] || p.a_offset[size_t(i)] != i * p.M * p.K)
      return false;
  if (p.batch == 0 || p.M == 0 || p.N == 0) return true;
  const bool a_signed = a.dtype() == DataType::kInt8, b_signed = b.dtype() == DataType::kInt8;
  linalg::PackedBInt8 local;
  if (!(packed && packed->depth() == p.K && packed->cols() == p.N &&
        packed->b_signed() == b_signed && p.b_offset[0] == 0)) {
    local = linalg::PackedBInt8(p.K, p.N, static_cast<const uint8_t*>(b.raw_data()) + p.b_offset[0],
                                p.N, b_signed);
    packed = &local;
  }
  const int64_t rows = p.batch * p.M;
  std::vector<int32_t> za_rows;
  if (za.size() > 1)  // per row of each matrix, repeated down the tall A
    for (int64_t i = 0; i < p.batch; ++i) za_rows.insert(za_rows.end(), za.begin(), za.end());
  const linalg::PreparedAInt8 prepared(rows, p.K, a.raw_data(), p.K, a_signed);
  const std::vector<float> mults(static_cast<size_t>(rows), mult);
  q.bias = nullptr;
  q.mult = mults.data();
  q.y = out;
  q.ldy = p.N;
  linalg::igemm_requantize(prepared, view(za.size() > 1 ? za_rows : za), *packed, view(zb), q,
                           &ctx.thread_pool());
  return true;
}

}  // namespace tessera::cpu
