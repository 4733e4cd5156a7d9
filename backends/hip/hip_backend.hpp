// backends/hip/hip_backend.hpp: the "hip" validator backend (AMD GPUs of one host through
// ROCm; HIP's NVIDIA platform for testing the same code on NVIDIA GPUs).
//
// One process, one host thread, one RCCL rank per GPU. GEMMs through hipBLASLt (bf16/fp16
// in and out, fp32 accumulate); collectives through RCCL with a CU budget (minCTAs =
// maxCTAs: RCCL runs one channel per CTA, one CTA per CU) or on the SDMA copy engines
// (hipMemcpyPeerAsync, one stream per peer, launched and synchronized from the host as the
// ConCCL paper does); CU partitions through CU-masked streams (hipExtStreamCreateWithCUMask,
// the paper's mechanism, at least 8 CUs). The vendor-neutral half (run loop, timing loop,
// checks, failure names, where a pair runs) is backends/device/, shared with the cuda
// backend. Dependent pairs (serial, chunked:*) run as on the cuda backend, on hipBLASLt
// row pieces, RCCL or SDMA steps and hipEvents (dependent.hpp). docs/device.md.
//
// Only this header is meant to be included from outside backends/hip/; it needs no HIP
// header.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "c3/profile.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/device/run_detail.hpp"
#include "validator/ce_plan.hpp"

namespace c3 {

namespace backends {
/// Registers the "hip" backend ("hip" = every visible GPU, "hip:N" = the first N GPUs;
/// options after a comma: "hip:8,warmup=6,runs=9,timeout=60,cu_granule=8"). Called by
/// c3::register_builtin_backends() when built with C3_ENABLE_HIP.
void register_hip();
}  // namespace backends

namespace hip {

/// Versions and names for provenance (calibration output, measurement files).
struct HipProvenance {
  std::string platform;  ///< "AMD" or "NVIDIA" (HIP's platform this build runs on)
  std::string device;    ///< "AMD Instinct MI300X"
  std::string arch;      ///< "gfx942:sramecc+:xnack-" (AMD)
  int gpus = 0;
  int cus = 0;           ///< compute units per GPU
  std::string driver;    ///< HIP driver version
  std::string runtime;   ///< HIP runtime version
  std::string hipblaslt; ///< "built in" or "not built in" (the version is not queried)
  std::string rccl;      ///< "2.21.5" (the library loaded), or "not built in"
  std::string peers;     ///< e.g. "all pairs peer-capable"
};

/// Reads the provenance of the GPUs this process sees. Throws BackendError when there is
/// no HIP device.
HipProvenance hip_provenance();

struct HipOptions {
  int gpus = 0;               ///< 0 = every visible GPU
  int warmup_runs = 6;
  int measured_runs = 9;
  double run_timeout_s = 60;  ///< watchdog: one run (all GPUs) longer than this fails ("timeout")
  /// Collective with cus > 0, and rp's collective: also confine it to a CU-masked stream of
  /// that many CUs (false: RCCL on an unmasked stream with the CTA budget only).
  bool partition_collective = true;
  /// The collective's streams get the highest priority (sp and unpartitioned collectives;
  /// a CU-masked stream takes no priority). Off by default.
  bool collective_high_priority = false;
  bool verify = true;         ///< check outputs (collectives on device, GEMM samples on host)
  int gemm_check_samples = 48;
  /// Dependent pairs: after the timed runs, this many more runs with a timing event after
  /// every job (Measurement::timeline, docs/device.md); 0: none.
  int trace_runs = 0;
  /// CU-mask groups are multiples of this (the XCC count: 8 on MI300X; device::cu_partition).
  int cu_granule = 8;
  validator::CeOptions ce;    ///< copy-engine variant of Transport::dma (peer copies, host launch)
  /// Fault injection (docs/reliability.md): the `fault_at`-th measurement fails for real:
  /// "oom" (hipMalloc of more than the GPU has) or "timeout" (a 0.1 ms watchdog).
  std::string fault;
  long fault_at = 0;
};

/// Parses the text after "hip:" ("", "8", "8,warmup=1,runs=3,timeout=30,ce=pull,cu_granule=8",
/// "2,fault=oom@5"). Throws InputError.
HipOptions parse_hip_options(const std::string& arg);

using device::ProbeResult;
using device::RunDetail;

class HipValidator final : public Validator {
 public:
  HipValidator(const HipOptions& options, const HardwareProfile& hw);
  ~HipValidator() override;
  HipValidator(const HipValidator&) = delete;
  HipValidator& operator=(const HipValidator&) = delete;

  const HipOptions& options() const;
  void set_runs(int warmup_runs, int measured_runs);
  void set_run_timeout(double seconds);
  void set_ce_options(const validator::CeOptions& ce);
  void set_partition_collective(bool on);
  void set_collective_high_priority(bool on);
  /// Fault injection for tests: the next measurement fails through `fault` ("oom",
  /// "timeout"). Throws InputError for another name.
  void inject_fault_next(const std::string& fault);

  int gpu_count() const;
  int cu_count() const;
  /// Details of the last measurement.
  const RunDetail& last_detail() const;
  /// The CU-mask split for `cus` CUs taken off: {group, rest}.
  std::pair<int, int> partition_for(int cus);
  /// False after a timeout or an unrecoverable error: every later call fails fast.
  bool healthy() const;

  /// Diagnostic: launches a probe kernel (4 blocks per CU) on the group and on the rest of
  /// a partition taking `removed` CUs (0: on the unmasked stream) and counts the distinct
  /// compute units their blocks ran on. A partition holds when the group and the rest run
  /// on disjoint CUs, no more than their sizes. Never throws.
  ProbeResult probe_cu_ids(int removed);

 private:
  Capabilities do_capabilities() const override;
  Measurement do_gemm(const Gemm& gemm, int cus_removed) override;
  Measurement do_collective(const Collective& collective, Transport transport, int cus) override;
  Measurement do_concurrent(const C3Pair& pair, const Strategy& strategy) override;
  Measurement do_copy(CopyPath path, std::int64_t size_bytes) override;
  /// A ce_{push|pull}_peer[_cN][_fixed] name (parse_ce_variant); other variants (batched
  /// copies, graphs) are refused with InputError.
  void do_set_dma_variant(const std::string& name) override;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hip
}  // namespace c3
