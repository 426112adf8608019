// set_default_logger_callback: the runtime's log records handed to a Python
// callable as (severity, category, logid, code_location, message).
#include <memory>
#include <string>

#include "bindings.hpp"
#include "core/logging.hpp"

namespace tessera::python {
namespace {

// The runtime logs from any thread (session creation with the GIL released,
// kernels on pool threads), so the callable is called under the GIL, and its
// last reference is dropped under the GIL too. After the interpreter is gone
// the reference is abandoned instead (the atexit hook below normally removes
// the sink before that).
class PyLogCallback {
 public:
  explicit PyLogCallback(py::object fn) : fn_(std::move(fn)) {}
  PyLogCallback(const PyLogCallback&) = delete;
  PyLogCallback& operator=(const PyLogCallback&) = delete;
  ~PyLogCallback() {
    if (!Py_IsInitialized()) {
      fn_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    fn_ = py::object();
  }

  void operator()(Severity severity, const std::string& tag, const std::string& message) const {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    try {
      // Messages may quote names from the model, which need not be UTF-8.
      py::str text = py::reinterpret_steal<py::str>(
          PyUnicode_DecodeUTF8(message.data(), Py_ssize_t(message.size()), "replace"));
      py::str logid = py::reinterpret_steal<py::str>(
          PyUnicode_DecodeUTF8(tag.data(), Py_ssize_t(tag.size()), "replace"));
      if (!text || !logid) throw py::error_already_set();
      // Tessera's records carry no source location; the field stays empty.
      fn_(static_cast<int>(severity), "tessera", logid, "", text);
    } catch (py::error_already_set& e) {
      // A raising callback must not take the runtime down with it: the error
      // goes to sys.unraisablehook (printed to stderr by default).
      e.discard_as_unraisable("tessera logger callback");
    }
  }

 private:
  py::object fn_;
};

void set_default_logger_callback(const py::object& callback, int severity) {
  if (severity < 0 || severity > 4)
    throw std::runtime_error(
        "set_default_logger_callback: severity must be 0 (verbose) to "
        "4 (fatal), got " +
        std::to_string(severity));
  if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
    throw std::runtime_error(
        "set_default_logger_callback: the callback must be callable or None, got an object of "
        "type " +
        std::string(py::str(py::type::handle_of(callback).attr("__name__"))));
  set_log_severity(static_cast<Severity>(severity));
  if (callback.is_none()) {
    set_log_record_sink(nullptr);
    return;
  }
  auto holder = std::make_shared<const PyLogCallback>(callback);
  set_log_record_sink([holder](Severity s, const std::string& tag, const std::string& message) {
    (*holder)(s, tag, message);
  });
}

}  // namespace

void bind_logger_callback(py::module_& m) {
  m.def("set_default_logger_callback", &set_default_logger_callback, py::arg("callback"),
        py::arg("severity") = 2,
        "Sends the runtime's log records of at least `severity` (0 verbose .. 4 fatal; it "
        "becomes the default logger's severity) to callback(severity, category, logid, "
        "code_location, message) instead of stderr; None sends them to stderr again. An "
        "exception the callback raises goes to sys.unraisablehook.");
  // The sink holds a Python callable; it is removed while the interpreter
  // can still release it.
  py::module_::import("atexit").attr("register")(
      py::cpp_function([] { set_log_record_sink(nullptr); }));
}

}  // namespace tessera::python
