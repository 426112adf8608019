"""ONNX type strings ("tensor(float)", "seq(tensor(int64))", ...) and how Python
objects fed to a session become OrtValues of those types."""

import numpy as np

from . import _C

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


def to_ortvalue(value, type_str):
    """Converts a fed Python object to an OrtValue, guided by the declared type
    of the input (None when unknown; the session then reports the bad name)."""
    if isinstance(value, _C.OrtValue):
        return value
    if type_str and type_str.startswith("optional("):
        if value is None:
            return _C.OrtValue.ortvalue_none()
        return to_ortvalue(value, _inner(type_str, "optional("))
    if type_str and type_str.startswith("seq("):
        inner = _inner(type_str, "seq(")
        element = tensor_element(inner)
        items = [to_ortvalue(v, inner) for v in value]
        return _C.OrtValue.ortvalue_from_sequence(items, element[1] if element else None)
    if type_str and type_str.startswith("map("):
        key_name, value_type = _split_map(type_str)
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
