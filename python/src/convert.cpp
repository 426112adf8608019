#include "convert.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>

namespace tessera::python {
namespace {

std::shared_ptr<void> keep_python_object(py::object obj) {
  // The last reference may drop on a thread that does not hold the GIL (a
  // Value released inside a run), so take it before touching the object.
  return std::shared_ptr<void>(new py::object(std::move(obj)), [](void* p) {
    if (!Py_IsInitialized()) return;  // interpreter gone: nothing left to release
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(p);
  });
}

// Fixed-width numpy strings, as onnxruntime reads them: bytes ('S') up to the
// first NUL, raw void ('V') items whole (trailing NULs kept).
Tensor fixed_width_string_tensor(py::array array, Shape shape, bool is_void) {
  Tensor t(DataType::kString, std::move(shape));
  std::string* out = t.mutable_data<std::string>();
  array = py::array::ensure(array, py::array::c_style);
  const auto item = size_t(array.itemsize());
  const char* src = static_cast<const char*>(array.data());
  for (int64_t i = 0; i < t.num_elements(); ++i, src += item) {
    size_t n = item;
    if (!is_void) n = size_t(std::find(src, src + item, '\0') - src);
    out[i].assign(src, n);
  }
  return t;
}

Tensor string_tensor_from_numpy(const py::array& array, Shape shape) {
  const char kind = array.dtype().kind();
  if (kind == 'S' || kind == 'V')
    return fixed_width_string_tensor(array, std::move(shape), kind == 'V');
  Tensor t(DataType::kString, std::move(shape));
  std::string* out = t.mutable_data<std::string>();
  py::list items = array.attr("ravel")().attr("tolist")();
  int64_t i = 0;
  for (const py::handle& item : items) {
    if (py::isinstance<py::str>(item)) {
      out[i++] = item.cast<std::string>();
    } else if (py::isinstance<py::bytes>(item)) {
      out[i++] = std::string(item.cast<py::bytes>());
    } else {
      fail(ErrorCode::kInvalidArgument, "a string tensor can hold only str or bytes; element ", i,
           " is ", std::string(py::str(item.get_type().attr("__name__"))));
    }
  }
  return t;
}

py::object string_tensor_to_numpy(const Tensor& t) {
  const std::string* data = t.data<std::string>();
  py::list items;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    PyObject* s = PyUnicode_DecodeUTF8(data[i].data(), Py_ssize_t(data[i].size()), "strict");
    if (s) {
      items.append(py::reinterpret_steal<py::object>(s));
    } else {
      PyErr_Clear();  // not UTF-8: hand the raw bytes back instead of failing
      items.append(py::bytes(data[i]));
    }
  }
  py::module_ np = py::module_::import("numpy");
  py::object arr = np.attr("empty")(py::len(items), py::arg("dtype") = "object");
  for (size_t i = 0; i < py::len(items); ++i) arr[py::int_(i)] = items[i];
  return arr.attr("reshape")(py::tuple(py::cast(t.shape().dims())));
}

}  // namespace

DataType data_type_from_dtype(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  switch (kind) {
    case 'b':
      return DataType::kBool;
    case 'f':
      return size == 2   ? DataType::kFloat16
             : size == 4 ? DataType::kFloat
             : size == 8 ? DataType::kDouble
                         : DataType::kUndefined;
    case 'i':
      return size == 1   ? DataType::kInt8
             : size == 2 ? DataType::kInt16
             : size == 4 ? DataType::kInt32
             : size == 8 ? DataType::kInt64
                         : DataType::kUndefined;
    case 'u':
      return size == 1   ? DataType::kUInt8
             : size == 2 ? DataType::kUInt16
             : size == 4 ? DataType::kUInt32
             : size == 8 ? DataType::kUInt64
                         : DataType::kUndefined;
    case 'c':
      return size == 8    ? DataType::kComplex64
             : size == 16 ? DataType::kComplex128
                          : DataType::kUndefined;
    case 'U':
    case 'S':
    case 'O':
    case 'V':
      return DataType::kString;
    default:
      return DataType::kUndefined;
  }
}

DataType data_type_from_object(const py::handle& obj) {
  if (py::isinstance<py::int_>(obj)) {
    int v = obj.cast<int>();
    check(is_valid_data_type(v) && v != 0, "element type ", v, " is not an ONNX element type");
    return static_cast<DataType>(v);
  }
  py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
  DataType t = data_type_from_dtype(dt);
  check(t != DataType::kUndefined, "numpy dtype ", std::string(py::str(dt)),
        " has no ONNX element type");
  return t;
}

py::dtype dtype_from_data_type(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return py::dtype("float32");
    case DataType::kDouble:
      return py::dtype("float64");
    case DataType::kFloat16:
      return py::dtype("float16");
    case DataType::kInt8:
      return py::dtype("int8");
    case DataType::kInt16:
      return py::dtype("int16");
    case DataType::kInt32:
      return py::dtype("int32");
    case DataType::kInt64:
      return py::dtype("int64");
    case DataType::kUInt8:
      return py::dtype("uint8");
    case DataType::kUInt16:
      return py::dtype("uint16");
    case DataType::kUInt32:
      return py::dtype("uint32");
    case DataType::kUInt64:
      return py::dtype("uint64");
    case DataType::kBool:
      return py::dtype("bool");
    case DataType::kComplex64:
      return py::dtype("complex64");
    case DataType::kComplex128:
      return py::dtype("complex128");
    case DataType::kString:
      return py::dtype("object");
    default:
      fail(ErrorCode::kNotImplemented, "tensor(", data_type_name(t),
           ") has no numpy equivalent; cast it in the model (e.g. Cast to float) to read it");
  }
}

Tensor tensor_from_numpy(py::array array) {
  py::dtype dt = array.dtype();
  DataType t = data_type_from_dtype(dt);
  check(t != DataType::kUndefined, "numpy dtype ", std::string(py::str(dt)),
        " has no ONNX element type");
  Shape shape(std::vector<int64_t>(array.shape(), array.shape() + array.ndim()));
  if (t == DataType::kString) return string_tensor_from_numpy(array, std::move(shape));
  const bool in_place = (array.flags() & py::array::c_style) &&
                        (array.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) &&
                        dt.attr("isnative").cast<bool>();
  if (!in_place) {
    // One copy into the layout tensors use: C order, aligned, native byte order.
    array = array.attr("astype")(dt.attr("newbyteorder")("="), py::arg("order") = "C");
  }
  void* data = const_cast<void*>(array.data());
  size_t bytes = size_t(array.nbytes());
  auto buffer = std::make_shared<Buffer>(data, bytes, cpu_memory_info(),
                                         keep_python_object(std::move(array)));
  return Tensor(t, std::move(shape), std::move(buffer));
}

py::object tensor_to_numpy(const Tensor& t) {
  check(t.memory_info().host_accessible(), "the tensor lives in ", t.memory_info().to_string(),
        "; copy it to the CPU first");
  if (t.dtype() == DataType::kString) return string_tensor_to_numpy(t);
  py::dtype dt = dtype_from_data_type(t.dtype());
  std::vector<py::ssize_t> dims(t.shape().dims().begin(), t.shape().dims().end());
  if (t.num_elements() == 0 || !t.buffer()) return py::array(dt, dims);
  auto* owner = new std::shared_ptr<Buffer>(t.buffer());
  py::capsule base(owner, [](void* p) { delete static_cast<std::shared_ptr<Buffer>*>(p); });
  return py::array(dt, dims, {}, t.raw_data(), base);
}

py::object value_to_python(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return py::none();
    case Value::Kind::kTensor:
      return tensor_to_numpy(v.tensor());
    case Value::Kind::kSequence: {
      py::list items;
      for (const Value& item : v.seq()) items.append(value_to_python(item));
      return items;
    }
    case Value::Kind::kMap: {
      py::list keys = tensor_to_numpy(v.map().keys).attr("tolist")();
      py::list values = tensor_to_numpy(v.map().values).attr("tolist")();
      check(py::len(keys) == py::len(values), "map value has ", py::len(keys), " keys but ",
            py::len(values), " values");
      py::dict out;
      for (size_t i = 0; i < py::len(keys); ++i) out[keys[i]] = values[i];
      return out;
    }
    case Value::Kind::kSparseTensor:  // onnxruntime hands sparse outputs back as SparseTensor
      return py::module_::import("tessera._capi_types")
          .attr("SparseTensor")
          .attr("_from_ortvalue")(py::cast(v));
  }
  return py::none();
}

std::string value_type_string(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return "optional";
    case Value::Kind::kTensor:
      return str_cat("tensor(", data_type_name(v.tensor().dtype()), ")");
    case Value::Kind::kSequence: {
      DataType elem = v.seq_elem_type();
      if (elem == DataType::kUndefined && !v.seq().empty() && v.seq()[0].is_tensor())
        elem = v.seq()[0].tensor().dtype();
      return str_cat("seq(tensor(", data_type_name(elem), "))");
    }
    case Value::Kind::kMap:
      return str_cat("map(", data_type_name(v.map().keys.dtype()), ",tensor(",
                     data_type_name(v.map().values.dtype()), "))");
    case Value::Kind::kSparseTensor:
      return str_cat("sparse_tensor(", data_type_name(v.sparse().dtype()), ")");
  }
  return "?";
}

Value detach(Value v) {
  if (v.is_tensor()) {
    const Tensor& t = v.tensor();
    if (t.buffer() && t.buffer().use_count() > 1 && t.memory_info().host_accessible())
      return Value(t.clone());
    return v;
  }
  if (v.is_sequence()) {
    Sequence items;
    items.reserve(v.seq().size());
    for (const Value& item : v.seq()) items.push_back(detach(item));
    return Value::sequence(std::move(items), v.seq_elem_type());
  }
  return v;
}

}  // namespace tessera::python
