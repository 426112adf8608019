// LoRA adapters as onnxruntime's Python API has them: AdapterFormat (an
// adapter file's versions and parameters, read and written) and LoraAdapter
// (a loaded adapter that RunOptions.add_active_adapter makes active).
#include "lora.hpp"

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "core/error.hpp"
#include "core/value.hpp"
#include "onnx/adapter_format.hpp"

namespace tessera::python {

namespace {

std::string path_of(const py::object& p) {
  return py::str(py::module_::import("os").attr("fspath")(p));
}

py::dict parameters_dict(const onnx::Adapter& a) {
  py::dict d;
  for (const auto& [name, t] : a.parameters) d[py::str(name)] = Value(t);
  return d;
}

}  // namespace

void bind_lora(py::module_& m) {
  using A = onnx::Adapter;
  py::class_<A> f(m, "AdapterFormat");
  f.def(py::init<>());
  f.def("get_format_version", [](const A& a) { return a.format_version; });
  f.def("get_adapter_version", [](const A& a) { return a.adapter_version; });
  f.def("set_adapter_version", [](A& a, int32_t v) { a.adapter_version = v; });
  f.def("get_model_version", [](const A& a) { return a.model_version; });
  f.def("set_model_version", [](A& a, int32_t v) { a.model_version = v; });
  f.def("set_parameters", [](A& a, const std::map<std::string, Value>& params) {
    std::vector<std::pair<std::string, Tensor>> out;
    for (const auto& [name, v] : params) {
      check_code(v.is_tensor(), ErrorCode::kInvalidArgument, "set_parameters: '", name,
                 "' must be an OrtValue holding a tensor, not a ", v.kind_name());
      out.emplace_back(name, v.tensor());
    }
    a.parameters = std::move(out);
  });
  f.def("get_parameters", [](const A& a) { return parameters_dict(a); });
  f.def("export_adapter", [](const A& a, const py::object& path) {
    const std::string p = path_of(path);
    py::gil_scoped_release release;
    onnx::save_adapter(a, p);
  });
  f.def_static("read_adapter", [](const py::object& path) {
    const std::string p = path_of(path);
    py::gil_scoped_release release;
    return onnx::load_adapter(p);
  });

  using L = PyLoraAdapter;
  py::class_<L> l(m, "LoraAdapter");
  l.def(py::init<>());
  l.def("Load", [](L& l, const py::object& path) {
    const std::string p = path_of(path);
    py::gil_scoped_release release;
    l.adapter = std::make_shared<const A>(onnx::load_adapter(p));
  });
  l.def_static("create_from_file", [](const py::object& path) {
    const std::string p = path_of(path);
    py::gil_scoped_release release;
    return L{std::make_shared<const A>(onnx::load_adapter(p))};
  });
  l.def_static("create_from_array", [](const py::buffer& bytes) {
    py::buffer_info info = bytes.request();
    const size_t size = size_t(info.size) * size_t(info.itemsize);
    return L{std::make_shared<const A>(onnx::parse_adapter(info.ptr, size))};
  });
}

}  // namespace tessera::python
