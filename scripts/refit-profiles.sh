#!/usr/bin/env bash
# Rewrites the measured profiles of data/profiles/ from the committed measurements (train
# files of data/splits.yaml only; calibrate refuses a test file), with the model of this
# checkout: run it after a model change that the fits depend on (docs/calibration.md).
#
#   scripts/refit-profiles.sh [C3ADVISOR]      (default: build/c3advisor)
#
# Each profile's description is the hand-written one below; everything else, provenance
# included (command, git sha, date), is what `calibrate --backend replay:...` writes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
c3=${1:-build/c3advisor}
m=data/measurements
source "$root/scripts/h200-fit-inputs.sh"
describe() {  # PROFILE TEXT: replace the description line calibrate wrote
  python3 - "$1" "$2" <<'PY'
import sys
path, text = sys.argv[1], sys.argv[2]
lines = open(path).read().split("\n")
lines = [('description: "%s"' % text) if l.startswith("description: ") else l for l in lines]
open(path, "w").write("\n".join(lines))
PY
}
"$c3" calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2 \
  --base-profile h200_sxm --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl \
  --out data/profiles/h200x2.yaml --raw /tmp/h200x2.refit.raw.json --overwrite "${h200_pairs[@]}" "${h200_unaligned[@]}" \
  "${h200_corrections[@]}" "${h200_gemm_times[@]}" "${h200_hedge_files[@]}" "${h200_dma_step[@]}"
describe data/profiles/h200x2.yaml "calibration measured on NVIDIA H200 x2 on 2026-11-22 ($m/calibration-h200x2-2026-11-22.json), refit by replaying it with calibrate --pairs (scripts/refit-profiles.sh): GEMM kernels per shape (measured on one H200), interference per collective kind (factors >= 1), the GEMM-first delay, the queued GEMM piece latency and the interference factors of decomposed schedules (per kind and transport) and the prediction error from the train split (the paper and held-out pairs of 2026-11-22, the 160 generated pairs of seed 1101 and the 48 dependent pairs of seed 2201, 2026-11-23); the unaligned GEMMs' factors from the train files' isolated GEMMs; per-group corrections of the independent strategies from the host-paced train pairs of 13 more seeds (docs/model.md §4.7); isolated GEMM times per shape from every host-paced train file measured on 2x H200 (docs/model.md §1.2); a GEMM's slowdown back to back at the power limit from the 100 GEMMs of seed 1101 timed alone and sustained ($m/sustained-gemms-s1101-h200x2-2026-11-26-run37.json); the hedge errors of the decomposed schedules per family of dependent pairs from the 21 host-paced dependent train seeds, each the median over its processes (docs/model.md, The recommendation); the queued copy-engine steps' latency and threshold chosen on 23 dependent train sets by leaving one out (scripts/loso_dma_step.py, docs/model.md §7.3); values not measured come from profile 'h200_sxm'"
"$c3" calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2-torch \
  --base-profile h200_sxm --runs 9 --warmup 6 --dma-variant torch_symm_pull \
  --collectives $m/collectives-torch-h200x2-2026-11-26-run32.json --dma-pairs $m/torch-pairs-s1101-n87-h200x2-2026-11-26-run31.json \
  --out data/profiles/h200x2-torch.yaml --raw /tmp/h200x2-torch.refit.raw.json --overwrite "${h200_pairs[@]}"
describe data/profiles/h200x2-torch.yaml "the h200x2 refit (scripts/refit-profiles.sh) with the copy engines (dma) of torch_symm_pull: their bandwidth, latency and curves from $m/collectives-torch-h200x2-2026-11-26-run32.json (measured again on the day of the pairs, one symmetric buffer); their host launch cost and interference with GEMMs per collective kind from torch_symm_pull's own pairs ($m/torch-pairs-s1101-n87-h200x2-2026-11-26-run31.json, the all_gather and all_to_all pairs of seed 1101 timed in PyTorch); unaligned chunks, the transport-wide factors and the decomposed schedules' factors measured with ce_push_batch_ovl; the sustained GEMM slowdown as h200x2's; values not measured come from profile 'h200_sxm'"
"$c3" calibrate --backend replay:$m/calibration-h100x2-2026-11-25.json --gpus 2 --name h100x2 \
  --base-profile h100_sxm --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl \
  --out data/profiles/h100x2.yaml --raw /tmp/h100x2.refit.raw.json --overwrite \
  --pairs $m/generated-s1101-n160-h100x2-2026-11-25.json --pairs $m/dependent-s2201-n48-h100x2-2026-11-25.json --fit-launch \
  --sustained $m/sustained-gemms-s1101-h100x1-2026-11-26-run40.json
describe data/profiles/h100x2.yaml "calibration measured on NVIDIA H100 80GB HBM3 x2 on 2026-11-25 ($m/calibration-h100x2-2026-11-25.json), refit by replaying it with calibrate --pairs (scripts/refit-profiles.sh) from the train split measured on the same machine (the 160 generated pairs of seed 1101 and the 48 dependent pairs of seed 2201): GEMM kernels per shape, interference per collective kind, the GEMM-first delay, the queued GEMM piece latency and interference factors of decomposed schedules and the prediction error; a GEMM's slowdown back to back at the power limit from the 101 GEMMs of seed 1101 timed alone and sustained on one H100 ($m/sustained-gemms-s1101-h100x1-2026-11-26-run40.json); values not measured come from profile 'h100_sxm'"
"$c3" calibrate --backend replay:$m/calibration-h200x4-2026-11-26.json --gpus 4 --name h200x4 \
  --base-profile h200_sxm --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl \
  --out data/profiles/h200x4.yaml --raw /tmp/h200x4.refit.raw.json --overwrite \
  --pairs $m/generated-r4-s16201-n64-h200x4-2026-11-26.json --pairs $m/dependent-r4-s16301-n24-h200x4-2026-11-26.json \
  --sustained $m/sustained-gemms-s1101-h200x2-2026-11-26-run37.json "${h200_unaligned[@]}"
describe data/profiles/h200x4.yaml "calibration measured on NVIDIA H200 x4 on 2026-11-26 ($m/calibration-h200x4-2026-11-26.json, scripts/gpu-jobs/new-node.sh), refit by replaying it with calibrate --pairs (scripts/refit-profiles.sh) from the train pairs measured at 4 ranks on the same machine (the 64 generated pairs of seed 16201 and the 24 dependent pairs of seed 16301): GEMM kernels per shape, interference per collective kind, the GEMM-first delay, the decomposed schedules' piece latency and factors and the prediction error; a GEMM's slowdown back to back at the power limit as h200x2's (the same GPU model, $m/sustained-gemms-s1101-h200x2-2026-11-26-run37.json); values not measured come from profile 'h200_sxm'"
"$c3" calibrate --backend replay:$m/calibration-h200x4-gated-repeat-2026-11-27.json --gpus 4 --name h200x4-queued \
  --base-profile h200_sxm --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl \
  --out data/profiles/h200x4-queued.yaml --raw /tmp/h200x4-queued.refit.raw.json --overwrite \
  --pairs $m/gate-r4-s16201-train-g1-h200x4-2026-11-27.json --pairs $m/generated-r4-s17701-n64-h200x4-gated-2026-11-27.json \
  --pairs $m/generated-r4-s17801-n64-h200x4-gated-2026-11-27.json --pairs $m/generated-r4-s17901-n64-h200x4-gated-2026-11-27.json \
  --pairs $m/gate-r4-dependent-s16301-train-g1-h200x4-2026-11-27.json --pairs $m/dependent-r4-s18001-n24-h200x4-gated-2026-11-27.json \
  --pairs $m/dependent-r4-s18301-n24-h200x4-gated-2026-11-27.json --pairs $m/dependent-r4-s18401-n24-h200x4-gated-2026-11-27.json \
  --chained --schedule-corrections --sustained $m/sustained-gemms-s1101-h200x2-2026-11-26-run37.json "${h200_unaligned[@]}"
describe data/profiles/h200x4-queued.yaml "queued-ahead work on NVIDIA H200 x4 (ask it with --chained): calibration measured gated on 2026-11-27 ($m/calibration-h200x4-gated-repeat-2026-11-27.json: every run queued behind a blocking kernel and released at once, the cuda option gate=1; the second gated calibration, measured in the same lease as the train pairs of seeds 17701-18001), refit by replaying it with calibrate --pairs --chained (scripts/refit-profiles.sh) from train pairs measured gated at 4 ranks on 4x H200 (the 64 generated pairs of each of seeds 16201, 17701, 17801 and 17901, and the 24 dependent pairs of each of seeds 16301, 18001, 18301 and 18401): GEMM kernels per shape, interference per collective kind, the GEMM-first delay, the decomposed schedules' piece latency, factors and per-group corrections (docs/model.md §7.5) and the prediction error, the independent pairs priced chained; a GEMM's slowdown back to back at the power limit as h200x2's; values not measured come from profile 'h200_sxm'"
echo "refit: data/profiles/h200x2.yaml, h200x2-torch.yaml, h100x2.yaml, h200x4.yaml, h200x4-queued.yaml"
