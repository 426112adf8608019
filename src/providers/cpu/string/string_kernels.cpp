// StringNormalizer, StringSplit, StringConcat.
#include <algorithm>
#include <string>
#include <unordered_set>

#include "ops/broadcast.hpp"
#include "providers/cpu/string/string_kernels.hpp"
#include "providers/cpu/string/utf8_case.hpp"

namespace tessera::cpu::text {

namespace {

const Tensor& string_input(const ep::KernelContext& ctx, size_t i) {
  const Tensor& t = ctx.required_input(i);
  if (t.dtype() != DataType::kString)
    ctx.fail_node("input ", i, " must be a string tensor, got ", t.description());
  return t;
}

class StringNormalizerKernel : public ep::OpKernel {
 public:
  enum class Action { kNone, kLower, kUpper };

  explicit StringNormalizerKernel(const ep::KernelInfo& info)
      : case_sensitive_(info.attr_int("is_case_sensitive", 0) != 0) {
    std::string a = info.attr_string("case_change_action", "NONE");
    if (a == "NONE")
      action_ = Action::kNone;
    else if (a == "LOWER")
      action_ = Action::kLower;
    else if (a == "UPPER")
      action_ = Action::kUpper;
    else
      info.fail_node("case_change_action must be NONE, LOWER or UPPER, got '", a, "'");
    // The locale attribute is accepted but case mapping is locale-independent.
    for (const auto& w : info.attr_strings("stopwords"))
      stopwords_.insert(case_sensitive_ ? w : utf8_to_lower(w));
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = string_input(ctx, 0);
    const auto& d = x.shape().dims();
    bool two_dim = d.size() == 2;
    if (!(d.size() == 1 || (two_dim && d[0] == 1)))
      ctx.fail_node("input must have shape [C] or [1, C], got ", x.description());
    const std::string* in = x.data<std::string>();
    std::vector<std::string> kept;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      if (!stopwords_.empty() &&
          stopwords_.count(case_sensitive_ ? in[i] : utf8_to_lower(in[i])))
        continue;
      switch (action_) {
        case Action::kNone: kept.push_back(in[i]); break;
        case Action::kLower: kept.push_back(utf8_to_lower(in[i])); break;
        case Action::kUpper: kept.push_back(utf8_to_upper(in[i])); break;
      }
    }
    // Everything removed: a single empty string, keeping the input's rank.
    if (kept.empty()) kept.emplace_back();
    int64_t c = int64_t(kept.size());
    Tensor& y = ctx.output(0, two_dim ? Shape{1, c} : Shape{c}, DataType::kString);
    std::string* out = y.mutable_data<std::string>();
    for (int64_t i = 0; i < c; ++i) out[i] = std::move(kept[size_t(i)]);
  }

 private:
  bool case_sensitive_;
  Action action_ = Action::kNone;
  std::unordered_set<std::string> stopwords_;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Python's str.split semantics: with a delimiter, empty pieces are kept;
// without one, runs of whitespace separate and leading/trailing whitespace is
// dropped. maxsplit < 0 means no limit.
std::vector<std::string> split_one(const std::string& s, const std::string& delim,
                                   int64_t maxsplit) {
  std::vector<std::string> parts;
  if (!delim.empty()) {
    size_t start = 0;
    while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
      size_t at = s.find(delim, start);
      if (at == std::string::npos) break;
      parts.push_back(s.substr(start, at - start));
      start = at + delim.size();
    }
    parts.push_back(s.substr(start));
    return parts;
  }
  size_t i = 0;
  while (true) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
      parts.push_back(s.substr(i));  // the rest, trailing whitespace included
      break;
    }
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    parts.push_back(s.substr(i, j - i));
    i = j;
  }
  return parts;
}

class StringSplitKernel : public ep::OpKernel {
 public:
  explicit StringSplitKernel(const ep::KernelInfo& info)
      : delimiter_(info.attr_string("delimiter", "")), maxsplit_(info.attr_int("maxsplit", -1)) {
    if (info.has_attr("maxsplit") && maxsplit_ < 0)
      info.fail_node("maxsplit must be >= 0, got ", maxsplit_);
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = string_input(ctx, 0);
    const std::string* in = x.data<std::string>();
    int64_t n = x.num_elements();
    std::vector<std::vector<std::string>> parts(size_t(std::max<int64_t>(n, 0)));
    int64_t width = 0;
    for (int64_t i = 0; i < n; ++i) {
      parts[size_t(i)] = split_one(in[i], delimiter_, maxsplit_);
      width = std::max(width, int64_t(parts[size_t(i)].size()));
    }
    std::vector<int64_t> dims = x.shape().dims();
    Tensor& z = ctx.output(1, x.shape(), DataType::kInt64);
    dims.push_back(width);
    Tensor& y = ctx.output(0, Shape(dims), DataType::kString);
    std::string* out = y.mutable_data<std::string>();
    int64_t* counts = z.mutable_data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      auto& p = parts[size_t(i)];
      counts[i] = int64_t(p.size());
      for (size_t k = 0; k < p.size(); ++k) out[i * width + int64_t(k)] = std::move(p[k]);
      // Tensor storage default-constructs strings, so the padding is already "".
    }
  }

 private:
  std::string delimiter_;
  int64_t maxsplit_;
};

class StringConcatKernel : public ep::OpKernel {
 public:
  explicit StringConcatKernel(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& a = string_input(ctx, 0);
    const Tensor& b = string_input(ctx, 1);
    Shape out_shape = ops::broadcast_shapes({a.shape(), b.shape()});
    Tensor& y = ctx.output(0, out_shape, DataType::kString);
    if (y.num_elements() == 0) return;
    ops::BroadcastIndexer bi({a.shape(), b.shape()}, out_shape);
    const std::string* pa = a.data<std::string>();
    const std::string* pb = b.data<std::string>();
    std::string* out = y.mutable_data<std::string>();
    int64_t sa = bi.inner_stride(0), sb = bi.inner_stride(1);
    ops::for_each_broadcast_row(bi, 0, bi.num_rows(),
                                [&](int64_t base, const int64_t* off, int64_t count) {
                                  for (int64_t j = 0; j < count; ++j)
                                    out[base + j] = pa[off[0] + j * sa] + pb[off[1] + j * sb];
                                });
  }
};

}  // namespace

void register_string_basic(ep::KernelRegistry& r) {
  using ep::TypeConstraint;
  const std::vector<DataType> kStr = {DataType::kString};
  r.add<StringNormalizerKernel>(
      {"", "StringNormalizer", 10, ep::kOpsetMax, {TypeConstraint{"X", {0}, kStr}}});
  r.add<StringSplitKernel>({"", "StringSplit", 20, ep::kOpsetMax, {TypeConstraint{"T1", {0}, kStr}}});
  r.add<StringConcatKernel>(
      {"", "StringConcat", 20, ep::kOpsetMax, {TypeConstraint{"T", {0, 1}, kStr}}});
}

}  // namespace tessera::cpu::text
