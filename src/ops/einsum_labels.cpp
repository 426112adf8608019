#include "ops/einsum_labels.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"

namespace tessera::ops {

namespace {

int label_id(char c) { return std::islower(uint8_t(c)) ? c - 'a' : 26 + (c - 'A'); }

char label_char(int l) { return l < 26 ? char('a' + l) : l < 52 ? char('A' + l - 26) : '.'; }

std::vector<int> parse_term(const std::string& s) {
  std::vector<int> out;
  bool ell = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (ell || s.compare(i, 3, "...") != 0)
        fail(ErrorCode::kInvalidArgument, "bad ellipsis in equation term '", s, "'");
      ell = true;
      out.push_back(kEinsumEllipsis);
      i += 2;
    } else if (std::isalpha(uint8_t(c))) {
      out.push_back(label_id(c));
    } else {
      fail(ErrorCode::kInvalidArgument, "invalid character '", c, "' in equation term '", s, "'");
    }
  }
  return out;
}

}  // namespace

Shape EinsumLabels::out_shape() const {
  std::vector<int64_t> d;
  for (int l : out) d.push_back(dim[size_t(l)]);
  return Shape(d);
}

EinsumEquation parse_einsum(const std::string& equation) {
  std::string eq;
  for (char c : equation)
    if (!std::isspace(uint8_t(c))) eq.push_back(c);
  EinsumEquation e;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  e.explicit_out = arrow != std::string::npos;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    e.terms.push_back(parse_term(lhs.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (e.explicit_out) e.out_term = parse_term(eq.substr(arrow + 2));
  return e;
}

EinsumLabels einsum_labels(const EinsumEquation& eq, const std::vector<Shape>& inputs) {
  const size_t nin = eq.terms.size();
  if (inputs.size() != nin)
    fail(ErrorCode::kInvalidArgument, "the equation has ", nin, " input terms but there are ",
         inputs.size(), " inputs");
  // The ellipsis rank: the most dims any "..." covers.
  int64_t ell_rank = 0;
  std::vector<int64_t> er(nin);
  for (size_t k = 0; k < nin; ++k) {
    int64_t letters = 0;
    bool has_ell = false;
    for (int l : eq.terms[k]) (l == kEinsumEllipsis ? has_ell = true : ++letters);
    er[k] = int64_t(inputs[k].rank()) - letters;
    if ((!has_ell && er[k] != 0) || er[k] < 0)
      fail(ErrorCode::kInvalidArgument, "input ", k, " of shape ", inputs[k].to_string(),
           " does not match its equation term (", letters, " labels", has_ell ? " plus ..." : "",
           ")");
    ell_rank = std::max(ell_rank, er[k]);
  }
  EinsumLabels r;
  r.axes.resize(nin);
  for (size_t k = 0; k < nin; ++k)
    for (int l : eq.terms[k]) {
      if (l != kEinsumEllipsis) {
        r.axes[k].push_back(l);
        continue;
      }
      for (int64_t e = 0; e < er[k]; ++e)
        r.axes[k].push_back(int(kEinsumLetters + ell_rank - er[k] + e));
    }
  const int nlabels = kEinsumLetters + int(ell_rank);
  r.dim.assign(size_t(nlabels), -1);
  r.count.assign(size_t(nlabels), 0);
  for (size_t k = 0; k < nin; ++k) {
    for (size_t i = 0; i < r.axes[k].size(); ++i) {
      const int l = r.axes[k][i];
      const int64_t d = inputs[k][i];
      ++r.count[size_t(l)];
      int64_t& cur = r.dim[size_t(l)];
      if (cur == -1 || cur == d) {
        cur = d;
      } else if (l >= kEinsumLetters && (cur == 1 || d == 1)) {
        if (cur == 1) cur = d;  // ellipsis dims broadcast
      } else {
        fail(ErrorCode::kInvalidArgument, "label '", label_char(l), "' has size ", cur, " and ", d,
             " (input ", k, " of shape ", inputs[k].to_string(), ")");
      }
    }
  }
  if (eq.explicit_out) {
    for (int l : eq.out_term) {
      if (l == kEinsumEllipsis) {
        for (int e = 0; e < ell_rank; ++e) r.out.push_back(kEinsumLetters + e);
      } else {
        if (r.count[size_t(l)] == 0)
          fail(ErrorCode::kInvalidArgument, "output label '", label_char(l),
               "' is in no input term");
        r.out.push_back(l);
      }
    }
  } else {
    // Implicit output: the ellipsis dims, then the labels used once, in order.
    for (int e = 0; e < ell_rank; ++e) r.out.push_back(kEinsumLetters + e);
    for (int l = 0; l < kEinsumLetters; ++l)
      if (r.count[size_t(l)] == 1) r.out.push_back(l);
  }
  for (int64_t& d : r.dim)
    if (d < 0) d = 1;
  return r;
}

}  // namespace tessera::ops
