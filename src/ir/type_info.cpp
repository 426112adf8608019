#include "ir/type_info.hpp"

#include "core/error.hpp"

namespace tessera::ir {

std::string Dim::to_string() const {
  if (value) return std::to_string(*value);
  return symbol.empty() ? "?" : symbol;
}

std::string TypeInfo::to_string() const {
  switch (kind) {
    case Kind::kTensor: return str_cat("tensor(", data_type_name(elem_type), ")");
    case Kind::kSparseTensor: return str_cat("sparse_tensor(", data_type_name(elem_type), ")");
    case Kind::kSequence: return str_cat("seq(", inner ? inner->to_string() : "?", ")");
    case Kind::kOptional: return str_cat("optional(", inner ? inner->to_string() : "?", ")");
    case Kind::kMap:
      return str_cat("map(", data_type_name(elem_type), ",", inner ? inner->to_string() : "?",
                     ")");
    case Kind::kUnknown: break;
  }
  return "unknown";
}

std::string TypeInfo::shape_string() const {
  if (!shape) return "?";
  std::string s = "[";
  for (size_t i = 0; i < shape->size(); ++i) {
    if (i) s += ",";
    s += (*shape)[i].to_string();
  }
  return s + "]";
}

}  // namespace tessera::ir
