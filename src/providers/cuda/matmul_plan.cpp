#include "providers/cuda/matmul_plan.hpp"

#include "core/error.hpp"

namespace tessera::cuda {

MatMulPlan plan_matmul(const Shape& a, const Shape& b) {
  check(a.rank() >= 1 && b.rank() >= 1, "MatMul: inputs ", a.to_string(), " and ", b.to_string(),
        " must have at least one dim");
  // Promote 1-D operands: A [K] -> [1, K], B [K] -> [K, 1] (dims dropped from
  // the output below).
  std::vector<int64_t> da = a.dims(), db = b.dims();
  if (da.size() == 1) da.insert(da.begin(), 1);
  if (db.size() == 1) db.push_back(1);
  MatMulPlan p;
  p.m = da[da.size() - 2];
  p.k = da.back();
  p.n = db.back();
  check(db[db.size() - 2] == p.k, "MatMul: inner dims differ: ", a.to_string(), " x ",
        b.to_string());
  // Batch dims, right-aligned and broadcast.
  const size_t ra = da.size() - 2, rb = db.size() - 2, r = std::max(ra, rb);
  std::vector<int64_t> ba(r, 1), bb(r, 1), bo(r, 1);
  for (size_t i = 0; i < ra; ++i) ba[r - ra + i] = da[i];
  for (size_t i = 0; i < rb; ++i) bb[r - rb + i] = db[i];
  int64_t na = 1, nb = 1, no = 1;
  for (size_t i = 0; i < r; ++i) {
    check(ba[i] == bb[i] || ba[i] == 1 || bb[i] == 1, "MatMul: batch dims of ", a.to_string(),
          " and ", b.to_string(), " do not broadcast");
    bo[i] = ba[i] == 1 ? bb[i] : ba[i];
    na *= ba[i];
    nb *= bb[i];
    no *= bo[i];
  }
  std::vector<int64_t> out = bo;
  if (a.rank() > 1) out.push_back(p.m);
  if (b.rank() > 1) out.push_back(p.n);
  p.out = Shape(out);
  if (nb == 1) {
    // B is one matrix (then A's batch is the output's): A's batches are the
    // rows of one taller GEMM.
    p.m *= na;
    p.batch = 1;
    return p;
  }
  p.batch = no;
  if (na == no && ba == bb) {
    p.stride_a = p.m * p.k;
    p.stride_b = p.k * p.n;
    return p;
  }
  if (na == 1 && nb == no) {
    p.stride_a = 0;
    p.stride_b = p.k * p.n;
    return p;
  }
  // Irregular: walk the output batch and map each index into A and B.
  p.offsets_a.resize(size_t(no));
  p.offsets_b.resize(size_t(no));
  for (int64_t o = 0; o < no; ++o) {
    int64_t rem = o, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t i = r; i-- > 0;) {
      const int64_t c = rem % bo[i];
      rem /= bo[i];
      if (ba[i] != 1) ia += c * sa;
      if (bb[i] != 1) ib += c * sb;
      sa *= ba[i];
      sb *= bb[i];
    }
    p.offsets_a[size_t(o)] = ia * p.m * p.k;
    p.offsets_b[size_t(o)] = ib * p.k * p.n;
  }
  return p;
}

}  // namespace tessera::cuda
