// backends/hip/blaslt.hpp: internal to the hip backend: what its two hipBLASLt users
// (gemm.cpp's GemmRunner, row_gemm.cpp's RowGemm) share (blaslt.cpp): the status names,
// the named failure of a hipBLASLt call (C3_HIPBLAS), the data types, the workspace size,
// the "TN" descriptor, the heuristic's candidates, the launch that falls back to the next
// candidate, and the "unsupported" failure of a build without hipBLASLt.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

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

/// The algorithms hipBLASLt's heuristic offers for one problem (its order, those whose
/// workspace fits kBlasWorkspaceBytes), their waves, the one launched, and the launch
/// failures of those given up ("choice N: STATUS/hipError, ...").
struct BlasCandidates {
  std::vector<hipblasLtMatmulAlgo_t> algos;
  std::vector<float> waves;
  std::size_t current = 0;
  std::string launch_errors;
};
/// Creates the descriptor of D = op(A) op(B), fp32 compute and scale, A transposed ("TN").
void blas_tn_desc(hipblasLtMatmulDesc_t* op);
/// hipBLASLt's heuristic (up to 8 results, kBlasWorkspaceBytes at most) for `op` on layouts
/// a, b and d (C = D); on success its usable results go to `out`. Returns its status.
hipblasStatus_t blas_heuristic(hipblasLtHandle_t lt, hipblasLtMatmulDesc_t op, hipblasLtMatrixLayout_t a,
                               hipblasLtMatrixLayout_t b, hipblasLtMatrixLayout_t d, BlasCandidates& out);
/// D = op(A) op(B) (C = D, beta 0) on `stream` with the current candidate. A launch
/// failure that is not sticky takes the next candidate (the cuda backend's rule); else
/// (a sticky error poisons the device) throws HipFailure("hipblaslt_error",
/// "hipblasLtMatmul failed for <what()> (<launch errors>)").
void blas_matmul(hipblasLtHandle_t lt, hipblasLtMatmulDesc_t op, const void* A, hipblasLtMatrixLayout_t a,
                 const void* B, hipblasLtMatrixLayout_t b, void* D, hipblasLtMatrixLayout_t d, void* workspace,
                 hipStream_t stream, BlasCandidates& c, const std::function<std::string()>& what);
#endif

}  // namespace c3::hip

#if C3_HIP_HAVE_HIPBLASLT
#define C3_HIPBLAS(call)                                                                         \
  do {                                                                                           \
    const hipblasStatus_t c3_e_ = (call);                                                        \
    if (c3_e_ != HIPBLAS_STATUS_SUCCESS) ::c3::hip::throw_blas(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)
#endif
