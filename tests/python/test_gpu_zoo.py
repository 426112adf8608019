"""bench/gpu_zoo.py's comparison, partition summary and tables, and bench/gpu_compare.py's
zoo rows (batches, rows without timings), on made-up outputs, partition reports and
modules: no GPU is needed to get them right."""
import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import gpu_zoo  # noqa: E402

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def outputs(tmp_path, sub, **arrays):
    d = tmp_path / sub
    d.mkdir()
    for name, a in arrays.items():
        np.save(d / f"{name}.npy", a)
    return str(d)


def test_float32_outputs_pass_within_rtol_and_atol_and_fail_beyond(tmp_path):
    cpu = np.array([1.0, 100.0, 0.0], np.float32)
    near = outputs(tmp_path, "near", y=cpu + np.array([1e-3, 0.09, 9e-5], np.float32))
    far = outputs(tmp_path, "far", y=cpu + np.array([0.0, 0.2, 0.0], np.float32))
    ref = outputs(tmp_path, "cpu", y=cpu)
    ok, text, worst = gpu_zoo.compare_dirs(ref, near)
    assert ok, text
    assert worst["y"] == pytest.approx(0.09, rel=1e-3)
    ok, text, _ = gpu_zoo.compare_dirs(ref, far)
    assert not ok and "1 of 3 beyond rtol 1e-3, atol 1e-4" in text


def test_float16_outputs_are_measured_against_the_largest_value(tmp_path):
    cpu = np.array([0.001, 10.0], np.float16)
    ref = outputs(tmp_path, "cpu", y=cpu)
    # 0.05 off on the small element: far beyond rtol, but 5e-3 of the largest value.
    ok, text, _ = gpu_zoo.compare_dirs(ref, outputs(tmp_path, "a", y=cpu + np.float16(0.05)))
    assert ok, text
    ok, text, _ = gpu_zoo.compare_dirs(ref, outputs(tmp_path, "b", y=cpu + np.float16(0.2)))
    assert not ok and "limit 1e-2" in text


def test_integer_outputs_must_be_equal_and_shapes_only_ignores_values(tmp_path):
    ref = outputs(tmp_path, "cpu", idx=np.array([3, 1, 2], np.int64))
    other = outputs(tmp_path, "cuda", idx=np.array([3, 2, 1], np.int64))
    ok, text, _ = gpu_zoo.compare_dirs(ref, other)
    assert not ok and "2 of 3 elements differ" in text
    ok, text, _ = gpu_zoo.compare_dirs(ref, other, shapes_only=True)
    assert ok and "shapes" in text
    short = outputs(tmp_path, "short", idx=np.array([3, 1], np.int64))
    ok, text, _ = gpu_zoo.compare_dirs(ref, short, shapes_only=True)
    assert not ok and "[3]" in text and "[2]" in text


def test_missing_outputs_and_nans_in_different_places_fail(tmp_path):
    ref = outputs(tmp_path, "cpu", a=np.ones(2, np.float32), b=np.array([np.nan, 1], np.float32))
    ok, text, _ = gpu_zoo.compare_dirs(ref, outputs(tmp_path, "one", a=np.ones(2, np.float32)))
    assert not ok and "outputs differ" in text
    same_nan = outputs(tmp_path, "same", a=np.ones(2, np.float32),
                       b=np.array([np.nan, 1], np.float32))
    assert gpu_zoo.compare_dirs(ref, same_nan)[0]
    moved = outputs(tmp_path, "moved", a=np.ones(2, np.float32),
                    b=np.array([1, np.nan], np.float32))
    ok, text, _ = gpu_zoo.compare_dirs(ref, moved)
    assert not ok and "NaN" in text


def node(name, op, provider, declined=(), override=""):
    return {"name": name, "op_type": op, "provider": provider, "override": override,
            "declined": [{"provider": p, "reason": r} for p, r in declined]}


def test_partition_summary_counts_cuda_nodes_groups_cpu_reasons_and_copies():
    report = {
        "requested": [CUDA, CPU], "in_use": [CUDA, CPU],
        "nodes": [node("a", "Conv", CUDA), node("b", "Relu", CUDA),
                  node("c", "NonMaxSuppression", CPU, [(CUDA, "no kernel")]),
                  node("d", "NonMaxSuppression", CPU, [(CUDA, "no kernel")]),
                  node("e", "Gather", CPU, [(CUDA, "computes a shape from host integers")]),
                  node("f", "MatMulBias", CPU, override="made by CPU's graph transform"),
                  node("g", "Relu", CUDA + "_fused_0")],
        "copies": [{"value": "x", "from": "cpu", "to": "cuda", "at_creation": False},
                   {"value": "w", "from": "cpu", "to": "cuda", "at_creation": True},
                   {"value": "y", "from": "cuda", "to": "cpu", "at_creation": False}]}
    s = gpu_zoo.summarize_partition(report)
    assert (s["nodes_cuda"], s["nodes_total"]) == (3, 7)
    assert s["cuda_share"] == pytest.approx(3 / 7)
    assert s["cuda_in_use"]
    assert s["cpu_nodes_by_op"] == {
        "NonMaxSuppression": {"no kernel": 2},
        "Gather": {"computes a shape from host integers": 1},
        "MatMulBias": {"override: made by CPU's graph transform": 1}}
    assert (s["copies_per_run"], s["copies_at_creation"]) == (2, 1)
    assert s["copies_per_run_values"] == ["x: cpu -> cuda", "y: cuda -> cpu"]
    lines = gpu_zoo.reasons_text(s["cpu_nodes_by_op"])
    assert lines[0] == "NonMaxSuppression x2: no kernel"


def test_partition_summary_without_cuda_in_use_says_so():
    s = gpu_zoo.summarize_partition({"in_use": [CPU], "nodes": [node("a", "Conv", CPU)],
                                     "copies": []})
    assert s["nodes_cuda"] == 0 and not s["cuda_in_use"]
    assert s["cpu_nodes_by_op"] == {"Conv": {"CUDA not in use": 1}}


def test_tables_have_a_cell_per_column_on_every_line(tmp_path):
    rows = [dict(model="m1", family="make_zoo_mobile", status="ok", nodes_total=4, nodes_cuda=3,
                 cuda_share=0.75, cuda_in_use=True, copies_per_run=2, copies_at_creation=0,
                 cpu_nodes_by_op={"Shape": {"a | reason": 1}}, accuracy="within tolerance"),
            dict(model="m2", family="make_zoo2", status="generate failed", error="boom")]
    gpu_zoo.write_report(str(tmp_path), rows, ["m1", "m2"])
    lines = [ln for ln in (tmp_path / "table.md").read_text().splitlines() if ln.startswith("|")]
    assert len(lines) == 4
    assert {ln.replace("\\|", "").count("|") for ln in lines} == {8}
    assert "3/4 (75%)" in lines[2] and "generate failed: boom" in lines[3]
    assert "1 of 2 models passed" in (tmp_path / "table.md").read_text()

    zoo = tmp_path / "zoo.jsonl"
    zoo.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    timed = tmp_path / "timed.jsonl"
    timed.write_text("\n".join(json.dumps(r) for r in [
        {"model": "m1", "batch": 1, "dtype": "float32", "tessera_ms": 2.0,
         "tessera_device_io_ms": 1.5, "tessera_graph_device_io_ms": 1.0, "torch_eager_ms": 4.0,
         "accuracy_ok": True},
        {"model": "m1", "batch": 32, "dtype": "float32", "skipped": "does not take a batch"},
        {"model": "m3", "batch": 1, "dtype": "float16", "error": "RuntimeError: x"}]) + "\n")
    pytest.importorskip("torch")  # gpu_compare, whose merge the table uses, imports torch
    table = gpu_zoo.combined_table(str(zoo), [str(timed)]).splitlines()
    assert {ln.count("|") for ln in table} == {13}
    assert "| m1 | 3/4 | 2 | pass | 1 | float32 | 2.000 | 1.000 | 4.000 | — | 0.25 | pass |" \
        == table[2]
    assert "does not take a batch" in table[3] and table[3].startswith("|  |")
    assert table[4].startswith("| m2 | — | — | generate failed |")
    assert "not in the zoo run" in table[5] and "RuntimeError: x" in table[5]


def test_compare_rows_of_a_zoo_model_repeat_set_0_along_the_batch():
    torch = pytest.importorskip("torch")
    import gpu_compare

    class Net(torch.nn.Module):
        def forward(self, x, n):
            return x * 2, (x.sum(dim=0) if n.dim() == 1 else x)

    spec = {"name": "t", "build": lambda seed: Net(), "outputs": ["y", "z"],
            "sets": [lambda rs: [("x", rs.standard_normal((1, 3)).astype(np.float32)),
                                 ("n", np.array([1], np.int64))]]}
    gpu_compare.ZOO["t"] = spec
    try:
        model, feeds = gpu_compare.build_zoo("t", 1, "float32", "cpu")
        assert feeds["x"].shape == (1, 3)
        # At batch 4, output z = x.sum(0) has shape [3]: not batch-major.
        with pytest.raises(gpu_compare.NoBatch, match="output 1"):
            gpu_compare.build_zoo("t", 4, "float32", "cpu")
        spec["build"] = lambda seed: torch.nn.Identity()
        spec["sets"] = [lambda rs: [("x", rs.standard_normal((1, 3)).astype(np.float32))]]
        gpu_compare.ZOO_MODULES.clear()
        model, feeds = gpu_compare.build_zoo("t", 4, "float32", "cpu")
        assert feeds["x"].shape == (4, 3) and bool((feeds["x"] == feeds["x"][0]).all())
        spec["build"] = lambda seed: Net()
        spec["sets"] = [lambda rs: [("x", rs.standard_normal((1, 3)).astype(np.float32)),
                                    ("n", np.array(1, np.int64))]]
        gpu_compare.ZOO_MODULES.clear()
        with pytest.raises(gpu_compare.NoBatch, match="input 'n' has shape"):
            gpu_compare.build_zoo("t", 4, "float32", "cpu")
        _, feeds = gpu_compare.build_zoo("t", 1, "float16", "cpu")
        assert feeds["x"].dtype == torch.float16 and feeds["n"].dim() == 0
    finally:
        gpu_compare.ZOO.pop("t")
        gpu_compare.ZOO_MODULES.pop("t", None)


def test_steps_are_cut_at_the_deadline_and_failures_name_the_step(tmp_path):
    assert gpu_zoo.Deadline(0).timeout(5) == (5, False)
    assert gpu_zoo.Deadline(100).timeout(5) == (5, False)
    t, by_deadline = gpu_zoo.Deadline(2).timeout(5)
    assert by_deadline and 1.0 <= t <= 2
    log = str(tmp_path / "log.txt")
    row = {}
    assert not gpu_zoo.run_step(row, "cpu run", [sys.executable, "-c", "import time; "
                                                 "time.sleep(10)"], (0.5, True), log)
    assert row["status"] == "cpu run timed out" and "(the run's --deadline)" in row["error"]
    row = {}
    assert not gpu_zoo.run_step(row, "partition", [sys.executable, "-c", "import sys; "
                                                   "sys.exit('no such model')"], (30, False), log)
    assert row["status"] == "partition failed"
    assert row["error"].startswith("partition (exit 1): no such model")
    row = {}
    assert gpu_zoo.run_step(row, "cuda run", [sys.executable, "-c", "pass"], (30, False), log)
    assert "status" not in row and "cuda run" in row["step_s"]
