// The pieces of the `tessera._C` module, one bind_* function per file.
#pragma once
#include <pybind11/pybind11.h>

namespace tessera::python {
namespace py = pybind11;

void bind_devices(py::module_& m);
void bind_errors(py::module_& m);
void bind_io_binding(py::module_& m);
void bind_logger_callback(py::module_& m);
void bind_lora(py::module_& m);
void bind_ortvalue(py::module_& m);
void bind_options(py::module_& m);
void bind_session(py::module_& m);

}  // namespace tessera::python
