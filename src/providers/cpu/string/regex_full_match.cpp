// RegexFullMatch. The spec names RE2 syntax; std::regex (ECMAScript) covers
// the common subset, and re2_to_ecmascript rewrites the RE2-only spellings.
#include <regex>
#include <string>

#include "providers/cpu/string/string_kernels.hpp"

namespace tessera::cpu::text {

std::string re2_to_ecmascript(const std::string& p, bool& icase) {
  icase = false;
  std::string out;
  size_t i = 0;
  if (p.compare(0, 4, "(?i)") == 0) {
    icase = true;
    i = 4;
  }
  bool in_class = false;
  for (; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      check(i + 1 < p.size(), "regex pattern '", p, "' ends with a lone backslash");
      char e = p[++i];
      if (!in_class && e == 'A') {
        out += '^';
      } else if (!in_class && e == 'z') {
        out += '$';
      } else if (e == 'Q') {
        // Literal text up to \E (or the end).
        size_t end = p.find("\\E", i + 1);
        std::string lit = p.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
        for (char l : lit) {
          if (std::string("\\^$.|?*+()[]{}-/").find(l) != std::string::npos) out += '\\';
          out += l;
        }
        i = end == std::string::npos ? p.size() : end + 1;
      } else if (e == 'p' || e == 'P' || e == 'C') {
        fail(ErrorCode::kNotImplemented, "regex pattern '", p, "': \\", e,
             " (Unicode classes / single bytes) is not supported");
      } else {
        out += '\\';
        out += e;
      }
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
        // A POSIX class such as [:alpha:] inside a bracket expression.
        size_t end = p.find(":]", i + 2);
        check(end != std::string::npos, "regex pattern '", p, "' has an unterminated [: class");
        out += p.substr(i, end + 2 - i);
        i = end + 1;
        continue;
      }
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal in RE2.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') {
        out += "\\]";
        ++i;
      }
      continue;
    }
    if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {
      size_t name_at = 0;
      if (p.compare(i, 4, "(?P<") == 0) name_at = i + 4;
      else if (p.compare(i, 3, "(?<") == 0 && i + 3 < p.size() && p[i + 3] != '=' && p[i + 3] != '!')
        name_at = i + 3;
      if (name_at) {
        size_t end = p.find('>', name_at);
        check(end != std::string::npos, "regex pattern '", p, "' has an unterminated group name");
        out += '(';
        i = end;
        continue;
      }
      char k = i + 2 < p.size() ? p[i + 2] : '\0';
      if (k != ':' && k != '=' && k != '!')
        fail(ErrorCode::kNotImplemented, "regex pattern '", p,
             "': inline flags other than a leading (?i) are not supported");
    }
    out += c;
  }
  return out;
}

namespace {

class RegexFullMatchKernel : public ep::OpKernel {
 public:
  explicit RegexFullMatchKernel(const ep::KernelInfo& info) {
    std::string pattern = info.attr_string("pattern");
    try {
      bool icase = false;
      std::string ecma = re2_to_ecmascript(pattern, icase);
      auto flags = std::regex::ECMAScript | std::regex::optimize;
      if (icase) flags |= std::regex::icase;
      re_ = std::regex(ecma, flags);
    } catch (const std::regex_error& e) {
      info.fail_node("invalid regex pattern '", pattern, "': ", e.what());
    } catch (const Error& e) {
      info.fail_node(e.what());
    }
  }

  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (x.dtype() != DataType::kString)
      ctx.fail_node("input must be a string tensor, got ", x.description());
    Tensor& y = ctx.output(0, x.shape(), DataType::kBool);
    const std::string* in = x.data<std::string>();
    bool* out = y.mutable_data<bool>();
    try {
      for (int64_t i = 0; i < x.num_elements(); ++i) out[i] = std::regex_match(in[i], re_);
    } catch (const std::regex_error& e) {
      ctx.fail_node("regex matching failed: ", e.what());
    }
  }

 private:
  std::regex re_;
};

}  // namespace

void register_regex(ep::KernelRegistry& r) {
  r.add<RegexFullMatchKernel>({"", "RegexFullMatch", 20, ep::kOpsetMax,
                               {ep::TypeConstraint{"T1", {0}, {DataType::kString}}}});
}

}  // namespace tessera::cpu::text
