// backends/cuda/row_gemm.cpp: row pieces of row-major GEMMs through cuBLASLt (row_gemm.hpp).
#include "backends/cuda/row_gemm.hpp"

#include <sstream>

namespace c3::cuda {
namespace {

constexpr std::size_t kWorkspaceBytes = 64ull << 20;

struct TileDims {
  int id, rows, cols;
};
// cuBLASLt's tile enum, generated from the cublasLt.h of this build (CMakeLists.txt).
constexpr TileDims kTiles[] = {
#include "cublaslt_tiles.inc"
};

// A column-major layout of rows x cols (ld = rows) with `count` matrices `stride` elements apart.
cublasLtMatrixLayout_t layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, int count,
                              std::int64_t stride) {
  cublasLtMatrixLayout_t l = nullptr;
  C3_CUBLAS(cublasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                                       rows));
  if (count > 1) {
    const std::int32_t c = count;
    const std::int64_t s = stride;
    const cublasStatus_t a = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &c, sizeof c);
    const cublasStatus_t b =
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s, sizeof s);
    if (a != CUBLAS_STATUS_SUCCESS || b != CUBLAS_STATUS_SUCCESS) {
      cublasLtMatrixLayoutDestroy(l);
      C3_CUBLAS(a != CUBLAS_STATUS_SUCCESS ? a : b);
    }
  }
  return l;
}

}  // namespace

RowGemm::RowGemm(int device, DType dtype, std::int64_t n, std::int64_t k, const std::uint16_t* b)
    : device_(device), dtype_(dtype), n_(n), k_(k), b_(b) {
  cuda_data_type(dtype);  // refuses other types
  C3_CUDA(cudaSetDevice(device));
  C3_CUBLAS(cublasLtCreate(&lt_));
  workspace_ = DeviceBuffer(device, kWorkspaceBytes);
}

void RowGemm::destroy(Plan& p) noexcept {
  if (p.op) cublasLtMatmulDescDestroy(p.op);
  for (cublasLtMatrixLayout_t l : {p.lb, p.la, p.lo})
    if (l) cublasLtMatrixLayoutDestroy(l);
  p = Plan{};
}

RowGemm::~RowGemm() {
  cudaSetDevice(device_);
  for (auto& [key, p] : plans_) destroy(p);
  if (lt_) cublasLtDestroy(lt_);
}

RowGemm::Key RowGemm::key_of(const Piece& p) const { return device::row_piece_key(p, n_, k_); }

RowGemm::Plan& RowGemm::plan(const Piece& piece) {
  const Key key = key_of(piece);
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second;
  if (piece.rows <= 0 || piece.count < 1) throw CudaFailure("unsupported", "a GEMM piece needs rows and count > 0");
  const auto& [rows, count, a_stride, o_stride, a_align, o_align] = key;
  const cudaDataType_t type = cuda_data_type(dtype_);
  C3_CUDA(cudaSetDevice(device_));
  Plan p;
  try {
    C3_CUBLAS(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    C3_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    C3_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    // cuBLASLt's A is b (k x n, shared by every piece: batch stride 0), its B the a piece
    // (k x rows), its C and D the out piece (n x rows).
    p.lb = layout(type, k_, n_, count, 0);
    p.la = layout(type, k_, rows, count, a_stride * k_);
    p.lo = layout(type, n_, rows, count, o_stride * n_);
    cublasLtMatmulPreference_t pref = nullptr;
    C3_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = kWorkspaceBytes;
    const std::uint32_t b_align = common_alignment({reinterpret_cast<std::uintptr_t>(b_), static_cast<std::uint64_t>(k_) * 2});
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &b_align, sizeof b_align);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &a_align, sizeof a_align);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &o_align, sizeof o_align);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &o_align, sizeof o_align);
    cublasLtMatmulHeuristicResult_t results[8] = {};
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt_, p.op, p.lb, p.la, p.lo, p.lo, pref, 8, results, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS && st != CUBLAS_STATUS_NOT_SUPPORTED) C3_CUBLAS(st);
    for (int i = 0; st == CUBLAS_STATUS_SUCCESS && i < found; ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS) {
        p.candidates.push_back(results[i].algo);
        p.waves.push_back(results[i].wavesCount);
      }
  } catch (...) {
    destroy(p);
    throw;
  }
  if (p.candidates.empty()) {
    if (count == 1)
      throw CudaFailure("unsupported", "cuBLASLt found no algorithm for " + std::to_string(rows) + " rows x " +
                                           std::to_string(n_) + " x " + std::to_string(k_));
    // No batched algorithm: the pieces one by one (their plan made and checked now).
    destroy(p);
    p.one_by_one = true;
    Piece single = piece;
    single.count = 1;
    plan(single);
  }
  return plans_.emplace(key, p).first->second;
}

void RowGemm::prepare(const Piece& piece) {
  if (!plan(piece).one_by_one) return;
  for (int i = 0; i < piece.count; ++i)  // the single pieces' plans (their alignments may differ)
    plan(piece.single(i, n_, k_));
}

void RowGemm::launch(const Piece& piece, const Lane& lane) {
  Plan& p = plan(piece);
  if (p.one_by_one) {
    for (int i = 0; i < piece.count; ++i) launch(piece.single(i, n_, k_), lane);
    return;
  }
  C3_CUDA(cudaSetDevice(device_));
  const float alpha = 1.0f, beta = 0.0f;
  ScopedContext scope(lane.ctx);
  for (;;) {
    const cublasStatus_t st = cublasLtMatmul(lt_, p.op, &alpha, b_, p.lb, piece.a, p.la, &beta, piece.out, p.lo,
                                             piece.out, p.lo, &p.candidates[p.current], workspace_.get(),
                                             kWorkspaceBytes, lane.stream);
    if (st == CUBLAS_STATUS_SUCCESS) return;
    // As GemmRunner::launch: a launch failure that is not sticky takes the next candidate.
    const cudaError_t why = cudaGetLastError();
    p.launch_errors += std::string(p.launch_errors.empty() ? "" : ", ") + "choice " + std::to_string(p.current + 1) +
                       ": " + cublasLtGetStatusName(st) + "/" + cudaGetErrorName(why);
    if (st != CUBLAS_STATUS_EXECUTION_FAILED || is_sticky(why)) {
      if (is_sticky(why)) poison_device(std::string("cuBLASLt launch: ") + cudaGetErrorName(why));
      throw CudaFailure("cublas_error", "cublasLtMatmul failed for " + std::to_string(piece.rows) + " rows (" +
                                            p.launch_errors + ")");
    }
    if (p.current + 1 >= p.candidates.size())
      throw CudaFailure("cublas_error", "no cuBLASLt algorithm launches for " + std::to_string(piece.rows) +
                                            " rows (" + p.launch_errors + ")");
    ++p.current;
  }
}

GemmKernel RowGemm::kernel(const Piece& piece) {
  Plan* p = &plan(piece);
  int count = piece.count;
  if (p->one_by_one) {
    Piece single = piece;
    single.count = 1;
    p = &plan(single);
  }
  const cublasLtMatmulAlgo_t& algo = p->candidates[p->current];
  GemmKernel k;
  int splitk = 1;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &k.algo_id, sizeof k.algo_id, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &k.tile_id, sizeof k.tile_id, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &k.stages_id, sizeof k.stages_id, nullptr);
  k.split_k = splitk > 0 ? splitk : 1;
  // cuBLASLt's output is out^T: its tile rows run along n, its columns along the piece's rows (m).
  for (const TileDims& t : kTiles)
    if (t.id == k.tile_id) {
      k.tile_m = t.cols;
      k.tile_n = t.rows;
    }
  if (k.known())
    k.ctas = ((piece.rows + k.tile_m - 1) / k.tile_m) * ((n_ + k.tile_n - 1) / k.tile_n) * k.split_k * count;
  k.waves = p->waves[p->current];
  return k;
}

std::string RowGemm::describe(const Piece& piece) {
  Plan& p = plan(piece);
  Piece single = piece;
  single.count = 1;
  Plan& run = p.one_by_one ? plan(single) : p;
  const cublasLtMatmulAlgo_t& algo = run.candidates[run.current];
  int id = -1, tile = -1, splitk = -1, stages = -1;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, nullptr);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, nullptr);
  std::ostringstream os;
  os << "algo=" << id << " tile=" << tile << " splitk=" << splitk << " stages=" << stages
     << " waves=" << run.waves[run.current] << " rows=" << piece.rows;
  if (piece.count > 1) os << (p.one_by_one ? " x" : " batch=") << piece.count << (p.one_by_one ? " one by one" : "");
  if (run.current > 0) os << " (heuristic choice " << run.current + 1 << ": " << run.launch_errors << ")";
  return os.str();
}

}  // namespace c3::cuda
