"""The prepared model of the ONNX backend API (onnxruntime.backend.backend_rep)."""

from onnx.backend.base import BackendRep

from .. import _C

# RunOptions attributes run() sets from keyword arguments; terminate (and any
# other attribute) raises RuntimeError, as it would cancel the run.
ALLOWED_RUN_OPTIONS = frozenset({
    "log_severity_level", "log_verbosity_level", "logid", "only_execute_path_to_fetches"})


class OnnxRuntimeBackendRep(BackendRep):
    """Runs one InferenceSession; keyword arguments set the RunOptions
    attributes ALLOWED_RUN_OPTIONS lists."""

    def __init__(self, session):
        self._session = session

    def run(self, inputs, **kwargs):
        """inputs: a list (in the order of the model's inputs) or, for a model
        with one input, that input alone. Returns the outputs as a list."""
        from .backend import apply_options  # noqa: PLC0415 - backend imports this module

        options = _C.RunOptions()
        apply_options(options, kwargs, ALLOWED_RUN_OPTIONS, "RunOptions")
        if isinstance(inputs, list):
            feeds = {inp.name: inputs[i] for i, inp in enumerate(self._session.get_inputs())}
            return self._session.run(None, feeds, options)
        inp = self._session.get_inputs()
        if len(inp) != 1:
            raise RuntimeError(f"Model expect {len(inp)} inputs")
        return self._session.run(None, {inp[0].name: inputs}, options)
