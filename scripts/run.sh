#!/usr/bin/env bash
# The main job on the embedded default data: installs what is missing, builds
# c3advisor and runs `c3advisor sweep` on the default profile (mi300x) and the
# paper's 30 scenarios. Extra arguments go to `c3advisor sweep` (e.g. --json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DC3_BUILD_TESTS=OFF -DC3_BUILD_BENCH=OFF >/dev/null
cmake --build build --target c3advisor -j"$(nproc)" >/dev/null
exec build/c3advisor sweep --profile mi300x --scenarios paper "$@"
