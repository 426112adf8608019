"""InferenceSession and the small records it hands out, with onnxruntime's names."""

import copy
import json
import os
import threading

from . import _C, _capi_types, _ownership, _providers, _types
from ._iobinding import IOBinding, SessionIOBinding
from ._ortvalue import OrtValue

# Whether set_global_thread_pool_sizes made the process's shared pools: from
# then on every session must give them its work (use_per_session_threads = False).
_global_thread_pools = False


def set_global_thread_pool_sizes(intra_op_num_threads=0, inter_op_num_threads=0):
    """Creates the process-wide intra-op and inter-op thread pools (0: one
    thread per core) that sessions with SessionOptions.use_per_session_threads
    = False share; sessions must then set it to False."""
    global _global_thread_pools
    if intra_op_num_threads < 0 or inter_op_num_threads < 0:
        raise _C.InvalidArgument("thread pool sizes must be >= 0, got intra_op %d, inter_op %d"
                                 % (intra_op_num_threads, inter_op_num_threads))
    _C._create_global_thread_pools(int(intra_op_num_threads), int(inter_op_num_threads))
    _global_thread_pools = True


def _options_for_run(options):
    """The options a session is created with, checked against the global
    thread pools when set_global_thread_pool_sizes made them."""
    if _global_thread_pools and options.use_per_session_threads:
        raise _C.RuntimeException(
            "use_per_session_threads must be false when using a global thread pool")
    return options


# onnxruntime's ORT_LOAD_CONFIG_FROM_MODEL=1: the model's metadata entry
# "ort_config" holds {"session_options": {...}}; these keys (integers) are
# applied over the caller's options, others are ignored.
_MODEL_CONFIG_KEYS = {
    "intra_op_num_threads": lambda v: _nonnegative("intra_op_num_threads", v),
    "inter_op_num_threads": lambda v: _nonnegative("inter_op_num_threads", v),
    "execution_mode": lambda v: _C.ExecutionMode(_one_of("execution_mode", v, (0, 1))),
    "graph_optimization_level": lambda v: _C.GraphOptimizationLevel(
        _one_of("graph_optimization_level", v, (0, 1, 2, 99))),
    "enable_profiling": lambda v: bool(_one_of("enable_profiling", v, (0, 1))),
}


def _nonnegative(key, value):
    if value < 0:
        raise _C.InvalidArgument("Unsupported value for %s: %d" % (key, value))
    return value


def _one_of(key, value, allowed):
    if value not in allowed:
        raise _C.InvalidArgument("Unsupported %s value in ORT config: %d" % (key, value))
    return value


def _options_from_model_config(options):
    """A function InferenceSession hands the native session when
    ORT_LOAD_CONFIG_FROM_MODEL is "1": given the model's metadata, it returns
    the options with the model's "ort_config" applied (None when there is none)."""

    def apply(metadata):
        text = metadata.get("ort_config")
        if text is None:
            return None
        try:
            config = json.loads(text)
        except ValueError as e:
            raise _C.Fail("Json stored in the `ort_config` key cannot be parsed. Error message: %s"
                          % e) from None
        settings = config.get("session_options") if isinstance(config, dict) else None
        if not settings:
            return None
        updated = copy.copy(options)
        for key, value in settings.items():
            convert = _MODEL_CONFIG_KEYS.get(key)
            if convert is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise _C.InvalidArgument("%s option in the model file must be an integer" % key)
            setattr(updated, key, convert(value))
        return updated

    return apply


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
        # graph id -> (weak reference to the IOBinding captured, its signature):
        # onnxruntime's record of captured graphs, which pins those bindings.
        self._captured_graph_bindings = {}
        self._create(providers, provider_options)

    def _create(self, providers, provider_options):
        specs = _providers.normalize(providers, provider_options)
        source = self._model_path if self._model_bytes is None else self._model_bytes
        options = _options_for_run(self._sess_options)
        from_model = None
        if os.environ.get("ORT_LOAD_CONFIG_FROM_MODEL") == "1":
            apply_model_config = _options_from_model_config(options)

            def from_model(metadata):
                # get_session_options() then shows the options the model chose.
                updated = apply_model_config(metadata)
                if updated is not None:
                    self._sess_options = updated
                return updated

        self._sess = _C.Session(source, options, specs, from_model)
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

    def _validate_ortvalue_ownership(self, values):
        """Raises ValueError when an OrtValue another session allocated is among `values`."""
        _ownership.check_used_with(values, self._sess)

    def _feeds(self, input_feed):
        if not isinstance(input_feed, dict):
            raise TypeError("input_feed must be a dict of input name -> value")
        self._validate_input(list(input_feed.keys()))
        self._validate_ortvalue_ownership(input_feed.values())
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
        return [OrtValue(v) for v in self._sess.run(self._feeds(input_dict_ort_values),
                                                     list(output_names or []), run_options)]

    def run_with_ortvaluevector(self, run_options, feed_names, feeds, fetch_names, fetches,
                                fetch_devices=None):
        """onnxruntime's low-overhead run: feeds (an OrtValueVector) in the
        order of feed_names; fetches (an OrtValueVector) is refilled with the
        outputs named in fetch_names (all outputs when it is empty). With
        fetch_devices (one OrtDevice per fetch), each output is placed on its
        device, as an IO binding's bind_output would; otherwise on the host."""
        if len(feed_names) != len(feeds):
            raise ValueError("feed_names has %d names but feeds has %d values"
                             % (len(feed_names), len(feeds)))
        self._validate_input(list(feed_names))
        self._validate_ortvalue_ownership(feeds)
        pairs = [(name, _types.to_ortvalue(value, self._feed_types.get(name), name))
                 for name, value in zip(feed_names, feeds)]
        if fetch_devices:
            names = list(fetch_names or []) or [o.name for o in self._outputs_meta]
            if len(fetch_devices) != len(names):
                raise ValueError("fetch_devices has %d devices but %d outputs are fetched"
                                 % (len(fetch_devices), len(names)))
            binding = _C.IoBinding(self._sess)
            for name, value in pairs:
                binding.bind_input(name, value)
            for name, device in zip(names, fetch_devices):
                device_type, device_id = SessionIOBinding._device(device)
                binding.bind_output_to_device(name, device_type, device_id)
            binding.run(run_options)
            results = binding.outputs()
        else:
            results = self._sess.run(pairs, list(fetch_names or []), run_options)
        fetches.clear()
        for r in results:
            fetches.push_back(r)

    def io_binding(self):
        return IOBinding(self)

    def run_with_iobinding(self, iobinding, run_options=None):
        if getattr(iobinding, "_session", self._sess) is not self._sess:
            raise ValueError("An IOBinding must be run with the session that created it.")
        iobinding._run(run_options)

    def create_ortvalue_from_shape_and_type(self, shape, element_type, device_type, device_id=0,
                                            vendor_id=-1):
        """A zero-filled OrtValue on the device, which only this session (not
        one set_providers re-creates) takes as a feed or binding."""
        value = OrtValue.ortvalue_from_shape_and_type(list(shape), element_type, device_type,
                                                      device_id, vendor_id)
        value._session = self._sess
        return value

    def release_captured_graph(self, graph_id=0):
        """Forgets the graph captured under `graph_id` (the run option
        gpu_graph_id), so its IOBinding may change again."""
        entry = self._captured_graph_bindings.pop(graph_id, None)
        if entry is not None:
            binding = entry[0]()
            if binding is not None:
                binding._pinned_graph_ids.discard(graph_id)

    def _release_captured_graphs(self):
        for graph_id in list(self._captured_graph_bindings):
            self.release_captured_graph(graph_id)

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

    def get_input_memory_infos(self):
        """Per graph input, the OrtMemoryInfo of the memory its first reader
        takes it in (the provider's; the host's for an input no node reads)."""
        where = {name: memory for name, _provider, memory in self._sess.input_locations()}
        return [_capi_types.memory_info_from_native(where.get(i.name)) for i in self._inputs_meta]

    def get_output_memory_infos(self):
        """Per graph output, the OrtMemoryInfo of the memory run() returns it
        in: the host's."""
        return [_capi_types.memory_info_from_native(None) for _ in self._outputs_meta]

    def get_input_epdevices(self):
        """Per graph input, the OrtEpDevice of the provider that first reads it
        (None where no device of the environment's list matches)."""
        devices = _C.get_ep_devices()
        where = {name: provider for name, provider, _memory in self._sess.input_locations()}
        found = []
        for i in self._inputs_meta:
            provider = where.get(i.name)
            found.append(next((d for d in devices if d.ep_name == provider), None))
        return found

    def get_providers(self):
        return self._sess.providers()

    def get_provider_options(self):
        """{provider: {option: value}} for each provider in use, defaults included."""
        return self._sess.provider_options()

    def set_providers(self, providers=None, provider_options=None):
        """Re-creates the session with other providers (same model and options);
        an unknown name raises InvalidArgument 'Unknown Provider Type: NAME'."""
        # Graphs captured by the session replaced die with it.
        self._release_captured_graphs()
        self._create(providers, provider_options)

    def get_provider_graph_assignment_info(self):
        """The parts of the graph each provider runs, when the session option
        "session.record_ep_graph_assignment_info" is "1": a list of
        OrtEpAssignedSubgraph (ep_name, get_nodes() -> OrtEpAssignedNode with
        name, op_type and domain). Tessera's providers claim nodes one by one,
        so each node is a subgraph of its own."""
        try:
            recorded = self._sess_options.get_session_config_entry(
                "session.record_ep_graph_assignment_info")
        except RuntimeError:
            recorded = None
        if recorded != "1":
            raise _C.Fail("Session configuration entry 'session.record_ep_graph_assignment_info' "
                          "must be set to \"1\" to retrieve EP graph assignment information.")
        return [_capi_types.OrtEpAssignedSubgraph(
                    provider, [_capi_types.OrtEpAssignedNode(name, op_type, domain)])
                for name, op_type, domain, provider, _declined in self._sess.node_assignments()]

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
