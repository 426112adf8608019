#!/usr/bin/env bash
# One call of a GPU lease (docs/cuda.md, "A lease for the model zoo"): the
# GPU checks and the zoo (scripts/gpu_check.sh), ResNet-50 and BERT-base
# against PyTorch eager and torch.compile, a few zoo models against PyTorch,
# and ResNet-50 under each cudnn_conv_algo_search. Run on the GPU machine with
# .gpu carried (scripts/gpu_pack.sh):  bash scripts/gpu_lease.sh $OUT
# It writes check.tar.gz, check.log and compare.tar.gz into the folder given.
set -o pipefail
R=${1:?usage: gpu_lease.sh OUT_DIR}
STAGE_LIMIT_unit=100 STAGE_LIMIT_conformance=40 STAGE_LIMIT_graphs=40 STAGE_LIMIT_zoo=170 \
  bash scripts/gpu_check.sh --prebuilt --stages unit,conformance,graphs,zoo --archive $R/check.tar.gz > $R/check.log 2>&1
grep -vE "^PASS|^   lines|^\[[0-9]+/[0-9]+\].* ok" $R/check.log | tail -45
G=build-gpu/gpu_check
T=$G/tessera
export PYTHONUNBUFFERED=1
timeout 130 python3 bench/gpu_compare.py --tessera $T --out $G/cmpA --models resnet50,bert_base \
  --batches 1,32 --compile-only '*_b32_float16,*_b32_float32' --columns graph_device_io,check \
  --warmup 5 --iters 30 --budget 100 > $G/cmpA.log 2>&1; echo "cmpA rc=$?"; tail -12 $G/cmpA.log
timeout 150 python3 bench/gpu_compare.py --tessera $T --out $G/cmpB --kit .gpu/unpacked/kit \
  --zoo mobilenet_v3_small,whisper_enc,lstm_2x256,tcn_dilated,vit_s16,gpt2_seq64,conv_lstm,mixer_s16 \
  --batches 1 --dtypes float32 --compile-only '*' --columns graph_device_io,check \
  --warmup 5 --iters 30 --budget 110 > $G/cmpB.log 2>&1; echo "cmpB rc=$?"; tail -12 $G/cmpB.log
for row in resnet50_b1_float32 resnet50_b32_float32 resnet50_b32_float16; do
  m=$G/cmpA/$row/model.onnx; [ -f $m ] || continue
  for cfg in HEURISTIC EXHAUSTIVE; do
    r=$(timeout 30 $T bench $m --providers "CUDAExecutionProvider:enable_cuda_graph=1:cudnn_conv_algo_search=$cfg,CPUExecutionProvider" \
      --device-io --warmup 10 --iters 100 --json 2>/dev/null | tail -n 1)
    echo "search $row $cfg $(echo "$r" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["median_ms"], d["first_run_ms"])' 2>&1 | tail -n 1)"
  done
done | tee $G/search.txt
tar -czf $R/compare.tar.gz --exclude='*.onnx' --exclude='*.npy' --exclude='*.pb' --exclude='inputs' \
  --exclude='cpu' --exclude='cuda' -C $G cmpA cmpB cmpA.log cmpB.log search.txt 2>/dev/null
ls -la $R
