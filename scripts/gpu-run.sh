#!/usr/bin/env bash
# Runs ON the GPU machine (in the repository root), after scripts/gpu-build.sh made .gpu/
# here and the device tool carried it:
#   1. keeps NVLink multicast off (NCCL_NVLS_ENABLE=0 and friends: the machines are shared),
#   2. finds NCCL, cuBLAS and cudart (PyTorch's wheels, then the CUDA toolkit),
#   3. records nvidia-smi, the topology and the library versions,
#   4. runs the device tests (tests/device) with their JSON under $OUT,
#   5. runs the job given as arguments (e.g. `c3advisor calibrate --backend cuda ...`),
#      with .gpu/bin first on PATH.
# Everything lands under $OUT (default ./gpu-out); more than 8 files are packed into
# $OUT/results.tgz at the end (the device tool returns at most 8).
#
#   scripts/gpu-run.sh [--build] [--tests "ARGS"] [--no-tests] [--] [JOB...]
#     --build      build on this machine (needs .carry/ from gpu-build.sh --carry), even if
#                  the carried binaries run
#     --tests ARGS arguments for c3_device_tests (e.g. "--only partition,blocking --quick")
#     --no-tests   skip the device tests
# Environment: C3_TESTS_TIMEOUT (seconds, default 330), C3_JOB_TIMEOUT (default 1200).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT"
build_here=0
run_tests=1
test_args=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build_here=1; shift ;;
    --tests) test_args="$2"; shift 2 ;;
    --no-tests) run_tests=0; shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
log() { echo "gpu-run: $*" | tee -a "$OUT/gpu-run.log" >&2; }

# ---- libraries ----
pydir() {  # folder of a Python package's lib/ (namespace packages included)
  python3 - "$1" 2>/dev/null <<'EOF'
import importlib, os, sys
try:
    m = importlib.import_module(sys.argv[1])
    base = (list(getattr(m, "__path__", [])) or [os.path.dirname(m.__file__)])[0]
    print(os.path.join(base, "lib"))
except Exception:
    pass
EOF
}
# c3advisor carried compressed (scripts/gpu-build.sh --gz, `carry: [".gpz"]`): unpacked into .gpu/.
if [[ -f "$root/.gpz/c3advisor.gz" && ! -x "$root/.gpu/bin/c3advisor" ]]; then
  mkdir -p "$root/.gpu/bin" "$root/.gpu/lib"
  gunzip -c "$root/.gpz/c3advisor.gz" >"$root/.gpu/bin/c3advisor" && chmod +x "$root/.gpu/bin/c3advisor"
  cp "$root/.gpz/BUILD_INFO" "$root/.gpu/BUILD_INFO" 2>/dev/null
  log "unpacked .gpz/c3advisor.gz into .gpu/bin"
fi
libs=("$root/.gpu/lib")
for pkg in nvidia.nccl nvidia.cublas nvidia.cuda_runtime nvidia.cu13; do
  d=$(pydir "$pkg")
  [[ -n "$d" && -d "$d" ]] && libs+=("$d")
done
libs+=(/usr/local/cuda/lib64 /usr/local/cuda/lib)
LD_LIBRARY_PATH=$(IFS=:; echo "${libs[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
nccl_root=""
d=$(pydir nvidia.nccl); [[ -n "$d" ]] && nccl_root=$(dirname "$d")

# ---- the machine ----
{
  echo "== date"; date -u
  echo "== nvidia-smi"; nvidia-smi
  echo "== topology"; nvidia-smi topo -m
  echo "== nvcc"; nvcc --version 2>&1 | tail -2
  echo "== libraries"
  for l in libnccl.so.2 libcublasLt.so.13 libcudart.so.13; do
    for dir in "${libs[@]}"; do [[ -e "$dir/$l" ]] && { echo "$l: $dir/$l"; break; }; done
  done
  python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())" 2>&1
  echo "== build info"; cat "$root/.gpu/BUILD_INFO" 2>/dev/null
  echo "== env"; env | grep -E '^(NCCL|NVSHMEM|TORCH_SYMM|CUDA)' | sort
} >"$OUT/machine.txt" 2>&1
head -40 "$OUT/machine.txt"

bin="$root/.gpu/bin"
# The carried binaries this call runs: c3advisor, and c3_device_tests unless --no-tests (so that
# a call near the device tool's 64 MiB limit may carry .gpu/bin/c3advisor alone).
needed=(c3advisor)
[[ $run_tests == 1 ]] && needed+=(c3_device_tests)
works() {
  local b
  for b in "${needed[@]}"; do [[ -x "$bin/$b" ]] && "$bin/$b" --help >/dev/null 2>&1 || { broken=$b; return 1; }; done
}
broken=""
if [[ $build_here == 1 ]] || ! works; then
  [[ $build_here == 0 ]] && { log "carried $broken does not run here:"; ldd "$bin/$broken" 2>&1 | grep -i "not found" | tee -a "$OUT/gpu-run.log"; }
  log "building on this machine (needs .carry/)"
  if [[ ! -d "$root/.carry/cmake" ]]; then
    log "no .carry/: run scripts/gpu-build.sh --carry here and carry .carry"
    exit 1
  fi
  b=/tmp/c3-build-gpu
  # With .hipnv/ carried (scripts/hip-nvidia-headers.sh), also the hip backend on HIP's
  # NVIDIA platform and c3_hip_nvidia_tests (scripts/gpu-jobs/hip-nvidia.sh runs them).
  hip=()
  [[ -d "$root/.hipnv/include" ]] &&
    hip=(-DC3_ENABLE_HIP=ON -DC3_HIP_PLATFORM=nvidia "-DC3_HIP_INCLUDE_DIRS=$root/.hipnv/include")
  cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DC3_ENABLE_CUDA=ON -DC3_STATIC_DEPS=ON "${hip[@]}" \
    -DC3_BUILD_TESTS=OFF -DC3_BUILD_BENCH=OFF -DNCCL_ROOT="$nccl_root" \
    -DCMAKE_PREFIX_PATH="$root/.carry/cmake" -Dyaml-cpp_DIR="$root/.carry/cmake" \
    -Dnlohmann_json_DIR="$root/.carry/cmake" -DCLI11_DIR="$root/.carry/cmake" -DEigen3_DIR="$root/.carry/cmake" \
    -DCMAKE_LIBRARY_PATH="$root/.carry/lib" >"$OUT/build.log" 2>&1 &&
    ninja -C "$b" c3_device_tests >>"$OUT/build.log" 2>&1 || { log "build failed"; tail -30 "$OUT/build.log"; exit 1; }
  ninja -C "$b" c3advisor >>"$OUT/build.log" 2>&1 || log "c3advisor did not build here"
  if ((${#hip[@]})); then
    ninja -C "$b" c3_hip_nvidia_tests >>"$OUT/build.log" 2>&1 || log "c3_hip_nvidia_tests did not build here"
  fi
  bin=/tmp/c3-build-gpu-bin
  mkdir -p "$bin"
  cp "$b/backends/cuda/c3_device_tests" "$bin/"
  [[ -x "$b/c3advisor" ]] && cp "$b/c3advisor" "$bin/"
  [[ -x "$b/backends/hip/c3_hip_nvidia_tests" ]] && cp "$b/backends/hip/c3_hip_nvidia_tests" "$bin/"
fi
export PATH="$bin:$PATH"

status=0
if [[ $run_tests == 1 ]]; then
  log "device tests: c3_device_tests --out $OUT/device-tests.json $test_args"
  # shellcheck disable=SC2086
  timeout --kill-after=20 "${C3_TESTS_TIMEOUT:-330}" "$bin/c3_device_tests" --out "$OUT/device-tests.json" $test_args \
    >"$OUT/device-tests.log" 2>&1
  status=$?
  log "device tests exit status $status"
  # the summary table (the full log is in $OUT/device-tests.log)
  sed -n '/^section /,$p' "$OUT/device-tests.log"
  grep -E "^(device:|  note:)" "$OUT/device-tests.log" | head -20
fi
if [[ $# -gt 0 ]]; then
  log "job: $*"
  timeout --kill-after=20 "${C3_JOB_TIMEOUT:-1200}" "$@" 2>&1 | tee "$OUT/job.log"
  js=${PIPESTATUS[0]}
  log "job exit status $js"
  [[ $js -ne 0 ]] && status=$js
fi
# The device tool brings back at most 8 files from $OUT (docs/device.md): past that, pack
# everything but this script's own logs into one archive, so that no measurement is left
# behind (on 2026-11-25 a 128-pair file was lost that way and had to be measured again).
mapfile -t outs < <(cd "$OUT" && find . -maxdepth 1 -type f ! -name gpu-run.log ! -name machine.txt ! -name results.tgz -printf '%P\n' | sort)
if (( ${#outs[@]} + 2 > 8 )); then
  log "packing ${#outs[@]} files into $OUT/results.tgz (tar xzf results.tgz)"
  (cd "$OUT" && tar czf results.tgz --remove-files "${outs[@]}")
fi
exit $status
