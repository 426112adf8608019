"""Which session an OrtValue or IO binding belongs to, and the graph-capture
run option, with onnxruntime's names and messages.

A value made by InferenceSession.create_ortvalue_from_shape_and_type carries
the native session that made it (`_session`); every other value carries None
and goes with any session. A value of one session is refused by another (a
session re-created by set_providers is another), except a WebGPU buffer whose
WebGPU context is the same in both: onnxruntime shares those across sessions.
Tessera has no WebGPU provider, so its own values are never WebGPU buffers and
its sessions report context -1 (none); the rule still takes values and
sessions that say otherwise (subclasses), as onnxruntime's does."""

# The value of the run config entry "gpu_graph_id" that runs without capture.
_GRAPH_ANNOTATION_SKIP = -1


def _graph_annotation_id(run_options):
    """The graph a run captures or replays: the run option "gpu_graph_id" as an
    integer, 0 when there are no run options or they lack the entry."""
    if run_options is None:
        return 0
    try:
        text = run_options.get_run_config_entry("gpu_graph_id")
    except RuntimeError:  # the entry is not set
        return 0
    try:
        return int(text)
    except ValueError:
        raise ValueError("Run config entry 'gpu_graph_id' must be an integer, got '%s'."
                         % text) from None


def _is_webgpu(value):
    # A property on the Python OrtValue, a method on the native one.
    flag = getattr(value, "_is_webgpu_buffer", False)
    return bool(flag() if callable(flag) else flag)


def _context_id(session):
    getter = getattr(session, "webgpu_context_id", None)
    return getter() if getter is not None else -1


def _has_foreign_webgpu_context(values, context_id_getter):
    """Whether any WebGPU value among `values` belongs to a session of a WebGPU
    context other than the default one (0); an unknown context (-1) is not foreign."""
    for value in values:
        session = getattr(value, "_session", None)
        if _is_webgpu(value) and session is not None and context_id_getter(session) > 0:
            return True
    return False


def _belongs_to(value, session):
    """Whether `value` may be used with the native session `session`."""
    owner = getattr(value, "_session", None)
    if owner is None or owner is session:
        return True
    if not _is_webgpu(value):
        return False
    context = _context_id(owner)
    return context >= 0 and context == _context_id(session)


def check_used_with(values, session):
    """Raises ValueError when a value of another session is fed to `session`."""
    for value in values:
        if not _belongs_to(value, session):
            raise ValueError("An OrtValue allocated by a session must be used with the session "
                             "that created it.")


def check_bound_to(value, session):
    """Raises ValueError when a value of another session is bound to a binding of `session`."""
    if not _belongs_to(value, session):
        raise ValueError("An OrtValue allocated by a session must be bound to the session that "
                         "created it.")


def check_same_origin(destination, source):
    """update_inplace(source): a destination that belongs to a session takes
    only values that may be used with that session."""
    owner = getattr(destination, "_session", None)
    if owner is None or _belongs_to(source, owner):
        return
    raise ValueError("The source OrtValue of update_inplace must originate from the same session "
                     "as the destination.")
