"""onnxruntime.OrtValue: the Python value over the native one (_C.OrtValue).

It is a native OrtValue itself (every native function takes it), with what
onnxruntime's Python class adds: `_get_c_value()` (a native handle on the same
value and memory), the session that allocated it (`_session`, None unless
InferenceSession.create_ortvalue_from_shape_and_type made it), the read-only
`_is_webgpu_buffer`, and update_inplace from another OrtValue. Its factories
return this class; values the native module hands out (OrtValueVector items,
adapter parameters) are native ones, as in onnxruntime."""

from . import _C, _ownership


class OrtValue(_C.OrtValue):
    # The native session that allocated the value; None: any session may use it.
    _session = None

    def __init__(self, ortvalue=None, numpy_obj=None):
        if ortvalue is None:
            super().__init__()
        else:
            super().__init__(ortvalue)
            self._session = getattr(ortvalue, "_session", None)
        # onnxruntime's numpy_obj: an object the caller wants kept alive with
        # the value (the factories pass none: a value viewing an array holds it).
        self._numpy = numpy_obj

    @property
    def _is_webgpu_buffer(self):
        return self._get_c_value()._is_webgpu_buffer()

    def _get_c_value(self):
        return _C.OrtValue(self)

    @property
    def _ortvalue(self):
        return self._get_c_value()

    def update_inplace(self, np_arr):
        """Copies an array, or another OrtValue of a session this value may be
        used with, into this value's memory (same element type and size)."""
        if isinstance(np_arr, _C.OrtValue):
            _ownership.check_same_origin(self, np_arr)
            _C.copy_tensors([np_arr], [self])
            return
        super().update_inplace(np_arr)

    # -- factories (native values wrapped in this class) ---------------------------

    @classmethod
    def ortvalue_from_numpy(cls, numpy_obj, device_type="cpu", device_id=0, vendor_id=-1):
        del vendor_id  # a device is found by its type and id here
        return cls(_C.OrtValue.ortvalue_from_numpy(numpy_obj, device_type, device_id))

    @classmethod
    def ortvalue_from_numpy_with_onnx_type(cls, data, onnx_element_type):
        return cls(_C.OrtValue.ortvalue_from_numpy_with_onnx_type(data, onnx_element_type))

    @classmethod
    def ortvalue_from_shape_and_type(cls, shape, element_type, device_type="cpu", device_id=0,
                                     vendor_id=-1):
        del vendor_id
        return cls(_C.OrtValue.ortvalue_from_shape_and_type(shape, element_type, device_type,
                                                            device_id))

    @classmethod
    def ortvalue_from_buffer_ptr(cls, buffer_ptr, shape, element_type, device_type="cpu",
                                 device_id=0):
        return cls(_C.OrtValue.ortvalue_from_buffer_ptr(buffer_ptr, shape, element_type,
                                                        device_type, device_id))

    @classmethod
    def ortvalue_from_sequence(cls, items, element_type=None):
        return cls(_C.OrtValue.ortvalue_from_sequence(items, element_type))

    @classmethod
    def ortvalue_from_map(cls, keys, values):
        return cls(_C.OrtValue.ortvalue_from_map(keys, values))

    @classmethod
    def ortvalue_none(cls):
        return cls(_C.OrtValue.ortvalue_none())

    @classmethod
    def from_dlpack(cls, data, is_bool_tensor=False):
        return cls(_C.OrtValue.from_dlpack(data, is_bool_tensor))

    @classmethod
    def ort_value_from_sparse_tensor(cls, sparse_tensor):
        return cls(_C.OrtValue.ort_value_from_sparse_tensor(sparse_tensor))


def copy_tensors(src, dst, stream=None):
    """onnxruntime.copy_tensors: each source OrtValue's data into the
    destination at the same position (same type and shape), across memory
    spaces; complete on return (a stream is not used)."""
    del stream
    if len(src) != len(dst):
        raise ValueError("copy_tensors: %d sources but %d destinations" % (len(src), len(dst)))
    _C.copy_tensors(list(src), list(dst))
