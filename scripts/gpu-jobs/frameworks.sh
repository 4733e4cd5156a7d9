#!/usr/bin/env bash
# The framework example (docs/frameworks.md) on N GPUs in one device call, needing only
# torch on the GPU machine: the advice is prepared here and carried in .fw/ (ignored).
#
#   1. here (libc3advisor.so built, no GPU):   scripts/gpu-jobs/frameworks.sh prepare [N [PROFILE]]
#        writes .fw/fsdp-advice.json and .fw/tp-advice.json (examples/torch_fsdp_overlap.py
#        --prepare, N ranks, default 2; PROFILE an embedded profile or a file, default h200x2;
#        h200x2-torch prices the copy engines with torch_symm_pull, what the example runs)
#   2. on the GPU machine, .fw carried:        scripts/gpu-jobs/frameworks.sh run [N]
#        with NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
#        and C3_GIT_SHA set (docs/frameworks.md, "Running it"):
#        a. the FSDP example with --check (run 1), then again in a new process without
#           --check (run 2): the run-to-run spread of the step times;
#        b. the tensor-parallel variant (--parallel tp) once.
#      Under $OUT: fsdp-run1.json, fsdp-run2.json, tp.json and frameworks-logs.tgz (every
#      log, the machine's description, the advice files read): 4 files (the device tool
#      returns at most 8). Each run has its own time limit, so that one that hangs leaves
#      the others' files; the whole job stays under 10 minutes.
set -uo pipefail
step=${1:?usage: frameworks.sh prepare [GPUS [PROFILE]] | run [GPUS]}
n=${2:-2}
profile=${3:-h200x2}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
example=examples/torch_fsdp_overlap.py

if [[ $step == prepare ]]; then
  mkdir -p .fw
  for parallel in fsdp tp; do
    PYTHONPATH=${PYTHONPATH:-build/python} python3 "$example" --prepare ".fw/$parallel-advice.json" \
      --parallel "$parallel" --ranks "$n" --profile "$profile" || exit
  done
  ls -la .fw
  exit 0
fi
[[ $step == run ]] || { echo "frameworks.sh: unknown step '$step' (prepare, run)" >&2; exit 2; }

for v in NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1; do
  if [[ "$(printenv "${v%%=*}")" != "${v#*=}" ]]; then
    echo "frameworks.sh: set $v (NVLink multicast stays off on shared machines)" >&2
    exit 2
  fi
done
for f in .fw/fsdp-advice.json .fw/tp-advice.json; do
  [[ -f $f ]] || { echo "frameworks.sh: $f missing: run 'frameworks.sh prepare $n' here and carry .fw" >&2; exit 2; }
done
out=${OUT:?set OUT to the folder that comes back}
logs=$out/logs
mkdir -p "$logs"
export PYTHONPATH=$root/python PYTHONUNBUFFERED=1
echo "C3_GIT_SHA=${C3_GIT_SHA:-unset}"

{
  date -u
  nvidia-smi
  nvidia-smi topo -m
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
} >"$logs/machine.txt" 2>&1
cp .fw/fsdp-advice.json .fw/tp-advice.json "$logs/"
for f in .fw/fsdp-advice.json .fw/tp-advice.json; do
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sys.argv[1] + ": profile " + d["profile"] + ", " + str(d["ranks"]) + " ranks")' "$f"
done

# run NAME LIMIT_S PORT ARGS...: one torchrun; its log in logs/NAME.log, its tables printed
run() {
  local name=$1 limit=$2 port=$3
  shift 3
  echo "== $(date -u +%H:%M:%S) $name"
  timeout "$limit" python3 -m torch.distributed.run --nproc-per-node "$n" --master-port "$port" \
    "$example" "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  grep -E '^(LLaMA|  )' "$logs/$name.log"
  echo "$name: exit $rc$([[ $rc == 124 ]] && echo " (over its $limit s)")"
  [[ $rc == 0 ]] || tail -5 "$logs/$name.log"
}
run fsdp-run1 210 29511 --advice-json .fw/fsdp-advice.json --out "$out/fsdp-run1.json" --check
run fsdp-run2 150 29512 --advice-json .fw/fsdp-advice.json --out "$out/fsdp-run2.json"
run tp 200 29513 --advice-json .fw/tp-advice.json --out "$out/tp.json"

echo "== $(date -u +%H:%M:%S) done"
tar czf "$out/frameworks-logs.tgz" -C "$out" logs && rm -rf "$logs"
ls -la "$out"
