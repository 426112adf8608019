#include "providers/cpu/recurrent/rnn_weights.hpp"

#include "providers/cpu/recurrent/float_io.hpp"

namespace tessera::cpu::rnn {

PackedGates::PackedGates(const float* data, int64_t dirs, int64_t gates, int64_t hidden,
                         int64_t cols, const std::vector<int64_t>& split)
    : dirs_(dirs), hidden_(hidden), cols_(cols), split_(split) {
  check(split.size() >= 2 && split.front() == 0 && split.back() == gates,
        "PackedGates: the split must cover gates [0, ", gates, ")");
  blocks_.reserve(size_t(dirs) * (split.size() - 1));
  for (int64_t dir = 0; dir < dirs; ++dir)
    for (size_t i = 0; i + 1 < split.size(); ++i) {
      const float* first = data + (dir * gates + split[i]) * hidden * cols;
      const int64_t n = (split[i + 1] - split[i]) * hidden;
      // The stored rows are the product's columns: B = block^T, K = cols.
      blocks_.emplace_back(true, cols, n, first, cols);
    }
}

std::shared_ptr<const PackedGates> pack_constant_gates(const ep::KernelInfo& info, size_t i,
                                                       int64_t gates,
                                                       const std::vector<int64_t>& split) {
  const Tensor* t = info.has_input(i) ? info.constant_input(i) : nullptr;
  if (!t || t->rank() != 3) return nullptr;
  const DataType dt = t->dtype();
  if (dt != DataType::kFloat && dt != DataType::kFloat16 && dt != DataType::kBFloat16)
    return nullptr;
  const int64_t dirs = t->shape()[0], rows = t->shape()[1], cols = t->shape()[2];
  if (rows <= 0 || rows % gates != 0 || dirs <= 0 || cols <= 0) return nullptr;
  std::vector<int64_t> params = {gates};
  params.insert(params.end(), split.begin(), split.end());
  return info.prepacked<PackedGates>(i, "cpu.rnn.packed_gates", params, [&] {
    std::vector<float> v = load_float<float>(*t);
    return PackedGates(v.data(), dirs, gates, rows / gates, cols, split);
  });
}

void gate_product(ThreadPool* pool, int64_t m, const float* a, int64_t lda,
                  const GateBlock<float>& w, float* c, int64_t ldc, bool accumulate) {
  linalg::sgemm_packed_b(false, m, 1.f, a, lda, *w.packed, accumulate ? 1.f : 0.f, c, ldc, pool);
}

void gate_product(ThreadPool* pool, int64_t m, const double* a, int64_t lda,
                  const GateBlock<double>& w, double* c, int64_t ldc, bool accumulate) {
  linalg::dgemm(false, true, m, w.n, w.k, 1.0, a, lda, w.rows, w.k, accumulate ? 1.0 : 0.0, c, ldc,
                pool);
}

template <typename A>
GateWeights<A>::GateWeights(const Tensor& t, std::shared_ptr<const PackedGates> prepacked,
                            int64_t dirs, int64_t gates, int64_t hidden,
                            const std::vector<int64_t>& split)
    : split_(split), gates_(gates), hidden_(hidden), cols_(t.shape()[2]) {
  if constexpr (std::is_same_v<A, float>) {
    if (prepacked) {
      // A constant's shape was checked against this run's before we got here.
      check(
          prepacked->dirs() == dirs && prepacked->hidden() == hidden && prepacked->cols() == cols_,
          "rnn: packed weights do not match the run's shapes");
      packed_ = std::move(prepacked);
    } else {
      std::vector<float> v = load_float<float>(t);
      packed_ = std::make_shared<const PackedGates>(v.data(), dirs, gates, hidden, cols_, split);
    }
  } else {
    rows_ = load_float<A>(t);
  }
}

template <typename A>
GateBlock<A> GateWeights<A>::block(int64_t dir, size_t i) const {
  GateBlock<A> b;
  b.n = (split_[i + 1] - split_[i]) * hidden_;
  b.k = cols_;
  if constexpr (std::is_same_v<A, float>)
    b.packed = &packed_->block(dir, i);
  else
    b.rows = rows_.data() + (dir * gates_ + split_[i]) * hidden_ * cols_;
  return b;
}

template class GateWeights<float>;
template class GateWeights<double>;

}  // namespace tessera::cpu::rnn
