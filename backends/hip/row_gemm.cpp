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
  BlasCandidates choice;
  bool one_by_one = false;  // no batched algorithm: `count` launches of the single-piece plan
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

RowGemm::Key RowGemm::key_of(const Piece& p) const { return device::row_piece_key(p, n_, k_); }

RowGemm::Plan& RowGemm::plan(const Piece& piece) {
  const Key key = key_of(piece);
  auto it = plans_.find(key);
  if (it != plans_.end()) return *it->second;
  if (piece.rows <= 0 || piece.count < 1) throw HipFailure("unsupported", "a GEMM piece needs rows and count > 0");
  const auto& [rows, count, a_stride, o_stride, a_align, o_align] = key;
  const hipDataType type = blas_data_type(dtype_);
  C3_HIP(hipSetDevice(device_));
  auto p = std::make_unique<Plan>();
  blas_tn_desc(&p->op);
  // hipBLASLt's A is b (k x n, shared by every piece: batch stride 0), its B the a piece
  // (k x rows), its C and D the out piece (n x rows).
  p->lb = layout(type, k_, n_, count, 0);
  p->la = layout(type, k_, rows, count, a_stride * k_);
  p->lo = layout(type, n_, rows, count, o_stride * n_);
  const hipblasStatus_t st = blas_heuristic(handle(lt_), p->op, p->lb, p->la, p->lo, p->choice);
  if (st != HIPBLAS_STATUS_SUCCESS && st != HIPBLAS_STATUS_NOT_SUPPORTED) C3_HIPBLAS(st);
  (void)a_align;
  (void)o_align;
  if (p->choice.algos.empty()) {
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
    plan(piece.single(i, n_, k_));
}

void RowGemm::launch(const Piece& piece, const Lane& lane) {
  Plan& p = plan(piece);
  if (p.one_by_one) {
    for (int i = 0; i < piece.count; ++i)
      launch(piece.single(i, n_, k_), lane);
    return;
  }
  C3_HIP(hipSetDevice(device_));
  blas_matmul(handle(lt_), p.op, b_, p.lb, piece.a, p.la, piece.out, p.lo, workspace_.get(), lane.stream, p.choice,
              [&] { return std::to_string(piece.rows) + " rows"; });
}

GemmKernel RowGemm::kernel(const Piece& piece) {
  const Plan& p = run_plan(piece);
  GemmKernel k;
  k.waves = p.choice.waves[p.choice.current];
  return k;
}

std::string RowGemm::describe(const Piece& piece) {
  const bool one_by_one = plan(piece).one_by_one;
  const Plan& run = run_plan(piece);
  std::ostringstream os;
  const BlasCandidates& c = run.choice;
  os << "hipBLASLt heuristic choice " << c.current + 1 << " of " << c.algos.size() << ", waves " << c.waves[c.current]
     << " rows=" << piece.rows;
  if (piece.count > 1) os << (one_by_one ? " x" : " batch=") << piece.count << (one_by_one ? " one by one" : "");
  if (!c.launch_errors.empty()) os << " (" << c.launch_errors << ")";
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
