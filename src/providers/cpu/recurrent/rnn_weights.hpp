// The weights W and R of a recurrent op as right operands of the products
// X * W^T and H * R^T. In float, each direction's gate rows are packed into
// the GEMM micro-kernel's panel layout (linalg::PackedB) once: at kernel
// creation when the weights are constant initializers, else once per run. The
// recurrent product runs every time step, so repacking R there would cost as
// much as the product itself. Doubles keep plain rows (dgemm has no packed form).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "ep/kernel.hpp"
#include "linalg/gemm.hpp"

namespace tessera::cpu::rnn {

// A [dirs, gates * hidden, cols] weight tensor packed per direction and per
// block of gates: block i holds gates [split[i], split[i + 1]). GRU splits R
// into its z and r gates and its h gate, whose product needs r first.
class PackedGates {
 public:
  PackedGates(const float* data, int64_t dirs, int64_t gates, int64_t hidden, int64_t cols,
              const std::vector<int64_t>& split);
  int64_t dirs() const { return dirs_; }
  int64_t hidden() const { return hidden_; }
  int64_t cols() const { return cols_; }
  const linalg::PackedB& block(int64_t dir, size_t i) const {
    return blocks_[size_t(dir) * (split_.size() - 1) + i];
  }

 private:
  int64_t dirs_, hidden_, cols_;
  std::vector<int64_t> split_;
  std::vector<linalg::PackedB> blocks_;
};

// Input i (W or R) packed at kernel creation when it is a constant float,
// float16 or bfloat16 tensor of rank 3 whose rows divide into `gates` gates;
// null otherwise (the run then packs or loads it itself).
std::shared_ptr<const PackedGates> pack_constant_gates(const ep::KernelInfo& info, size_t i,
                                                       int64_t gates,
                                                       const std::vector<int64_t>& split);

// One block of gate rows of one direction, [n, k], as the right operand of
// act * block^T: packed in float, plain rows in double.
template <typename A>
struct GateBlock {
  const linalg::PackedB* packed = nullptr;
  const A* rows = nullptr;
  int64_t n = 0, k = 0;
};

// c[m, n] = a[m, k] * block^T, plus c's old contents when `accumulate`.
void gate_product(ThreadPool* pool, int64_t m, const float* a, int64_t lda,
                  const GateBlock<float>& w, float* c, int64_t ldc, bool accumulate);
void gate_product(ThreadPool* pool, int64_t m, const double* a, int64_t lda,
                  const GateBlock<double>& w, double* c, int64_t ldc, bool accumulate);

// W or R of one run in compute type A: the creation-time packing when there
// is one, else the tensor packed (float) or loaded (double) here.
template <typename A>
class GateWeights {
 public:
  GateWeights(const Tensor& t, std::shared_ptr<const PackedGates> prepacked, int64_t dirs,
              int64_t gates, int64_t hidden, const std::vector<int64_t>& split);
  GateBlock<A> block(int64_t dir, size_t i) const;

 private:
  std::shared_ptr<const PackedGates> packed_;  // float
  std::vector<A> rows_;                        // double: [dirs, gates * hidden, cols]
  std::vector<int64_t> split_;
  int64_t gates_ = 0, hidden_ = 0, cols_ = 0;
};

}  // namespace tessera::cpu::rnn
