"""IOBinding: inputs and outputs bound ahead of a run. Everything lives on the
CPU today, so binding is bookkeeping over run_with_ort_values."""

import warnings

import numpy as np

from . import _C


def _check_cpu(device_type, device_id, what):
    if str(device_type).lower() != "cpu" or device_id != 0:
        raise _C.EPFail("%s: device '%s' (id %s) is not available in this build; bind to 'cpu'"
                        % (what, device_type, device_id))


class IOBinding:
    def __init__(self, session):
        self._session = session
        self._inputs = {}
        self._outputs = []  # (name, preallocated OrtValue or None)
        self._results = []

    # -- inputs -------------------------------------------------------------------

    def bind_cpu_input(self, name, arr_on_cpu):
        self._inputs[name] = _C.OrtValue.ortvalue_from_numpy(np.asarray(arr_on_cpu))

    def bind_input(self, name, device_type, device_id=0, element_type=None, shape=None,
                   buffer_ptr=None):
        """bind_input(name, array_or_ortvalue) or onnxruntime's
        bind_input(name, device_type, device_id, element_type, shape, buffer_ptr)."""
        if isinstance(device_type, _C.OrtValue):
            self._inputs[name] = device_type
            return
        if isinstance(device_type, np.ndarray):
            self.bind_cpu_input(name, device_type)
            return
        _check_cpu(device_type, device_id, "bind_input('%s')" % name)
        if buffer_ptr is None or shape is None or element_type is None:
            raise ValueError("bind_input needs element_type, shape and buffer_ptr "
                             "(or a numpy array / OrtValue)")
        self._inputs[name] = _C.OrtValue.ortvalue_from_buffer_ptr(buffer_ptr, list(shape),
                                                                  element_type)

    def bind_ortvalue_input(self, name, ortvalue):
        self._inputs[name] = ortvalue

    def clear_binding_inputs(self):
        self._inputs = {}

    def synchronize_inputs(self):
        pass  # CPU memory: nothing is in flight

    # -- outputs ------------------------------------------------------------------

    def _bind(self, name, value):
        self._outputs = [(n, v) for n, v in self._outputs if n != name]
        self._outputs.append((name, value))

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None,
                    buffer_ptr=None):
        if str(device_type).lower() != "cpu":
            if buffer_ptr is not None:
                _check_cpu(device_type, device_id, "bind_output('%s')" % name)
            # Like a provider that is not there: the output stays on the CPU.
            warnings.warn("bind_output('%s'): device '%s' is not available in this build; "
                          "the output is kept on the CPU" % (name, device_type),
                          RuntimeWarning, stacklevel=2)
            device_type, device_id = "cpu", 0
        _check_cpu(device_type, device_id, "bind_output('%s')" % name)
        value = None
        if buffer_ptr is not None:
            if element_type is None or shape is None:
                raise ValueError("bind_output with buffer_ptr needs element_type and shape")
            value = _C.OrtValue.ortvalue_from_buffer_ptr(buffer_ptr, list(shape), element_type)
        self._bind(name, value)

    def bind_ortvalue_output(self, name, ortvalue):
        self._bind(name, ortvalue)

    def clear_binding_outputs(self):
        self._outputs = []
        self._results = []

    def synchronize_outputs(self):
        pass

    def get_outputs(self):
        """The outputs of the last run, as OrtValues, in binding order."""
        return list(self._results)

    def get_outputs_names(self):
        return [name for name, _ in self._outputs]

    def copy_outputs_to_cpu(self):
        return [np.copy(v.numpy()) if v.is_tensor() else v.to_python() for v in self._results]

    # -- the run (called by InferenceSession.run_with_iobinding) --------------------

    def _run(self, run_options):
        names = [name for name, _ in self._outputs]
        results = self._session.run_with_ort_values(names, self._inputs, run_options)
        if not names:
            names = [o.name for o in self._session.get_outputs()]
            self._outputs = [(n, None) for n in names]
        final = []
        for (name, bound), result in zip(self._outputs, results):
            if bound is None:
                final.append(result)
                continue
            if list(bound.shape()) != list(result.shape()) or \
                    bound.element_type() != result.element_type():
                raise _C.InvalidArgument(
                    "output '%s' is %s%s but the bound OrtValue is %s%s"
                    % (name, result.data_type(), result.shape(), bound.data_type(), bound.shape()))
            if result.data_type() == "tensor(string)":
                raise _C.NotImplemented("output '%s': string outputs cannot be written into a "
                                        "bound OrtValue; bind it without one" % name)
            np.copyto(bound.numpy(), result.numpy())  # both views: writes into the bound memory
            final.append(bound)
        self._results = final
