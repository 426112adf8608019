"""DLPack exchange with torch (when Debian's python3-torch is installed): torch
tensors and OrtValues share memory in both directions. Kept apart from
test_dlpack.py so a machine without torch still runs the numpy cases."""

import numpy as np
import pytest

import tessera as ort

torch = pytest.importorskip("torch")


def test_torch_views_an_ortvalue():
    v = ort.OrtValue.ortvalue_from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = torch.from_dlpack(v)
    assert t.data_ptr() == v.data_ptr()
    assert tuple(t.shape) == (2, 3) and t.dtype == torch.float32
    t[0, 0] = 100.0
    assert v.numpy()[0, 0] == 100.0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64,
                                   torch.uint8])
def test_ortvalue_views_a_torch_tensor(dtype):
    t = (torch.arange(6) % 2).to(dtype).reshape(2, 3)
    w = ort.OrtValue.from_dlpack(t)
    assert w.data_ptr() == t.data_ptr()
    assert w.shape() == [2, 3]
    if dtype is torch.bfloat16:
        assert w.data_type() == "tensor(bfloat16)"
    else:
        np.testing.assert_array_equal(w.numpy(), t.numpy())
    t[0, 1] = 1  # written through torch, seen by the OrtValue
    if dtype is not torch.bfloat16:
        assert w.numpy()[0, 1] == 1


def test_torch_tensor_feeds_a_session_without_a_copy(session):
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    y = torch.ones(2, 3)
    b = session.io_binding()
    b.bind_ortvalue_input("x", ort.OrtValue.from_dlpack(x))
    b.bind_ortvalue_input("y", ort.OrtValue.from_dlpack(y))
    out = torch.zeros(2, 3)
    b.bind_ortvalue_output("sum", ort.OrtValue.from_dlpack(out))
    session.run_with_iobinding(b)
    torch.testing.assert_close(out, x + y)  # written straight into torch's memory


def test_non_contiguous_torch_tensor_is_a_clear_error():
    with pytest.raises(ort.InvalidArgument, match="contiguous"):
        ort.OrtValue.from_dlpack(torch.ones(3, 4).t())
