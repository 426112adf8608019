"""The prepared model of the ONNX backend API (onnxruntime.backend.backend_rep)."""

from onnx.backend.base import BackendRep

from .. import _C


class OnnxRuntimeBackendRep(BackendRep):
    """Runs one InferenceSession; keyword arguments set RunOptions attributes."""

    def __init__(self, session):
        self._session = session

    def run(self, inputs, **kwargs):
        """inputs: a list (in the order of the model's inputs) or, for a model
        with one input, that input alone. Returns the outputs as a list."""
        options = _C.RunOptions()
        for k, v in kwargs.items():
            if hasattr(options, k):
                setattr(options, k, v)
        if isinstance(inputs, list):
            feeds = {inp.name: inputs[i] for i, inp in enumerate(self._session.get_inputs())}
            return self._session.run(None, feeds, options)
        inp = self._session.get_inputs()
        if len(inp) != 1:
            raise RuntimeError(f"Model expect {len(inp)} inputs")
        return self._session.run(None, {inp[0].name: inputs}, options)
