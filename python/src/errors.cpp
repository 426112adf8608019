// The one place where tessera::ErrorCode becomes a Python exception class.
// The classes carry onnxruntime's names and share the base TesseraError
// (itself a RuntimeError), so `except InvalidArgument` and `except
// RuntimeError` both work; the message is the C++ one, unchanged.
#include <array>

#include "bindings.hpp"
#include "core/error.hpp"

namespace tessera::python {
namespace {

// onnxruntime's status names, in the order of `kClassNames`.
enum PyError { kFail, kInvalidArgument, kNoSuchFile, kNoModel, kEngineError, kRuntimeException,
               kInvalidProtobuf, kModelLoaded, kNotImplemented, kInvalidGraph, kEPFail, kCount };
constexpr std::array<const char*, kCount> kClassNames = {
    "Fail",          "InvalidArgument", "NoSuchFile",     "NoModel",
    "EngineError",   "RuntimeException", "InvalidProtobuf", "ModelLoaded",
    "NotImplemented", "InvalidGraph",   "EPFail"};

// Owned by the module (it holds a reference to each); plain pointers so
// nothing is released after the interpreter is gone.
std::array<PyObject*, kCount> g_classes{};

PyError class_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kFail: return kFail;
    case ErrorCode::kInvalidArgument: return kInvalidArgument;
    case ErrorCode::kNoSuchFile: return kNoSuchFile;
    case ErrorCode::kNoModel: return kNoModel;
    case ErrorCode::kInvalidProtobuf: return kInvalidProtobuf;
    case ErrorCode::kInvalidGraph: return kInvalidGraph;
    case ErrorCode::kNotImplemented: return kNotImplemented;
    case ErrorCode::kRuntimeException: return kRuntimeException;
    case ErrorCode::kEPFail: return kEPFail;
    // onnxruntime has no out-of-memory status; it reports one as a runtime exception.
    case ErrorCode::kOutOfMemory: return kRuntimeException;
    // onnxruntime reports a run stopped by RunOptions.terminate as a plain failure.
    case ErrorCode::kTerminated: return kFail;
  }
  return kFail;
}

}  // namespace

void bind_errors(py::module_& m) {
  PyObject* base = PyErr_NewExceptionWithDoc(
      "tessera._C.TesseraError", "Base of every error the Tessera runtime raises.",
      PyExc_RuntimeError, nullptr);
  if (!base) throw py::error_already_set();
  m.add_object("TesseraError", py::handle(base));
  for (size_t i = 0; i < kCount; ++i) {
    std::string qualified = std::string("tessera._C.") + kClassNames[i];
    PyObject* cls = PyErr_NewException(qualified.c_str(), base, nullptr);
    if (!cls) throw py::error_already_set();
    g_classes[i] = cls;
    m.add_object(kClassNames[i], py::handle(cls));
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(g_classes[class_for(e.code())], e.what());
    }
  });
}

}  // namespace tessera::python
