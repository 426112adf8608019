// The native IO binding under tessera.IOBinding: bound values stay where
// they are; runs release the GIL.
#include "runtime/io_binding.hpp"

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "devices.hpp"
#include "session.hpp"

namespace tessera::python {

void bind_io_binding(py::module_& m) {
  py::class_<IoBinding> c(m, "IoBinding");
  c.def(py::init([](const PySession& s) { return std::make_unique<IoBinding>(s.session()); }),
        py::arg("session"), py::keep_alive<1, 2>());
  c.def("bind_input", &IoBinding::bind_input, py::arg("name"), py::arg("value"));
  c.def(
      "bind_output_to_device",
      [](IoBinding& b, const std::string& name, const std::string& device_type, int device_id) {
        b.bind_output(name, memory_for_device(device_type, device_id));
      },
      py::arg("name"), py::arg("device_type") = "cpu", py::arg("device_id") = 0);
  c.def(
      "bind_output_to_value",
      [](IoBinding& b, const std::string& name, const Value& v) { b.bind_output(name, v); },
      py::arg("name"), py::arg("value"));
  c.def("clear_inputs", &IoBinding::clear_inputs);
  c.def("clear_outputs", &IoBinding::clear_outputs);
  c.def("synchronize_inputs", &IoBinding::synchronize_inputs);
  c.def("synchronize_outputs", &IoBinding::synchronize_outputs);
  c.def("output_names", &IoBinding::output_names);
  c.def("outputs", &IoBinding::outputs);
  c.def("copy_outputs_to_cpu", &IoBinding::copy_outputs_to_cpu);
  c.def(
      "run",
      [](IoBinding& b, const PyRunOptions* run_options) {
        RunOptions options = run_options ? run_options->options : RunOptions{};
        py::gil_scoped_release release;
        b.session().run_with_binding(b, options);
      },
      py::arg("run_options") = nullptr);

  // onnxruntime's native InferenceSession.run_with_iobinding(binding,
  // run_options): the binding is a SessionIOBinding (which holds the native
  // one as `_native`) or the native IoBinding itself.
  auto session = py::reinterpret_borrow<py::class_<PySession>>(m.attr("Session"));
  session.def(
      "run_with_iobinding",
      [](const PySession& s, const py::object& binding, const PyRunOptions* run_options) {
        py::object native = py::hasattr(binding, "_native") ? binding.attr("_native") : binding;
        check(py::isinstance<IoBinding>(native),
              "run_with_iobinding needs a SessionIOBinding or IoBinding, not ",
              std::string(py::str(py::type::of(binding).attr("__name__"))));
        IoBinding& b = native.cast<IoBinding&>();
        check(&b.session() == &s.session(),
              "run_with_iobinding: the binding was made for another session");
        RunOptions options = run_options ? run_options->options : RunOptions{};
        py::gil_scoped_release release;
        s.session().run_with_binding(b, options);
      },
      py::arg("iobinding"), py::arg("run_options") = nullptr);
}

}  // namespace tessera::python
