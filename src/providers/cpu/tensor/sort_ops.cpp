// TopK and Unique: both order elements by value, so they compute on the
// arithmetic type (float for float16/bfloat16) and break ties by index.
#include <algorithm>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "linalg/row_reduce.hpp"
#include "providers/cpu/tensor/element_ops.hpp"
#include "providers/cpu/tensor/tensor_kernels.hpp"

namespace tessera::cpu {

namespace {

using ep::KernelContext;
using ep::KernelInfo;
using ep::OpKernel;
using ep::TypeConstraint;
namespace types = ep::types;

// TopK's order on values: a NaN ranks above every number (as in a sorted
// array's NaNs at the end), so it comes first for largest and last for
// smallest; a strict weak order, which the heap needs.
template <typename A>
inline bool ranks_above(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    if (b != b) return false;
    if (a != a) return true;
  }
  return a > b;
}

class TopKKernel : public OpKernel {
 public:
  explicit TopKKernel(const KernelInfo& info)
      : opset_(info.opset()),
        k_attr_(info.attr_int("k", -1)),
        axis_(info.attr_int("axis", -1)),
        largest_(info.attr_int("largest", 1) != 0) {}

  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    int64_t k = k_attr_;
    if (opset_ >= 10) {
      auto kv = read_ints(ctx.required_input(1));
      if (kv.size() != 1) ctx.fail_node("K must hold one value, got ", kv.size());
      k = kv[0];
    }
    int64_t r = int64_t(x.rank());
    if (axis_ < -r || axis_ >= r)
      ctx.fail_node("axis ", axis_, " is out of range for input of shape ", x.shape().to_string());
    size_t axis = size_t(axis_ < 0 ? axis_ + r : axis_);
    int64_t dim = x.shape()[axis];
    if (k < 0 || k > dim)
      ctx.fail_node("k = ", k, " is out of range [0, ", dim, "] for axis ", axis_, " of shape ",
                    x.shape().to_string());
    std::vector<int64_t> dims = x.shape().dims();
    dims[axis] = k;
    Tensor& vals = ctx.output(0, Shape(dims), x.dtype());
    Tensor& idxs = ctx.output(1, Shape(dims), DataType::kInt64);
    int64_t outer = x.shape().size_to(axis), inner = x.shape().size_from(axis + 1);
    if (k == 0 || outer * inner == 0) return;
    int64_t* oi = idxs.mutable_data<int64_t>();
    bool largest = largest_;
    dispatch_numeric(x.dtype(), "TopK", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = Acc<T>;
      const T* s = x.data<T>();
      T* ov = vals.mutable_data<T>();
      // A heap of the k best so far, its worst on top: each further element
      // costs one comparison with that worst unless it displaces it, and
      // nothing is copied out of the input first. An element that equals the
      // worst never displaces it (its index is larger), which keeps ties in
      // index order.
      ctx.thread_pool().parallel_for(outer * inner, double(dim) * 2, [&](int64_t b, int64_t e) {
        std::vector<std::pair<A, int64_t>> heap(static_cast<size_t>(k));
        auto before = [largest](const std::pair<A, int64_t>& a, const std::pair<A, int64_t>& c) {
          if (ranks_above(a.first, c.first)) return largest;
          if (ranks_above(c.first, a.first)) return !largest;
          return a.second < c.second;
        };
        // Up to 32 kept values stay a sorted array (a new one moves up past
        // the ones it beats), cheaper than the heap's sifts at that size.
        const bool sorted = k <= 32;
        auto better = [largest](A v, A w) {
          return largest ? ranks_above(v, w) : ranks_above(w, v);
        };
        auto insert_sorted = [&](int64_t last, A v, int64_t j) {
          int64_t p = last;
          for (; p > 0 && better(v, heap[size_t(p - 1)].first); --p)
            heap[size_t(p)] = heap[size_t(p - 1)];
          heap[size_t(p)] = {v, j};
        };
        std::vector<float> chunk_best;
        std::vector<int64_t> cand;
        // Float rows of at least 16k values: the k-th best value is at least
        // as good as the worst of the bests of k chunks of the row (k distinct
        // values reach that), found with the vector row reductions; only the
        // values at or beyond it (ties included, and NaN for largest) are
        // candidates, collected in vector blocks and then selected as below.
        // Without it the start of each row, before the kept values are good,
        // sends most values through the scalar insertion.
        auto select_candidates = [&](const float* row) {
          const int64_t chunk = dim / k;
          chunk_best.resize(size_t(k));
          linalg::extreme_rows(largest, row, k, chunk, chunk_best.data());
          float t = chunk_best[0];
          for (float c : chunk_best) {
            if (c != c) return false;  // a NaN in a chunk: the general loop
            t = largest ? std::min(t, c) : std::max(t, c);
          }
          cand.resize(size_t(dim));
          cand.resize(size_t(linalg::positions_reaching(largest, row, dim, t, cand.data())));
          return int64_t(cand.size()) >= k;
        };
        for (int64_t job = b; job < e; ++job) {
          int64_t o = job / inner, i = job % inner;
          const T* base = s + o * dim * inner + i;
          if constexpr (std::is_same_v<T, float>) {
            if (inner == 1 && dim >= 16 * k && select_candidates(base)) {
              for (int64_t c = 0; c < k; ++c) {
                const int64_t j = cand[size_t(c)];
                if (sorted)
                  insert_sorted(c, base[j], j);
                else
                  heap[size_t(c)] = {base[j], j};
              }
              if (!sorted) std::make_heap(heap.begin(), heap.end(), before);
              for (size_t c = size_t(k); c < cand.size(); ++c) {
                const int64_t j = cand[c];
                const float v = base[j];
                if (sorted) {
                  if (better(v, heap[size_t(k - 1)].first)) insert_sorted(k - 1, v, j);
                } else if (better(v, heap.front().first)) {
                  std::pop_heap(heap.begin(), heap.end(), before);
                  heap.back() = {v, j};
                  std::push_heap(heap.begin(), heap.end(), before);
                }
              }
              if (!sorted) std::sort_heap(heap.begin(), heap.end(), before);
              for (int64_t j = 0; j < k; ++j) {
                ov[o * k + j] = base[heap[size_t(j)].second];
                oi[o * k + j] = heap[size_t(j)].second;
              }
              continue;
            }
          }
          if (sorted) {
            for (int64_t j = 0; j < k; ++j) insert_sorted(j, A(base[j * inner]), j);
          } else {
            for (int64_t j = 0; j < k; ++j) heap[size_t(j)] = {A(base[j * inner]), j};
            std::make_heap(heap.begin(), heap.end(), before);
          }
          auto worst = [&] { return sorted ? heap[size_t(k - 1)].first : heap.front().first; };
          auto offer = [&](int64_t j) {
            const A v = A(base[j * inner]);
            if (!better(v, worst())) return;
            if (sorted) return insert_sorted(k - 1, v, j);
            std::pop_heap(heap.begin(), heap.end(), before);
            heap.back() = {v, j};
            std::push_heap(heap.begin(), heap.end(), before);
          };
          int64_t j = k;
          if (inner == 1) {
            // Blocks of 16 checked against the current worst without a
            // branch per element (a loop the compiler vectorizes); once the
            // heap holds good values most blocks hold no candidate.
            constexpr int64_t kBlock = 16;
            for (; j + kBlock <= dim; j += kBlock) {
              const A w = worst();
              int any = 0;
              if constexpr (std::is_floating_point_v<A>) {
                // With w a number: v ranks above it when greater or NaN, below
                // when less. A NaN worst sends the block the slow way.
                if (w != w) {
                  any = 1;
                } else if (largest) {
                  for (int64_t q = 0; q < kBlock; ++q) {
                    const A v = A(base[j + q]);
                    any |= int(v > w) | int(v != v);
                  }
                } else {
                  for (int64_t q = 0; q < kBlock; ++q) any |= int(A(base[j + q]) < w);
                }
              } else {
                for (int64_t q = 0; q < kBlock; ++q) {
                  const A v = A(base[j + q]);
                  any |= int(largest ? v > w : v < w);
                }
              }
              if (!any) continue;
              for (int64_t q = 0; q < kBlock; ++q) offer(j + q);
            }
          }
          for (; j < dim; ++j) offer(j);
          if (!sorted) std::sort_heap(heap.begin(), heap.end(), before);
          for (int64_t j = 0; j < k; ++j) {
            int64_t at = o * k * inner + j * inner + i;
            ov[at] = base[heap[size_t(j)].second * inner];
            oi[at] = heap[size_t(j)].second;
          }
        }
      });
    });
  }

 private:
  int64_t opset_, k_attr_, axis_;
  bool largest_;
};

// Three-way comparison of slices a and b along the axis (outer x [dim] x inner).
template <typename V>
int compare_slices(const V* s, int64_t outer, int64_t dim, int64_t inner, int64_t a, int64_t b) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const V& x = s[(o * dim + a) * inner + j];
      const V& y = s[(o * dim + b) * inner + j];
      if (x < y) return -1;
      if (y < x) return 1;
    }
  return 0;
}

class UniqueKernel : public OpKernel {
 public:
  explicit UniqueKernel(const KernelInfo& info)
      : sorted_(info.attr_int("sorted", 1) != 0),
        has_axis_(info.has_attr("axis")),
        axis_(info.attr_int("axis", 0)) {}

  void compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor src = has_axis_ ? x : x.reshaped(Shape{x.num_elements()});
    int64_t r = int64_t(src.rank());
    if (axis_ < -r || axis_ >= r)
      ctx.fail_node("axis ", axis_, " is out of range for input of shape ", x.shape().to_string());
    size_t axis = has_axis_ ? size_t(axis_ < 0 ? axis_ + r : axis_) : 0;
    int64_t dim = src.shape()[axis];
    int64_t outer = src.shape().size_to(axis), inner = src.shape().size_from(axis + 1);
    std::vector<int64_t> order(static_cast<size_t>(dim));
    std::iota(order.begin(), order.end(), 0);
    std::function<int(int64_t, int64_t)> cmp;
    std::vector<float> widened;  // float16/bfloat16 compared as float
    std::vector<double> as_double;
    if (src.dtype() == DataType::kString) {
      const auto* s = src.data<std::string>();
      cmp = [=](int64_t a, int64_t b) { return compare_slices(s, outer, dim, inner, a, b); };
    } else {
      dispatch_numeric(src.dtype(), "Unique", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
          const T* p = src.data<T>();
          widened.assign(p, p + src.num_elements());
          const float* s = widened.data();
          cmp = [=](int64_t a, int64_t b) { return compare_slices(s, outer, dim, inner, a, b); };
        } else {
          const T* s = src.data<T>();
          cmp = [=](int64_t a, int64_t b) { return compare_slices(s, outer, dim, inner, a, b); };
        }
      });
    }
    if (!sort_integers(src, outer, inner, order))
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
    // Groups of equal slices; the first of each (stable sort) is the first occurrence.
    std::vector<int64_t> first, count, group_of(static_cast<size_t>(dim));
    for (size_t i = 0; i < order.size(); ++i) {
      if (i == 0 || cmp(order[i - 1], order[i]) != 0) {
        first.push_back(order[i]);
        count.push_back(0);
      }
      group_of[size_t(order[i])] = int64_t(first.size()) - 1;
      ++count.back();
    }
    size_t U = first.size();
    std::vector<size_t> out_pos(U);  // group -> output position
    std::iota(out_pos.begin(), out_pos.end(), 0);
    if (!sorted_) {
      std::vector<size_t> by_first(U);
      std::iota(by_first.begin(), by_first.end(), 0);
      std::sort(by_first.begin(), by_first.end(),
                [&](size_t a, size_t b) { return first[a] < first[b]; });
      for (size_t p = 0; p < U; ++p) out_pos[by_first[p]] = p;
    }
    std::vector<int64_t> dims = src.shape().dims();
    dims[axis] = int64_t(U);
    Tensor& y = ctx.output(0, Shape(dims), x.dtype());
    Tensor& ind = ctx.output(1, Shape{int64_t(U)}, DataType::kInt64);
    Tensor& inv = ctx.output(2, Shape{dim}, DataType::kInt64);
    Tensor& cnt = ctx.output(3, Shape{int64_t(U)}, DataType::kInt64);
    for (size_t g = 0; g < U; ++g) {
      int64_t p = int64_t(out_pos[g]);
      for (int64_t o = 0; o < outer && inner > 0; ++o)
        copy_elems(src, (o * dim + first[g]) * inner, y, (o * int64_t(U) + p) * inner, inner);
      ind.mutable_data<int64_t>()[p] = first[g];
      cnt.mutable_data<int64_t>()[p] = count[g];
    }
    for (int64_t i = 0; i < dim; ++i)
      inv.mutable_data<int64_t>()[i] = int64_t(out_pos[size_t(group_of[size_t(i)])]);
  }

 private:
  // The stable order of single integer values (no axis, or an axis with no
  // other elements), as (value, position) pairs sorted directly: the same
  // order as the stable sort through the slice comparison, without a call
  // through it per comparison. False for other types and slices.
  static bool sort_integers(const Tensor& src, int64_t outer, int64_t inner,
                            std::vector<int64_t>& order) {
    if (outer != 1 || inner != 1) return false;
    bool done = false;
    auto run = [&](auto* p) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(p)>>;
      std::vector<std::pair<T, int64_t>> kv(order.size());
      for (size_t i = 0; i < kv.size(); ++i) kv[i] = {p[i], int64_t(i)};
      std::sort(kv.begin(), kv.end());
      for (size_t i = 0; i < kv.size(); ++i) order[i] = kv[i].second;
      done = true;
    };
    switch (src.dtype()) {
      case DataType::kInt8:
        run(src.data<int8_t>());
        break;
      case DataType::kInt16:
        run(src.data<int16_t>());
        break;
      case DataType::kInt32:
        run(src.data<int32_t>());
        break;
      case DataType::kInt64:
        run(src.data<int64_t>());
        break;
      case DataType::kUInt8:
        run(src.data<uint8_t>());
        break;
      case DataType::kUInt16:
        run(src.data<uint16_t>());
        break;
      case DataType::kUInt32:
        run(src.data<uint32_t>());
        break;
      case DataType::kUInt64:
        run(src.data<uint64_t>());
        break;
      default:
        break;
    }
    return done;
  }

  bool sorted_, has_axis_;
  int64_t axis_;
};

}  // namespace

void register_sort_kernels(ep::KernelRegistry& r) {
  r.add<TopKKernel>({"", "TopK", 1, ep::kOpsetMax, {{"T", {0}, types::kNumeric}}});
  r.add<UniqueKernel>(
      {"",
       "Unique",
       11,
       ep::kOpsetMax,
       {{"T", {0}, types::join({types::kNumeric, {DataType::kString, DataType::kBool}})}}});
}

}  // namespace tessera::cpu
