// backends/hip/blaslt.cpp: what the hip backend's hipBLASLt users share (blaslt.hpp).
#include "backends/hip/blaslt.hpp"

namespace c3::hip {

void throw_no_hipblaslt() {
  throw HipFailure("unsupported", std::string("this hip backend was built without hipBLASLt (C3_HIP_HIPBLASLT=OFF") +
                                      (amd_platform() ? ")" : "; hipBLASLt has no NVIDIA platform)") +
                                      ": GEMMs and pairs cannot run");
}

#if C3_HIP_HAVE_HIPBLASLT

const char* blas_status_name(hipblasStatus_t s) {
  switch (s) {
    case HIPBLAS_STATUS_SUCCESS:
      return "HIPBLAS_STATUS_SUCCESS";
    case HIPBLAS_STATUS_NOT_INITIALIZED:
      return "HIPBLAS_STATUS_NOT_INITIALIZED";
    case HIPBLAS_STATUS_ALLOC_FAILED:
      return "HIPBLAS_STATUS_ALLOC_FAILED";
    case HIPBLAS_STATUS_INVALID_VALUE:
      return "HIPBLAS_STATUS_INVALID_VALUE";
    case HIPBLAS_STATUS_MAPPING_ERROR:
      return "HIPBLAS_STATUS_MAPPING_ERROR";
    case HIPBLAS_STATUS_EXECUTION_FAILED:
      return "HIPBLAS_STATUS_EXECUTION_FAILED";
    case HIPBLAS_STATUS_INTERNAL_ERROR:
      return "HIPBLAS_STATUS_INTERNAL_ERROR";
    case HIPBLAS_STATUS_NOT_SUPPORTED:
      return "HIPBLAS_STATUS_NOT_SUPPORTED";
    case HIPBLAS_STATUS_ARCH_MISMATCH:
      return "HIPBLAS_STATUS_ARCH_MISMATCH";
    default:
      return "hipblasStatus_t (other)";
  }
}

[[noreturn]] void throw_blas(hipblasStatus_t e, const char* call, const char* file, int line) {
  const std::string detail = std::string(blas_status_name(e)) + " in " + where(call, file, line);
  if (e == HIPBLAS_STATUS_ALLOC_FAILED) throw HipFailure("out_of_memory", detail);
  if (e == HIPBLAS_STATUS_NOT_SUPPORTED) throw HipFailure("unsupported", detail);
  throw HipFailure("hipblaslt_error", detail);
}

hipDataType blas_data_type(DType t) {
  switch (t) {
    case DType::bf16:
      return HIP_R_16BF;
    case DType::fp16:
      return HIP_R_16F;
    default:
      throw HipFailure("unsupported", "the hip backend runs bf16 and fp16 GEMMs only (got " +
                                          std::string(to_string(t)) + ")");
  }
}

void blas_tn_desc(hipblasLtMatmulDesc_t* op) {
  C3_HIPBLAS(hipblasLtMatmulDescCreate(op, HIPBLAS_COMPUTE_32F, HIP_R_32F));
  const hipblasOperation_t ta = HIPBLAS_OP_T, tb = HIPBLAS_OP_N;
  C3_HIPBLAS(hipblasLtMatmulDescSetAttribute(*op, HIPBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  C3_HIPBLAS(hipblasLtMatmulDescSetAttribute(*op, HIPBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
}

hipblasStatus_t blas_heuristic(hipblasLtHandle_t lt, hipblasLtMatmulDesc_t op, hipblasLtMatrixLayout_t a,
                               hipblasLtMatrixLayout_t b, hipblasLtMatrixLayout_t d, BlasCandidates& out) {
  hipblasLtMatmulPreference_t pref = nullptr;
  C3_HIPBLAS(hipblasLtMatmulPreferenceCreate(&pref));
  const std::uint64_t ws = kBlasWorkspaceBytes;
  hipblasLtMatmulPreferenceSetAttribute(pref, HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  hipblasLtMatmulHeuristicResult_t results[8] = {};
  int found = 0;
  const hipblasStatus_t st = hipblasLtMatmulAlgoGetHeuristic(lt, op, a, b, d, d, pref, 8, results, &found);
  hipblasLtMatmulPreferenceDestroy(pref);
  for (int i = 0; st == HIPBLAS_STATUS_SUCCESS && i < found; ++i)
    if (results[i].state == HIPBLAS_STATUS_SUCCESS && results[i].workspaceSize <= kBlasWorkspaceBytes) {
      out.algos.push_back(results[i].algo);
      out.waves.push_back(results[i].wavesCount);
    }
  return st;
}

void blas_matmul(hipblasLtHandle_t lt, hipblasLtMatmulDesc_t op, const void* A, hipblasLtMatrixLayout_t a,
                 const void* B, hipblasLtMatrixLayout_t b, void* D, hipblasLtMatrixLayout_t d, void* workspace,
                 hipStream_t stream, BlasCandidates& c, const std::function<std::string()>& what) {
  const float alpha = 1.0f, beta = 0.0f;
  for (;;) {
    const hipblasStatus_t st = hipblasLtMatmul(lt, op, &alpha, A, a, B, b, &beta, D, d, D, d, &c.algos[c.current],
                                               workspace, kBlasWorkspaceBytes, stream);
    if (st == HIPBLAS_STATUS_SUCCESS) return;
    const hipError_t why = hipGetLastError();
    c.launch_errors += std::string(c.launch_errors.empty() ? "" : ", ") + "choice " + std::to_string(c.current + 1) +
                       ": " + blas_status_name(st) + "/" + hipGetErrorName(why);
    if (is_sticky(why)) poison_device(std::string("hipBLASLt launch: ") + hipGetErrorName(why));
    if (st != HIPBLAS_STATUS_EXECUTION_FAILED || is_sticky(why) || c.current + 1 >= c.algos.size())
      throw HipFailure("hipblaslt_error", "hipblasLtMatmul failed for " + what() + " (" + c.launch_errors + ")");
    ++c.current;
  }
}

#endif

}  // namespace c3::hip
