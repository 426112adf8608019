// Conversions between numpy / Python objects and tessera Tensors and Values.
// Numeric tensors cross without a copy where the memory allows it: a
// C-contiguous, aligned, native-order array is viewed in place (the Buffer
// keeps the array alive), and a tensor becomes a numpy array viewing its
// Buffer (a capsule keeps the Buffer alive). Strings are always copied.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "core/value.hpp"

namespace tessera::python {
namespace py = pybind11;

// kUndefined when numpy has no matching ONNX element type.
DataType data_type_from_dtype(const py::dtype& dt);
// Accepts a numpy dtype/type (np.float32, "float32") or an ONNX element type int.
DataType data_type_from_object(const py::handle& obj);
// Throws kNotImplemented for ONNX types numpy cannot hold (bfloat16, float8, int4, ...).
py::dtype dtype_from_data_type(DataType t);

Tensor tensor_from_numpy(py::array array);
// A numpy view of `t` (or a copy for strings); the view keeps the Buffer alive.
py::object tensor_to_numpy(const Tensor& t);
// numpy arrays for tensors, lists for sequences, dicts for maps, None for none.
py::object value_to_python(const Value& v);
// "tensor(float)", "seq(tensor(int64))", "map(string,tensor(float))", "optional".
std::string value_type_string(const Value& v);
// A value that shares no buffer with anything else still alive (copies the
// tensors whose Buffer has other owners, e.g. session initializers or feeds).
Value detach(Value v);

}  // namespace tessera::python
