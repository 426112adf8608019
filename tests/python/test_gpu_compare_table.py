"""The ratios of bench/gpu_compare.py's table (issue #7's acceptance table),
checked on made-up rows: no GPU is needed to get their arithmetic right."""
import os
import sys

import pytest

pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import gpu_compare  # noqa: E402


def float32_row(**kw):
    row = {"model": "resnet50", "batch": 32, "dtype": "float32", "torch_eager_ms": 6.0,
           "torch_eager_strict_ms": 12.0, "tessera_ms": 13.0, "tessera_device_io_ms": 10.0,
           "tessera_graph_device_io_ms": 9.0, "tessera_tf32_graph_device_io_ms": 4.5}
    row.update(kw)
    return gpu_compare.finish_row(row)


def test_float32_same_math_is_the_worse_of_strict_and_tf32():
    r = float32_row()
    assert r["best_device_io_over_eager"] == pytest.approx(9.0 / 6.0)  # strict vs TF32 eager
    assert r["best_device_io_over_eager_strict"] == pytest.approx(9.0 / 12.0)
    assert r["tf32_over_eager"] == pytest.approx(4.5 / 6.0)
    assert r["same_math_over_eager"] == pytest.approx(9.0 / 12.0)
    slow_tf32 = float32_row(tessera_tf32_graph_device_io_ms=7.0)
    assert slow_tf32["same_math_over_eager"] == pytest.approx(7.0 / 6.0)


def test_float32_without_both_comparisons_has_no_same_math_ratio():
    r = float32_row()
    del r["same_math_over_eager"], r["tf32_over_eager"]
    del r["tessera_tf32_graph_device_io_ms"]
    assert "same_math_over_eager" not in gpu_compare.finish_row(r)


def test_float16_same_math_is_the_best_device_io_ratio(tmp_path):
    r = gpu_compare.finish_row({"model": "bert_base", "batch": 1, "dtype": "float16",
                                "torch_eager_ms": 4.0, "tessera_ms": 2.0,
                                "tessera_device_io_ms": 1.5, "tessera_graph_device_io_ms": 1.0})
    assert r["same_math_over_eager"] == pytest.approx(0.25)
    gpu_compare.write_table(str(tmp_path), [r, float32_row()])
    lines = (tmp_path / "table.md").read_text().splitlines()
    assert "same math / eager" in lines[0]
    # Every row has as many cells as the header.
    assert {line.count("|") for line in lines} == {lines[0].count("|")}
    assert "| 0.25 | 0.25 |" in lines[2] and "| 1.50 | 0.75 |" in lines[3]
