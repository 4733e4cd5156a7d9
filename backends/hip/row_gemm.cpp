// backends/hip/row_gemm.cpp: row pieces of row-major GEMMs through hipBLASLt (row_gemm.hpp).
#include "backends/hip/row_gemm.hpp"

#include <sstream>
#include <vector>

#include "backends/device/dependent_run.hpp"
#include "backends/hip/blaslt.hpp"

namespace c3::hip {

#if C3_HIP_HAVE_HIPBLASLT

namespace {

hipblasLtHandle_t handle(void* lt) { return static_cast<hipblasLtHandle_t>(lt); }

// A column-major layout of rows x cols (ld = rows) with `count` matrices `stride` elements apart.
hipblasLtMatrixLayout_t layout(hipDataType type, std::int64_t rows, std::int64_t cols, int count,
                               std::int64_t stride) {
  hipblasLtMatrixLayout_t l = nullptr;
  C3_HIPBLAS(hipblasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                                         rows));
  if (count > 1) {
    const std::int32_t c = count;
    const std::int64_t s = stride;
    const hipblasStatus_t a = hipblasLtMatrixLayoutSetAttribute(l, HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &c, sizeof c);
    const hipblasStatus_t b =
        hipblasLtMatrixLayoutSetAttribute(l, HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s, sizeof s);
    if (a != HIPBLAS_STATUS_SUCCESS || b != HIPBLAS_STATUS_SUCCESS) {
      hipblasLtMatrixLayoutDestroy(l);
      C3_HIPBLAS(a != HIPBLAS_STATUS_SUCCESS ? a : b);
    }
  }
  return l;
}

}  // namespace

struct RowGemm::Plan {
  hipblasLtMatmulDesc_t op = nullptr;
  hipblasLtMatrixLayout_t lb = nullptr, la = nullptr, lo = nullptr;  // b, a piece, out piece
  std::vector<hipblasLtMatmulAlgo_t> candidates;  // heuristic order
  std::vector<float> waves;
  std::size_t current = 0;
  bool one_by_one = false;  // no batched algorithm: `count` launches of the single-piece plan
  std::string launch_errors;
  ~Plan() {
    if (op) hipblasLtMatmulDescDestroy(op);
    for (hipblasLtMatrixLayout_t l : {lb, la, lo})
      if (l) hipblasLtMatrixLayoutDestroy(l);
  }
};

RowGemm::RowGemm(int device, DType dtype, std::int64_t n, std::int64_t k, const std::uint16_t* b)
    : device_(device), dtype_(dtype), n_(n), k_(k), b_(b) {
  blas_data_type(dtype);  // refuses other types
  C3_HIP(hipSetDevice(device));
  hipblasLtHandle_t lt = nullptr;
  C3_HIPBLAS(hipblasLtCreate(&lt));
  lt_ = lt;
  workspace_ = DeviceBuffer(device, kBlasWorkspaceBytes);
}

RowGemm::~RowGemm() {
  (void)hipSetDevice(device_);
  plans_.clear();
  if (lt_) hipblasLtDestroy(handle(lt_));
}

RowGemm::Key RowGemm::key_of(const Piece& p) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p.a);
  const auto o = reinterpret_cast<std::uintptr_t>(p.out);
  const std::int64_t a_stride = p.count > 1 ? p.a_stride_rows : 0;
  const std::int64_t o_stride = p.count > 1 ? p.out_stride_rows : 0;
  const auto bytes = [](std::int64_t elems) { return static_cast<std::uint64_t>(elems) * 2; };
  return {p.rows, p.count, a_stride, o_stride, device::common_alignment({a, bytes(k_), bytes(a_stride * k_)}),
          device::common_alignment({o, bytes(n_), bytes(o_stride * n_)})};
}

RowGemm::Plan& RowGemm::plan(const Piece& piece) {
  const Key key = key_of(piece);
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  if (piece.rows <= 0 || piece.count < 1) throw HipFailure("unsupported", "a GEMM piece needs rows and count > 0");
  const auto& [rows, count, a_stride, o_stride, a_align, o_align] = key;
  const hipDataType type = blas_data_type(dtype_);
  C3_HIP(hipSetDevice(device_));
  auto p = std::make_unique<Plan>();
  C3_HIPBLAS(hipblasLtMatmulDescCreate(&p->op, HIPBLAS_COMPUTE_32F, HIP_R_32F));
  const hipblasOperation_t ta = HIPBLAS_OP_T, tb = HIPBLAS_OP_N;
  C3_HIPBLAS(hipblasLtMatmulDescSetAttribute(p->op, HIPBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  C3_HIPBLAS(hipblasLtMatmulDescSetAttribute(p->op, HIPBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  // hipBLASLt's A is b (k x n, shared by every piece: batch stride 0), its B the a piece
  // (k x rows), its C and D the out piece (n x rows).
  p->lb = layout(type, k_, n_, count, 0);
  p->la = layout(type, k_, rows, count, a_stride * k_);
  p->lo = layout(type, n_, rows, count, o_stride * n_);
  hipblasLtMatmulPreference_t pref = nullptr;
  C3_HIPBLAS(hipblasLtMatmulPreferenceCreate(&pref));
  const std::uint64_t ws = kBlasWorkspaceBytes;
  hipblasLtMatmulPreferenceSetAttribute(pref, HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  hipblasLtMatmulHeuristicResult_t results[8] = {};
  int found = 0;
  const hipblasStatus_t st =
      hipblasLtMatmulAlgoGetHeuristic(handle(lt_), p->op, p->lb, p->la, p->lo, p->lo, pref, 8, results, &found);
  hipblasLtMatmulPreferenceDestroy(pref);
  if (st != HIPBLAS_STATUS_SUCCESS && st != HIPBLAS_STATUS_NOT_SUPPORTED) C3_HIPBLAS(st);
  for (int i = 0; st == HIPBLAS_STATUS_SUCCESS && i < found; ++i)
    if (results[i].state == HIPBLAS_STATUS_SUCCESS && results[i].workspaceSize <= kBlasWorkspaceBytes) {
      p->candidates.push_back(results[i].algo);
      p->waves.push_back(results[i].wavesCount);
    }
  (void)a_align;
  (void)o_align;
  if (p->candidates.empty()) {
    if (count == 1)
      throw HipFailure("unsupported", "hipBLASLt found no algorithm for " + std::to_string(rows) + " rows x " +
                                          std::to_string(n_) + " x " + std::to_string(k_));
    // No batched algorithm: the pieces one by one (their plan made and checked now).
    p = std::make_unique<Plan>();
    p->one_by_one = true;
    Piece single = piece;
    single.count = 1;
    plan(single);
  }
  return *plans_.emplace(key, std::move(p)).first->second;
}

RowGemm::Plan& RowGemm::run_plan(const Piece& piece) {
  Plan& p = plan(piece);
  if (!p.one_by_one) return p;
  Piece single = piece;
  single.count = 1;
  return plan(single);
}

void RowGemm::prepare(const Piece& piece) {
  if (!plan(piece).one_by_one) return;
  for (int i = 0; i < piece.count; ++i)  // the single pieces' plans (their alignments may differ)
    plan(Piece{piece.a + i * piece.a_stride_rows * k_, 0, piece.out + i * piece.out_stride_rows * n_, 0, piece.rows, 1});
}

void RowGemm::launch(const Piece& piece, const Lane& lane) {
  Plan& p = plan(piece);
  if (p.one_by_one) {
    for (int i = 0; i < piece.count; ++i)
      launch(Piece{piece.a + i * piece.a_stride_rows * k_, 0, piece.out + i * piece.out_stride_rows * n_, 0,
                   piece.rows, 1},
             lane);
    return;
  }
  C3_HIP(hipSetDevice(device_));
  const float alpha = 1.0f, beta = 0.0f;
  for (;;) {
    const hipblasStatus_t st =
        hipblasLtMatmul(handle(lt_), p.op, &alpha, b_, p.lb, piece.a, p.la, &beta, piece.out, p.lo, piece.out, p.lo,
                        &p.candidates[p.current], workspace_.get(), kBlasWorkspaceBytes, lane.stream);
    if (st == HIPBLAS_STATUS_SUCCESS) return;
    // As GemmRunner::launch: a launch failure that is not sticky takes the next candidate.
    const hipError_t why = hipGetLastError();
    p.launch_errors += std::string(p.launch_errors.empty() ? "" : ", ") + "choice " + std::to_string(p.current + 1) +
                       ": " + blas_status_name(st) + "/" + hipGetErrorName(why);
    if (is_sticky(why)) poison_device(std::string("hipBLASLt launch: ") + hipGetErrorName(why));
    if (st != HIPBLAS_STATUS_EXECUTION_FAILED || is_sticky(why) || p.current + 1 >= p.candidates.size())
      throw HipFailure("hipblaslt_error", "hipblasLtMatmul failed for " + std::to_string(piece.rows) + " rows (" +
                                              p.launch_errors + ")");
    ++p.current;
  }
}

GemmKernel RowGemm::kernel(const Piece& piece) {
  const Plan& p = run_plan(piece);
  GemmKernel k;
  k.waves = p.waves[p.current];
  return k;
}

std::string RowGemm::describe(const Piece& piece) {
  const bool one_by_one = plan(piece).one_by_one;
  const Plan& run = run_plan(piece);
  std::ostringstream os;
  os << "hipBLASLt heuristic choice " << run.current + 1 << " of " << run.candidates.size() << ", waves "
     << run.waves[run.current] << " rows=" << piece.rows;
  if (piece.count > 1) os << (one_by_one ? " x" : " batch=") << piece.count << (one_by_one ? " one by one" : "");
  if (!run.launch_errors.empty()) os << " (" << run.launch_errors << ")";
  return os.str();
}

#else  // !C3_HIP_HAVE_HIPBLASLT

struct RowGemm::Plan {};

RowGemm::RowGemm(int device, DType dtype, std::int64_t n, std::int64_t k, const std::uint16_t* b)
    : device_(device), dtype_(dtype), n_(n), k_(k), b_(b) {
  throw_no_hipblaslt();
}
RowGemm::~RowGemm() = default;
void RowGemm::prepare(const Piece&) {}
void RowGemm::launch(const Piece&, const Lane&) {}
GemmKernel RowGemm::kernel(const Piece&) { return {}; }
std::string RowGemm::describe(const Piece&) { return {}; }

#endif

}  // namespace c3::hip
