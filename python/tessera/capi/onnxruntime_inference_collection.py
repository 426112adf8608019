"""onnxruntime.capi.onnxruntime_inference_collection: the Python classes and
check_and_normalize_provider_args, with onnxruntime's semantics and messages."""

import collections
import collections.abc
import warnings

from .._capi_types import (  # noqa: F401 - re-exported
    AdapterFormat, LoraAdapter, OrtDevice, OrtDeviceVendorId, OrtValueVector, SparseTensor)
from .._iobinding import IOBinding  # noqa: F401
from .._ortvalue import OrtValue, copy_tensors  # noqa: F401
from .._ownership import (  # noqa: F401 - onnxruntime's graph-capture helpers
    _GRAPH_ANNOTATION_SKIP, _graph_annotation_id, _has_foreign_webgpu_context)
from .._session import InferenceSession, ModelMetadata, NodeArg  # noqa: F401

Session = InferenceSession


def get_ort_device_type(device_type, device_index=0):
    return OrtDevice.make(device_type, device_index).device_type()


def check_and_normalize_provider_args(providers, provider_options, available_provider_names):
    """Validates 'providers' and 'provider_options' and returns (names, options):
    names in the order given (duplicates dropped with a warning), and for each
    a dict of string keys and values (empty when none were given). A name not
    in available_provider_names only warns."""
    if providers is None:
        return [], []

    provider_name_to_options = collections.OrderedDict()

    def set_provider_options(name, options):
        if name not in available_provider_names:
            warnings.warn(
                "Specified provider '{}' is not in available provider names."
                "Available providers: '{}'".format(name, ", ".join(available_provider_names)))

        if name in provider_name_to_options:
            warnings.warn(f"Duplicate provider '{name}' encountered, ignoring.")
            return

        normalized_options = {str(key): str(value) for key, value in options.items()}
        provider_name_to_options[name] = normalized_options

    if not isinstance(providers, collections.abc.Sequence):
        raise ValueError("'providers' should be a sequence.")

    if provider_options is not None:
        if not isinstance(provider_options, collections.abc.Sequence):
            raise ValueError("'provider_options' should be a sequence.")

        if len(providers) != len(provider_options):
            raise ValueError(
                "'providers' and 'provider_options' should be the same length if both are given.")

        if not all(isinstance(provider, str) for provider in providers):
            raise ValueError(
                "Only string values for 'providers' are supported if 'provider_options' is given.")

        if not all(isinstance(options, dict) for options in provider_options):
            raise ValueError("'provider_options' values must be dicts.")

        for name, options in zip(providers, provider_options):
            set_provider_options(name, options)

    else:
        for provider in providers:
            if isinstance(provider, str):
                set_provider_options(provider, {})
            elif (isinstance(provider, tuple) and len(provider) == 2
                  and isinstance(provider[0], str) and isinstance(provider[1], dict)):
                set_provider_options(provider[0], provider[1])
            else:
                raise ValueError(
                    "'providers' values must be either strings or (string, dict) tuples.")

    return list(provider_name_to_options.keys()), list(provider_name_to_options.values())
