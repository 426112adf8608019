"""InferenceSession and the small records it hands out, with onnxruntime's names."""

import copy
import os
import threading

from . import _C, _denotation, _providers, _types
from ._iobinding import IOBinding


class NodeArg:
    """A graph input or output: name, type ('tensor(float)') and shape (ints for
    known dims, strings for symbolic ones, None for unknown ones)."""

    def __init__(self, name, shape, type):  # noqa: A002 - onnxruntime's name
        self.name = name
        self.shape = shape
        self.type = type

    def __str__(self):
        return "NodeArg(name=%r, type=%r, shape=%r)" % (self.name, self.type, self.shape)

    __repr__ = __str__


class ModelMetadata:
    """The model's metadata, as onnxruntime's ModelMetadata shows it."""

    def __init__(self, fields):
        self.producer_name = fields["producer_name"]
        self.producer_version = fields["producer_version"]
        self.graph_name = fields["graph_name"]
        self.graph_description = fields["graph_description"]
        self.domain = fields["domain"]
        self.description = fields["description"]
        self.version = fields["version"]
        self.custom_metadata_map = dict(fields["custom_metadata_map"])


class InferenceSession:
    """Loads a model (path or bytes) and runs it; see onnxruntime.InferenceSession."""

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None,
                 **kwargs):
        if isinstance(path_or_bytes, (str, os.PathLike)):
            self._model_path = os.fspath(path_or_bytes)
            self._model_bytes = None
        elif isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            self._model_path = None
            self._model_bytes = bytes(path_or_bytes)
        else:
            raise TypeError("Unable to load from type '%s'" % type(path_or_bytes).__name__)
        # A copy: the options the session was made with, whatever the caller changes later.
        self._sess_options = copy.copy(sess_options if sess_options is not None
                                       else _C.SessionOptions())
        self._create(providers, provider_options)

    def _create(self, providers, provider_options):
        specs = _providers.normalize(providers, provider_options)
        source = self._model_path if self._model_bytes is None else self._model_bytes
        fixed = _denotation.dim_overrides(
            self._model_path, self._model_bytes,
            self._sess_options.get_free_dimension_overrides_by_denotation())
        self._sess = _C.Session(source, self._sess_options, specs, fixed)
        self._inputs_meta = [NodeArg(*i) for i in self._sess.inputs()]
        self._outputs_meta = [NodeArg(*o) for o in self._sess.outputs()]
        self._overridable_meta = [NodeArg(*o) for o in self._sess.overridable_initializers()]
        self._feed_types = {a.name: a.type for a in self._inputs_meta + self._overridable_meta}

    # -- running --------------------------------------------------------------

    def _validate_input(self, feed_input_names):
        """onnxruntime's check: every graph input that is not optional is fed."""
        missing_input_names = [i.name for i in self._inputs_meta
                               if i.name not in feed_input_names
                               and not i.type.startswith("optional")]
        if missing_input_names:
            raise ValueError("Required inputs (%s) are missing from input feed (%s)."
                             % (missing_input_names, feed_input_names))

    def _feeds(self, input_feed):
        if not isinstance(input_feed, dict):
            raise TypeError("input_feed must be a dict of input name -> value")
        self._validate_input(list(input_feed.keys()))
        return [(name, _types.to_ortvalue(value, self._feed_types.get(name), name))
                for name, value in input_feed.items()]

    def run(self, output_names, input_feed, run_options=None):
        """Returns the outputs named (all of them when output_names is None) as
        numpy arrays (lists for sequences, dicts for maps, None for empty optionals)."""
        results = self._sess.run(self._feeds(input_feed), list(output_names or []), run_options)
        return [r.to_python() for r in results]

    def run_async(self, output_names, input_feed, callback, user_data, run_options=None):
        """Runs on a worker thread and calls callback(results, user_data, err):
        results are the outputs as run() returns them and err is '' on success;
        on failure results is empty and err holds the error's message. Feeds
        are converted (and checked) before it returns."""
        feeds = self._feeds(input_feed)
        names = list(output_names or [])

        def work():
            try:
                results = [r.to_python() for r in self._sess.run(feeds, names, run_options)]
                error = ""
            except Exception as e:  # noqa: BLE001 - handed to the callback, as onnxruntime does
                results, error = [], str(e)
            callback(results, user_data, error)

        threading.Thread(target=work, name="tessera-run-async", daemon=True).start()

    def run_with_ort_values(self, output_names, input_dict_ort_values, run_options=None):
        """Like run(), with OrtValues in and a list of OrtValues out."""
        return list(self._sess.run(self._feeds(input_dict_ort_values), list(output_names or []),
                                   run_options))

    def run_with_ortvaluevector(self, run_options, feed_names, feeds, fetch_names, fetches,
                                fetch_devices=None):
        """onnxruntime's low-overhead run: feeds (an OrtValueVector) in the
        order of feed_names; fetches (an OrtValueVector) is refilled with the
        outputs named in fetch_names. Outputs are left where the run puts them
        (fetch_devices is accepted for compatibility)."""
        if len(feed_names) != len(feeds):
            raise ValueError("feed_names has %d names but feeds has %d values"
                             % (len(feed_names), len(feeds)))
        self._validate_input(list(feed_names))
        pairs = [(name, _types.to_ortvalue(value, self._feed_types.get(name), name))
                 for name, value in zip(feed_names, feeds)]
        results = self._sess.run(pairs, list(fetch_names or []), run_options)
        fetches.clear()
        for r in results:
            fetches.push_back(r)

    def io_binding(self):
        return IOBinding(self)

    def run_with_iobinding(self, iobinding, run_options=None):
        iobinding._run(run_options)

    # -- looking at it ----------------------------------------------------------

    def get_inputs(self):
        return list(self._inputs_meta)

    def get_outputs(self):
        return list(self._outputs_meta)

    def get_overridable_initializers(self):
        return list(self._overridable_meta)

    def get_modelmeta(self):
        return ModelMetadata(self._sess.modelmeta())

    def get_session_options(self):
        return self._sess_options

    def get_providers(self):
        return self._sess.providers()

    def get_provider_options(self):
        """{provider: {option: value}} for each provider in use, defaults included."""
        return self._sess.provider_options()

    def set_providers(self, providers=None, provider_options=None):
        """Re-creates the session with other providers (same model and options);
        an unknown name raises InvalidArgument 'Unknown Provider Type: NAME'."""
        self._create(providers, provider_options)

    def get_node_assignments(self):
        """(node name, op type, domain, provider, [(declining provider, reason)]) per node."""
        return self._sess.node_assignments()

    def get_run_capture(self):
        """Captured runs (CUDA graphs, provider option enable_cuda_graph): a dict
        with 'status' ('off', 'on (<provider>)' or 'not possible: <why>') and
        the counts 'warmups', 'captures', 'replays', 'failures' and 'uncaptured'
        (runs of new shapes past the session option session.max_captured_shapes)."""
        return self._sess.run_capture()

    # -- profiling --------------------------------------------------------------

    def end_profiling(self):
        """Writes the profile and returns its path ('' when profiling is off)."""
        return self._sess.end_profiling()

    def get_profiling_start_time_ns(self):
        return self._sess.profiling_start_time_ns()

    # onnxruntime switches provider fallback; Tessera always falls back to CPU
    # unless SessionOptions says otherwise, so these only exist for scripts.
    def disable_fallback(self):
        pass

    def enable_fallback(self):
        pass
