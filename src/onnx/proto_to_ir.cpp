#include "onnx/proto_to_ir.hpp"

#include <map>
#include <set>
#include <utility>

#include "onnx/external_data.hpp"
#include "onnx/tensor_reader.hpp"

namespace tessera::onnx {

namespace {

const uint8_t* bytes_of(std::string_view b) { return reinterpret_cast<const uint8_t*>(b.data()); }

// Reads the bytes of a nested message field under its own path segment.
template <typename Fn>
auto nested(WireReader& r, const Field& f, const char* name, int64_t index, Fn&& fn) {
  PathGuard guard(r.ctx(), name, index);
  std::string_view b = r.as_bytes(f, name);
  return fn(b);
}

class ProtoReader {
 public:
  ProtoReader(ParseContext& ctx, const std::string& base_dir) : ctx_(ctx), base_dir_(base_dir) {}

  ir::Model model(std::string_view bytes);
  ir::Graph graph(std::string_view bytes);
  ir::TypeInfo type(std::string_view bytes);

 private:
  ir::Node node(std::string_view bytes);
  ir::Attribute attribute(std::string_view bytes);
  ir::ValueInfo value_info(std::string_view bytes);
  ir::Function function(std::string_view bytes);
  ir::OpsetImport opset(std::string_view bytes);
  std::pair<std::string, std::string> string_pair(std::string_view bytes);
  std::vector<ir::Dim> shape(std::string_view bytes);
  void tensor_type(std::string_view bytes, ir::TypeInfo& t);

  Tensor tensor(std::string_view b, std::string* name = nullptr,
                const std::map<std::string, Tensor>* supplied = nullptr) {
    return read_tensor_proto(ctx_, bytes_of(b), b.size(), base_dir_, name, supplied);
  }
  SparseTensor sparse(std::string_view b, std::string* name = nullptr) {
    return read_sparse_tensor(ctx_, bytes_of(b), b.size(), base_dir_, name);
  }
  Tensor densified(std::string_view b) {
    return read_sparse_tensor_proto(ctx_, bytes_of(b), b.size(), base_dir_);
  }

  ParseContext& ctx_;
  const std::string& base_dir_;
  // Set while the model's own graph is read (the application's initializers
  // replace the main graph's only, not those of subgraphs).
  bool main_graph_next_ = false;
  ir::ValueInfo graph_input(std::string_view bytes, bool main_graph);
};

ir::Model ProtoReader::model(std::string_view bytes) {
  ir::Model m;
  bool has_graph = false;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        m.ir_version = r.as_int64(f, "ir_version");
        break;
      case 2:
        m.producer_name = r.as_string(f, "producer_name");
        break;
      case 3:
        m.producer_version = r.as_string(f, "producer_version");
        break;
      case 4:
        m.domain = r.as_string(f, "domain");
        break;
      case 5:
        m.model_version = r.as_int64(f, "model_version");
        break;
      case 6:
        m.doc_string = r.as_string(f, "doc_string");
        break;
      case 7:
        main_graph_next_ = true;
        m.graph = nested(r, f, "graph", -1, [&](std::string_view b) { return graph(b); });
        has_graph = true;
        break;
      case 8:
        m.opset_imports.push_back(nested(r, f, "opset_import", int64_t(m.opset_imports.size()),
                                         [&](std::string_view b) { return opset(b); }));
        break;
      case 14:
        m.metadata_props.push_back(nested(r, f, "metadata_props", int64_t(m.metadata_props.size()),
                                          [&](std::string_view b) { return string_pair(b); }));
        break;
      case 25:
        m.functions.push_back(nested(r, f, "functions", int64_t(m.functions.size()),
                                     [&](std::string_view b) { return function(b); }));
        break;
      default:
        break;
    }
  }
  if (!has_graph) ctx_.fail("not an ONNX model: ModelProto has no graph");
  return m;
}

ir::Graph ProtoReader::graph(std::string_view bytes) {
  ir::Graph g;
  const bool main_graph = std::exchange(main_graph_next_, false);
  const SuppliedExternalData* supplied = ctx_.supplied();
  const std::map<std::string, Tensor>* user_initializers =
      main_graph && supplied ? supplied->initializers : nullptr;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  int64_t n_init = 0, n_sparse = 0;
  auto check_new_initializer = [&](const std::string& name) {
    if (name.empty()) ctx_.fail_code(ErrorCode::kInvalidGraph, "initializer has no name");
    if (g.initializers.count(name) || g.sparse_initializers.count(name))
      ctx_.fail_code(ErrorCode::kInvalidGraph, "duplicate initializer '", name, "'");
  };
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        g.nodes.push_back(nested(r, f, "node", int64_t(g.nodes.size()),
                                 [&](std::string_view b) { return node(b); }));
        break;
      case 2:
        g.name = r.as_string(f, "name");
        break;
      case 5: {
        std::string name;
        Tensor t = nested(r, f, "initializer", n_init++,
                          [&](std::string_view b) { return tensor(b, &name, user_initializers); });
        check_new_initializer(name);
        g.initializers.emplace(std::move(name), std::move(t));
        break;
      }
      case 15: {
        std::string name;
        // Kept sparse; the runtime densifies those a dense input reads.
        SparseTensor t = nested(r, f, "sparse_initializer", n_sparse++,
                                [&](std::string_view b) { return sparse(b, &name); });
        check_new_initializer(name);
        g.sparse_initializers.emplace(std::move(name), std::move(t));
        break;
      }
      case 10:
        g.doc_string = r.as_string(f, "doc_string");
        break;
      case 11:
        g.inputs.push_back(nested(r, f, "input", int64_t(g.inputs.size()),
                                  [&](std::string_view b) { return graph_input(b, main_graph); }));
        break;
      case 12:
        g.outputs.push_back(nested(r, f, "output", int64_t(g.outputs.size()),
                                   [&](std::string_view b) { return value_info(b); }));
        break;
      case 13:
        g.value_info.push_back(nested(r, f, "value_info", int64_t(g.value_info.size()),
                                      [&](std::string_view b) { return value_info(b); }));
        break;
      default:
        break;
    }
  }
  return g;
}

ir::Node ProtoReader::node(std::string_view bytes) {
  ir::Node n;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        n.inputs.push_back(r.as_string(f, "input"));
        break;
      case 2:
        n.outputs.push_back(r.as_string(f, "output"));
        break;
      case 3:
        n.name = r.as_string(f, "name");
        break;
      case 4:
        n.op_type = r.as_string(f, "op_type");
        break;
      case 5:
        n.attributes.push_back(nested(r, f, "attribute", int64_t(n.attributes.size()),
                                      [&](std::string_view b) { return attribute(b); }));
        break;
      case 6:
        n.doc_string = r.as_string(f, "doc_string");
        break;
      case 7:
        n.domain = r.as_string(f, "domain");
        break;
      case 8:
        n.overload = r.as_string(f, "overload");
        break;
      default:
        break;
    }
  }
  return n;
}

ir::Attribute ProtoReader::attribute(std::string_view bytes) {
  using ir::AttrType;
  ir::Attribute a;
  int64_t type_value = 0;
  // Which value fields were present, for models that leave `type` unset.
  std::set<AttrType> seen;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        a.name = r.as_string(f, "name");
        break;
      case 21:
        a.ref_attr_name = r.as_string(f, "ref_attr_name");
        break;
      case 13:
        a.doc_string = r.as_string(f, "doc_string");
        break;
      case 20:
        type_value = r.as_int32(f, "type");
        break;
      case 2:
        a.f = r.as_float(f, "f");
        seen.insert(AttrType::kFloat);
        break;
      case 3:
        a.i = r.as_int64(f, "i");
        seen.insert(AttrType::kInt);
        break;
      case 4:
        a.s = r.as_string(f, "s");
        seen.insert(AttrType::kString);
        break;
      case 5:
        a.t = nested(r, f, "t", -1, [&](std::string_view b) { return tensor(b); });
        seen.insert(AttrType::kTensor);
        break;
      case 6:
        a.g = nested(r, f, "g", -1,
                     [&](std::string_view b) { return std::make_shared<ir::Graph>(graph(b)); });
        seen.insert(AttrType::kGraph);
        break;
      case 22:
        a.t = nested(r, f, "sparse_tensor", -1, [&](std::string_view b) { return densified(b); });
        seen.insert(AttrType::kSparseTensor);
        break;
      case 14:
        a.tp = nested(r, f, "tp", -1, [&](std::string_view b) { return type(b); });
        seen.insert(AttrType::kTypeProto);
        break;
      case 7:
        r.append_floats(f, "floats", a.floats);
        seen.insert(AttrType::kFloats);
        break;
      case 8:
        r.append_varints(f, "ints", a.ints);
        seen.insert(AttrType::kInts);
        break;
      case 9:
        a.strings.push_back(r.as_string(f, "strings"));
        seen.insert(AttrType::kStrings);
        break;
      case 10:
        a.tensors.push_back(nested(r, f, "tensors", int64_t(a.tensors.size()),
                                   [&](std::string_view b) { return tensor(b); }));
        seen.insert(AttrType::kTensors);
        break;
      case 11:
        a.graphs.push_back(
            nested(r, f, "graphs", int64_t(a.graphs.size()),
                   [&](std::string_view b) { return std::make_shared<ir::Graph>(graph(b)); }));
        seen.insert(AttrType::kGraphs);
        break;
      case 23:
        a.tensors.push_back(nested(r, f, "sparse_tensors", int64_t(a.tensors.size()),
                                   [&](std::string_view b) { return densified(b); }));
        seen.insert(AttrType::kSparseTensors);
        break;
      case 15:
        a.type_protos.push_back(nested(r, f, "type_protos", int64_t(a.type_protos.size()),
                                       [&](std::string_view b) { return type(b); }));
        seen.insert(AttrType::kTypeProtos);
        break;
      default:
        break;
    }
  }
  if (type_value < 0 || type_value > int64_t(AttrType::kTypeProtos))
    ctx_.fail("attribute '", a.name, "' has invalid type ", type_value);
  a.type = static_cast<AttrType>(type_value);
  if (a.type == AttrType::kUndefined && !seen.empty()) {
    // Old models omit `type`; the field that is set says it (should several
    // be set, the lowest AttributeType wins, as a deterministic choice).
    a.type = *seen.begin();
  }
  return a;
}

ir::ValueInfo ProtoReader::graph_input(std::string_view bytes, bool main_graph) {
  const SuppliedExternalData* supplied = ctx_.supplied();
  const std::map<std::string, int64_t>* sizes =
      main_graph && supplied ? supplied->free_dimension_overrides_by_denotation : nullptr;
  ir::ValueInfo v = value_info(bytes);
  using Kind = ir::TypeInfo::Kind;
  if (!sizes || sizes->empty() ||
      (v.type.kind != Kind::kTensor && v.type.kind != Kind::kSparseTensor) || !v.type.shape)
    return v;
  for (ir::Dim& d : *v.type.shape) {
    if (d.value || d.denotation.empty()) continue;
    auto it = sizes->find(d.denotation);
    if (it != sizes->end()) d.value = it->second;
  }
  return v;
}

ir::ValueInfo ProtoReader::value_info(std::string_view bytes) {
  ir::ValueInfo v;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        v.name = r.as_string(f, "name");
        break;
      case 2:
        v.type = nested(r, f, "type", -1, [&](std::string_view b) { return type(b); });
        break;
      case 3:
        v.doc_string = r.as_string(f, "doc_string");
        break;
      default:
        break;
    }
  }
  return v;
}

ir::Function ProtoReader::function(std::string_view bytes) {
  ir::Function fn;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        fn.name = r.as_string(f, "name");
        break;
      case 4:
        fn.inputs.push_back(r.as_string(f, "input"));
        break;
      case 5:
        fn.outputs.push_back(r.as_string(f, "output"));
        break;
      case 6:
        fn.attribute_names.push_back(r.as_string(f, "attribute"));
        break;
      case 11:
        fn.attribute_defaults.push_back(nested(r, f, "attribute_proto",
                                               int64_t(fn.attribute_defaults.size()),
                                               [&](std::string_view b) { return attribute(b); }));
        break;
      case 7:
        fn.nodes.push_back(nested(r, f, "node", int64_t(fn.nodes.size()),
                                  [&](std::string_view b) { return node(b); }));
        break;
      case 8:
        fn.doc_string = r.as_string(f, "doc_string");
        break;
      case 9:
        fn.opset_imports.push_back(nested(r, f, "opset_import", int64_t(fn.opset_imports.size()),
                                          [&](std::string_view b) { return opset(b); }));
        break;
      case 10:
        fn.domain = r.as_string(f, "domain");
        break;
      case 12:
        fn.value_info.push_back(nested(r, f, "value_info", int64_t(fn.value_info.size()),
                                       [&](std::string_view b) { return value_info(b); }));
        break;
      case 13:
        fn.overload = r.as_string(f, "overload");
        break;
      default:
        break;
    }
  }
  return fn;
}

ir::OpsetImport ProtoReader::opset(std::string_view bytes) {
  ir::OpsetImport o;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    if (f.number == 1)
      o.domain = r.as_string(f, "domain");
    else if (f.number == 2)
      o.version = r.as_int64(f, "version");
  }
  return o;
}

std::pair<std::string, std::string> ProtoReader::string_pair(std::string_view bytes) {
  std::pair<std::string, std::string> kv;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    if (f.number == 1)
      kv.first = r.as_string(f, "key");
    else if (f.number == 2)
      kv.second = r.as_string(f, "value");
  }
  return kv;
}

std::vector<ir::Dim> ProtoReader::shape(std::string_view bytes) {
  std::vector<ir::Dim> dims;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    if (f.number != 1) continue;
    dims.push_back(nested(r, f, "dim", int64_t(dims.size()), [&](std::string_view b) {
      ir::Dim d;
      WireReader dr(ctx_, b.data(), b.size());
      Field g;
      while (dr.next(g)) {
        if (g.number == 1) {
          int64_t v = dr.as_int64(g, "dim_value");
          // Some exporters write -1 for "unknown"; keep it unknown rather than fail.
          if (v >= 0)
            d.value = v;
          else
            d.value.reset();
          d.symbol.clear();
        } else if (g.number == 2) {
          d.symbol = dr.as_string(g, "dim_param");
          d.value.reset();
        } else if (g.number == 3) {
          d.denotation = dr.as_string(g, "denotation");
        }
      }
      return d;
    }));
  }
  return dims;
}

// TypeProto.Tensor and TypeProto.SparseTensor share their layout.
void ProtoReader::tensor_type(std::string_view bytes, ir::TypeInfo& t) {
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  while (r.next(f)) {
    if (f.number == 1) {
      int64_t v = r.as_int32(f, "elem_type");
      t.elem_type = v == 0 ? DataType::kUndefined : checked_data_type(ctx_, v, "elem_type");
    } else if (f.number == 2) {
      t.shape = nested(r, f, "shape", -1, [&](std::string_view b) { return shape(b); });
    }
  }
}

ir::TypeInfo ProtoReader::type(std::string_view bytes) {
  using Kind = ir::TypeInfo::Kind;
  ir::TypeInfo t;
  std::string denotation;
  WireReader r(ctx_, bytes.data(), bytes.size());
  Field f;
  // Sequence, optional and map hold an inner TypeProto at a field number that
  // differs per kind.
  auto inner_of = [&](std::string_view b, uint32_t field, const char* name) {
    WireReader ir(ctx_, b.data(), b.size());
    Field g;
    while (ir.next(g)) {
      if (g.number == field)
        t.inner = std::make_shared<ir::TypeInfo>(
            nested(ir, g, name, -1, [&](std::string_view c) { return type(c); }));
      else if (g.number == 1 && t.kind == Kind::kMap)
        t.elem_type = checked_data_type(ctx_, ir.as_int32(g, "key_type"), "key_type");
    }
  };
  while (r.next(f)) {
    switch (f.number) {
      case 1:
        t = ir::TypeInfo{};
        t.kind = Kind::kTensor;
        nested(r, f, "tensor_type", -1, [&](std::string_view b) {
          tensor_type(b, t);
          return 0;
        });
        break;
      case 8:
        t = ir::TypeInfo{};
        t.kind = Kind::kSparseTensor;
        nested(r, f, "sparse_tensor_type", -1, [&](std::string_view b) {
          tensor_type(b, t);
          return 0;
        });
        break;
      case 4:
        t = ir::TypeInfo{};
        t.kind = Kind::kSequence;
        nested(r, f, "sequence_type", -1, [&](std::string_view b) {
          inner_of(b, 1, "elem_type");
          return 0;
        });
        break;
      case 9:
        t = ir::TypeInfo{};
        t.kind = Kind::kOptional;
        nested(r, f, "optional_type", -1, [&](std::string_view b) {
          inner_of(b, 1, "elem_type");
          return 0;
        });
        break;
      case 5:
        t = ir::TypeInfo{};
        t.kind = Kind::kMap;
        nested(r, f, "map_type", -1, [&](std::string_view b) {
          inner_of(b, 2, "value_type");
          return 0;
        });
        break;
      case 6:
        denotation = r.as_string(f, "denotation");
        break;
      default:
        break;  // opaque types stay unknown
    }
  }
  t.denotation = std::move(denotation);
  return t;
}

}  // namespace

ir::Model read_model_proto(ParseContext& ctx, std::string_view bytes, const std::string& base_dir) {
  return ProtoReader(ctx, base_dir).model(bytes);
}

ir::Graph read_graph_proto(ParseContext& ctx, std::string_view bytes, const std::string& base_dir) {
  return ProtoReader(ctx, base_dir).graph(bytes);
}

ir::TypeInfo read_type_proto(ParseContext& ctx, std::string_view bytes) {
  static const std::string kNoBase;
  return ProtoReader(ctx, kNoBase).type(bytes);
}

}  // namespace tessera::onnx
