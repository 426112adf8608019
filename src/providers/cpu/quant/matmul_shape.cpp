#include "providers/cpu/quant/matmul_shape.hpp"

#include "ops/broadcast.hpp"

namespace tessera::cpu {

MatMulPlan plan_matmul(const ep::KernelContext& ctx, const Shape& a, const Shape& b) {
  if (a.rank() == 0 || b.rank() == 0)
    ctx.fail_node("matmul inputs must have rank >= 1, got ", a.to_string(), " and ", b.to_string());
  std::vector<int64_t> ad = a.dims(), bd = b.dims();
  const bool a1 = ad.size() == 1, b1 = bd.size() == 1;
  if (a1) ad.insert(ad.begin(), 1);
  if (b1) bd.push_back(1);
  MatMulPlan p;
  p.M = ad[ad.size() - 2];
  p.K = ad.back();
  p.N = bd.back();
  if (bd[bd.size() - 2] != p.K)
    ctx.fail_node("matmul inner dimensions differ: A ", a.to_string(), ", B ", b.to_string());
  Shape ab(std::vector<int64_t>(ad.begin(), ad.end() - 2));
  Shape bb(std::vector<int64_t>(bd.begin(), bd.end() - 2));
  Shape batch;
  try {
    batch = ops::broadcast_shapes({ab, bb});
  } catch (const Error&) {
    ctx.fail_node("matmul batch dimensions do not broadcast: A ", a.to_string(), ", B ",
                  b.to_string());
  }
  p.batch = batch.num_elements();
  ops::BroadcastIndexer bi({ab, bb}, batch);
  // Walk the batch index through the indexer one element at a time.
  std::vector<int64_t> off(2);
  for (int64_t r = 0; r < bi.num_rows(); ++r) {
    bi.row_offsets(r, off.data());
    for (int64_t k = 0; k < bi.inner(); ++k) {
      p.a_offset.push_back((off[0] + k * bi.inner_stride(0)) * p.M * p.K);
      p.b_offset.push_back((off[1] + k * bi.inner_stride(1)) * p.K * p.N);
    }
  }
  if (p.batch == 1 && p.a_offset.empty()) {
    p.a_offset.push_back(0);
    p.b_offset.push_back(0);
  }
  std::vector<int64_t> od = batch.dims();
  if (!a1) od.push_back(p.M);
  if (!b1) od.push_back(p.N);
  p.out = Shape(od);
  return p;
}

}  // namespace tessera::cpu
