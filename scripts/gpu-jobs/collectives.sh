#!/usr/bin/env bash
# One session's GPU job for issues 3-5 (collective benchmark, calibration, ground truth), run through scripts/gpu-run.sh on a GPU
# machine with N GPUs; every output lands in $OUT and the small files are packed into
# $OUT/collectives-run.tgz (the device tool returns a limited number of files).
#
#   scripts/gpu-run.sh --tests "--only env,correctness" -- scripts/gpu-jobs/collectives.sh N VARIANT [STEPS]
#
# STEPS (default all): comma-separated among probe,bench,calibrate,paper,heldout. At 2 GPUs
# all of them took 277 s; at 4 or 8 GPUs split them over two device calls (one call may
# run 600 s), e.g. "probe,bench,calibrate" then "paper,heldout"; every step's file is
# rewritten after each record, and measure/bench/calibrate take --resume if cut off.
#
#   1. NCCL's own copy-engine path (nccl_ce) next to NCCL's defaults, with NCCL_DEBUG=INFO,
#      to see whether the path ran ("Init CE" lines) or NCCL fell back to its kernels;
#   2. bench-collective: NCCL and every dma variant, 4 KiB to 4 GiB, all_gather and
#      all_to_all, with busbw charts;
#   3. calibrate with VARIANT as the dma transport; 4. the paper's pairs and 5. the held-out
#      pairs at N ranks, every strategy, dma under VARIANT.
# Files are named by the GPU found (job-lib.sh: h100xN or h200xN), whose datasheet profile
# (h100_sxm, h200_sxm) calibrate and measure start from.
set -uo pipefail
n=${1:?GPU count}
variant=${2:?dma variant}
steps=${3:-probe,bench,calibrate,paper,heldout}
want() { [[ ",$steps," == *",$1,"* ]]; }
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/gpu-jobs/job-lib.sh"
gpu_tag "$n" || exit 2  # tag h100xN / h200xN, base h100_sxm / h200_sxm
out=${OUT:?}
mkdir -p "$out/run"
cd "$out/run"

if want probe; then
step "nccl_ce probe"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING c3advisor bench-collective --backend cuda:$n \
  --transports nccl,nccl_ce --sizes 64KiB,1MiB,256MiB --runs 3 --warmup 1 \
  --out nccl-ce-probe-$tag.json >nccl-ce-probe-$tag.txt 2>nccl-ce-probe-$tag.log
grep -c "Init CE" nccl-ce-probe-$tag.txt | sed 's/^/"Init CE" lines: /'
grep -E "AllGather|AlltoAll|Init CE" nccl-ce-probe-$tag.txt | head -20
fi

if want bench; then
step "bench-collective"
c3advisor bench-collective --backend cuda:$n --transports all -b 4KiB -e 4GiB \
  --out collectives-$tag.json --chart-dir charts >collectives-$tag.txt 2>collectives-$tag.log
tail -1 collectives-$tag.log
fi

if want calibrate; then
step "calibrate (dma variant $variant)"
c3advisor calibrate --backend cuda:$n --gpus $n --base-profile $base --name $tag \
  --dma-variant "$variant" --out $tag.yaml --raw calibration-$tag.json >calibrate-$tag.txt 2>calibration-$tag.log
tail -2 calibrate-$tag.txt
fi

if want paper; then
step "paper pairs"
c3advisor measure --backend cuda:$n --profile $base --scenarios paper --ranks $n \
  --rp 8,16,32,64 --dma-rp 8,16,32 --dma-variant "$variant" --out paper-$tag.json 2>paper-$tag.log | tail -1
fi

if want heldout; then
step "held-out pairs"
c3advisor measure --backend cuda:$n --profile $base --scenarios "$root/data/scenarios/heldout.yaml" --ranks $n \
  --rp 8,16,32,64 --dma-rp 8,16,32 --dma-variant "$variant" --out heldout-$tag.json 2>heldout-$tag.log | tail -1
fi
step "done"
# the four big JSON files come back as they are; everything else in one archive, with the
# device tests and the machine description that gpu-run.sh wrote before this job
for f in collectives-$tag.json calibration-$tag.json paper-$tag.json heldout-$tag.json; do
  [[ -f $f ]] && mv "$f" "$out/"
done
cp "$out"/device-tests.json "$out"/device-tests.log "$out"/machine.txt . 2>/dev/null
rm -f "$out"/device-tests.json "$out"/device-tests.log "$out"/machine.txt
cd "$out" && tar czf collectives-run.tgz run && rm -rf run
ls -la "$out"
