#!/usr/bin/env bash
# Makes .hipnv/include: HIP's headers for its NVIDIA platform (Debian's libamdhip64-dev,
# HIP 5.2) made to compile against the CUDA 13 toolkit, for building the hip backend with
# C3_HIP_PLATFORM=nvidia (docs/device.md, "HIP's NVIDIA platform"). HIP 5.2 predates CUDA
# 13, whose cudaDeviceProp lost clockRate, memoryClockRate, computeMode,
# kernelExecTimeoutEnabled and cooperativeMultiDeviceLaunch and whose runtime lost texture
# references and multi-device cooperative launches; cudaMemAdvise/cudaMemPrefetchAsync take
# a cudaMemLocation, cuCtxCreate takes creation parameters, graph edges and capture
# dependencies take edge data. Only those wrappers are
# rewritten (none is called by c3advisor): field copies are dropped, removed calls return
# hipErrorNotSupported. Every rewrite must match exactly as often as expected, or the
# script stops. The folder is ignored by git; the device tool carries it (name ".hipnv").
#
#   scripts/hip-nvidia-headers.sh [OUT]   (default: .hipnv in the repository root)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.hipnv}
src=/usr/include/hip
if [[ ! -f $src/nvidia_detail/nvidia_hip_runtime_api.h ]]; then
  echo "hip-nvidia-headers: $src/nvidia_detail missing: apt-get install libamdhip64-dev" >&2
  exit 1
fi
version=$(dpkg-query -W -f='${Version}' libamdhip64-dev 2>/dev/null || echo unknown)
rm -rf "$out"
mkdir -p "$out/include"
cp -r "$src" "$out/include/hip"
python3 - "$out/include/hip/nvidia_detail/nvidia_hip_runtime_api.h" "$version" <<'PY'
import re, sys
path, version = sys.argv[1], sys.argv[2]
text = open(path).read()
rules = [
    # (what, regex, replacement, expected matches)
    ("cudaMemAdvise takes a cudaMemLocation",
     r"hipMemoryAdviseTocudaMemoryAdvise\(advice\), device\)\);",
     "hipMemoryAdviseTocudaMemoryAdvise(advice), cudaMemLocation{cudaMemLocationTypeDevice, device}));", 1),
    ("cudaMemPrefetchAsync takes a cudaMemLocation and flags",
     r"cudaMemPrefetchAsync\(dev_ptr, count, device, stream\)",
     "cudaMemPrefetchAsync(dev_ptr, count, cudaMemLocation{cudaMemLocationTypeDevice, device}, 0, stream)", 1),
    ("cudaDeviceProp fields removed in CUDA 13",
     r"\n[^\n]*\b(?:cdprop|p_prop|prop)(?:\.|->)(?:clockRate|memoryClockRate|computeMode|kernelExecTimeoutEnabled|"
     r"cooperativeMultiDeviceLaunch|deviceOverlap|maxTexture1DLinear|singleToDoublePrecisionPerfRatio)\b[^\n]*;",
     "\n    /* c3advisor hip-nvidia-headers.sh: field removed in CUDA 13 */", None),
    ("cudaDevAttrCooperativeMultiDeviceLaunch removed",
     r"cdattr = cudaDevAttrCooperativeMultiDeviceLaunch;", "return hipErrorNotSupported;", 1),
    ("cuCtxCreate takes creation parameters",
     r"cuCtxCreate\(ctx, flags, device\)", "cuCtxCreate(ctx, nullptr, flags, device)", 1),
    ("texture references and multi-device launches removed",
     r"return hipCUDAErrorTohipError\((?:cudaBindTexture|cudaBindTexture2D|cudaGetTextureAlignmentOffset|"
     r"cudaLaunchCooperativeKernelMultiDevice)\([^;]*\);",
     "return hipErrorNotSupported;", 6),
    ("graph edges and capture dependencies take edge data (CUDA 13)",
     r"return hipCUDAErrorTohipError\(\s*(?:cudaGraphAddDependencies|cudaGraphRemoveDependencies|cudaGraphGetEdges|"
     r"cudaGraphNodeGetDependencies|cudaGraphNodeGetDependentNodes|cudaStreamGetCaptureInfo_v2|"
     r"cudaStreamUpdateCaptureDependencies)\(.*?\)\);",
     "return hipErrorNotSupported;", 7),
    ("texture<> templates removed (texture references, CUDA 12)",
     r"template <class T, int dim, enum cudaTextureReadMode readMode>\n.*?\n}\n",
     "/* c3advisor hip-nvidia-headers.sh: texture reference template removed in CUDA 12 */\n", 7),
]
for what, pattern, replacement, expected in rules:
    text, n = re.subn(pattern, replacement, text, flags=re.S)
    if (expected is not None and n != expected) or n == 0:
        sys.exit(f"hip-nvidia-headers: '{what}': {n} matches in {path} (libamdhip64-dev {version}), "
                 f"expected {expected if expected is not None else 'some'}")
    print(f"hip-nvidia-headers: {what}: {n} rewritten", flush=True)
open(path, "w").write(text)
PY
echo "libamdhip64-dev $version, for CUDA 13" >"$out/SOURCE"
echo "hip-nvidia-headers: $out/include (HIP from libamdhip64-dev $version)"
