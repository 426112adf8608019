// TfIdfVectorizer (opset 9): counts the pool's n-grams in each row of X,
// n-grams taken with every skip 0..max_skip_count (1-grams once), then weights
// the counts by mode TF / IDF / TFIDF. The pool is parsed once, at creation.
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "providers/cpu/text/text_kernels.hpp"

namespace tessera::cpu {

namespace {

enum class Mode { kTF, kIDF, kTFIDF };

class TfIdfVectorizerKernel : public ep::OpKernel {
 public:
  explicit TfIdfVectorizerKernel(const ep::KernelInfo& info) {
    min_n_ = info.attr_int("min_gram_length");
    max_n_ = info.attr_int("max_gram_length");
    max_skip_ = info.attr_int("max_skip_count");
    if (min_n_ < 1 || max_n_ < min_n_)
      info.fail_node("need 1 <= min_gram_length <= max_gram_length, got ", min_n_, " and ", max_n_);
    if (max_skip_ < 0) info.fail_node("max_skip_count must be >= 0, got ", max_skip_);
    std::string mode = info.attr_string("mode");
    if (mode == "TF")
      mode_ = Mode::kTF;
    else if (mode == "IDF")
      mode_ = Mode::kIDF;
    else if (mode == "TFIDF")
      mode_ = Mode::kTFIDF;
    else
      info.fail_node("mode must be TF, IDF or TFIDF, got '", mode, "'");

    std::vector<int64_t> counts = info.attr_ints("ngram_counts");
    indexes_ = info.attr_ints("ngram_indexes");
    weights_ = info.attr_floats("weights", {});
    std::vector<int64_t> ints = info.attr_ints("pool_int64s", {});
    std::vector<std::string> strs = info.attr_strings("pool_strings", {});
    if (!ints.empty() && !strs.empty())
      info.fail_node("only one of pool_int64s and pool_strings may be set");
    strings_ = !strs.empty();
    const int64_t pool_size = strings_ ? int64_t(strs.size()) : int64_t(ints.size());
    if (!weights_.empty() && weights_.size() != indexes_.size())
      info.fail_node("weights has ", weights_.size(), " entries, ngram_indexes ", indexes_.size());
    for (int64_t ix : indexes_) {
      if (ix < 0 || ix == std::numeric_limits<int64_t>::max())
        info.fail_node("ngram_indexes has an entry out of range: ", ix);
      out_size_ = std::max(out_size_, ix + 1);
    }
    // ngram_counts[k] is where the (k+1)-grams start in the pool (CSR style).
    int64_t ngram = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      int64_t n = int64_t(k) + 1;
      int64_t begin = counts[k];
      int64_t end = k + 1 < counts.size() ? counts[k + 1] : pool_size;
      if (begin < 0 || end < begin || end > pool_size || (end - begin) % n != 0)
        info.fail_node("ngram_counts ", k, " gives pool range [", begin, ", ", end,
                       ") that does not hold whole ", n, "-grams of a pool of ", pool_size);
      for (int64_t p = begin; p < end; p += n, ++ngram) {
        if (ngram >= int64_t(indexes_.size()))
          info.fail_node("the pool holds more n-grams than ngram_indexes has entries (",
                         indexes_.size(), ")");
        if (strings_)
          str_pool_[std::vector<std::string>(strs.begin() + p, strs.begin() + p + n)] = ngram;
        else
          int_pool_[std::vector<int64_t>(ints.begin() + p, ints.begin() + p + n)] = ngram;
      }
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.rank() != 1 && x.rank() != 2)
      ctx.fail_node("X must be 1-D or 2-D, got ", x.shape().to_string());
    const bool is_str = x.dtype() == DataType::kString;
    if (is_str != strings_)
      ctx.fail_node("X is ", data_type_name(x.dtype()), " but the pool is ",
                    strings_ ? "pool_strings" : "pool_int64s");
    const int64_t rows = x.rank() == 1 ? 1 : x.shape()[0];
    const int64_t cols = x.rank() == 1 ? x.shape()[0] : x.shape()[1];
    Shape out_shape = x.rank() == 1 ? Shape{out_size_} : Shape{rows, out_size_};
    Tensor& y = ctx.output(0, out_shape, DataType::kFloat);
    float* out = y.mutable_data<float>();
    // No n-gram of a row is longer than the row, nor skips more than its length:
    // the attributes may be far larger (a loop up to them would not end).
    const int64_t top_n = std::min(max_n_, cols), top_skip = std::min(max_skip_, cols);
    const double cost = double(cols) * double(top_skip + 1) * double(std::max<int64_t>(top_n, 1));
    ctx.thread_pool().parallel_for(rows, cost, [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> counts(indexes_.size());
      for (int64_t r = r0; r < r1; ++r) {
        std::fill(counts.begin(), counts.end(), 0);
        if (is_str) {
          const std::string* row = x.data<std::string>() + r * cols;
          count_row(row, cols, top_n, top_skip, str_pool_, counts);
        } else {
          std::vector<int64_t> row(static_cast<size_t>(cols));
          for (int64_t c = 0; c < cols; ++c) row[size_t(c)] = x.element_as_int64(r * cols + c);
          count_row(row.data(), cols, top_n, top_skip, int_pool_, counts);
        }
        float* o = out + r * out_size_;
        for (int64_t i = 0; i < out_size_; ++i) o[i] = 0.f;
        for (size_t g = 0; g < counts.size(); ++g) {
          if (counts[g] == 0) continue;
          float w = weights_.empty() ? 1.f : weights_[g];
          float v = mode_ == Mode::kTF    ? float(counts[g])
                    : mode_ == Mode::kIDF ? w
                                          : float(counts[g]) * w;
          o[indexes_[g]] = v;
        }
      }
    });
  }

 private:
  template <typename K>
  void count_row(const K* row, int64_t cols, int64_t top_n, int64_t top_skip,
                 const std::map<std::vector<K>, int64_t>& pool,
                 std::vector<int64_t>& counts) const {
    if (pool.empty()) return;
    std::vector<K> key;
    for (int64_t n = min_n_; n <= top_n; ++n) {
      // Skipping only changes n-grams of two or more items.
      int64_t skips = n == 1 ? 0 : top_skip;
      for (int64_t s = 0; s <= skips; ++s) {
        const int64_t step = s + 1;
        for (int64_t start = 0; start + (n - 1) * step < cols; ++start) {
          key.clear();
          for (int64_t j = 0; j < n; ++j) key.push_back(row[start + j * step]);
          auto it = pool.find(key);
          if (it != pool.end()) ++counts[size_t(it->second)];
        }
      }
    }
  }

  int64_t min_n_ = 1, max_n_ = 1, max_skip_ = 0, out_size_ = 0;
  Mode mode_ = Mode::kTF;
  bool strings_ = false;
  std::vector<int64_t> indexes_;
  std::vector<float> weights_;
  std::map<std::vector<int64_t>, int64_t> int_pool_;
  std::map<std::vector<std::string>, int64_t> str_pool_;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_tfidf_vectorizer_kernel(const ep::KernelInfo& info) {
  return std::make_unique<TfIdfVectorizerKernel>(info);
}

}  // namespace tessera::cpu
