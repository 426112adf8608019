// The native session under tessera.InferenceSession. Loading and running
// release the GIL, so Python threads can share one session.
#include "session.hpp"

#include <pybind11/stl.h>

#include <chrono>

#include "bindings.hpp"
#include "convert.hpp"
#include "onnx/model_reader.hpp"

namespace tessera::python {
namespace {

py::list io_infos(const std::vector<IoInfo>& infos) {
  py::list out;
  for (const auto& info : infos) {
    py::list shape;
    if (info.type.shape) {
      for (const auto& d : *info.type.shape) {
        if (d.value)
          shape.append(*d.value);
        else if (!d.symbol.empty())
          shape.append(d.symbol);
        else
          shape.append(py::none());
      }
    }
    out.append(py::make_tuple(info.name, shape, info.type.to_string()));
  }
  return out;
}

}  // namespace

PySession::PySession(const py::object& model, const PySessionOptions& options,
                     const ProviderList& providers, const py::object& options_from_metadata) {
  const bool from_bytes = py::isinstance<py::bytes>(model);
  std::string source =
      from_bytes ? std::string(model.cast<py::bytes>()) : std::string(py::str(model));
  std::vector<ProviderSpec> specs;
  for (const auto& [name, opts] : providers) specs.push_back({name, opts});
  start_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  // The application's initializers and in-memory data files stand in for
  // the model's external data while it loads.
  std::map<std::string, Tensor> handed_in;
  for (const auto& [name, value] : options.initializers) handed_in[name] = value.tensor();
  onnx::SuppliedExternalData supplied;
  supplied.initializers = &handed_in;
  supplied.files = &options.options.external_files_in_memory;
  supplied.free_dimension_overrides_by_denotation =
      &options.options.free_dimension_overrides_by_denotation;
  py::gil_scoped_release release;
  ir::Model m = from_bytes
                    ? onnx::parse_model(source.data(), source.size(), "", "<model bytes>", supplied)
                    : onnx::load_model(source, supplied);
  const PySessionOptions* chosen = &options;
  PySessionOptions from_metadata;
  if (!options_from_metadata.is_none()) {
    py::gil_scoped_acquire acquire;
    py::dict props;
    for (const auto& [k, v] : m.metadata_props) props[py::str(k)] = v;
    py::object replaced = options_from_metadata(props);
    if (!replaced.is_none()) {
      from_metadata = replaced.cast<PySessionOptions>();
      chosen = &from_metadata;
    }
  }
  SessionOptions opts = chosen->options;
  if (!chosen->log_severity_level_set) opts.log_severity_level = -1;
  for (const auto& [name, value] : chosen->initializers) opts.add_initializer(name, value.tensor());
  session_ = Session::create_from_model(std::move(m), opts, specs);
}

std::vector<Value> PySession::run(const std::vector<std::pair<std::string, Value>>& feeds,
                                  const std::vector<std::string>& output_names,
                                  const PyRunOptions* run_options) const {
  py::gil_scoped_release release;
  std::vector<Value> outputs =
      session_->run(feeds, output_names, run_options ? run_options->options : RunOptions{});
  // Outputs that alias an initializer or a feed are copied, so a caller
  // writing into a result never changes the model or its own inputs.
  for (auto& v : outputs) v = detach(std::move(v));
  return outputs;
}

py::dict PySession::modelmeta() const {
  const ir::Model& m = session_->model();
  py::dict custom;
  for (const auto& [k, v] : m.metadata_props) custom[py::str(k)] = v;
  py::dict d;
  d["producer_name"] = m.producer_name;
  d["producer_version"] = m.producer_version;
  d["graph_name"] = m.graph.name;
  d["graph_description"] = m.graph.doc_string;
  d["domain"] = m.domain;
  d["description"] = m.doc_string;
  d["version"] = m.model_version;
  d["custom_metadata_map"] = custom;
  return d;
}

std::map<std::string, std::map<std::string, std::string>> PySession::provider_options() const {
  return session_->provider_options();
}

void bind_session(py::module_& m) {
  // A model's metadata_props, read without making a session (path or bytes).
  m.def(
      "_model_metadata_props",
      [](const py::object& model) {
        std::vector<std::pair<std::string, std::string>> props;
        if (py::isinstance<py::bytes>(model)) {
          const std::string bytes = model.cast<std::string>();
          check(!bytes.empty(), "the model bytes are empty");
          py::gil_scoped_release release;
          props = onnx::parse_model(bytes.data(), bytes.size()).metadata_props;
        } else {
          const std::string path = py::str(model);
          check(!path.empty(), "the model path is empty");
          py::gil_scoped_release release;
          props = onnx::load_model(path).metadata_props;
        }
        return std::map<std::string, std::string>(props.begin(), props.end());
      },
      py::arg("model"));
  py::class_<PySession> c(m, "Session");
  c.def(py::init<const py::object&, const PySessionOptions&, const ProviderList&,
                 const py::object&>(),
        py::arg("model"), py::arg("options"), py::arg("providers"),
        py::arg("options_from_metadata") = py::none());
  c.def("run", &PySession::run, py::arg("feeds"), py::arg("output_names"),
        py::arg("run_options") = nullptr);
  c.def("inputs", [](const PySession& s) { return io_infos(s.session().inputs()); });
  c.def("outputs", [](const PySession& s) { return io_infos(s.session().outputs()); });
  c.def("overridable_initializers",
        [](const PySession& s) { return io_infos(s.session().overridable_initializers()); });
  c.def("providers", [](const PySession& s) { return s.session().providers(); });
  c.def("provider_options", &PySession::provider_options);
  // onnxruntime's WebGPU context of the session; -1: none (Tessera has no
  // WebGPU provider), so its graph capture is never on.
  c.def("webgpu_context_id", [](const PySession&) { return -1; });
  c.def("is_webgpu_graph_capture_enabled", [](const PySession&) { return false; });
  c.def("modelmeta", &PySession::modelmeta);
  c.def("end_profiling", &PySession::end_profiling);
  c.def("profiling_start_time_ns", &PySession::profiling_start_ns);
  c.def("run_capture", [](const PySession& s) {
    const auto c = s.session().run_capture();
    py::dict d;
    d["status"] = c.status;
    d["warmups"] = c.warmups;
    d["captures"] = c.captures;
    d["replays"] = c.replays;
    d["failures"] = c.failures;
    d["uncaptured"] = c.uncaptured;
    return d;
  });
  // onnxruntime's native InferenceSession.run_with_ort_values: feeds by name,
  // the outputs as an OrtValueVector.
  c.def(
      "run_with_ort_values",
      [](const PySession& s, const std::map<std::string, Value>& feeds,
         const std::vector<std::string>& output_names, const PyRunOptions* run_options) {
        std::vector<std::pair<std::string, Value>> pairs(feeds.begin(), feeds.end());
        std::vector<Value> outputs = s.run(pairs, output_names, run_options);
        return py::module_::import("tessera._capi_types")
            .attr("OrtValueVector")(py::cast(std::move(outputs)));
      },
      py::arg("feeds"), py::arg("output_names"), py::arg("run_options") = nullptr);
  // Per fed input: (name, provider of its first reader, that provider's
  // memory as (name, device type, vendor id, device id, memory type,
  // alignment, allocator type)).
  c.def("input_locations", [](const PySession& s) {
    py::list out;
    for (const auto& l : s.session().input_locations()) {
      const MemoryInfo& m = l.memory;
      out.append(py::make_tuple(l.input, l.provider,
                                py::make_tuple(m.name, static_cast<int>(m.device_type), m.vendor_id,
                                               m.device_id, static_cast<int>(m.mem_type),
                                               m.alignment, static_cast<int>(m.allocator_type))));
    }
    return out;
  });
  c.def("node_assignments", [](const PySession& s) {
    py::list out;
    for (const auto& a : s.session().node_assignments())
      out.append(py::make_tuple(a.node_name, a.op_type, a.domain, a.provider, a.declined));
    return out;
  });
}

}  // namespace tessera::python
