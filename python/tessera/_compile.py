"""ModelCompiler: onnxruntime's ahead-of-time compile API. A compiled model
holds EPContext nodes of the providers that compiled parts of it; Tessera's
providers compile nothing ahead of time, so the compiled model is the input
model at the compiler's graph optimization level (the session's saved
optimized model), with its initializers placed as the options ask."""

import copy
import enum
import os
import tempfile

from . import _C


class ModelRequiresCompilation(_C.TesseraError):
    """onnxruntime's error for a session that must compile a model but may
    not (session.disable_model_compile). Tessera's providers never need to
    compile ahead of time, so Tessera does not raise it; it exists for
    programs that catch it."""


class OrtCompileApiFlags(enum.IntFlag):
    NONE = 0
    ERROR_IF_NO_NODES_COMPILED = 1
    ERROR_IF_OUTPUT_FILE_EXISTS = 2


class OrtExternalInitializerInfo:
    """Where an initializer's data lies in an external file: filepath,
    file_offset and byte_size."""

    def __init__(self, filepath, file_offset, byte_size):
        self._filepath = os.fspath(filepath)
        self._file_offset = int(file_offset)
        self._byte_size = int(byte_size)

    @property
    def filepath(self):
        return self._filepath

    @property
    def file_offset(self):
        return self._file_offset

    @property
    def byte_size(self):
        return self._byte_size

    def __repr__(self):
        return "OrtExternalInitializerInfo(%r, %d, %d)" % (
            self._filepath, self._file_offset, self._byte_size)


_NOTHING_COMPILED = ("Unable to compile any nodes. Check that the session EPs support compilation "
                     "and can execute at least one subgraph in the model.")


class ModelCompiler:
    """ModelCompiler(sess_options, input_model_path_or_bytes, ...), then
    compile_to_file(path), compile_to_bytes() or compile_to_stream(write)."""

    def __init__(self, sess_options, input_model_path_or_bytes,
                 embed_compiled_data_into_model=False, external_initializers_file_path=None,
                 external_initializers_size_threshold=1024, flags=OrtCompileApiFlags.NONE,
                 graph_optimization_level=_C.GraphOptimizationLevel.ORT_DISABLE_ALL,
                 get_initializer_location_func=None):
        if isinstance(input_model_path_or_bytes, (str, os.PathLike)):
            if not os.fspath(input_model_path_or_bytes):
                raise ValueError("Input model path is empty")
            self._input = os.fspath(input_model_path_or_bytes)
        elif isinstance(input_model_path_or_bytes, (bytes, bytearray, memoryview)):
            if len(input_model_path_or_bytes) == 0:
                raise ValueError("Input model bytes array is empty")
            self._input = bytes(input_model_path_or_bytes)
        else:
            raise TypeError("Unable to load from type '%s'" % type(input_model_path_or_bytes))
        if external_initializers_file_path is not None and not isinstance(
                external_initializers_file_path, (str, os.PathLike)):
            raise TypeError("Output external initializer filepath is of unexpected type '%s'"
                            % type(external_initializers_file_path))
        if get_initializer_location_func is not None and external_initializers_file_path:
            raise ValueError("Cannot initialize ModelCompiler with both "
                             "`external_initializers_file_path` and `get_initializer_location_func`")
        self._options = copy.copy(sess_options if sess_options is not None
                                  else _C.SessionOptions())
        self._options.graph_optimization_level = graph_optimization_level
        self._external_file = os.fspath(external_initializers_file_path or "")
        self._threshold = int(external_initializers_size_threshold)
        self._flags = OrtCompileApiFlags(int(flags))
        self._location_func = get_initializer_location_func
        # Nothing is compiled into EPContext nodes here, so there is no
        # compiled data to embed or to write beside the model.
        self._embed = bool(embed_compiled_data_into_model)

    # -- outputs --------------------------------------------------------------------

    def compile_to_file(self, output_model_path=None):
        if output_model_path is None:
            if not isinstance(self._input, str):
                raise _C.InvalidArgument("compile_to_file needs an output path when the input "
                                         "model is bytes")
            output_model_path = os.path.splitext(self._input)[0] + "_ctx.onnx"
        elif not isinstance(output_model_path, (str, os.PathLike)):
            raise TypeError("Output model's filepath is of unexpected type '%s'"
                            % type(output_model_path))
        path = os.fspath(output_model_path)
        if self._flags & OrtCompileApiFlags.ERROR_IF_OUTPUT_FILE_EXISTS and os.path.exists(path):
            raise _C.Fail("Failed to generate EP context model since the file '%s' exists already. "
                          "Please remove the EP context model if you want to re-generate it." % path)
        self._compile(path)

    def compile_to_bytes(self):
        with tempfile.TemporaryDirectory(prefix="tessera_compile_") as folder:
            path = os.path.join(folder, "compiled.onnx")
            self._compile(path, in_memory=True)
            with open(path, "rb") as f:
                return f.read()

    def compile_to_stream(self, write_function):
        """Hands the compiled model's bytes to write_function(buffer); an
        exception it raises becomes a Fail carrying its message."""
        data = self.compile_to_bytes()
        try:
            write_function(data)
        except Exception as e:  # noqa: BLE001 - reported as onnxruntime does
            raise _C.Fail("the output stream's write function raised %s: %s"
                          % (type(e).__name__, e)) from e

    # -- the work -------------------------------------------------------------------

    def _compile(self, path, in_memory=False):
        if self._flags & OrtCompileApiFlags.ERROR_IF_NO_NODES_COMPILED:
            raise _C.Fail(_NOTHING_COMPILED)
        if in_memory and self._external_file:
            raise _C.InvalidArgument("external_initializers_file_path needs compile_to_file: a "
                                     "model compiled to bytes or a stream has no folder for it")
        from ._session import InferenceSession  # noqa: PLC0415 - _session imports this package

        options = copy.copy(self._options)
        options.optimized_model_filepath = os.path.abspath(path)
        if self._external_file:
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_file_name", self._external_file)
            options.add_session_config_entry(
                "session.optimized_model_external_initializers_min_size_in_bytes",
                str(self._threshold))
        InferenceSession(self._input, options)
        if self._location_func is not None:
            self._place_initializers(path)

    def _place_initializers(self, path):
        """Asks get_initializer_location_func where each initializer of the
        written model goes: an OrtExternalInitializerInfo makes it refer to
        that file, None keeps its data in the model."""
        try:
            import onnx  # noqa: PLC0415
            from onnx import numpy_helper  # noqa: PLC0415
        except ImportError:
            raise _C.NotImplemented("get_initializer_location_func needs the onnx Python "
                                    "package (python3-onnx)") from None
        original = self._original_external_infos(onnx)
        model = onnx.load(path)
        out_dir = os.path.dirname(os.path.abspath(path))
        for tensor in model.graph.initializer:
            value = _C.OrtValue.ortvalue_from_numpy(numpy_helper.to_array(tensor).copy())
            info = self._location_func(tensor.name, value, original.get(tensor.name))
            if info is None:
                continue
            if not isinstance(info, OrtExternalInitializerInfo):
                raise _C.InvalidArgument(
                    "get_initializer_location_func returned %s for '%s'; expected an "
                    "OrtExternalInitializerInfo or None" % (type(info).__name__, tensor.name))
            location = info.filepath
            if os.path.isabs(location):
                location = os.path.relpath(location, out_dir)
            tensor.ClearField("raw_data")
            for field in ("float_data", "int32_data", "int64_data", "double_data",
                          "uint64_data", "string_data"):
                tensor.ClearField(field)
            del tensor.external_data[:]
            tensor.data_location = onnx.TensorProto.EXTERNAL
            for key, val in (("location", location), ("offset", str(info.file_offset)),
                             ("length", str(info.byte_size))):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, val
        onnx.save(model, path)

    def _original_external_infos(self, onnx):
        """The input model's externally stored initializers: name -> info
        (file paths absolute, from the input model's folder)."""
        if not isinstance(self._input, str):
            return {}
        model = onnx.load(self._input, load_external_data=False)
        base = os.path.dirname(os.path.abspath(self._input))
        infos = {}
        for tensor in model.graph.initializer:
            if tensor.data_location != onnx.TensorProto.EXTERNAL:
                continue
            fields = {e.key: e.value for e in tensor.external_data}
            infos[tensor.name] = OrtExternalInitializerInfo(
                os.path.join(base, fields.get("location", "")), int(fields.get("offset", 0)),
                int(fields.get("length", 0)))
        return infos
