// Attributes the application makes (CreateOpAttr) for the model editor's
// CreateNode and for CreateOp. `data` points at the value: one int64 or
// float, `len` int64s or floats, a NUL-terminated string, `len` string
// pointers, or (a Tessera addition, for If/Loop/Scan bodies) an OrtGraph
// whose graph is copied.
#include "capi/api_status.hpp"
#include "capi/graph_views.hpp"

namespace tessera::capi {

OrtStatus* ORT_API_CALL CreateOpAttr(const char* name, const void* data, int len,
                                     OrtOpAttrType type, OrtOpAttr** op_attr) noexcept {
  return guard("CreateOpAttr", [&] {
    need(name, "name");
    need(op_attr, "op_attr");
    check(*name != '\0', "the attribute name is empty");
    check(len >= 0, "attribute '", name, "': len is negative (", len, ")");
    const int t = raw_enum(type);
    // An empty list may come without data; a single value may not.
    const bool is_list =
        t == ORT_OP_ATTR_INTS || t == ORT_OP_ATTR_FLOATS || t == ORT_OP_ATTR_STRINGS;
    if (!is_list || len > 0) need(data, "data");
    auto a = std::make_unique<OrtOpAttr>();
    ir::Attribute& at = a->attr;
    at.name = name;
    const size_t n = static_cast<size_t>(len);
    switch (t) {
      case ORT_OP_ATTR_INT:
        at.type = ir::AttrType::kInt;
        at.i = *static_cast<const int64_t*>(data);
        break;
      case ORT_OP_ATTR_INTS: {
        at.type = ir::AttrType::kInts;
        const auto* p = static_cast<const int64_t*>(data);
        if (n > 0) at.ints.assign(p, p + n);
        break;
      }
      case ORT_OP_ATTR_FLOAT:
        at.type = ir::AttrType::kFloat;
        at.f = *static_cast<const float*>(data);
        break;
      case ORT_OP_ATTR_FLOATS: {
        at.type = ir::AttrType::kFloats;
        const auto* p = static_cast<const float*>(data);
        if (n > 0) at.floats.assign(p, p + n);
        break;
      }
      case ORT_OP_ATTR_STRING:
        at.type = ir::AttrType::kString;
        at.s = static_cast<const char*>(data);
        break;
      case ORT_OP_ATTR_STRINGS: {
        at.type = ir::AttrType::kStrings;
        const auto* p = static_cast<const char* const*>(data);
        for (size_t i = 0; i < n; ++i) {
          check(p[i] != nullptr, "attribute '", name, "': string ", i, " is null");
          at.strings.emplace_back(p[i]);
        }
        break;
      }
      case ORT_OP_ATTR_GRAPH: {
        at.type = ir::AttrType::kGraph;
        const OrtGraph& g = graph_of(static_cast<const OrtGraph*>(data));
        at.g = std::make_shared<ir::Graph>(*g.graph);
        break;
      }
      default:
        fail(ErrorCode::kInvalidArgument, "attribute '", name, "': type ", t,
             " is not one CreateOpAttr makes (INT, INTS, FLOAT, FLOATS, STRING, STRINGS, GRAPH)");
    }
    *op_attr = a.release();
  });
}

void ORT_API_CALL ReleaseOpAttr(OrtOpAttr* input) noexcept { delete input; }

}  // namespace tessera::capi
