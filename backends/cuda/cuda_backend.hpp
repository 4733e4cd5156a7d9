// backends/cuda/cuda_backend.hpp: the "cuda" validator backend (NVIDIA GPUs of one host).
//
// One process, one host thread, one NCCL rank per GPU. GEMMs through cuBLASLt (bf16/fp16 in
// and out, fp32 accumulate); collectives through NCCL or through the copy engines
// (cudaMemcpyPeerAsync / cudaMemcpyBatchAsync, one stream per peer, launched and
// synchronized from the host as the ConCCL paper does); SM partitions through green
// contexts. Dependent pairs run serial or as decomposed (chunked) schedules
// (dependent.hpp). See docs/device.md for what holds on real hardware and the measurements.
//
// Only this header is meant to be included from outside backends/cuda/; it needs no CUDA
// header, so code built without CUDA can still name the types (they are only defined when
// the library is built with C3_ENABLE_CUDA).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c3/profile.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/device/run_detail.hpp"
#include "validator/ce_plan.hpp"

namespace c3 {

namespace backends {
/// Registers the "cuda" backend ("cuda" = every visible GPU, "cuda:N" = the first N GPUs;
/// options after a comma: "cuda:2,warmup=6,runs=9,timeout=60"). Called by
/// c3::register_builtin_backends() when built with C3_ENABLE_CUDA.
void register_cuda();
}  // namespace backends

namespace cuda {

/// Versions and names for provenance (calibration output, measurement files).
struct CudaProvenance {
  std::string device;        ///< "NVIDIA H200"
  int gpus = 0;              ///< GPUs visible to this process
  int sm_count = 0;          ///< SMs per GPU
  std::string driver;        ///< "580.159.04" where NVML is not used: CUDA driver API version "13.0"
  std::string cuda_runtime;  ///< "13.0"
  std::string cublas;        ///< "13.1.0"
  std::string nccl;          ///< "2.28.9" (the library loaded at run time)
  std::string nvlink;        ///< e.g. "all pairs peer-capable" (peer access between GPUs)
};

/// Reads the provenance of the GPUs this process sees. Throws BackendError when there is
/// no CUDA device or the driver cannot be initialized.
CudaProvenance cuda_provenance();

/// Copy-engine variants (validator/ce_plan.hpp; plain data shared with CI's unit tests).
using validator::CeApi;
using validator::CeDirection;
using validator::CeLaunch;
using validator::CeOptions;
using validator::CeOrder;
using validator::parse_ce_variant;
using validator::to_string;

struct CudaOptions {
  int gpus = 0;              ///< 0 = every visible GPU
  int warmup_runs = 6;
  int measured_runs = 9;
  double run_timeout_s = 60;  ///< watchdog: one run (all GPUs) longer than this fails ("timeout")
  /// Collective with cus > 0, and rp's collective: also confine it to a green context of
  /// that many SMs (false: NCCL in the primary context with maxCTAs only; rp's GEMM stays
  /// in the remainder's green context).
  bool partition_collective = true;
  /// GEMM in a green context: pass the partition's SM count to cuBLASLt
  /// (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET) so that it picks a kernel for that many SMs.
  /// Off by default: on H200 (cuBLASLt 13.1) the hinted kernels were slower (8192^3 on 68
  /// SMs: 2.97 ms hinted, 2.41 ms not) and failed to launch on 12 and 4 SMs (docs/device.md).
  bool gemm_sm_count_hint = false;
  /// Streams of the collective get the highest priority (sp, rp); off by default (the paper
  /// orders launches only).
  bool collective_high_priority = false;
  bool verify = true;         ///< check outputs (collectives on device, GEMM samples on host)
  int gemm_check_samples = 48;
  /// Dependent pairs: after the timed runs, this many more runs with a timing event after
  /// every job (Measurement::timeline, docs/device.md); 0: none.
  int trace_runs = 0;
  /// Gated runs: each run's launches are queued behind a blocking kernel on every GPU and
  /// released at once (nvbench's blocking kernel), so that a run's time leaves out the host's
  /// launch pacing and the skew between the GPUs' launches (docs/device.md). Off by default:
  /// the profiles are calibrated on runs the host launches as it goes.
  bool gate = false;
  /// Placement pads (docs/device.md): before each measurement, every GPU first allocates a pad
  /// of a pseudo-random whole number of 2 MiB pages up to this many MiB (device::placement_pad_bytes,
  /// drawn from the measurement's epoch), held until the next measurement, so that the
  /// measurement's buffers land at another offset. A diagnostic of how much a time depends on
  /// where its buffers are; 0 (the default): none.
  int pad_mib = 0;
  CeOptions ce;               ///< copy-engine variant used by Transport::dma
  /// Fault injection for reliability tests (docs/reliability.md): the `fault_at`-th
  /// measurement of this process (1-based, any kind) fails for real: "oom" asks cudaMalloc
  /// for more than the GPU has (a named out_of_memory failure, the process goes on
  /// healthy); "timeout" runs it under a 0.1 ms watchdog (a named timeout; the device is
  /// then unusable for this process, so later measurements fail fast and a --resume in a
  /// new process retries them); "drop_piece" (a dependent pair only) runs its schedule
  /// without the last step's transfers, so that its check must fail (a named
  /// verification_failed). Empty: none.
  std::string fault;
  long fault_at = 0;
};

/// Parses the text after "cuda:" ("", "2", "2,warmup=1,runs=3,timeout=30,ce=pull",
/// "2,fault=oom@5", "2,fault=drop_piece@3"). Throws InputError.
CudaOptions parse_cuda_options(const std::string& arg);

/// What one measurement actually ran, and a partition probe's result (vendor-neutral,
/// backends/device/run_detail.hpp).
using device::ProbeResult;
using device::RunDetail;

class CudaValidator final : public Validator {
 public:
  CudaValidator(const CudaOptions& options, const HardwareProfile& hw);
  ~CudaValidator() override;
  CudaValidator(const CudaValidator&) = delete;
  CudaValidator& operator=(const CudaValidator&) = delete;

  const CudaOptions& options() const;
  void set_runs(int warmup_runs, int measured_runs);
  void set_run_timeout(double seconds);
  void set_ce_options(const CeOptions& ce);  ///< also leaves nccl_ce for the variant `ce`
  void set_partition_collective(bool on);
  void set_gemm_sm_count_hint(bool on);
  void set_collective_high_priority(bool on);
  /// Dependent pairs: this many traced runs after the timed ones (CudaOptions::trace_runs;
  /// 0: none). Throws InputError for a negative count.
  void set_trace_runs(int runs);
  /// Gated runs on or off (CudaOptions::gate).
  void set_gate(bool on);
  /// Fault injection for tests: the next measurement fails through `fault` ("oom",
  /// "timeout", "drop_piece"; CudaOptions::fault). Throws InputError for another name.
  void inject_fault_next(const std::string& fault);

  int gpu_count() const;
  int sm_count() const;
  /// Details of the last measurement (gemm/collective/concurrent/copy).
  const RunDetail& last_detail() const;
  /// The green-context split the driver makes for `sms` SMs taken off: {group, remainder}.
  std::pair<int, int> partition_for(int sms);
  /// False after a timeout or an unrecoverable error: every later call fails fast.
  bool healthy() const;

  // --- diagnostics used by tests/device (each returns a result, never throws) ---
  /// Launches a probe kernel (many blocks) in a green context of the remainder after taking
  /// `removed` SMs (0 = primary context) and counts the distinct SM ids its blocks ran on.
  ProbeResult probe_sm_ids(int removed);
  /// Blocking test: a "hog" kernel fills every thread slot of the SMs of a partition of
  /// `sms` SMs for `hog_ms`; then the target runs in a green context on the same SMs
  /// ("same") or on the other SMs ("other"), or in the primary context ("primary"). A
  /// target confined to the hogged SMs cannot finish before the hog does.
  /// target: "gemm" or "nccl" (all_gather of `coll_bytes` with maxCTAs = sms).
  ProbeResult probe_blocking(const std::string& target, const std::string& where, int sms,
                             double hog_ms, const Gemm& gemm, std::int64_t coll_bytes);

 private:
  Capabilities do_capabilities() const override;
  Measurement do_gemm(const Gemm& gemm, int cus_removed) override;
  Measurement do_collective(const Collective& collective, Transport transport, int cus) override;
  Measurement do_concurrent(const C3Pair& pair, const Strategy& strategy) override;
  Measurement do_copy(CopyPath path, std::int64_t size_bytes) override;
  /// Any name parse_ce_variant accepts, or "nccl_ce" (NCCL's own copy-engine path).
  void do_set_dma_variant(const std::string& name) override;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuda
}  // namespace c3
