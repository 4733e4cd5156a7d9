#!/usr/bin/env bash
# Installs the Debian packages c3advisor needs, only those that are missing.
# Usage: scripts/deps.sh [test|sanitize]   ("test" adds GoogleTest/GMock, Google Benchmark and
# Debian's HIP 5.2 (hipcc, libamdhip64-dev: CI compiles the hip backend and its ctest cases,
# and its NVIDIA-platform build beside the cuda runner, without a GPU); "sanitize" adds those
# and clang with its sanitizer and libFuzzer runtimes)
set -euo pipefail
pkgs=(cmake ninja-build g++ libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libeigen3-dev)
if [[ "${1:-}" == "test" || "${1:-}" == "sanitize" ]]; then
  pkgs+=(libgtest-dev libgmock-dev libbenchmark-dev python3 python3-yaml)  # python3: the Python package's tests; python3-yaml: scripts/train_gemm_files.py's
  pkgs+=(hipcc libamdhip64-dev)  # the hip backend (C3_ENABLE_HIP), compiled in CI
fi
if [[ "${1:-}" == "sanitize" ]]; then
  pkgs+=(clang libclang-rt-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "c3advisor: installing missing packages: ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
