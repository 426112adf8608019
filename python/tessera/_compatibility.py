"""Compiled-model and device compatibility queries, with onnxruntime's names:
what a model records for a provider (metadata "ep_compatibility_info.<EP>"),
whether a compiled model suits a set of devices, and why a provider cannot
use a hardware device."""

import enum
import os

from . import _C
from ._capi_types import OrtCompiledModelCompatibility


class OrtDeviceEpIncompatibilityReason(enum.IntFlag):
    """Bits of get_hardware_device_ep_incompatibility_details()['reasons_bitmask']."""

    NONE = 0
    DRIVER_INCOMPATIBLE = 1
    DEVICE_INCOMPATIBLE = 2
    MISSING_DEPENDENCY = 4
    UNKNOWN = 0x80000000


_COMPAT_KEY_PREFIX = "ep_compatibility_info."


def _check_ep_type(ep_type):
    if not isinstance(ep_type, str) or not ep_type:
        raise _C.InvalidArgument("ep_type must be a non-empty provider name")


def get_compatibility_info_from_model(model_path, ep_type):
    """The compatibility string the model at model_path records for ep_type
    (its metadata entry "ep_compatibility_info.<ep_type>"), or None."""
    _check_ep_type(ep_type)
    path = os.fspath(model_path)
    if not path:
        raise _C.InvalidArgument("model_path must not be empty")
    return _C._model_metadata_props(path).get(_COMPAT_KEY_PREFIX + ep_type)


def get_compatibility_info_from_model_bytes(model_data, ep_type):
    """As get_compatibility_info_from_model, for serialized model bytes."""
    _check_ep_type(ep_type)
    return _C._model_metadata_props(bytes(model_data)).get(_COMPAT_KEY_PREFIX + ep_type)


def get_model_compatibility_for_ep_devices(ep_devices, compatibility_info):
    """How well a model compiled with `compatibility_info` suits ep_devices
    (OrtEpDevices of one provider). Tessera's providers compile no models
    ahead of time, so the answer is EP_NOT_APPLICABLE."""
    if not isinstance(compatibility_info, str):
        raise TypeError("compatibility_info must be a str, not %s"
                        % type(compatibility_info).__name__)
    devices = list(ep_devices)
    if not devices:
        raise _C.InvalidArgument("ep_devices must hold at least one OrtEpDevice")
    names = {d.ep_name for d in devices}
    if len(names) != 1:
        raise _C.InvalidArgument("ep_devices must all belong to one execution provider; got %s"
                                 % ", ".join(sorted(names)))
    return OrtCompiledModelCompatibility.EP_NOT_APPLICABLE


def _same_device(a, b):
    return (a.type, a.vendor_id, a.device_id) == (b.type, b.vendor_id, b.device_id)


def get_hardware_device_ep_incompatibility_details(ep_name, hardware_device):
    """{'reasons_bitmask', 'notes', 'error_code'}: why provider ep_name cannot
    use hardware_device (bitmask 0 when it can)."""
    if not isinstance(ep_name, str) or not ep_name:
        raise _C.InvalidArgument("ep_name must be a non-empty provider name")
    if ep_name not in _C.get_registered_providers():
        raise _C.InvalidArgument("Unknown execution provider '%s'; registered: %s"
                                 % (ep_name, ", ".join(_C.get_registered_providers())))
    if any(d.ep_name == ep_name and _same_device(d.device, hardware_device)
           for d in _C.get_ep_devices()):
        return {"reasons_bitmask": 0, "notes": "", "error_code": 0}
    return {"reasons_bitmask": int(OrtDeviceEpIncompatibilityReason.DEVICE_INCOMPATIBLE),
            "notes": "%s does not run on %r" % (ep_name, hardware_device),
            "error_code": 0}
