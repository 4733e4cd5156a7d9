// backends/cuda/gemm.cpp: cuBLASLt GEMM with sampled host-reference checks (gemm.hpp).
#include "backends/cuda/gemm.hpp"

#include <cmath>
#include <sstream>

#include "backends/cuda/kernels.hpp"

namespace c3::cuda {
namespace {

constexpr std::size_t kWorkspaceBytes = 64ull << 20;
constexpr std::uint32_t kRoleGemmA = 11;
constexpr std::uint32_t kRoleGemmB = 12;

struct TileDims {
  int id, rows, cols;
};
// cuBLASLt's tile enum, generated from the cublasLt.h of this build (CMakeLists.txt).
constexpr TileDims kTiles[] = {
#include "cublaslt_tiles.inc"
};

}  // namespace

GemmRunner::GemmRunner(Runtime& rt, const Gemm& gemm, int gpus, int check_samples,
                       std::uint32_t epoch)
    : rt_(rt), gemm_(gemm) {
  const cudaDataType_t type = cuda_data_type(gemm.dtype);
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0) throw CudaFailure("unsupported", "GEMM dims must be > 0");
  if (gemm.layout != GemmLayout::tn)
    throw CudaFailure("unsupported", "the runner's GEMM is tn (column-major, leading dimensions k, k and m); "
                            "a " + std::string(to_string(gemm.layout)) + " GEMM is not run (docs/model.md 1.1)");
  if (gpus > rt.count()) throw CudaFailure("unsupported", "not enough GPUs for the GEMM");
  seed_a_ = pattern::seed_for(kRoleGemmA, 0, epoch);
  seed_b_ = pattern::seed_for(kRoleGemmB, 0, epoch);
  const auto m = static_cast<std::uint64_t>(gemm.m);
  const auto n = static_cast<std::uint64_t>(gemm.n);
  const auto k = static_cast<std::uint64_t>(gemm.k);

  // Samples: the four corners, then hashed positions (D column-major).
  check_.emplace(gemm, check_samples, epoch, seed_a_, seed_b_);
  const std::vector<std::int64_t>& idx = check_->indices();

  for (int gi = 0; gi < gpus; ++gi) {
    Gpu& g = rt.gpu(gi);
    auto pg = std::make_unique<PerGpu>();
    pg->device = g.device;
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUBLAS(cublasLtCreate(&pg->lt));
    // A: op(A) = A^T of a k x m column-major matrix (ld = k); B: k x n column-major; D: m x n.
    C3_CUBLAS(cublasLtMatrixLayoutCreate(&pg->a, type, k, m, static_cast<std::int64_t>(k)));
    C3_CUBLAS(cublasLtMatrixLayoutCreate(&pg->b, type, k, n, static_cast<std::int64_t>(k)));
    C3_CUBLAS(cublasLtMatrixLayoutCreate(&pg->d, type, m, n, static_cast<std::int64_t>(m)));
    pg->A = DeviceBuffer(g.device, m * k * 2);
    pg->B = DeviceBuffer(g.device, k * n * 2);
    pg->D = DeviceBuffer(g.device, m * n * 2);
    pg->workspace = DeviceBuffer(g.device, kWorkspaceBytes);
    pg->idx = DeviceBuffer(g.device, idx.size() * sizeof(std::int64_t));
    pg->samples = DeviceBuffer(g.device, idx.size() * sizeof(std::uint16_t));
    const auto fk = gemm.dtype == DType::fp16 ? kernels::FillKind::gemm_fp16 : kernels::FillKind::gemm_bf16;
    C3_CUDA(kernels::fill(pg->A.as<std::uint16_t>(), m * k, fk, seed_a_, 0, g.work.stream));
    C3_CUDA(kernels::fill(pg->B.as<std::uint16_t>(), k * n, fk, seed_b_, 0, g.work.stream));
    if (!idx.empty())
      C3_CUDA(cudaMemcpyAsync(pg->idx.get(), idx.data(), idx.size() * sizeof(std::int64_t),
                              cudaMemcpyHostToDevice, g.work.stream));
    C3_CUDA(cudaStreamSynchronize(g.work.stream));
    per_gpu_.push_back(std::move(pg));
  }
}

GemmRunner::~GemmRunner() {
  for (auto& pg : per_gpu_) {
    cudaSetDevice(pg->device);
    for (auto& [target, p] : pg->plans)
      if (p.op) cublasLtMatmulDescDestroy(p.op);
    if (pg->a) cublasLtMatrixLayoutDestroy(pg->a);
    if (pg->b) cublasLtMatrixLayoutDestroy(pg->b);
    if (pg->d) cublasLtMatrixLayoutDestroy(pg->d);
    if (pg->lt) cublasLtDestroy(pg->lt);
  }
}

std::string GemmRunner::describe(const Plan& p) const {
  const cublasLtMatmulAlgo_t& algo = p.candidates[p.current];
  int id = -1, tile = -1, splitk = -1, stages = -1, cluster = -1;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster,
                                       nullptr);
  std::ostringstream os;
  os << "algo=" << id << " tile=" << tile << " splitk=" << splitk << " stages=" << stages
     << " cluster=" << cluster << " waves=" << p.waves[p.current] << p.hint;
  if (p.current > 0) os << " (heuristic choice " << p.current + 1 << ": " << p.launch_errors << ")";
  return os.str();
}

GemmKernel GemmRunner::kernel_of(const Plan& p, int sm_target) const {
  const cublasLtMatmulAlgo_t& algo = p.candidates[p.current];
  GemmKernel k;
  int splitk = 1;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &k.algo_id, sizeof k.algo_id, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &k.tile_id, sizeof k.tile_id, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &k.stages_id, sizeof k.stages_id,
                                       nullptr);
  k.split_k = splitk > 0 ? splitk : 1;
  for (const TileDims& t : kTiles)
    if (t.id == k.tile_id) {
      k.tile_m = t.rows;
      k.tile_n = t.cols;
    }
  if (k.known())
    k.ctas = ((gemm_.m + k.tile_m - 1) / k.tile_m) * ((gemm_.n + k.tile_n - 1) / k.tile_n) * k.split_k;
  k.waves = p.waves[p.current];
  k.sm_target = sm_target;
  return k;
}

GemmRunner::Plan& GemmRunner::plan(PerGpu& g, int sm_target) {
  auto it = g.plans.find(sm_target);
  if (it != g.plans.end()) {
    algo_desc_ = describe(it->second);
    kernel_ = kernel_of(it->second, sm_target);
    return it->second;
  }
  Plan p;
  C3_CUBLAS(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  try {
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    C3_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    C3_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    bool hint_taken = false;
    if (sm_target > 0) {
      // A hint (cuBLAS >= 13.1 headers); an older run-time library may reject it: then the
      // heuristic assumes every SM, which the algorithm description records.
      const std::int32_t target = sm_target;
      hint_taken = cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &target,
                                                  sizeof target) == CUBLAS_STATUS_SUCCESS;
    }
    cublasLtMatmulPreference_t pref = nullptr;
    C3_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = kWorkspaceBytes;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    // Several candidates: a kernel that cannot launch in a small partition (seen: 12 SMs)
    // is replaced by the next one at its first launch (launch()).
    cublasLtMatmulHeuristicResult_t results[8] = {};
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(g.lt, p.op, g.a, g.b, g.d, g.d, pref, 8,
                                                             results, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    C3_CUBLAS(st);
    for (int i = 0; i < found; ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS) {
        p.candidates.push_back(results[i].algo);
        p.waves.push_back(results[i].wavesCount);
      }
    if (p.candidates.empty())
      throw CudaFailure("unsupported", "cuBLASLt found no algorithm for " + format_gemm(gemm_));
    p.hint = sm_target > 0 ? (hint_taken ? " sm_target=" + std::to_string(sm_target)
                                         : " sm_target=" + std::to_string(sm_target) + " (rejected by cuBLASLt)")
                           : std::string();
    algo_desc_ = describe(p);
    kernel_ = kernel_of(p, sm_target);
  } catch (...) {
    cublasLtMatmulDescDestroy(p.op);
    throw;
  }
  return g.plans.emplace(sm_target, p).first->second;
}

void GemmRunner::prepare(int sm_target) {
  for (auto& pg : per_gpu_) {
    C3_CUDA(cudaSetDevice(pg->device));
    plan(*pg, sm_target);
  }
}

void GemmRunner::launch(int gpu, const Lane& lane, int sm_target) {
  PerGpu& g = *per_gpu_.at(static_cast<std::size_t>(gpu));
  C3_CUDA(cudaSetDevice(g.device));
  // A hinted plan whose every candidate failed to launch falls back to the plan without
  // the hint (seen on H200: sm_target 12 and 4 fail, the unhinted kernel runs).
  auto dropped = g.hint_dropped.find(sm_target);
  if (dropped != g.hint_dropped.end()) sm_target = 0;
  Plan& p = plan(g, sm_target);
  const float alpha = 1.0f, beta = 0.0f;
  ScopedContext scope(lane.ctx);
  for (;;) {
    const cublasStatus_t st =
        cublasLtMatmul(g.lt, p.op, &alpha, g.A.get(), g.a, g.B.get(), g.b, &beta, g.D.get(), g.d, g.D.get(),
                       g.d, &p.candidates[p.current], g.workspace.get(), kWorkspaceBytes, lane.stream);
    if (st == CUBLAS_STATUS_SUCCESS) return;
    // A launch failure (e.g. a kernel the partition cannot hold) is not sticky: take the
    // next candidate. Only the first launch of a measurement (a warm-up run) gets here.
    const cudaError_t why = cudaGetLastError();
    p.launch_errors += std::string(p.launch_errors.empty() ? "" : ", ") + "choice " +
                       std::to_string(p.current + 1) + ": " + cublasLtGetStatusName(st) + "/" +
                       cudaGetErrorName(why);
    if (st != CUBLAS_STATUS_EXECUTION_FAILED || is_sticky(why)) {
      if (is_sticky(why)) poison_device(std::string("cuBLASLt launch: ") + cudaGetErrorName(why));
      throw CudaFailure("cublas_error", "cublasLtMatmul failed for " + format_gemm(gemm_) + " (" +
                                            describe(p) + "; " + p.launch_errors + ")");
    }
    if (p.current + 1 < p.candidates.size()) {
      ++p.current;
      algo_desc_ = describe(p);
      kernel_ = kernel_of(p, sm_target);
      continue;
    }
    if (sm_target > 0) {
      const std::string why_dropped = p.launch_errors;
      g.hint_dropped[sm_target] = true;
      launch(gpu, lane, sm_target);  // now without the hint
      algo_desc_ += " [sm_target " + std::to_string(sm_target) + " dropped: " + why_dropped + "]";
      return;
    }
    throw CudaFailure("cublas_error", "no cuBLASLt algorithm launches for " + format_gemm(gemm_) + " (" +
                                          p.launch_errors + ")");
  }
}

void GemmRunner::poison(double timeout_s) {
  for (auto& pg : per_gpu_) {
    Gpu* g = nullptr;
    for (auto& cand : rt_.gpus)
      if (cand->device == pg->device) g = cand.get();
    C3_CUDA(cudaSetDevice(pg->device));
    C3_CUDA(cudaMemsetAsync(pg->D.get(), 0xFF, pg->D.bytes(), g->work.stream));
  }
  rt_.sync_all(timeout_s);
}

std::int64_t GemmRunner::verify(double timeout_s, std::string* first_error) {
  (void)timeout_s;
  const std::size_t S = check_->size();
  if (S == 0) return 0;
  std::int64_t bad = 0;
  for (auto& pg : per_gpu_) {
    Gpu* g = nullptr;
    for (auto& cand : rt_.gpus)
      if (cand->device == pg->device) g = cand.get();
    C3_CUDA(cudaSetDevice(pg->device));
    C3_CUDA(kernels::gather16(pg->D.as<std::uint16_t>(), pg->idx.as<std::int64_t>(),
                              pg->samples.as<std::uint16_t>(), static_cast<int>(S), g->work.stream));
    std::vector<std::uint16_t> got(S);
    C3_CUDA(cudaMemcpyAsync(got.data(), pg->samples.get(), S * sizeof(std::uint16_t),
                            cudaMemcpyDeviceToHost, g->work.stream));
    C3_CUDA(cudaStreamSynchronize(g->work.stream));
    bad += check_->compare(got, pg->device, first_error);
  }
  return bad;
}

}  // namespace c3::cuda
