#include "ops/function_text.hpp"

#include <cctype>
#include <cstdlib>

#include "core/error.hpp"

namespace tessera::ops {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  ir::Function function() {
    ir::Function f;
    f.name = identifier("the function name");
    if (accept('<')) {
      do f.attribute_defaults.push_back(attribute_decl(f));
      while (accept(','));
      expect('>');
    }
    f.inputs = name_list();
    expect('=');
    expect('>');
    f.outputs = name_list();
    expect('{');
    while (!accept('}')) f.nodes.push_back(node());
    skip_space();
    if (pos_ != s_.size()) error("text after the closing '}'");
    // Declared without a default: a reference to it is dropped when the caller
    // omits it, so the op's own default applies.
    std::vector<ir::Attribute> with_default;
    for (auto& a : f.attribute_defaults)
      if (a.type != ir::AttrType::kUndefined) with_default.push_back(std::move(a));
    f.attribute_defaults = std::move(with_default);
    return f;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    fail(ErrorCode::kInvalidGraph, "function text, line ", line, " column ", col, ": ", what);
  }

  void skip_space() {
    while (pos_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(s_[pos_]))) {
        ++pos_;
      } else if (s_[pos_] == '#') {  // comment to end of line
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  char peek() {
    skip_space();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool accept(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) error(str_cat("expected '", c, "'"));
  }

  static bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  }
  std::string identifier(const char* what) {
    char c = peek();
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_'))
      error(str_cat("expected ", what));
    size_t start = pos_;
    while (pos_ < s_.size() && ident_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  // "(a, , b)": an empty slot is an omitted optional input.
  std::vector<std::string> name_list() {
    std::vector<std::string> names;
    expect('(');
    if (accept(')')) return names;
    for (;;) {
      char c = peek();
      names.push_back(c == ',' || c == ')' ? std::string() : identifier("a value name"));
      if (accept(')')) return names;
      expect(',');
    }
  }

  // "name: type = literal" or "name: type" (no default).
  ir::Attribute attribute_decl(ir::Function& f) {
    ir::Attribute a;
    a.name = identifier("an attribute name");
    f.attribute_names.push_back(a.name);
    std::string type;
    if (accept(':')) type = identifier("an attribute type");
    if (accept('=')) literal(a, type);
    return a;
  }

  ir::Node node() {
    ir::Node n;
    for (;;) {
      n.outputs.push_back(identifier("an output name"));
      if (!accept(',')) break;
    }
    expect('=');
    std::string op = identifier("an op type");
    if (auto dot = op.rfind('.'); dot != std::string::npos) {
      n.domain = op.substr(0, dot);
      op = op.substr(dot + 1);
    }
    n.op_type = op;
    if (accept('<')) {
      do n.attributes.push_back(node_attribute());
      while (accept(','));
      expect('>');
    }
    n.inputs = name_list();
    return n;
  }

  ir::Attribute node_attribute() {
    ir::Attribute a;
    a.name = identifier("an attribute name");
    std::string type;
    if (accept(':')) type = identifier("an attribute type");
    expect('=');
    if (accept('@')) {
      a.ref_attr_name = identifier("the referenced attribute's name");
      return a;
    }
    literal(a, type);
    return a;
  }

  // A number, a "string" or a [list of numbers]; `type` (may be empty) decides
  // between float and int where the literal alone does not.
  void literal(ir::Attribute& a, const std::string& type) {
    if (peek() == '"') {
      size_t end = s_.find('"', pos_ + 1);
      if (end == std::string_view::npos) error("unterminated string");
      a.type = ir::AttrType::kString;
      a.s = std::string(s_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return;
    }
    if (accept('[')) {
      std::vector<std::string> items;
      bool any_float = type == "floats";
      if (!accept(']')) {
        do {
          items.push_back(number_text());
          any_float |= items.back().find_first_of(".eE") != std::string::npos;
        } while (accept(','));
        expect(']');
      }
      a.type = any_float ? ir::AttrType::kFloats : ir::AttrType::kInts;
      for (const auto& t : items) {
        if (any_float)
          a.floats.push_back(std::strtof(t.c_str(), nullptr));
        else
          a.ints.push_back(std::strtoll(t.c_str(), nullptr, 10));
      }
      return;
    }
    std::string t = number_text();
    if (type == "float" || (type.empty() && t.find_first_of(".eE") != std::string::npos)) {
      a.type = ir::AttrType::kFloat;
      a.f = std::strtof(t.c_str(), nullptr);
    } else {
      a.type = ir::AttrType::kInt;
      a.i = std::strtoll(t.c_str(), nullptr, 10);
    }
  }

  std::string number_text() {
    skip_space();
    size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    while (pos_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
            s_[pos_] == 'e' || s_[pos_] == 'E' ||
            ((s_[pos_] == '-' || s_[pos_] == '+') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E'))))
      ++pos_;
    if (pos_ == start || !std::isdigit(static_cast<unsigned char>(s_[pos_ - 1])))
      error("expected a number");
    return std::string(s_.substr(start, pos_ - start));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

ir::Function parse_function_text(std::string_view text) { return Parser(text).function(); }

}  // namespace tessera::ops
