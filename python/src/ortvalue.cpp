// OrtValue: a tessera::Value as onnxruntime's Python API shows it.
#include <pybind11/stl.h>

#include <cstring>

#include "bindings.hpp"
#include "convert.hpp"
#include "devices.hpp"
#include "dlpack.hpp"
#include "runtime/copy_tensors.hpp"

namespace tessera::python {
namespace {

const Tensor& tensor_of(const Value& v, const char* what) {
  check(v.is_tensor(), what, "() needs an OrtValue holding a tensor; this one holds a ",
        v.kind_name());
  return v.tensor();
}

Value from_shape_and_type(const std::vector<int64_t>& dims, const py::object& element_type,
                          const std::string& device_type, int device_id) {
  MemoryInfo memory = memory_for_device(device_type, device_id);
  Tensor t(data_type_from_object(element_type), Shape(dims));
  // Zeroed, so a value bound for output never exposes stale memory.
  if (t.dtype() != DataType::kString && t.byte_size() > 0)
    std::memset(t.mutable_raw_data(), 0, t.byte_size());
  if (!memory.host_accessible()) return Value(copy_to(t, memory));
  return Value(std::move(t));
}

// Views memory the caller owns (onnxruntime's IOBinding.bind_input with a
// buffer pointer); the caller keeps it alive while the value is in use.
Value from_buffer_ptr(uintptr_t ptr, const std::vector<int64_t>& dims,
                      const py::object& element_type, const std::string& device_type,
                      int device_id) {
  MemoryInfo memory = memory_for_device(device_type, device_id);
  DataType t = data_type_from_object(element_type);
  check(t != DataType::kString, "a string tensor cannot view a raw buffer");
  check(ptr != 0, "buffer_ptr is null");
  Shape shape(dims);
  size_t bytes = data_type_storage_bytes(t, size_t(shape.num_elements()));
  auto buffer = std::make_shared<Buffer>(reinterpret_cast<void*>(ptr), bytes, memory, nullptr);
  return Value(Tensor(t, std::move(shape), std::move(buffer)));
}

// The array's bytes as another ONNX element type of the same width
// (onnxruntime's ortvalue_from_numpy_with_onnx_type: bfloat16 held as
// uint16, float8 as uint8, ...). A view, like ortvalue_from_numpy.
Value from_numpy_with_onnx_type(const py::array& array, int onnx_element_type) {
  check(is_valid_data_type(onnx_element_type) && onnx_element_type != 0, "element type ",
        onnx_element_type, " is not an ONNX element type");
  const auto type = static_cast<DataType>(onnx_element_type);
  check(type != DataType::kString,
        "ortvalue_from_numpy_with_onnx_type cannot make a string tensor");
  Tensor t = tensor_from_numpy(array);
  check(t.dtype() != DataType::kString, "ortvalue_from_numpy_with_onnx_type needs a numeric array");
  const size_t want = data_type_storage_bytes(type, size_t(t.num_elements()));
  check(want == t.byte_size(), "ortvalue_from_numpy_with_onnx_type: the array holds ",
        t.byte_size(), " bytes but ", t.num_elements(), " elements of tensor(",
        data_type_name(type), ") take ", want, " (element sizes must match)");
  return Value(Tensor(type, t.shape(), t.buffer(), t.byte_offset()));
}

// Copies the array into the value's memory (onnxruntime's update_inplace):
// the address stays the same, so bound inputs and captured runs see the new data.
void update_inplace(Value& v, const py::array& array) {
  check(v.is_tensor(), "update_inplace() needs an OrtValue holding a tensor; this one holds a ",
        v.kind_name());
  Tensor& dst = v.tensor();
  Tensor src = tensor_from_numpy(array);
  check(src.dtype() == dst.dtype(), "update_inplace: the array is tensor(",
        data_type_name(src.dtype()), ") but the OrtValue is tensor(", data_type_name(dst.dtype()),
        ")");
  check(src.num_elements() == dst.num_elements(), "update_inplace: the array has ",
        src.num_elements(), " elements but the OrtValue has ", dst.num_elements());
  if (dst.dtype() == DataType::kString) {
    for (int64_t i = 0; i < dst.num_elements(); ++i)
      dst.mutable_data<std::string>()[i] = src.data<std::string>()[i];
    return;
  }
  if (dst.memory_info().host_accessible()) {
    if (dst.byte_size() > 0) std::memcpy(dst.mutable_raw_data(), src.raw_data(), dst.byte_size());
    return;
  }
  Tensor shaped(src.dtype(), dst.shape(), src.buffer(), src.byte_offset());
  copy_tensors({&shaped}, {&dst});
}

Value from_map(const py::array& keys, const py::array& values) {
  check(keys.ndim() == 1 && values.ndim() == 1 && keys.shape(0) == values.shape(0),
        "a map needs 1-D keys and values of the same length");
  return Value::map(MapValue{tensor_from_numpy(keys), tensor_from_numpy(values)});
}

// A sparse value from a SparseTensor's numpy parts (format as OrtSparseFormat:
// 1 COO, 2 CSR, 4 block sparse); the arrays are viewed, not copied.
Value from_sparse_parts(int format, const std::vector<int64_t>& dense_shape,
                        const py::array& values, const py::object& indices,
                        const py::object& outer) {
  SparseTensor s;
  check(format == 1 || format == 2 || format == 4, "sparse format ", format,
        " is not COO (1), CSR (2) or block sparse (4)");
  s.format = static_cast<SparseFormat>(format);
  s.dense_shape = Shape(dense_shape);
  s.values = tensor_from_numpy(values);
  if (!indices.is_none()) s.indices = tensor_from_numpy(indices.cast<py::array>());
  if (!outer.is_none()) s.outer = tensor_from_numpy(outer.cast<py::array>());
  s.validate("sparse tensor");
  return Value::sparse(std::move(s));
}

// (format, dense shape, values, {"indices" | "inner", "outer": arrays}).
py::tuple sparse_parts(const Value& v) {
  check(v.is_sparse(), "this OrtValue holds a ", v.kind_name(), ", not a sparse tensor");
  const SparseTensor& s = v.sparse();
  py::dict arrays;
  if (s.format == SparseFormat::kCsr) {
    arrays["inner"] = tensor_to_numpy(s.indices);
    arrays["outer"] = tensor_to_numpy(s.outer);
  } else if (s.indices.defined()) {
    arrays["indices"] = tensor_to_numpy(s.indices);
  }
  return py::make_tuple(int(s.format), s.dense_shape.dims(), tensor_to_numpy(s.values), arrays);
}

void bind_constructors(py::class_<Value>& c) {
  // device_type is a name ("cpu", "cuda", ...) or, as in onnxruntime's
  // native OrtValue, an OrtDevice (whose own device id is then used).
  c.def_static(
      "ortvalue_from_numpy",
      [](const py::array& array, const py::object& device_type, int device_id) {
        std::string type_name;
        if (py::isinstance<py::str>(device_type)) {
          type_name = device_type.cast<std::string>();
        } else {
          check(py::hasattr(device_type, "_device_name"),
                "ortvalue_from_numpy: device_type must be a device name or an OrtDevice, not ",
                std::string(py::str(py::type::of(device_type).attr("__name__"))));
          type_name = device_type.attr("_device_name")().cast<std::string>();
          device_id = device_type.attr("device_id")().cast<int>();
        }
        MemoryInfo memory = memory_for_device(type_name, device_id);
        Tensor t = tensor_from_numpy(array);
        // On a device: one copy there; on the CPU: a view of the array.
        return memory.host_accessible() ? Value(std::move(t)) : Value(copy_to(t, memory));
      },
      py::arg("numpy_obj"), py::arg("device_type") = "cpu", py::arg("device_id") = 0);
  c.def_static("ortvalue_from_numpy_with_onnx_type", &from_numpy_with_onnx_type, py::arg("data"),
               py::arg("onnx_element_type"));
  c.def_static("ortvalue_from_shape_and_type", &from_shape_and_type, py::arg("shape"),
               py::arg("element_type"), py::arg("device_type") = "cpu", py::arg("device_id") = 0);
  c.def_static("ortvalue_from_buffer_ptr", &from_buffer_ptr, py::arg("buffer_ptr"),
               py::arg("shape"), py::arg("element_type"), py::arg("device_type") = "cpu",
               py::arg("device_id") = 0);
  c.def_static(
      "ortvalue_from_sequence",
      [](const std::vector<Value>& items, const py::object& element_type) {
        DataType elem =
            element_type.is_none() ? DataType::kUndefined : data_type_from_object(element_type);
        return Value::sequence(items, elem);
      },
      py::arg("items"), py::arg("element_type") = py::none());
  c.def_static("ortvalue_from_map", &from_map, py::arg("keys"), py::arg("values"));
  c.def_static("ortvalue_none", [] { return Value(); });
  c.def_static("_from_sparse_parts", &from_sparse_parts, py::arg("format"), py::arg("dense_shape"),
               py::arg("values"), py::arg("indices") = py::none(), py::arg("outer") = py::none());
  c.def_static("from_dlpack", &from_dlpack, py::arg("data"), py::arg("is_bool_tensor") = false,
               "Views a DLPack-exporting CPU tensor (numpy, torch, ...) or a 'dltensor' capsule "
               "without a copy.");
}

void bind_accessors(py::class_<Value>& c) {
  // Values in device memory are copied to the host first.
  c.def("numpy", [](const Value& v) {
    return v.is_tensor() ? tensor_to_numpy(to_host(v).tensor()) : value_to_python(v);
  });
  c.def("to_python", [](const Value& v) { return value_to_python(to_host(v)); });
  c.def("shape", [](const Value& v) { return tensor_of(v, "shape").shape().dims(); });
  c.def("data_type", &value_type_string);
  c.def("element_type",
        [](const Value& v) { return static_cast<int>(tensor_of(v, "element_type").dtype()); });
  c.def("device_name", [](const Value& v) {
    return v.is_tensor() ? device_name(v.tensor().memory_info()) : std::string("cpu");
  });
  c.def("tensor_size_in_bytes",
        [](const Value& v) { return tensor_of(v, "tensor_size_in_bytes").byte_size(); });
  c.def("update_inplace", &update_inplace, py::arg("np_arr"));
  // onnxruntime's Python OrtValue wraps a native one; here they are the same object.
  c.def("_get_c_value", [](py::object self) { return self; });
  c.def_property_readonly("_ortvalue", [](py::object self) { return self; });
  // Tessera has no WebGPU provider, so no value is a WebGPU buffer
  // (onnxruntime's graph-capture checks ask).
  c.def("_is_webgpu_buffer", [](const Value&) { return false; });
  c.def("is_tensor", &Value::is_tensor);
  c.def("is_tensor_sequence", &Value::is_sequence);
  c.def("is_map", &Value::is_map);
  c.def("is_sparse_tensor", &Value::is_sparse);
  c.def("_sparse_parts", &sparse_parts);
  c.def("has_value", [](const Value& v) { return !v.is_none(); });
  c.def("data_ptr", [](const Value& v) {
    return reinterpret_cast<uintptr_t>(tensor_of(v, "data_ptr").raw_data());
  });
  c.def("as_sequence", [](const Value& v) {
    check(v.is_sequence(), "as_sequence() needs a sequence; this OrtValue holds a ", v.kind_name());
    return v.seq();
  });
  c.def(
      "__dlpack__", [](const Value& v, const py::object&) { return to_dlpack(v); },
      py::arg("stream") = py::none(), "A 'dltensor' capsule viewing this CPU tensor.");
  // Only host tensors are exported, so the device is always (kDLCPU, 0);
  // a device tensor has no DLPack device type that would be true.
  c.def("__dlpack_device__", [](const Value& v) {
    const Tensor& t = tensor_of(v, "__dlpack_device__");
    check_code(t.memory_info().host_accessible(), ErrorCode::kNotImplemented,
               "__dlpack_device__: the tensor is in ", t.memory_info().to_string(),
               "; only host memory is exported (copy it to the CPU first)");
    return py::make_tuple(1, 0);
  });
  c.def("to_dlpack", &to_dlpack);
  // numpy's array protocol: np.asarray(value) views a host tensor without a
  // copy; a dtype other than the tensor's converts, copy=True always copies.
  c.def(
      "__array__",
      [](const Value& v, const py::object& dtype, const py::object& copy) {
        check(v.is_tensor(), "__array__ needs an OrtValue holding a tensor; this one holds a ",
              v.kind_name());
        py::object array = tensor_to_numpy(to_host(v).tensor());
        if (!dtype.is_none()) {
          py::dtype want = py::dtype::from_args(dtype);
          if (!want.is(array.attr("dtype")) && !want.equal(array.attr("dtype").cast<py::dtype>()))
            return array.attr("astype")(want);
        }
        if (!copy.is_none() && copy.cast<bool>()) return array.attr("copy")();
        return array;
      },
      py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  c.def("__repr__", [](const Value& v) {
    std::string what = v.is_tensor() ? v.tensor().description()
                       : v.is_sparse()
                           ? str_cat(value_type_string(v), v.sparse().dense_shape.to_string())
                           : std::string(v.kind_name());
    return str_cat("OrtValue(", what, ")");
  });
}

}  // namespace

void bind_ortvalue(py::module_& m) {
  py::class_<Value> c(m, "OrtValue");
  // An empty value (onnxruntime's OrtValue() constructor).
  c.def(py::init<>());
  // Another handle on the same value (its tensors' memory is shared): what the
  // Python OrtValue (tessera/_ortvalue.py) is made from.
  c.def(py::init<const Value&>(), py::arg("ortvalue"));
  // onnxruntime.copy_tensors: each source's data into the destination at the
  // same position, across memory spaces (the runtime's copy_tensors).
  m.def(
      "copy_tensors",
      [](const std::vector<Value*>& src, const std::vector<Value*>& dst) {
        check(src.size() == dst.size(), "copy_tensors: ", src.size(), " sources but ", dst.size(),
              " destinations");
        std::vector<const Tensor*> from;
        std::vector<Tensor*> to;
        for (size_t i = 0; i < src.size(); ++i) {
          check(src[i] != nullptr && dst[i] != nullptr, "copy_tensors: value ", i, " is None");
          from.push_back(&tensor_of(*src[i], "copy_tensors"));
          check(dst[i]->is_tensor(), "copy_tensors() needs OrtValues holding tensors; destination ",
                i, " holds a ", dst[i]->kind_name());
          to.push_back(&dst[i]->tensor());
        }
        py::gil_scoped_release release;
        copy_tensors(from, to);
      },
      py::arg("src"), py::arg("dst"));
  bind_constructors(c);
  bind_accessors(c);
}

}  // namespace tessera::python
