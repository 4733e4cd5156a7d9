// backends/hip/blaslt.hpp: internal to the hip backend: what its two hipBLASLt users
// (gemm.cpp's GemmRunner, row_gemm.cpp's RowGemm) share: the status names, the named
// failure of a hipBLASLt call (C3_HIPBLAS), the data types, the workspace size, and the
// "unsupported" failure of a build without hipBLASLt.
#pragma once

#include <cstddef>

#include "c3/types.hpp"
#include "backends/hip/common.hpp"

#if C3_HIP_HAVE_HIPBLASLT
#include <hipblaslt/hipblaslt.h>
#endif

namespace c3::hip {

/// Throws HipFailure("unsupported") naming hipBLASLt: this build has none (C3_HIP_HIPBLASLT=OFF,
/// or HIP's NVIDIA platform), so GEMMs and pairs cannot run.
[[noreturn]] void throw_no_hipblaslt();

#if C3_HIP_HAVE_HIPBLASLT
inline constexpr std::size_t kBlasWorkspaceBytes = 64ull << 20;
/// "HIPBLAS_STATUS_..." of a status.
const char* blas_status_name(hipblasStatus_t s);
/// Out of memory -> "out_of_memory", not supported -> "unsupported", else "hipblaslt_error".
[[noreturn]] void throw_blas(hipblasStatus_t e, const char* call, const char* file, int line);
/// HIP_R_16BF or HIP_R_16F; HipFailure("unsupported") for other dtypes.
hipDataType blas_data_type(DType t);
#endif

}  // namespace c3::hip

#if C3_HIP_HAVE_HIPBLASLT
#define C3_HIPBLAS(call)                                                                         \
  do {                                                                                           \
    const hipblasStatus_t c3_e_ = (call);                                                        \
    if (c3_e_ != HIPBLAS_STATUS_SUCCESS) ::c3::hip::throw_blas(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)
#endif
