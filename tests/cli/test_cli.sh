#!/usr/bin/env bash
# Shell-level checks of the `tessera` command line: exit codes, the test
# runner's report format and ratchet, .npy in and out, and inspect's report.
# Usage: bash tests/cli/test_cli.sh [path/to/tessera]
set -uo pipefail
cd "$(dirname "$0")/../.."
TESSERA="$(realpath "${1:-build/tessera}")"
PY=/usr/bin/python3
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failures=0

ok() { echo "ok   $1"; }
bad() { echo "FAILED CHECK $1"; failures=$((failures + 1)); }
# expect_rc WANT DESCRIPTION -- COMMAND...   (stdout+stderr go to $WORK/out)
expect_rc() {
  local want=$1 what=$2; shift 3
  "$@" >"$WORK/out" 2>&1
  local rc=$?
  if [ "$rc" = "$want" ]; then ok "$what (exit $rc)"; else bad "$what: exit $rc, wanted $want"; sed 's/^/     | /' "$WORK/out" | head -20; fi
}
# expect_out PATTERN DESCRIPTION: grep -E on the last command's output
expect_out() {
  if grep -qE -- "$1" "$WORK/out"; then ok "$2"; else bad "$2: no line matching '$1'"; sed 's/^/     | /' "$WORK/out" | head -20; fi
}

[ -x "$TESSERA" ] || { echo "no tessera binary at $TESSERA"; exit 1; }

echo "-- usage and exit codes"
expect_rc 0 "--version" -- "$TESSERA" --version
expect_out '^tessera [0-9]+\.[0-9]+' "--version prints the version"
expect_rc 0 "help" -- "$TESSERA" help
expect_out 'usage: tessera' "help prints usage"
expect_rc 2 "no command" -- "$TESSERA"
expect_rc 2 "unknown command" -- "$TESSERA" frobnicate
expect_out "unknown command 'frobnicate'" "unknown command is named"
expect_rc 2 "unknown flag" -- "$TESSERA" test models --bogus
expect_out "unknown option '--bogus'" "unknown flag is named"
expect_rc 2 "flag without its value" -- "$TESSERA" test models --json
expect_rc 0 "inspect" -- "$TESSERA" inspect models/demo_cnn/model.onnx
expect_out '^run capture: off$' "inspect says runs are not captured without a provider asking"
expect_rc 0 "test with --repeat" -- "$TESSERA" test models/demo_cnn --repeat 3
expect_out '^1 passed, 0 failed' "--repeat runs and passes the case"
expect_rc 2 "--repeat 0" -- "$TESSERA" test models/demo_cnn --repeat 0
expect_out "--repeat needs an integer >= 1, got '0'" "--repeat 0 is refused by name"
expect_rc 2 "--repeat 101" -- "$TESSERA" test models/demo_cnn --repeat 101
expect_out "--repeat takes 1 to 100 runs" "too many repeats are refused"
expect_rc 2 "run without a model" -- "$TESSERA" run
expect_rc 2 "bad --opt-level" -- "$TESSERA" run m.onnx --opt-level turbo
expect_rc 2 "test on a missing folder" -- "$TESSERA" test "$WORK/nope"
expect_rc 2 "--config without '='" -- "$TESSERA" run models/demo_cnn/model.onnx --config spin
expect_out "--config takes KEY=VALUE, got 'spin'" "a malformed --config is named"
expect_rc 1 "--config with a bad value" -- "$TESSERA" run models/demo_cnn/model.onnx --config session.intra_op.allow_spinning=maybe
expect_out "'session.intra_op.allow_spinning' must be \"0\" or \"1\", got \"maybe\"" "the session names the bad config value"
expect_rc 0 "--config reaches the session" -- "$TESSERA" bench models/demo_cnn/model.onnx --iters 2 --warmup 0 --threads 2 --config session.intra_op.allow_spinning=0
expect_rc 0 "bench --profile" -- "$TESSERA" bench models/demo_cnn/model.onnx --iters 2 --warmup 0 --json --profile "$WORK/prof" --config session.profile_device_time=1
expect_out '"profile":"[^"]*/prof_[0-9]+\.json"' "bench --profile names the trace it wrote"
PROFILE=$(ls "$WORK"/prof_*.json 2>/dev/null | head -1)
expect_rc 0 "profile_summary.py on that trace" -- $PY bench/profile_summary.py "$PROFILE" --top 3
expect_out '^[A-Za-z]*Conv +CPUExecutionProvider +[0-9]+ +[0-9.]+ ' "the summary sums the trace's convolutions by provider"
expect_out '3 runs; ms per run over runs 2\.\.3' "the summary counts the runs and drops the first"
expect_rc 1 "a bad session.profile_device_time" -- "$TESSERA" bench models/demo_cnn/model.onnx --iters 1 --config session.profile_device_time=yes
expect_out "'session.profile_device_time' must be \"0\" or \"1\"" "the bad value is named"
expect_rc 2 "--profile without a prefix" -- "$TESSERA" bench models/demo_cnn/model.onnx --profile ""
expect_out "--profile needs a file prefix" "an empty prefix is refused"
expect_rc 1 "run on a missing model" -- "$TESSERA" run "$WORK/nope.onnx"
expect_out "nope.onnx" "missing model is named"

if ! $PY -c "import numpy, onnx" 2>/dev/null; then
  echo "python3 with numpy and onnx not found; skipping the runner checks"
  [ $failures = 0 ] && echo "all CLI checks passed" || echo "$failures CLI check(s) failed"
  exit $((failures > 0))
fi
CASES="$WORK/cases"
$PY tests/cli/make_cli_cases.py "$CASES" || { echo "could not generate the test cases"; exit 1; }
npass=$(ls -d "$CASES"/pass_* | wc -l)
nfail=$(ls -d "$CASES"/fail_* "$CASES"/error_* | wc -l)

echo "-- tessera test: report"
expect_rc 1 "a run with failures exits 1" -- "$TESSERA" test "$CASES" --json "$WORK/report.json"
expect_out '^PASS pass_float$' "tolerance rtol 1e-3"
expect_out '^PASS pass_nan_inf$' "NaN equals NaN, infinities of the same sign"
expect_out '^PASS pass_int64$' "int64 exact"
expect_out '^PASS pass_bool$' "bool exact"
expect_out '^PASS pass_two_sets$' "several data sets"
expect_out "^FAIL fail_value: .*element \[1\] expected 2\.1, got 2" "value mismatch names the element"
expect_out '^FAIL fail_inf_sign: .*expected -inf, got inf' "infinities must match in sign"
expect_out '^FAIL fail_nan: .*expected 1, got nan' "NaN against a number fails"
expect_out '^FAIL fail_int64: .*expected 8, got 7' "integers compared exactly"
expect_out '^FAIL fail_shape: .*expected shape \[1,2\], got \[2\]' "shape mismatch"
expect_out '^FAIL fail_second_set: test_data_set_1' "mismatch names the data set"
expect_out '^ERROR error_bad_model: .*model.onnx' "a broken model is an ERROR naming the file"
expect_out '^ERROR error_no_data: .*no test_data_set' "a case without data is an ERROR"
if [ -d "$CASES/pass_sequence" ]; then
  expect_out '^PASS pass_sequence$' "sequences compared element-wise"
  expect_out "^FAIL fail_sequence: .*'z'\[1\]" "sequence mismatch names the element"
fi
last=$(tail -n 1 "$WORK/out")
if [ "$last" = "$npass passed, $nfail failed" ]; then ok "last line is '$last'"; else bad "last line is '$last', wanted '$npass passed, $nfail failed'"; fi
if $PY - "$WORK/report.json" "$((npass + nfail))" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r) == int(sys.argv[2]), len(r)
for e in r:
    assert set(e) == {"name", "status", "message", "seconds"}, e
    assert e["status"] in ("PASS", "FAIL", "ERROR"), e
    assert (e["status"] == "PASS") == (e["message"] == ""), e
    assert isinstance(e["seconds"], float) and e["seconds"] >= 0, e
PYEOF
then ok "--json report is valid"; else bad "--json report"; fi

echo "-- tessera test: selection, timeout, ratchet"
expect_rc 0 "all passing cases exit 0" -- "$TESSERA" test "$CASES" --filter pass_
expect_out "^$npass passed, 0 failed$" "--filter keeps only matching cases"
expect_rc 0 "one case folder" -- "$TESSERA" test "$CASES/pass_float/"
expect_out '^PASS pass_float$' "a case given directly is named by its folder"
expect_rc 1 "timeout" -- "$TESSERA" test "$CASES/pass_float" --timeout 0.000001
expect_out '^ERROR pass_float: timed out' "a slow case is an ERROR"
expect_rc 0 "--atol 0.2 accepts a 0.1 difference" -- "$TESSERA" test "$CASES/fail_value" --atol 0.2

{
  echo "# expected failures for the CLI test"
  echo
  for d in "$CASES"/fail_* "$CASES"/error_*; do echo "$(basename "$d")   # on purpose"; done
} >"$WORK/expected.txt"
expect_rc 0 "exactly the listed cases fail" -- "$TESSERA" test "$CASES" --expected-failures "$WORK/expected.txt"
expect_out "^$npass passed, $nfail failed$" "counts still reported with a ratchet"
grep -v fail_value "$WORK/expected.txt" >"$WORK/expected_missing.txt"
expect_rc 1 "an unlisted failure" -- "$TESSERA" test "$CASES" --expected-failures "$WORK/expected_missing.txt"
expect_out '^UNEXPECTED FAILURE fail_value' "the unlisted failure is named"
{ cat "$WORK/expected.txt"; echo "pass_bool  # wrongly listed"; } >"$WORK/expected_extra.txt"
expect_rc 1 "a listed case that passes" -- "$TESSERA" test "$CASES" --expected-failures "$WORK/expected_extra.txt"
expect_out '^NEWLY PASSING pass_bool' "the newly passing case is named"
{ cat "$WORK/expected.txt"; echo "pass_bool ?  # random: may pass"; } >"$WORK/expected_maybe.txt"
expect_rc 0 "a case listed with '?' may pass" -- "$TESSERA" test "$CASES" --expected-failures "$WORK/expected_maybe.txt"
expect_out "1 listed as may-pass passed; no surprises" "the chance pass is counted, not a surprise"
{ grep -v fail_value "$WORK/expected.txt"; echo "fail_value ?  # may pass"; } >"$WORK/expected_maybe_fail.txt"
expect_rc 0 "a case listed with '?' may fail" -- "$TESSERA" test "$CASES" --expected-failures "$WORK/expected_maybe_fail.txt"
expect_rc 0 "listed cases outside --filter are ignored" -- "$TESSERA" test "$CASES" --filter pass_ --expected-failures "$WORK/expected.txt"
expect_rc 1 "missing expected-failures file" -- "$TESSERA" test "$CASES" --expected-failures "$WORK/none.txt"

echo "-- tessera run"
MODEL="$CASES/pass_float/model.onnx"
expect_rc 0 "run with .npy inputs" -- "$TESSERA" run "$MODEL" --input cond="$CASES/cond.npy" \
  --input x="$CASES/x.npy" --input y="$CASES/y.npy" --output-dir "$WORK/outputs"
expect_out "output z: float\[2\]" "output type and shape printed"
expect_out "min -2.5  max 1.5" "output summary printed"
if $PY -c "import numpy as np, sys; z = np.load(sys.argv[1]); assert z.dtype == np.float32 and z.tolist() == [1.5, -2.5], z" "$WORK/outputs/z.npy"; then
  ok "z.npy is readable by numpy and holds the output"
else
  bad "z.npy"
fi
expect_rc 0 "run with random inputs" -- "$TESSERA" run "$MODEL" --seed 3 --threads 1 --opt-level basic
expect_out "input  x: float\[2\] random" "random input of the declared type"
expect_rc 1 "input of the wrong dtype" -- "$TESSERA" run "$MODEL" --input x="$CASES/x_double.npy"
expect_out "holds double" "dtype mismatch explained"
expect_rc 1 "unknown input name" -- "$TESSERA" run "$MODEL" --input nosuch="$CASES/x.npy"
expect_out "no input named 'nosuch'" "unknown input named"
expect_rc 1 "unreadable .npy" -- "$TESSERA" run "$MODEL" --input x="$MODEL"
expect_out "not a valid .npy file" "bad .npy explained"
expect_rc 1 "unknown provider" -- "$TESSERA" run "$MODEL" --providers NoSuchExecutionProvider
expect_out "NoSuchExecutionProvider" "unknown provider named"

echo "-- .npy compatibility with numpy, every dtype"
for f in "$CASES"/npy/*.onnx; do
  dt=$(basename "$f" .onnx)
  rm -rf "$WORK/npy_out"
  if "$TESSERA" run "$f" --input cond="$CASES/cond.npy" --input x="$CASES/npy/$dt.npy" \
       --input y="$CASES/npy/$dt.npy" --output-dir "$WORK/npy_out" >"$WORK/out" 2>&1 &&
     $PY -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); assert a.dtype == b.dtype and a.shape == b.shape and (a == b).all(), (a, b)" \
       "$CASES/npy/$dt.npy" "$WORK/npy_out/z.npy" 2>>"$WORK/out"; then
    ok "$dt through numpy -> tessera -> numpy"
  else
    bad "$dt .npy round trip"; sed 's/^/     | /' "$WORK/out" | head -20
  fi
done

echo "-- tessera inspect"
expect_rc 0 "inspect" -- "$TESSERA" inspect "$MODEL"
expect_out '^inputs \(3\):' "inputs listed"
expect_out '^  x: tensor\(float\) \[2\]' "input type and shape"
expect_out '^opset imports: ai.onnx=13' "opset imports"
expect_out '^producer: cli-test' "producer"
expect_out '^  purpose: cli test' "metadata_props"
expect_out '^  If: 1' "node counts by op type"
expect_out '\[If\] -> CPUExecutionProvider' "node assignment"
expect_rc 1 "inspect a broken model" -- "$TESSERA" inspect "$CASES/error_bad_model/model.onnx"
# --shapes: each node's output shapes before a run, with the model's
# symbols and '?' for an unknown dim without one.
$PY - "$WORK/dyn.onnx" <<'PYEOF'
import sys
from onnx import helper, TensorProto
nodes = [helper.make_node("Transpose", ["x"], ["t"], name="tr", perm=[0, 2, 1]),
         helper.make_node("Softmax", ["t"], ["y"], name="sm", axis=-1)]
g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", None, 4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
open(sys.argv[1], "wb").write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
PYEOF
expect_rc 0 "inspect --shapes" -- "$TESSERA" inspect "$WORK/dyn.onnx" --shapes
expect_out '^  x: tensor\(float\) \[batch,\?,4\]' "a declared shape with a symbol and an unknown dim"
expect_out '^      out: t \[batch,4,\?\]' "a partial shape through a Transpose"
# A declared input too large for memory: run's random input fails naming it.
$PY - "$WORK/huge_input.onnx" <<'PYEOF'
import sys
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1 << 40])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
open(sys.argv[1], "wb").write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
PYEOF
expect_rc 1 "run with a random input too large for memory" -- "$TESSERA" run "$WORK/huge_input.onnx"
expect_out "error \(OutOfMemory\): random input 'x' \(declared tensor\(float\) \[1099511627776\]\)" \
  "the input that could not be made is named"
# A wide 3x3 convolution: inspect names the algorithm the optimizer chose
# (where the blocked kernels run at all: AVX-512 or AVX2).
$PY - "$WORK/wide_conv.onnx" <<'PYEOF'
import sys, numpy as np
from onnx import helper, numpy_helper, TensorProto
w = numpy_helper.from_array(np.full((32, 32, 3, 3), 0.01, np.float32), "w")
node = helper.make_node("Conv", ["x", "w"], ["y"], name="wide_conv", pads=[1, 1, 1, 1])
g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 8, 8])], [w])
open(sys.argv[1], "wb").write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
PYEOF
expect_rc 0 "inspect a wide 3x3 conv" -- "$TESSERA" inspect "$WORK/wide_conv.onnx"
if grep -q NchwcConv "$WORK/out"; then
  expect_out 'wide_conv \[com.tessera.NchwcConv, winograd_2x2\]' "inspect shows the Winograd algorithm"
  expect_rc 0 "inspect with the 4x4 tiles allowed" -- "$TESSERA" inspect "$WORK/wide_conv.onnx" --config session.winograd_4x4=1
  expect_out 'wide_conv \[com.tessera.NchwcConv, winograd_4x4\]' "session.winograd_4x4=1 picks F(4x4, 3x3)"
  expect_rc 0 "inspect with Winograd off" -- "$TESSERA" inspect "$WORK/wide_conv.onnx" --config session.disable_winograd=1
  if grep -q winograd "$WORK/out"; then bad "session.disable_winograd=1 still shows winograd"; else ok "session.disable_winograd=1 keeps the direct algorithm"; fi
fi

echo "-- provider plugins and tessera doctor"
SANDBOX="$(dirname "$TESSERA")/libtessera_sandbox_ep.so"
expect_rc 0 "doctor" -- "$TESSERA" doctor
expect_out '^  CPUExecutionProvider: available' "doctor lists the CPU provider"
expect_out 'built in: needs no library' "doctor says what the CPU provider needs"
expect_out 'vector kernels: (avx512|avx2|portable)$' "doctor names the CPU kernels' instruction set"
expect_out 'SGEMM kernel: [a-z0-9_]+' "doctor names the SGEMM kernel"
expect_rc 0 "doctor with TESSERA_CPU_ISA=portable" -- env TESSERA_CPU_ISA=portable "$TESSERA" doctor
expect_out 'vector kernels: portable' "TESSERA_CPU_ISA caps the CPU kernels"
expect_out 'SGEMM kernel: generic' "TESSERA_CPU_ISA caps the SGEMM kernel too"
expect_rc 0 "doctor with a bad TESSERA_CPU_ISA" -- env TESSERA_CPU_ISA=avx9 "$TESSERA" doctor
expect_out 'ignoring TESSERA_CPU_ISA="avx9" \(expected avx512, avx2 or portable\)' \
  "a bad TESSERA_CPU_ISA is named and ignored"
expect_rc 0 "doctor with TESSERA_HOST_HEAP=0" -- env TESSERA_HOST_HEAP=0 "$TESSERA" doctor
expect_out 'host heap for large blocks: off \(TESSERA_HOST_HEAP=0\)' "TESSERA_HOST_HEAP=0 turns the host heap off"
expect_rc 0 "doctor with a bad TESSERA_HOST_HEAP" -- env TESSERA_HOST_HEAP=off "$TESSERA" doctor
expect_out 'ignoring TESSERA_HOST_HEAP="off" \(expected 0 or 1\)' "a bad TESSERA_HOST_HEAP is named and ignored"
expect_out 'host heap for large blocks: on' "the host heap stays on after a bad TESSERA_HOST_HEAP"
if "$TESSERA" --version | grep -q '^providers:.*DnnlExecutionProvider'; then
  expect_out 'library: libdnnl, loaded from /' "doctor shows where libdnnl was loaded from"
  expect_out 'oneDNN version found: [0-9]+\.[0-9]+' "doctor shows the oneDNN version found"
  expect_out 'version required: [0-9]+\.x' "doctor shows the oneDNN version required"
fi
if "$TESSERA" --version | grep -q '^built:.*CUDAExecutionProvider'; then
  # Built with CUDA: doctor says what it found whether or not there is a GPU.
  expect_rc 0 "doctor with the CUDA provider built" -- "$TESSERA" doctor
  expect_out '^  CUDAExecutionProvider: (available|NOT available)' "doctor lists the CUDA provider"
  expect_out 'CUDA runtime [0-9]+\.[0-9]+, loaded from /.*libcudart' "doctor shows the CUDA runtime"
  expect_out 'cuDNN 9\.[0-9]+\.[0-9]+, loaded from /.*libcudnn' "doctor shows cuDNN"
  expect_out 'cuBLASLt [0-9]+\.[0-9]+\.[0-9]+, loaded from /.*libcublasLt' "doctor shows cuBLASLt"
  expect_out 'kernels built for GPU architectures: sm_[0-9]' "doctor shows the GPU architectures"
  if ! "$TESSERA" --version | grep -q '^providers:.*CUDAExecutionProvider'; then
    expect_out 'why not: no CUDA device \(cudaGetDeviceCount' "doctor says why CUDA cannot run here"
  fi
  expect_rc 0 "ops lists the CUDA kernels without a GPU" -- "$TESSERA" ops --providers CUDAExecutionProvider
  expect_out '^\| ai.onnx \| MatMul \| 1\+ \|' "ops has the CUDA MatMul"
  expect_out '^\| ai.onnx \| Det \| — \|' "ops lists an op of the schema table CUDA has no kernel for"
fi
expect_rc 0 "ops with named providers" -- "$TESSERA" ops --markdown --providers cpu
expect_out '^Generated by `tessera ops --markdown --providers cpu`' "the table says how it was made"
expect_out '^\| domain \| op \| CPUExecutionProvider \|$' "one column per named provider"
expect_rc 1 "ops with an unknown provider" -- "$TESSERA" ops --providers NopeExecutionProvider
expect_out "this build has no provider 'NopeExecutionProvider'" "ops names the unknown provider"
expect_rc 1 "doctor with a missing plugin" -- "$TESSERA" doctor --provider-library "$WORK/nope.so"
expect_out "provider library '.*nope.so' does not exist" "a missing plugin path is named"
expect_rc 1 "test with a missing plugin" -- "$TESSERA" test models --provider-library "$WORK/nope.so"
expect_out "error \(NoSuchFile\): provider library" "test names the missing plugin"
if [ -f "$SANDBOX" ]; then
  expect_rc 0 "doctor loads the sandbox plugin" -- "$TESSERA" doctor --provider-library "$SANDBOX"
  expect_out '^  SandboxExecutionProvider: available' "doctor lists the plugin's provider"
  expect_out 'device: GPU vendor 0x5a0b' "doctor lists the plugin's device"
  expect_out 'plugin ABI version 2 \(this runtime: 2\)' "doctor shows found and required ABI versions"
  expect_rc 0 "partition with the sandbox plugin" -- "$TESSERA" partition models/demo_cnn/model.onnx --provider-library "$SANDBOX"
  expect_out 'SandboxExecutionProvider\(GPU:0,vendor 0x5a0b\) -> Cpu\(CPU:0\)' "copies out of the sandbox's memory are listed"
  expect_rc 0 "partition of the transformer with the sandbox plugin" -- "$TESSERA" partition models/demo_transformer/model.onnx --provider-library "$SANDBOX"
  expect_out 'SandboxExecutionProvider' "the transformer's nodes go to the sandbox"
  expect_out 'CPUExecutionProvider' "and the rest to the CPU provider"
  # The provider author's acceptance kit: the shipped models' reference
  # outputs through the plugin (the conformance suite runs the same way in
  # scripts/test.sh when it is present).
  expect_rc 0 "test the shipped models through the sandbox plugin" -- "$TESSERA" test models/demo_cnn models/demo_transformer --provider-library "$SANDBOX"
  expect_out '^2 passed, 0 failed' "every shipped model passes through the plugin"
  # bench --device-io: the inputs go once to the sandbox's memory (its nodes
  # read them there) and the outputs stay where they are made.
  expect_rc 0 "bench --device-io through the sandbox plugin" -- "$TESSERA" bench models/demo_transformer/model.onnx --provider-library "$SANDBOX" --iters 3 --warmup 0 --device-io --json
  expect_out '"io":"device"' "bench reports device IO"
  expect_rc 0 "bench with host IO through the sandbox plugin" -- "$TESSERA" bench models/demo_cnn/model.onnx --provider-library "$SANDBOX" --iters 3 --warmup 0 --json
  expect_out '"io":"host"' "bench reports host IO by default"
  # Provider transforms: a plugin listed first that is kept from every node
  # leaves the CPU provider the plan of a CPU-only session, its fused and
  # blocked-layout ops included.
  for m in demo_cnn demo_transformer; do
    "$TESSERA" partition models/$m/model.onnx > "$WORK/alone" 2>&1
    "$TESSERA" partition models/$m/model.onnx --provider-library "$SANDBOX" \
      --place 'pattern:*=!SandboxExecutionProvider' > "$WORK/behind" 2>&1
    if diff <(awk '$3 == "CPUExecutionProvider" {print $1, $2}' "$WORK/alone") \
            <(awk '$3 == "CPUExecutionProvider" {print $1, $2}' "$WORK/behind") > /dev/null &&
       grep -qE ' (NchwcConv|SkipLayerNormalization) ' "$WORK/behind"; then
      ok "$m behind a plugin that runs nothing has the CPU-only plan"
    else
      bad "$m behind a plugin that runs nothing has another plan than CPU-only"
      diff "$WORK/alone" "$WORK/behind" | head -20
    fi
  done
else
  bad "the sandbox plugin was not built at $SANDBOX"
fi
if "$TESSERA" --version | grep -q '^providers:.*DnnlExecutionProvider'; then
  # oneDNN runs the MatMuls; the CPU provider still fuses the Add + LayerNorm
  # it runs into SkipLayerNormalization.
  expect_rc 0 "partition with oneDNN first" -- "$TESSERA" partition models/demo_transformer/model.onnx --providers DnnlExecutionProvider,CPUExecutionProvider
  expect_out ' MatMul +DnnlExecutionProvider' "oneDNN runs the MatMuls"
  expect_out ' SkipLayerNormalization +CPUExecutionProvider' "the CPU's part keeps its fusions beside oneDNN"
fi

if [ $failures = 0 ]; then echo "all CLI checks passed"; else echo "$failures CLI check(s) failed"; fi
exit $((failures > 0))
