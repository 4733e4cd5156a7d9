#!/usr/bin/env bash
# Builds the GPU binaries HERE (the development machine: nvcc 13, cuBLAS and NCCL 2.28 under
# /usr/local/cuda) for the GPU machines, and puts them, with the shared libraries they need
# that the GPU machine may lack, into the ignored folder .gpu/:
#   .gpu/bin/c3_device_tests, .gpu/bin/c3advisor (if it builds), .gpu/lib/*, .gpu/BUILD_INFO
# Name ".gpu" in the device tool's `carry`, then run scripts/gpu-run.sh there.
#
#   scripts/gpu-build.sh [--carry] [--hip-nvidia] [--gz]
#     --carry  also fill .carry/ with what a build ON the GPU machine needs (headers of
#              yaml-cpp, nlohmann-json, CLI11 and the static libyaml-cpp.a, with tiny CMake
#              package files); gpu-run.sh --build uses it (name ".carry" in `carry` too).
#     --hip-nvidia  also build the hip backend for HIP's NVIDIA platform (C3_HIP_PLATFORM=nvidia,
#              headers from scripts/hip-nvidia-headers.sh in .hipnv/) into c3advisor, and
#              .gpu/bin/c3_hip_nvidia_tests (scripts/gpu-jobs/hip-nvidia.sh runs it).
#     --gz     also put c3advisor, stripped and gzipped (about 2.5 MB), with BUILD_INFO into
#              .gpz/: for a call whose tree is near the device tool's 64 MiB, carry ".gpz"
#              alone; gpu-run.sh unpacks it into .gpu/ (a --no-tests job, c3advisor only).
#
# yaml-cpp is linked statically (C3_STATIC_DEPS), libstdc++/libgcc statically, so the
# binaries need only glibc, the CUDA driver, cudart, cuBLASLt and NCCL at run time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
carry=0
hip=0
gz=0
for arg in "$@"; do
  case "$arg" in
    --carry) carry=1 ;;
    --hip-nvidia) hip=1 ;;
    --gz) gz=1 ;;
    *) echo "gpu-build: unknown argument '$arg' (--carry, --hip-nvidia, --gz)" >&2; exit 2 ;;
  esac
done
hip_args=(-DC3_ENABLE_HIP=OFF)
if [[ $hip == 1 ]]; then
  [[ -f "$root/.hipnv/SOURCE" ]] || "$root/scripts/hip-nvidia-headers.sh"
  hip_args=(-DC3_ENABLE_HIP=ON -DC3_HIP_PLATFORM=nvidia "-DC3_HIP_INCLUDE_DIRS=$root/.hipnv/include")
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DC3_ENABLE_CUDA=ON -DC3_STATIC_DEPS=ON -DC3_BUILD_TESTS=OFF -DC3_BUILD_BENCH=OFF "${hip_args[@]}" \
  "-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc" >/dev/null
ninja -C "$build" c3_device_tests
[[ $hip == 1 ]] && ninja -C "$build" c3_hip_nvidia_tests
built_cli=1
ninja -C "$build" c3advisor || { built_cli=0; echo "gpu-build: warning: c3advisor did not build; carrying the device tests only" >&2; }

rm -rf "$root/.gpu"
mkdir -p "$root/.gpu/bin" "$root/.gpu/lib"
cp "$build/backends/cuda/c3_device_tests" "$root/.gpu/bin/"
[[ $hip == 1 ]] && cp "$build/backends/hip/c3_hip_nvidia_tests" "$root/.gpu/bin/"
[[ $built_cli == 1 ]] && cp "$build/c3advisor" "$root/.gpu/bin/"

# Shared libraries: carry cudart (small; matches the headers we built with). cuBLASLt
# (hundreds of MB) and NCCL come from the GPU machine (CUDA 13 toolkit / PyTorch wheels);
# anything else that is neither glibc nor CUDA is carried too.
for bin in "$root"/.gpu/bin/*; do
  ldd "$bin" | awk '/=>/ {print $1, $3}' | while read -r name path; do
    case "$name" in
      linux-vdso*|ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libgcc_s*|libstdc++*) ;;
      libcuda.so*|libcublas*|libnccl*|libnvidia*) ;;
      *) [[ -f "$path" ]] && cp -L "$path" "$root/.gpu/lib/$name" ;;
    esac
  done
done
{
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (dirty)')"
  echo "nvcc: $(/usr/local/cuda/bin/nvcc --version | tail -1)"
  echo "nccl headers: $(grep -E '^#define NCCL_(MAJOR|MINOR|PATCH) ' /usr/local/cuda/include/nccl.h | awk '{print $3}' | paste -sd.)"
  echo "cublas headers: $(grep -E '^#define CUBLAS_VER_(MAJOR|MINOR|PATCH) ' /usr/local/cuda/include/cublas_api.h | awk '{print $3}' | paste -sd.)"
  echo "glibc: $(ldd --version | head -1)"
  [[ $hip == 1 ]] && echo "hip: NVIDIA platform, headers $(cat "$root/.hipnv/SOURCE")"
} >"$root/.gpu/BUILD_INFO"

if [[ $carry == 1 ]]; then
  c="$root/.carry"
  rm -rf "$c"
  mkdir -p "$c/include" "$c/lib" "$c/cmake"
  cp -r /usr/include/yaml-cpp /usr/include/nlohmann /usr/include/CLI "$c/include/"
  mkdir -p "$c/include/eigen3"
  cp -r /usr/include/eigen3/Eigen /usr/include/eigen3/unsupported "$c/include/eigen3/"
  cp /usr/lib/x86_64-linux-gnu/libyaml-cpp.a "$c/lib/"
  # Minimal package files: the root CMakeLists only needs these imported targets.
  cat >"$c/cmake/yaml-cpp-config.cmake" <<'EOF'
add_library(yaml-cpp STATIC IMPORTED)
set_target_properties(yaml-cpp PROPERTIES IMPORTED_LOCATION ${CMAKE_CURRENT_LIST_DIR}/../lib/libyaml-cpp.a
  INTERFACE_INCLUDE_DIRECTORIES ${CMAKE_CURRENT_LIST_DIR}/../include)
EOF
  cat >"$c/cmake/nlohmann_json-config.cmake" <<'EOF'
set(nlohmann_json_VERSION 3.11.2)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${CMAKE_CURRENT_LIST_DIR}/../include)
EOF
  echo 'set(PACKAGE_VERSION 3.11.2)
set(PACKAGE_VERSION_COMPATIBLE TRUE)' >"$c/cmake/nlohmann_json-config-version.cmake"
  cat >"$c/cmake/CLI11-config.cmake" <<'EOF'
add_library(CLI11::CLI11 INTERFACE IMPORTED)
set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${CMAKE_CURRENT_LIST_DIR}/../include)
EOF
  cat >"$c/cmake/Eigen3-config.cmake" <<'EOF'
set(Eigen3_VERSION 3.4.0)
add_library(Eigen3::Eigen INTERFACE IMPORTED)
set_target_properties(Eigen3::Eigen PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${CMAKE_CURRENT_LIST_DIR}/../include/eigen3)
EOF
  echo 'set(PACKAGE_VERSION 3.4.0)
set(PACKAGE_VERSION_COMPATIBLE TRUE)' >"$c/cmake/Eigen3-config-version.cmake"
  du -sh "$c"
fi
du -sh "$root/.gpu"
cat "$root/.gpu/BUILD_INFO"
if [[ $gz == 1 ]]; then
  [[ -x "$root/.gpu/bin/c3advisor" ]] || { echo "gpu-build: --gz: no .gpu/bin/c3advisor" >&2; exit 1; }
  mkdir -p "$root/.gpz"
  strip -o "$root/.gpz/c3advisor" "$root/.gpu/bin/c3advisor"
  gzip -9 -f "$root/.gpz/c3advisor"
  cp "$root/.gpu/BUILD_INFO" "$root/.gpz/BUILD_INFO"
  du -sh "$root/.gpz"
fi
