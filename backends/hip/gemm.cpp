// backends/hip/gemm.cpp: hipBLASLt GEMMs with sampled host-reference checks (gemm.hpp).
// Without hipBLASLt (C3_HIP_HAVE_HIPBLASLT=0) the runner only reports "unsupported".
#include "backends/hip/gemm.hpp"

#include <optional>
#include <sstream>
#include <vector>

#include "backends/device/gemm_check.hpp"
#include "backends/hip/blaslt.hpp"
#include "backends/hip/kernels.hpp"

namespace c3::hip {

bool have_hipblaslt() { return C3_HIP_HAVE_HIPBLASLT != 0; }

#if C3_HIP_HAVE_HIPBLASLT

namespace {

constexpr std::size_t kWorkspaceBytes = kBlasWorkspaceBytes;
constexpr std::uint32_t kRoleGemmA = 11;  // the cuda backend's roles: the same operands
constexpr std::uint32_t kRoleGemmB = 12;

}  // namespace

struct GemmRunner::Impl {
  struct PerGpu {
    int device = 0;
    Gpu* gpu = nullptr;
    hipblasLtHandle_t lt = nullptr;
    hipblasLtMatmulDesc_t op = nullptr;
    hipblasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    DeviceBuffer A, B, D, workspace, idx, samples;
    BlasCandidates choice;
  };
  Runtime& rt;
  Gemm gemm;
  std::optional<device::GemmCheck> check;
  std::vector<std::unique_ptr<PerGpu>> per_gpu;

  Impl(Runtime& r, const Gemm& g) : rt(r), gemm(g) {}
  ~Impl() {
    for (auto& pg : per_gpu) {
      (void)hipSetDevice(pg->device);
      if (pg->op) hipblasLtMatmulDescDestroy(pg->op);
      for (hipblasLtMatrixLayout_t l : {pg->a, pg->b, pg->d})
        if (l) hipblasLtMatrixLayoutDestroy(l);
      if (pg->lt) hipblasLtDestroy(pg->lt);
    }
  }

  void choose(PerGpu& g) {
    blas_tn_desc(&g.op);
    C3_HIPBLAS(blas_heuristic(g.lt, g.op, g.a, g.b, g.d, g.choice));
    if (g.choice.algos.empty())
      throw HipFailure("unsupported", "hipBLASLt found no algorithm for " + format_gemm(gemm));
  }
};

GemmRunner::GemmRunner(Runtime& rt, const Gemm& gemm, int gpus, int check_samples, std::uint32_t epoch)
    : impl_(std::make_unique<Impl>(rt, gemm)) {
  const hipDataType type = blas_data_type(gemm.dtype);
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0) throw HipFailure("unsupported", "GEMM dims must be > 0");
  if (gemm.layout != GemmLayout::tn)
    throw HipFailure("unsupported", "the runner's GEMM is tn (column-major, leading dimensions k, k and m); "
                            "a " + std::string(to_string(gemm.layout)) + " GEMM is not run (docs/model.md 1.1)");
  if (gpus > rt.count()) throw HipFailure("unsupported", "not enough GPUs for the GEMM");
  const std::uint64_t seed_a = pattern::seed_for(kRoleGemmA, 0, epoch);
  const std::uint64_t seed_b = pattern::seed_for(kRoleGemmB, 0, epoch);
  impl_->check.emplace(gemm, check_samples, epoch, seed_a, seed_b);
  const std::vector<std::int64_t>& idx = impl_->check->indices();
  const auto m = static_cast<std::uint64_t>(gemm.m);
  const auto n = static_cast<std::uint64_t>(gemm.n);
  const auto k = static_cast<std::uint64_t>(gemm.k);
  const auto fk = gemm.dtype == DType::fp16 ? kernels::FillKind::gemm_fp16 : kernels::FillKind::gemm_bf16;
  for (int gi = 0; gi < gpus; ++gi) {
    Gpu& g = rt.gpu(gi);
    auto pg = std::make_unique<Impl::PerGpu>();
    pg->device = g.device;
    pg->gpu = &g;
    C3_HIP(hipSetDevice(g.device));
    C3_HIPBLAS(hipblasLtCreate(&pg->lt));
    // A: op(A) = A^T of a k x m column-major matrix (ld = k); B: k x n column-major; D: m x n.
    C3_HIPBLAS(hipblasLtMatrixLayoutCreate(&pg->a, type, k, m, static_cast<std::int64_t>(k)));
    C3_HIPBLAS(hipblasLtMatrixLayoutCreate(&pg->b, type, k, n, static_cast<std::int64_t>(k)));
    C3_HIPBLAS(hipblasLtMatrixLayoutCreate(&pg->d, type, m, n, static_cast<std::int64_t>(m)));
    pg->A = DeviceBuffer(g.device, m * k * 2);
    pg->B = DeviceBuffer(g.device, k * n * 2);
    pg->D = DeviceBuffer(g.device, m * n * 2);
    pg->workspace = DeviceBuffer(g.device, kWorkspaceBytes);
    pg->idx = DeviceBuffer(g.device, idx.size() * sizeof(std::int64_t));
    pg->samples = DeviceBuffer(g.device, idx.size() * sizeof(std::uint16_t));
    C3_HIP(kernels::fill(pg->A.as<std::uint16_t>(), m * k, fk, seed_a, 0, g.work.stream));
    C3_HIP(kernels::fill(pg->B.as<std::uint16_t>(), k * n, fk, seed_b, 0, g.work.stream));
    if (!idx.empty())
      C3_HIP(hipMemcpyAsync(pg->idx.get(), idx.data(), idx.size() * sizeof(std::int64_t), hipMemcpyHostToDevice,
                            g.work.stream));
    C3_HIP(hipStreamSynchronize(g.work.stream));
    impl_->choose(*pg);
    impl_->per_gpu.push_back(std::move(pg));
  }
}

GemmRunner::~GemmRunner() = default;

void GemmRunner::launch(int gpu, const Lane& lane) {
  Impl::PerGpu& g = *impl_->per_gpu.at(static_cast<std::size_t>(gpu));
  C3_HIP(hipSetDevice(g.device));
  blas_matmul(g.lt, g.op, g.A.get(), g.a, g.B.get(), g.b, g.D.get(), g.d, g.workspace.get(), lane.stream, g.choice,
              [&] { return format_gemm(impl_->gemm); });
}

void GemmRunner::poison(double timeout_s) {
  for (auto& pg : impl_->per_gpu) {
    C3_HIP(hipSetDevice(pg->device));
    C3_HIP(hipMemsetAsync(pg->D.get(), 0xFF, pg->D.bytes(), pg->gpu->work.stream));
  }
  impl_->rt.sync_all(timeout_s);
}

std::int64_t GemmRunner::verify(std::string* first_error) {
  const std::size_t S = impl_->check->size();
  if (S == 0) return 0;
  std::int64_t bad = 0;
  for (auto& pg : impl_->per_gpu) {
    hipStream_t s = pg->gpu->work.stream;
    C3_HIP(hipSetDevice(pg->device));
    C3_HIP(kernels::gather16(pg->D.as<std::uint16_t>(), pg->idx.as<std::int64_t>(), pg->samples.as<std::uint16_t>(),
                             static_cast<int>(S), s));
    std::vector<std::uint16_t> got(S);
    C3_HIP(hipMemcpyAsync(got.data(), pg->samples.get(), S * sizeof(std::uint16_t), hipMemcpyDeviceToHost, s));
    C3_HIP(hipStreamSynchronize(s));
    bad += impl_->check->compare(got, pg->device, first_error);
  }
  return bad;
}

std::string GemmRunner::algo_description() const {
  const Impl::PerGpu& g = *impl_->per_gpu.front();
  std::ostringstream os;
  const BlasCandidates& c = g.choice;
  os << "hipBLASLt heuristic choice " << c.current + 1 << " of " << c.algos.size() << ", waves " << c.waves[c.current];
  if (!c.launch_errors.empty()) os << " (" << c.launch_errors << ")";
  return os.str();
}

GemmKernel GemmRunner::kernel() const {
  const Impl::PerGpu& g = *impl_->per_gpu.front();
  GemmKernel k;
  k.waves = g.choice.waves[g.choice.current];
  return k;
}

#else  // !C3_HIP_HAVE_HIPBLASLT

struct GemmRunner::Impl {};

GemmRunner::GemmRunner(Runtime&, const Gemm&, int, int, std::uint32_t) { throw_no_hipblaslt(); }
GemmRunner::~GemmRunner() = default;
void GemmRunner::launch(int, const Lane&) {}
void GemmRunner::poison(double) {}
std::int64_t GemmRunner::verify(std::string*) { return 0; }
std::string GemmRunner::algo_description() const { return {}; }
GemmKernel GemmRunner::kernel() const { return {}; }

#endif

}  // namespace c3::hip
