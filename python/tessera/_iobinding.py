"""IOBinding: inputs and outputs bound ahead of runs, in the memory the
application chooses (onnxruntime's names over the native IoBinding). Inputs
bound on the device their first consumer runs on are used in place; outputs
bound to a device stay there until copy_outputs_to_cpu()."""

import warnings

import numpy as np

from . import _C, _ownership
from ._ortvalue import OrtValue


def _served(device_type, device_id):
    """Whether any provider here serves (device_type, device_id); unknown names raise."""
    kind = _C.OrtHardwareDeviceType.__members__.get(device_type.upper())
    if device_type.lower() == "cuda":
        kind = _C.OrtHardwareDeviceType.GPU
    if kind is None:
        raise _C.InvalidArgument("unknown device type '%s'; valid types are: cpu, gpu (or cuda), "
                                 "npu, fpga" % device_type)
    if kind == _C.OrtHardwareDeviceType.CPU:
        return True
    return any(p.device.type == kind and p.device.device_id == device_id
               for p in _C.get_ep_devices())


def _element_type(element_type):
    return element_type if element_type is not None else np.float32


class IOBinding:
    def __init__(self, session):
        # The native session, as in onnxruntime: values and runs are checked against it.
        self._session = session._sess
        self._native = _C.IoBinding(session._sess)
        # Python objects handed in, kept alive (and returned as they are) while bound.
        self._inputs = {}
        self._bound_outputs = {}
        # Ids of the graphs captured with this binding (InferenceSession's
        # _captured_graph_bindings): while any is, the binding cannot change.
        self._pinned_graph_ids = set()

    def _check_not_pinned(self):
        if self._pinned_graph_ids:
            raise ValueError("Captured graphs %s still reference this IOBinding; call "
                             "InferenceSession.release_captured_graph() before changing it."
                             % sorted(self._pinned_graph_ids))

    def _capture_signature(self):
        """What a captured graph replays: the values bound, by name and identity."""
        return (tuple((name, id(value)) for name, value in sorted(self._inputs.items())),
                tuple(self._native.output_names()),
                tuple((name, id(value)) for name, value in sorted(self._bound_outputs.items())))

    def _validate_capture_bindings(self):
        """Graph capture replays fixed device buffers, so every bound input and
        output must be a WebGPU device OrtValue; Tessera has no WebGPU provider,
        so no binding here qualifies."""
        values = list(self._inputs.values()) + list(self._bound_outputs.values())
        if not values or not all(_ownership._is_webgpu(v) for v in values):
            raise ValueError("WebGPU graph capture requires fixed WebGPU device OrtValues bound "
                             "for every input and output (bind_ortvalue_input / "
                             "bind_ortvalue_output).")

    # -- inputs -------------------------------------------------------------------

    def bind_cpu_input(self, name, arr_on_cpu):
        self.bind_ortvalue_input(name, _C.OrtValue.ortvalue_from_numpy(np.asarray(arr_on_cpu)))

    def bind_input(self, name, device_type, device_id=0, element_type=None, shape=None,
                   buffer_ptr=None):
        """bind_input(name, array_or_ortvalue) or onnxruntime's
        bind_input(name, device_type, device_id, element_type, shape, buffer_ptr), where
        buffer_ptr is memory on that device that the caller keeps alive."""
        if isinstance(device_type, _C.OrtValue):
            self.bind_ortvalue_input(name, device_type)
            return
        if isinstance(device_type, np.ndarray):
            self.bind_cpu_input(name, device_type)
            return
        if buffer_ptr is None or shape is None or element_type is None:
            raise ValueError("bind_input needs element_type, shape and buffer_ptr "
                             "(or a numpy array / OrtValue)")
        value = _C.OrtValue.ortvalue_from_buffer_ptr(buffer_ptr, list(shape), element_type,
                                                     str(device_type), device_id)
        self.bind_ortvalue_input(name, value)

    def bind_ortvalue_input(self, name, ortvalue):
        self._check_not_pinned()
        _ownership.check_bound_to(ortvalue, self._session)
        self._native.bind_input(name, ortvalue)
        self._inputs[name] = ortvalue

    def clear_binding_inputs(self):
        self._check_not_pinned()
        self._native.clear_inputs()
        self._inputs = {}

    def synchronize_inputs(self):
        self._native.synchronize_inputs()

    # -- outputs ------------------------------------------------------------------

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None,
                    buffer_ptr=None):
        """Leaves the output on (device_type, device_id); with a buffer_ptr (and
        element_type and shape), each run writes it into that memory."""
        if buffer_ptr is None:
            device_type = str(device_type)
            if not _served(device_type, device_id):
                # Like a requested provider this build lacks (skipped with a
                # warning): the output stays on the CPU.
                warnings.warn("bind_output('%s'): device '%s' is not available in this build; "
                              "the output is kept on the CPU" % (name, device_type),
                              RuntimeWarning, stacklevel=2)
                device_type, device_id = "cpu", 0
            self._check_not_pinned()
            self._native.bind_output_to_device(name, device_type, device_id)
            self._bound_outputs.pop(name, None)
            return
        if shape is None:
            raise ValueError("bind_output with buffer_ptr needs element_type and shape")
        value = _C.OrtValue.ortvalue_from_buffer_ptr(buffer_ptr, list(shape),
                                                     _element_type(element_type),
                                                     str(device_type), device_id)
        self.bind_ortvalue_output(name, value)

    def bind_ortvalue_output(self, name, ortvalue):
        self._check_not_pinned()
        _ownership.check_bound_to(ortvalue, self._session)
        self._native.bind_output_to_value(name, ortvalue)
        self._bound_outputs[name] = ortvalue

    def clear_binding_outputs(self):
        self._check_not_pinned()
        self._native.clear_outputs()
        self._bound_outputs = {}

    def synchronize_outputs(self):
        self._native.synchronize_outputs()

    def get_outputs(self):
        """The outputs of the last run, as OrtValues, in binding order (an output
        bound to an OrtValue is that same object)."""
        return [self._bound_outputs.get(name) or self._wrap(value)
                for name, value in zip(self._native.output_names(), self._native.outputs())]

    def _wrap(self, value):
        wrapped = OrtValue(value)
        wrapped._session = self._session
        return wrapped

    def get_outputs_names(self):
        return list(self._native.output_names())

    def copy_outputs_to_cpu(self):
        """The outputs of the last run as numpy arrays (copied from the device where needed)."""
        return [np.copy(v.numpy()) if v.is_tensor() else v.to_python()
                for v in self._native.copy_outputs_to_cpu()]

    # -- the run (called by InferenceSession.run_with_iobinding) --------------------

    def _run(self, run_options):
        self._native.run(run_options)


class SessionIOBinding:
    """onnxruntime's native C.SessionIOBinding(session._sess): the same
    binding with OrtDevice arguments and an OrtValueVector from get_outputs()."""

    def __init__(self, sess):
        if hasattr(sess, "_sess"):  # an InferenceSession rather than its native session
            sess = sess._sess
        self._native = _C.IoBinding(sess)

    @staticmethod
    def _device(device):
        if isinstance(device, str):
            return device, 0
        return device._device_name(), device.device_id()

    def bind_input(self, name, value, element_type=None, shape=None, buffer_ptr=None):
        """bind_input(name, ortvalue_or_array) or bind_input(name, OrtDevice, element_type,
        shape, buffer_ptr)."""
        if isinstance(value, np.ndarray):
            value = _C.OrtValue.ortvalue_from_numpy(value)
        elif not isinstance(value, _C.OrtValue):
            device_type, device_id = self._device(value)
            value = _C.OrtValue.ortvalue_from_buffer_ptr(buffer_ptr, list(shape), element_type,
                                                         device_type, device_id)
        self._native.bind_input(name, value)

    def bind_ortvalue_input(self, name, ortvalue):
        self._native.bind_input(name, ortvalue)

    def bind_output(self, name, device=None, element_type=None, shape=None, buffer_ptr=None):
        if buffer_ptr is not None:
            device_type, device_id = self._device(device)
            value = _C.OrtValue.ortvalue_from_buffer_ptr(buffer_ptr, list(shape),
                                                         _element_type(element_type),
                                                         device_type, device_id)
            self._native.bind_output_to_value(name, value)
            return
        device_type, device_id = self._device(device) if device is not None else ("cpu", 0)
        self._native.bind_output_to_device(name, device_type, device_id)

    def bind_ortvalue_output(self, name, ortvalue):
        self._native.bind_output_to_value(name, ortvalue)

    def get_outputs(self):
        from ._capi_types import OrtValueVector  # noqa: PLC0415 - keeps this module light
        return OrtValueVector(self._native.outputs())

    def get_outputs_names(self):
        return list(self._native.output_names())

    def copy_outputs_to_cpu(self):
        return [np.copy(v.numpy()) if v.is_tensor() else v.to_python()
                for v in self._native.copy_outputs_to_cpu()]

    def clear_binding_inputs(self):
        self._native.clear_inputs()

    def clear_binding_outputs(self):
        self._native.clear_outputs()

    def synchronize_inputs(self):
        self._native.synchronize_inputs()

    def synchronize_outputs(self):
        self._native.synchronize_outputs()

    def _run(self, run_options):  # InferenceSession.run_with_iobinding
        self._native.run(run_options)
