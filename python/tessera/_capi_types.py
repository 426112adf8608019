"""The smaller classes onnxruntime's native module exposes (OrtValueVector,
OrtDevice, OrtMemoryInfo, OrtArenaCfg, the enums, SparseTensor and the LoRA
classes), with onnxruntime's names and values. What the runtime cannot do yet
(sparse tensors in a run) raises NotImplemented naming it."""

import enum
import os

import numpy as np

from . import _C


# -- enums ----------------------------------------------------------------------


class OrtAllocatorType(enum.IntEnum):
    INVALID = -1
    ORT_DEVICE_ALLOCATOR = 0
    ORT_ARENA_ALLOCATOR = 1
    ORT_READONLY_ALLOCATOR = 2


class OrtMemType(enum.IntEnum):
    """Where an input or output lives relative to its provider (onnxruntime's values)."""

    CPU_INPUT = -2
    CPU_OUTPUT = -1
    CPU = -1
    DEFAULT = 0


class OrtSparseFormat(enum.IntEnum):
    ORT_SPARSE_UNDEFINED = 0
    ORT_SPARSE_COO = 1
    ORT_SPARSE_CSRC = 2
    ORT_SPARSE_BLOCK_SPARSE = 4


class OrtDeviceVendorId(enum.IntEnum):
    """PCI vendor ids, as OrtDevice.device_vendor_id() reports them."""

    NONE = 0x0000
    AMD = 0x1002
    NVIDIA = 0x10DE
    ARM = 0x13B5
    MICROSOFT = 0x1414
    HUAWEI = 0x19E5
    QUALCOMM = 0x5143
    INTEL = 0x8086


class OrtMemoryInfoDeviceType(enum.IntEnum):
    """The device kinds of OrtMemoryInfo.create_v2 (the C API's values)."""

    CPU = 0
    GPU = 1
    FPGA = 2
    NPU = 3


class OrtDeviceMemoryType(enum.IntEnum):
    """Device memory as a whole (DEFAULT) or its host-accessible part."""

    DEFAULT = 0
    HOST_ACCESSIBLE = 5


class OrtCompiledModelCompatibility(enum.IntEnum):
    EP_NOT_APPLICABLE = 0
    EP_SUPPORTED_OPTIMAL = 1
    EP_SUPPORTED_PREFER_RECOMPILATION = 2
    EP_UNSUPPORTED = 3


def _not_implemented(what):
    return _C.NotImplemented("%s is not implemented in Tessera yet" % what)


# -- OrtValueVector -------------------------------------------------------------


class OrtValueVector:
    """A list of OrtValues (onnxruntime's C.OrtValueVector): the feeds and
    fetches of InferenceSession.run_with_ortvaluevector."""

    def __init__(self, values=()):
        self._values = []
        for v in values:
            self.push_back(v)

    def push_back(self, value, is_bool_tensor=False):
        """Appends an OrtValue, or a DLPack capsule / __dlpack__ object (viewed, not copied)."""
        if not isinstance(value, _C.OrtValue):
            value = _C.OrtValue.from_dlpack(value, is_bool_tensor)
        self._values.append(value)

    def reserve(self, n):
        pass

    def shrink_to_fit(self):
        pass

    def clear(self):
        self._values.clear()

    def __len__(self):
        return len(self._values)

    def __getitem__(self, i):
        return self._values[i]

    def __iter__(self):
        return iter(self._values)

    def element_type_at(self, i):
        return self._values[i].element_type()

    def bool_tensor_indices(self):
        return [i for i, v in enumerate(self._values)
                if v.is_tensor() and v.data_type() == "tensor(bool)"]

    def dlpack_at(self, i):
        return self._values[i].__dlpack__()

    def to_dlpacks(self, to_tensor=None):
        capsules = [v.__dlpack__() for v in self._values]
        return capsules if to_tensor is None else [to_tensor(c) for c in capsules]

    def __repr__(self):
        return "OrtValueVector(%r)" % (self._values,)


# -- devices and memory ---------------------------------------------------------


class OrtDevice:
    """A device as onnxruntime names it: type (cpu 0, gpu 1, fpga 2, npu 3),
    memory type (default 0, host accessible 5), vendor id and device id.
    Both onnxruntime's native OrtDevice(type, mem_type, device_id[, ...]) and
    its Python wrapper (OrtDevice.make(name, device_id)) are this class."""

    _TYPES = {"cpu": 0, "gpu": 1, "cuda": 1, "dml": 1, "cann": 3, "fpga": 2, "npu": 3,
              "webgpu": 1}
    _NAMES = {0: "cpu", 1: "gpu", 2: "fpga", 3: "npu"}
    # The vendor a provider-specific device name implies.
    _VENDORS = {"cuda": OrtDeviceVendorId.NVIDIA, "dml": OrtDeviceVendorId.MICROSOFT,
                "cann": OrtDeviceVendorId.HUAWEI}

    def __init__(self, device_type, memory_type=0, vendor_id_or_device_id=0, device_id=None):
        if isinstance(device_type, OrtDevice):  # onnxruntime's wrapper takes a native device
            device_type, memory_type, vendor_id_or_device_id, device_id = (
                device_type._type, device_type._mem, device_type._vendor, device_type._id)
        if device_id is None:
            vendor_id, device_id = 0, vendor_id_or_device_id
        else:
            vendor_id = vendor_id_or_device_id
        if int(device_type) not in self._NAMES:
            raise ValueError("Unsupported device type: %r" % (device_type,))
        self._type, self._mem = int(device_type), int(memory_type)
        self._vendor, self._id = int(vendor_id), int(device_id)

    @staticmethod
    def cpu():
        return 0

    @staticmethod
    def cuda():
        return 1

    @staticmethod
    def dml():
        return 1

    @staticmethod
    def gpu():
        return 1

    @staticmethod
    def fpga():
        return 2

    @staticmethod
    def npu():
        return 3

    @staticmethod
    def cann():
        return 3

    @staticmethod
    def default_memory():
        return 0

    @staticmethod
    def host_accessible_memory():
        return 5

    @classmethod
    def make(cls, ort_device_name, device_id, vendor_id=-1):
        """A device by name ("cpu", "cuda", "gpu", ...); a negative vendor_id
        takes the vendor the name implies (NVIDIA for "cuda"), else none."""
        name = ort_device_name.lower()
        if name not in cls._TYPES:
            raise Exception("Unsupported device type: " + ort_device_name)
        if vendor_id is None or int(vendor_id) < 0:
            vendor_id = cls._VENDORS.get(name, OrtDeviceVendorId.NONE)
        return cls(cls._TYPES[name], 0, int(vendor_id), device_id)

    def _get_c_device(self):
        return self

    def device_type(self):
        return self._type

    def device_mem_type(self):
        return self._mem

    def device_vendor_id(self):
        return self._vendor

    def device_id(self):
        return self._id

    def _device_name(self):
        return self._NAMES[self._type]

    def __eq__(self, other):
        return isinstance(other, OrtDevice) and (self._type, self._mem, self._vendor, self._id) == (
            other._type, other._mem, other._vendor, other._id)

    def __hash__(self):
        return hash((self._type, self._mem, self._vendor, self._id))

    def __repr__(self):
        return "OrtDevice(device_type=%d, memory_type=%d, vendor_id=%d, device_id=%d)" % (
            self._type, self._mem, self._vendor, self._id)


class OrtMemoryInfo:
    """OrtMemoryInfo(name, alloc_type, id, mem_type), e.g. ("Cpu", ORT_ARENA_ALLOCATOR, 0, DEFAULT),
    or OrtMemoryInfo.create_v2(name, device_type, vendor_id, device_id,
    device_mem_type, alignment, alloc_type). The memory's device kind, device
    memory type and vendor are device_type, device_mem_type and device_vendor_id."""

    def __init__(self, name, alloc_type, id, mem_type):  # noqa: A002 - onnxruntime's name
        self.name = str(name)
        self.allocator_type = OrtAllocatorType(int(alloc_type))
        self.device_id = int(id)
        self.mem_type = OrtMemType(int(mem_type))
        # onnxruntime's names for host memory are "Cpu" and "CpuPinned"-style
        # variants; any other name is a device's memory.
        on_cpu = self.name.lower().startswith("cpu") or self.mem_type != OrtMemType.DEFAULT
        self.device_type = OrtMemoryInfoDeviceType.CPU if on_cpu else OrtMemoryInfoDeviceType.GPU
        self.device_mem_type = OrtDeviceMemoryType.DEFAULT
        self.device_vendor_id = 0
        self.alignment = 0

    @staticmethod
    def create_v2(name, device_type, vendor_id, device_id, mem_type, alignment, allocator_type):
        info = OrtMemoryInfo(name, allocator_type, device_id, OrtMemType.DEFAULT)
        info.device_type = OrtMemoryInfoDeviceType(int(device_type))
        info.device_mem_type = OrtDeviceMemoryType(int(mem_type))
        info.device_vendor_id = int(vendor_id)
        info.alignment = int(alignment)
        info.device = OrtDevice(int(device_type), int(mem_type), int(vendor_id), int(device_id))
        return info

    def __eq__(self, other):
        return isinstance(other, OrtMemoryInfo) and (
            self.name, self.allocator_type, self.device_id, self.mem_type) == (
            other.name, other.allocator_type, other.device_id, other.mem_type)

    def __repr__(self):
        return "OrtMemoryInfo(name=%r, id=%d, mem_type=%s, alloc_type=%s)" % (
            self.name, self.device_id, self.mem_type.name, self.allocator_type.name)


class OrtArenaCfg:
    """Arena settings: OrtArenaCfg(max_mem, arena_extend_strategy,
    initial_chunk_size_bytes, max_dead_bytes_per_chunk) or OrtArenaCfg({key: int}).
    Stored: Tessera's arena sizes itself (docs/memory.md)."""

    KEYS = ("max_mem", "arena_extend_strategy", "initial_chunk_size_bytes",
            "max_dead_bytes_per_chunk", "initial_growth_chunk_size_bytes",
            "max_power_of_two_extend_bytes")

    def __init__(self, *args):
        self.max_mem = 0
        self.arena_extend_strategy = -1
        self.initial_chunk_size_bytes = -1
        self.max_dead_bytes_per_chunk = -1
        self.initial_growth_chunk_size_bytes = -1
        self.max_power_of_two_extend_bytes = -1
        if len(args) == 1 and isinstance(args[0], dict):
            for key, value in args[0].items():
                if key not in self.KEYS:
                    raise RuntimeError("Invalid OrtArenaCfg option: " + str(key))
                setattr(self, key, int(value))
        elif len(args) == 4:
            (self.max_mem, self.arena_extend_strategy, self.initial_chunk_size_bytes,
             self.max_dead_bytes_per_chunk) = (int(a) for a in args)
        elif args:
            raise TypeError("OrtArenaCfg takes 4 integers or a dict of options")


# Tessera's DeviceType numbers NPU 2 and FPGA 3; onnxruntime the other way round.
_DEVICE_TYPE_FROM_NATIVE = {0: OrtMemoryInfoDeviceType.CPU, 1: OrtMemoryInfoDeviceType.GPU,
                            2: OrtMemoryInfoDeviceType.NPU, 3: OrtMemoryInfoDeviceType.FPGA}


def memory_info_from_native(memory):
    """An OrtMemoryInfo from the native session's (name, device type, vendor
    id, device id, memory type, alignment, allocator type); None: the host's."""
    if memory is None:
        memory = ("Cpu", 0, 0, 0, 0, 64, 1)
    name, device_type, vendor_id, device_id, mem_type, alignment, allocator = memory
    return OrtMemoryInfo.create_v2(
        name, _DEVICE_TYPE_FROM_NATIVE[device_type], vendor_id, device_id,
        OrtDeviceMemoryType.HOST_ACCESSIBLE if mem_type == 1 else OrtDeviceMemoryType.DEFAULT,
        alignment,
        OrtAllocatorType.ORT_ARENA_ALLOCATOR if allocator == 1
        else OrtAllocatorType.ORT_DEVICE_ALLOCATOR)


def create_and_register_allocator(mem_info, arena_cfg=None):
    """Registers an arena for mem_info's memory that every later session
    whose provider allocates there shares (unless the session sets
    "session.use_env_allocators" to "0"). arena_cfg (an OrtArenaCfg or None)
    gives its max_mem and arena_extend_strategy."""
    if not isinstance(mem_info, OrtMemoryInfo):
        raise TypeError("create_and_register_allocator: mem_info must be an OrtMemoryInfo, not %s"
                        % type(mem_info).__name__)
    if arena_cfg is not None and not isinstance(arena_cfg, OrtArenaCfg):
        raise TypeError("create_and_register_allocator: arena_cfg must be an OrtArenaCfg or None")
    cfg = arena_cfg or OrtArenaCfg()
    _C._create_and_register_allocator(
        int(mem_info.device_type), int(mem_info.device_vendor_id), mem_info.device_id,
        mem_info.device_mem_type == OrtDeviceMemoryType.HOST_ACCESSIBLE
        or mem_info.mem_type != OrtMemType.DEFAULT,
        int(cfg.max_mem), int(cfg.arena_extend_strategy))


class OrtEpAssignedNode:
    """A node of an OrtEpAssignedSubgraph: name, op_type and domain."""

    def __init__(self, name, op_type, domain):
        self.name = name
        self.op_type = op_type
        self.domain = domain

    def __repr__(self):
        return "OrtEpAssignedNode(name=%r, op_type=%r, domain=%r)" % (
            self.name, self.op_type, self.domain)


class OrtEpAssignedSubgraph:
    """Nodes one provider (ep_name) runs together; get_nodes() lists them."""

    def __init__(self, ep_name, nodes):
        self.ep_name = ep_name
        self._nodes = list(nodes)

    def get_nodes(self):
        return list(self._nodes)

    def __repr__(self):
        return "OrtEpAssignedSubgraph(ep_name=%r, nodes=%r)" % (self.ep_name, self._nodes)


# -- sparse tensors -------------------------------------------------------------


def _read_only(array):
    """A view of `array` that cannot be written (onnxruntime hands sparse
    tensors' buffers out read-only)."""
    view = array.view()
    view.flags.writeable = False
    return view


class _SparseView:
    def __init__(self, **arrays):
        self._arrays = arrays

    def indices(self):
        return _read_only(self._arrays["indices"])

    def inner(self):
        return _read_only(self._arrays["inner"])

    def outer(self):
        return _read_only(self._arrays["outer"])


class SparseTensor:
    """onnxruntime's SparseTensor: a dense shape, its stored values and their
    indices (COO, CSR or block sparse), on the CPU. A session takes one as a
    feed (or an OrtValue made from it) and hands outputs declared
    sparse_tensor(...) back as one."""

    def __init__(self, sparse_tensor=None):
        if not isinstance(sparse_tensor, SparseTensor):
            raise ValueError("`Provided object` needs to be of type "
                             "`onnxruntime.capi.onnxruntime_pybind11_state.SparseTensor`")
        self.__dict__.update(sparse_tensor.__dict__)

    @classmethod
    def _make(cls, fmt, dense_shape, values, **arrays):
        obj = cls.__new__(cls)
        obj._format = OrtSparseFormat(int(fmt))
        obj._dense_shape = [int(d) for d in dense_shape]
        obj._values = np.asarray(values)
        index_type = np.int32 if obj._format == OrtSparseFormat.ORT_SPARSE_BLOCK_SPARSE else np.int64
        obj._arrays = {k: np.ascontiguousarray(v, dtype=index_type) for k, v in arrays.items()}
        return obj

    @classmethod
    def _from_ortvalue(cls, ort_value):
        fmt, dense_shape, values, arrays = ort_value._sparse_parts()
        return cls._make(fmt, dense_shape, values, **arrays)

    @staticmethod
    def _check_device(ort_device):
        if ort_device is not None and ort_device.device_type() != OrtDevice.cpu():
            raise _not_implemented("a SparseTensor on a device (%s)" % ort_device._device_name())

    @classmethod
    def sparse_coo_from_numpy(cls, dense_shape, values, coo_indices, ort_device=None):
        """COO: values with their linear indices ([nnz]) or coordinates ([nnz, rank])."""
        cls._check_device(ort_device)
        values, coo_indices = np.asarray(values), np.asarray(coo_indices)
        nnz = values.shape[0] if values.ndim else 0
        if coo_indices.ndim == 1:
            ok = coo_indices.shape[0] == nnz
        else:
            ok = coo_indices.ndim == 2 and coo_indices.shape == (nnz, len(dense_shape))
        if values.ndim != 1 or not ok:
            raise _C.InvalidArgument(
                "sparse_coo_from_numpy: values must be 1-D and coo_indices [nnz] or [nnz, %d]; "
                "got values %s and indices %s" % (len(dense_shape), values.shape,
                                                   coo_indices.shape))
        st = cls._make(OrtSparseFormat.ORT_SPARSE_COO, dense_shape, values, indices=coo_indices)
        st._to_ortvalue()  # checks every index against the dense shape
        return st

    @classmethod
    def sparse_csr_from_numpy(cls, dense_shape, values, inner_indices, outer_indices,
                              ort_device=None):
        """CSR of a 2-D tensor: column indices (inner) and row starts (outer, rows + 1)."""
        cls._check_device(ort_device)
        values = np.asarray(values)
        if (len(dense_shape) != 2 or values.ndim != 1
                or len(inner_indices) != values.shape[0]
                or len(outer_indices) != int(dense_shape[0]) + 1):
            raise _C.InvalidArgument(
                "sparse_csr_from_numpy: needs a 2-D dense shape, one inner index per value and "
                "rows + 1 outer indices")
        st = cls._make(OrtSparseFormat.ORT_SPARSE_CSRC, dense_shape, values,
                       inner=inner_indices, outer=outer_indices)
        st._to_ortvalue()
        return st

    def _to_ortvalue(self):
        if self._format == OrtSparseFormat.ORT_SPARSE_CSRC:
            return _C.OrtValue._from_sparse_parts(int(self._format), self._dense_shape,
                                                  self._values, self._arrays["inner"],
                                                  self._arrays["outer"])
        return _C.OrtValue._from_sparse_parts(int(self._format), self._dense_shape, self._values,
                                              self._arrays.get("indices"))

    def _get_c_tensor(self):
        return self

    def values(self):
        return _read_only(self._values)

    def as_coo_view(self):
        if self._format != OrtSparseFormat.ORT_SPARSE_COO:
            raise _C.InvalidArgument("This sparse tensor does not contain COO format")
        return _SparseView(**self._arrays)

    def as_csrc_view(self):
        if self._format != OrtSparseFormat.ORT_SPARSE_CSRC:
            raise _C.InvalidArgument("This sparse tensor does not contain CSR(C) format")
        return _SparseView(**self._arrays)

    def as_blocksparse_view(self):
        if self._format != OrtSparseFormat.ORT_SPARSE_BLOCK_SPARSE:
            raise _C.InvalidArgument("This sparse tensor does not contain BlockSparse format")
        return _SparseView(**self._arrays)

    # The names of onnxruntime's native SparseTensor.
    get_coo_data = as_coo_view
    get_csrc_data = as_csrc_view
    get_blocksparse_data = as_blocksparse_view

    def format(self):
        return self._format

    def dense_shape(self):
        return list(self._dense_shape)

    def data_type(self):
        from ._types import type_name_of_dtype  # noqa: PLC0415 - avoids an import cycle
        return "sparse_tensor(%s)" % type_name_of_dtype(self._values.dtype)

    def device_name(self):
        return "cpu"

    def to_cuda(self, ort_device):
        raise _not_implemented("a SparseTensor on a device (%s)" % ort_device._device_name())


def _ort_value_from_sparse_tensor(sparse_tensor):
    if not isinstance(sparse_tensor, SparseTensor):
        raise TypeError("ort_value_from_sparse_tensor needs a SparseTensor, not %s"
                        % type(sparse_tensor).__name__)
    return sparse_tensor._to_ortvalue()


def _as_sparse_tensor(value):
    if not value.is_sparse_tensor():
        raise _C.InvalidArgument("as_sparse_tensor: this OrtValue holds a %s, not a sparse tensor"
                                 % value.data_type())
    return SparseTensor._from_ortvalue(value)


# onnxruntime has these on OrtValue itself; the native class takes them from here.
_C.OrtValue.ort_value_from_sparse_tensor = staticmethod(_ort_value_from_sparse_tensor)
_C.OrtValue.as_sparse_tensor = _as_sparse_tensor


# -- LoRA -----------------------------------------------------------------------

# onnxruntime's adapter file (read_adapter / export_adapter, versions,
# parameters as OrtValues) and loaded adapter (Load, create_from_file,
# create_from_array) for RunOptions.add_active_adapter, from the runtime.
AdapterFormat = _C.AdapterFormat
LoraAdapter = _C.LoraAdapter
