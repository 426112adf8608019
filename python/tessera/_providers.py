"""Provider lists as onnxruntime takes them: names, (name, options) tuples, or
names plus a parallel provider_options list."""

import warnings

from . import _C

# Provider names onnxruntime knows. A script asking for one this build does
# not have gets a warning and runs on the next provider in its list, as it
# would with onnxruntime on a machine without that hardware.
ONNXRUNTIME_PROVIDERS = [
    "TensorrtExecutionProvider", "CUDAExecutionProvider", "MIGraphXExecutionProvider",
    "ROCMExecutionProvider", "OpenVINOExecutionProvider", "DnnlExecutionProvider",
    "VitisAIExecutionProvider", "QNNExecutionProvider", "NnapiExecutionProvider",
    "VSINPUExecutionProvider", "JsExecutionProvider", "CoreMLExecutionProvider",
    "ArmNNExecutionProvider", "ACLExecutionProvider", "DmlExecutionProvider",
    "RknpuExecutionProvider", "WebNNExecutionProvider", "WebGpuExecutionProvider",
    "XnnpackExecutionProvider", "CANNExecutionProvider", "AzureExecutionProvider",
    "CPUExecutionProvider",
]
_KNOWN_LOWER = {name.lower() for name in ONNXRUNTIME_PROVIDERS}


def get_all_providers():
    """Every provider name: onnxruntime's list plus any this build adds."""
    names = list(ONNXRUNTIME_PROVIDERS)
    names += [n for n in _C.get_registered_providers() if n not in names]
    return names


def _option_string(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def normalize(providers, provider_options=None):
    """Returns [(name, {key: str})] for the native session."""
    if providers is None:
        if provider_options is not None:
            raise ValueError("provider_options given without providers")
        return []
    if isinstance(providers, str):
        providers = [providers]
    if provider_options is not None:
        if len(provider_options) != len(providers):
            raise ValueError("providers and provider_options must have the same length")
        if any(not isinstance(p, str) for p in providers):
            raise ValueError("with provider_options, providers must be names only")
        providers = list(zip(providers, provider_options))
    available = set(_C.get_available_providers())
    specs = []
    for entry in providers:
        if isinstance(entry, str):
            name, options = entry, {}
        elif isinstance(entry, (tuple, list)) and len(entry) == 2 and isinstance(entry[0], str):
            name, options = entry[0], dict(entry[1] or {})
        else:
            raise ValueError(
                "each provider must be a name or a (name, options dict) tuple, got %r" % (entry,))
        # Not built, or built for hardware this machine lacks (CUDA without a
        # GPU): onnxruntime warns and goes on without it. error_on_failure=1
        # asks for the runtime's error instead.
        wants_error = _option_string(options.get("error_on_failure", "0")) in ("1", "true", "True")
        if name not in available and name.lower() in _KNOWN_LOWER and not wants_error:
            warnings.warn(
                "Specified provider '%s' is not in available provider names. "
                "Available providers: '%s'" % (name, ", ".join(_C.get_available_providers())),
                RuntimeWarning, stacklevel=3)
            continue
        # Unknown names warn as onnxruntime does and go to the runtime, which
        # raises "Unknown Provider Type: NAME" listing the valid ones.
        if name not in available and name.lower() not in _KNOWN_LOWER:
            warnings.warn(
                "Specified provider '%s' is not in available provider names."
                "Available providers: '%s'" % (name, ", ".join(_C.get_available_providers())),
                RuntimeWarning, stacklevel=3)
        specs.append((name, {str(k): _option_string(v) for k, v in options.items()}))
    return specs
