// Einsum (opset 12): a general loop nest over the equation's labels. Every
// term's axes get a stride per label (repeated labels add their strides, which
// reads diagonals; broadcast size-1 ellipsis dims get stride 0), so explicit
// and implicit outputs, ellipsis and traces all follow from one walk. Float
// products of two operands take einsum_as_gemm instead.
#include <algorithm>
#include <cctype>

#include "providers/cpu/quant/element_io.hpp"
#include "providers/cpu/transformer/einsum_gemm.hpp"
#include "providers/cpu/transformer/transformer_kernels.hpp"

namespace tessera::cpu {

namespace {

constexpr int kLetters = 52;
constexpr int kEllipsis = -1;

int label_id(char c) { return std::islower(uint8_t(c)) ? c - 'a' : 26 + (c - 'A'); }

// A term as written: label ids, with kEllipsis where "..." stands.
std::vector<int> parse_term(const ep::KernelInfo& info, const std::string& s) {
  std::vector<int> out;
  bool ell = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (ell || s.compare(i, 3, "...") != 0) info.fail_node("bad ellipsis in term '", s, "'");
      ell = true;
      out.push_back(kEllipsis);
      i += 2;
    } else if (std::isalpha(uint8_t(c))) {
      out.push_back(label_id(c));
    } else {
      info.fail_node("invalid character '", c, "' in equation term '", s, "'");
    }
  }
  return out;
}

class EinsumKernel : public ep::OpKernel {
 public:
  explicit EinsumKernel(const ep::KernelInfo& info) {
    std::string eq;
    for (char c : info.attr_string("equation"))
      if (!std::isspace(uint8_t(c))) eq.push_back(c);
    size_t arrow = eq.find("->");
    std::string lhs = eq.substr(0, arrow);
    explicit_ = arrow != std::string::npos;
    size_t start = 0;
    while (true) {
      size_t comma = lhs.find(',', start);
      terms_.push_back(parse_term(info, lhs.substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (explicit_) out_term_ = parse_term(info, eq.substr(arrow + 2));
    if (terms_.size() != info.num_inputs())
      info.fail_node("equation has ", terms_.size(), " input terms but the node has ",
                     info.num_inputs(), " inputs");
  }

  void compute(ep::KernelContext& ctx) const override {
    const size_t nin = terms_.size();
    // Ellipsis rank = the largest number of dims any "..." covers.
    int64_t ell_rank = 0;
    std::vector<int64_t> er(nin);
    for (size_t k = 0; k < nin; ++k) {
      const Tensor& t = ctx.required_input(k);
      int64_t letters = 0;
      bool has_ell = false;
      for (int l : terms_[k]) {
        if (l == kEllipsis)
          has_ell = true;
        else
          ++letters;
      }
      er[k] = int64_t(t.rank()) - letters;
      if ((!has_ell && er[k] != 0) || er[k] < 0)
        ctx.fail_node("input ", k, " of shape ", t.shape().to_string(),
                      " does not match its equation term (", letters, " labels",
                      has_ell ? " plus ..." : "", ")");
      ell_rank = std::max(ell_rank, er[k]);
    }
    // Ellipsis dims are right-aligned: label kLetters + e for e in [0, ell_rank).
    std::vector<std::vector<int>> axes(nin);  // per input: label id per axis
    for (size_t k = 0; k < nin; ++k)
      for (int l : terms_[k]) {
        if (l != kEllipsis) {
          axes[k].push_back(l);
          continue;
        }
        for (int64_t e = 0; e < er[k]; ++e) axes[k].push_back(int(kLetters + ell_rank - er[k] + e));
      }
    const int nlabels = kLetters + int(ell_rank);
    std::vector<int64_t> dim(size_t(nlabels), -1);
    std::vector<int> count(size_t(nlabels), 0);
    for (size_t k = 0; k < nin; ++k) {
      const Shape& s = ctx.required_input(k).shape();
      for (size_t i = 0; i < axes[k].size(); ++i) {
        int l = axes[k][i];
        int64_t d = s[i];
        ++count[size_t(l)];
        int64_t& cur = dim[size_t(l)];
        if (cur == -1 || cur == d) {
          cur = d;
        } else if (l >= kLetters && (cur == 1 || d == 1)) {
          if (cur == 1) cur = d;  // ellipsis dims broadcast
        } else {
          ctx.fail_node("label '",
                        l < 26   ? char('a' + l)
                        : l < 52 ? char('A' + l - 26)
                                 : '.',
                        "' has size ", cur, " and ", d, " (input ", k, " shape ", s.to_string(),
                        ")");
        }
      }
    }
    // Output labels.
    std::vector<int> out;
    if (explicit_) {
      for (int l : out_term_) {
        if (l == kEllipsis) {
          for (int e = 0; e < ell_rank; ++e) out.push_back(kLetters + e);
        } else {
          if (count[size_t(l)] == 0) ctx.fail_node("output label not present in any input");
          out.push_back(l);
        }
      }
    } else {
      for (int e = 0; e < ell_rank; ++e) out.push_back(kLetters + e);
      for (int l = 0; l < kLetters; ++l)
        if (count[size_t(l)] == 1) out.push_back(l);
    }
    std::vector<bool> in_out(size_t(nlabels), false);
    for (int l : out) in_out[size_t(l)] = true;
    std::vector<int> summed;
    for (int l = 0; l < nlabels; ++l)
      if (count[size_t(l)] > 0 && !in_out[size_t(l)]) summed.push_back(l);
    for (int l = 0; l < nlabels; ++l)
      if (dim[size_t(l)] < 0) dim[size_t(l)] = 1;
    if (nin == 2 && einsum_as_gemm(ctx, {&ctx.required_input(0), &axes[0]},
                                   {&ctx.required_input(1), &axes[1]}, out, dim))
      return;
    // Per input, per label stride.
    std::vector<std::vector<int64_t>> stride(nin, std::vector<int64_t>(size_t(nlabels), 0));
    std::vector<std::vector<double>> data(nin);
    for (size_t k = 0; k < nin; ++k) {
      const Tensor& t = ctx.required_input(k);
      data[k] = read_as<double>(t);
      int64_t st = 1;
      for (size_t i = axes[k].size(); i-- > 0;) {
        int l = axes[k][i];
        if (!(t.shape()[i] == 1 && dim[size_t(l)] != 1)) stride[k][size_t(l)] += st;
        st *= t.shape()[i];
      }
    }
    std::vector<int64_t> od;
    for (int l : out) od.push_back(dim[size_t(l)]);
    Shape out_shape(od);
    const int64_t total = out_shape.num_elements();
    int64_t inner = 1;
    for (int l : summed) inner *= dim[size_t(l)];
    std::vector<double> result(size_t(total), 0.0);
    ctx.thread_pool().parallel_for(total, double(inner * int64_t(nin)), [&](int64_t b, int64_t e) {
      std::vector<int64_t> base(nin), idx(summed.size()), off(nin);
      for (int64_t o = b; o < e; ++o) {
        std::fill(base.begin(), base.end(), 0);
        for (int64_t rem = o, i = int64_t(out.size()) - 1; i >= 0; --i) {
          int l = out[size_t(i)];
          int64_t v = rem % dim[size_t(l)];
          rem /= dim[size_t(l)];
          for (size_t k = 0; k < nin; ++k) base[k] += v * stride[k][size_t(l)];
        }
        std::fill(idx.begin(), idx.end(), 0);
        off = base;
        double acc = 0;
        for (int64_t s = 0; s < inner; ++s) {
          double p = 1;
          for (size_t k = 0; k < nin; ++k) p *= data[k][size_t(off[k])];
          acc += p;
          // Odometer over the summed labels, updating offsets incrementally.
          for (int64_t i = int64_t(summed.size()) - 1; i >= 0; --i) {
            int l = summed[size_t(i)];
            for (size_t k = 0; k < nin; ++k) off[k] += stride[k][size_t(l)];
            if (++idx[size_t(i)] < dim[size_t(l)]) break;
            for (size_t k = 0; k < nin; ++k) off[k] -= stride[k][size_t(l)] * dim[size_t(l)];
            idx[size_t(i)] = 0;
          }
        }
        result[size_t(o)] = acc;
      }
    });
    Tensor& y = ctx.output(0, out_shape, ctx.required_input(0).dtype());
    write_from(y, result.data());
  }

 private:
  std::vector<std::vector<int>> terms_;
  std::vector<int> out_term_;
  bool explicit_ = false;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_einsum(const ep::KernelInfo& info) {
  return std::make_unique<EinsumKernel>(info);
}

}  // namespace tessera::cpu
