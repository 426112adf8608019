"""ONNX type strings ("tensor(float)", "seq(tensor(int64))", ...) and how Python
objects fed to a session become OrtValues of those types."""

import numpy as np

from . import _C, _capi_types

# ONNX element type name -> (ONNX TensorProto enum, numpy dtype or None).
ELEMENT_TYPES = {
    "float": (1, np.float32),
    "uint8": (2, np.uint8),
    "int8": (3, np.int8),
    "uint16": (4, np.uint16),
    "int16": (5, np.int16),
    "int32": (6, np.int32),
    "int64": (7, np.int64),
    "string": (8, np.object_),
    "bool": (9, np.bool_),
    "float16": (10, np.float16),
    "double": (11, np.float64),
    "uint32": (12, np.uint32),
    "uint64": (13, np.uint64),
    "complex64": (14, np.complex64),
    "complex128": (15, np.complex128),
    "bfloat16": (16, None),
}


def type_name_of_dtype(dtype):
    """np.float32 -> 'float' (strings of any numpy kind -> 'string')."""
    dtype = np.dtype(dtype)
    if dtype.kind in "OSUV":
        return "string"
    for name, (_, np_type) in ELEMENT_TYPES.items():
        if np_type is not None and np.dtype(np_type) == dtype:
            return name
    raise _C.InvalidArgument("numpy dtype %s has no ONNX element type" % dtype)


# The C types onnxruntime names when a map feed's key or value does not fit.
_MAP_C_TYPES = {"int64": ("int64_t", int), "string": ("string", str), "float": ("float", float),
                "double": ("double", float)}


def _check_map_items(value, key_name, value_type, input_name):
    """Raises onnxruntime's RuntimeError for a key (or value) the map cannot hold."""
    key_c, key_py = _MAP_C_TYPES.get(key_name, (key_name, None))
    element = tensor_element(value_type)
    value_c, value_py = _MAP_C_TYPES.get(element[0] if element else "", ("", None))
    for k, v in value.items():
        if key_py is not None and not _fits(k, key_py):
            raise RuntimeError("Unexpected key type  %s, it cannot be linked to C type %s for "
                               "input '%s'." % (type(k), key_c, input_name))
        if value_py is not None and not _fits(v, value_py):
            raise RuntimeError("Unexpected value type  %s, it cannot be linked to C type %s for "
                               "input '%s'." % (type(v), value_c, input_name))


def _fits(obj, py_type):
    if py_type is str:
        return isinstance(obj, str)
    if py_type is int:
        return isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)
    return isinstance(obj, (int, float, np.integer, np.floating)) and not isinstance(obj, bool)


def _inner(type_str, prefix):
    return type_str[len(prefix):-1]


def tensor_element(type_str):
    """'tensor(float)' -> ('float', 1, np.float32); None when not a tensor type."""
    if not type_str or not type_str.startswith("tensor("):
        return None
    name = _inner(type_str, "tensor(")
    enum, dtype = ELEMENT_TYPES.get(name, (None, None))
    return name, enum, dtype


def _split_map(type_str):
    """'map(int64,tensor(float))' -> ('int64', 'tensor(float)')."""
    key, _, value = _inner(type_str, "map(").partition(",")
    return key, value


def to_ortvalue(value, type_str, name=""):
    """Converts a fed Python object to an OrtValue, guided by the declared type
    of the input (None when unknown; the session then reports the bad name)."""
    if isinstance(value, _capi_types.SparseTensor):
        return value._to_ortvalue()
    if isinstance(value, _C.OrtValue):
        return value
    if hasattr(value, "_get_c_value"):  # a wrapper holding an OrtValue
        return value._get_c_value()
    if type_str and type_str.startswith("optional("):
        if value is None:
            return _C.OrtValue.ortvalue_none()
        return to_ortvalue(value, _inner(type_str, "optional("), name)
    if type_str and type_str.startswith("seq("):
        inner = _inner(type_str, "seq(")
        element = tensor_element(inner)
        items = [to_ortvalue(v, inner, name) for v in value]
        return _C.OrtValue.ortvalue_from_sequence(items, element[1] if element else None)
    if type_str and type_str.startswith("map("):
        key_name, value_type = _split_map(type_str)
        _check_map_items(value, key_name, value_type, name)
        key_dtype = ELEMENT_TYPES.get(key_name, (None, None))[1]
        element = tensor_element(value_type)
        keys = np.array(list(value.keys()), dtype=key_dtype)
        values = np.array(list(value.values()), dtype=element[2] if element else None)
        return _C.OrtValue.ortvalue_from_map(keys, values)
    if not isinstance(value, np.ndarray):
        # Like onnxruntime: plain Python values take the input's element type;
        # numpy arrays are never cast (a mismatch is an error).
        element = tensor_element(type_str)
        value = np.asarray(value, dtype=element[2] if element else None)
    return _C.OrtValue.ortvalue_from_numpy(value)
