"""SessionOptions.add_free_dimension_override_by_denotation, applied here: the
native model reader does not keep dimension denotations, so the graph inputs'
denotations are read with the `onnx` package and turned into (input, dim
index, size) overrides for the native session."""

from . import _C


def dim_overrides(model_path, model_bytes, by_denotation):
    """[(input name, dimension index, size)] for every input dimension whose
    denotation has an override; [] when there are no overrides."""
    if not by_denotation:
        return []
    try:
        import onnx
    except ImportError as e:
        raise _C.NotImplemented(
            "add_free_dimension_override_by_denotation needs the 'onnx' Python package to read "
            "dimension denotations (apt install python3-onnx), or use "
            "add_free_dimension_override_by_name") from e
    if model_bytes is not None:
        model = onnx.load_from_string(model_bytes)
    else:
        model = onnx.load(model_path, load_external_data=False)
    overrides = []
    for graph_input in model.graph.input:
        if not graph_input.type.HasField("tensor_type"):
            continue
        for index, dim in enumerate(graph_input.type.tensor_type.shape.dim):
            if dim.denotation in by_denotation:
                overrides.append((graph_input.name, index, by_denotation[dim.denotation]))
    return overrides
