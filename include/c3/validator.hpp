// c3/validator.hpp: running pairs on hardware (or a simulator) to check advice.
// A Validator is chosen by name from a registry ("sim", "replay:FILE", "cuda:N").
// Public calls are non-virtual and forward to private hooks (NVI), so that every
// backend gets the same argument checks.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "c3/profile.hpp"
#include "c3/strategy.hpp"
#include "c3/types.hpp"

namespace c3 {

/// The GEMM kernel a backend ran, when it knows it (cuda: cuBLASLt's chosen algorithm).
/// Tiles and waves are what the model's wave terms use (docs/model.md §1).
struct GemmKernel {
  int algo_id = -1;       ///< cuBLASLt CUBLASLT_ALGO_CONFIG_ID (-1 unknown)
  int tile_id = -1;       ///< cuBLASLt tile enum (-1 unknown)
  int tile_m = 0;         ///< output rows (along m) of one CTA's tile (0 unknown)
  int tile_n = 0;         ///< output columns (along n) of one CTA's tile (0 unknown)
  int split_k = 1;        ///< split-K factor (1: none)
  int stages_id = -1;     ///< cuBLASLt stages enum (-1 unknown)
  std::int64_t ctas = 0;  ///< CTAs launched: ceil(m / tile_m) ceil(n / tile_n) split_k (0 unknown)
  double waves = 0;       ///< cuBLASLt's own estimate: tiles / SMs the kernel was planned for
  int sm_target = 0;      ///< SM-count hint given to the heuristic (0: every SM)

  bool known() const { return tile_m > 0 && tile_n > 0; }
};

/// When one job of a dependent pair's schedule ended in a traced run (a GPU backend's
/// option `trace=N`, docs/device.md): the median over N runs made after the timed ones,
/// each with a timing event recorded after every job. Times are from the start of that
/// rank's run on the job's own stream (events of different GPUs or contexts cannot be
/// compared), so marks of different ranks or streams line up only as closely as the
/// streams start together (the host records every start before it launches anything).
struct TimelineMark {
  std::string stream;  ///< "gemm" (a GEMM job), "collective" (a step's collective calls) or "copy" (dma)
  int rank = 0;        ///< the rank whose stream ran it (copy: the rank that issued the copy)
  int index = 0;       ///< the GEMM job (gemm) or the step (collective, copy), in launch order
  int peer = -1;       ///< copy: the other rank of the copy; -1 otherwise
  double end_s = 0;    ///< the job's end, seconds from the start of its stream's run
  friend bool operator==(const TimelineMark&, const TimelineMark&) = default;
};

/// The result of timing one thing: warm-up runs, then measured runs.
/// A failure (out of memory, NCCL error, timeout) is recorded, not thrown:
/// ok = false and `error` names it.
struct Measurement {
  bool ok = false;
  std::string error;
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  std::vector<double> runs_s;  ///< every measured run, in order
  int warmup_runs = 0;
  bool verified = false;       ///< outputs were checked and correct
  /// The GEMM kernel of a gemm or concurrent measurement, when the backend reports it.
  GemmKernel gemm_kernel;
  /// Host launch time (median over the measured runs, s), when the measuring program reports
  /// it (scripts/gpu-jobs/torch_pairs.py, copy engines launched from Python): of a collective
  /// alone, its launch call; of a pair launched collective-first, from the start of the
  /// collective's launch call to the start of the GEMM's (docs/model.md §4.4). 0 = not measured.
  double host_launch_s = 0;
  /// A dependent pair's jobs in traced runs (empty: not traced). Not part of the timing
  /// above: the traced runs pay an event record per job that the timed ones do not.
  std::vector<TimelineMark> timeline;
};

/// The median of `values` (the mean of the middle two for an even count); `values` must not be
/// empty. The one median of measured times (runs, files, fits).
double median_of(std::vector<double> values);

/// Builds a Measurement (median, min, max) from raw run times.
Measurement summarize_runs(std::vector<double> runs_s, int warmup_runs, bool verified);

/// Which copy a ceiling measurement times:
///  device_local: size_bytes read and written in one GPU's HBM (bandwidth = 2 size / time);
///  one_peer:     size_bytes sent to one peer (bandwidth = size / time);
///  all_peers:    size_bytes split evenly over every peer, sent at once (size / time).
enum class CopyPath { device_local, one_peer, all_peers };
std::string_view to_string(CopyPath path);

struct Capabilities {
  std::string backend;  ///< "sim", "replay", "cuda"
  std::string device;   ///< "NVIDIA H200 x4", "simulated mi300x"
  int gpus = 0;
  int compute_units = 0;                ///< CUs/SMs per GPU (bounds cus arguments; 0 = unchecked)
  std::map<std::string, std::string> versions;  ///< "driver", "cuda", "cublas", "nccl" -> version
  std::vector<StrategyKind> strategies;  ///< which strategy kinds it can run
  /// Implementations of Transport::dma it can run (the cuda backend: "ce_push_peer",
  /// "ce_pull_batch_c4_ovl_graph", "nccl_ce", ...; see docs/collectives.md). The first is
  /// the default. Empty: one implementation, not named.
  std::vector<std::string> dma_variants;
  std::vector<std::string> notes;        ///< what does not hold, and why
};

/// What a backend's hardware can do for a strategy's ExecutionPlan.
struct Mechanisms {
  bool partitions = false;    ///< compute-unit partitions (green contexts, CU masks)
  bool copy_engines = false;  ///< the dma transport
  int max_chunks = 1;         ///< the most pieces a pair may be decomposed into
};
/// Every registered strategy kind whose ExecutionPlan needs no more than `m`, in
/// canonical order (what Capabilities::strategies lists).
std::vector<StrategyKind> runnable_kinds(const Mechanisms& m);

/// How many times each measurement runs: warm-up runs first, then measured runs. With the
/// time bounds (the GPU backends; nvbench's --min-time), a short measurement runs more: the
/// warm-up goes on until its runs add up to min_warmup_s of device time, the measured runs
/// until theirs add up to min_time_s, each at least its count and at most max_runs runs.
struct RunConfig {
  int warmup_runs = 6;     ///< >= 0
  int measured_runs = 9;   ///< >= 1
  double min_warmup_s = 0; ///< >= 0, finite: 0 = the count alone
  double min_time_s = 0;   ///< >= 0, finite: 0 = the count alone
  int max_runs = 1000;     ///< >= measured_runs and >= warmup_runs: the most runs of each phase
};

class Validator {
 public:
  virtual ~Validator() = default;

  /// Throws InputError for negative warm-up or fewer than one measured run.
  void set_run_config(const RunConfig& config);
  const RunConfig& run_config() const { return run_config_; }

  Capabilities capabilities() const { return do_capabilities(); }
  /// GEMM with `cus_removed` CUs taken away (0 = all CUs).
  Measurement gemm(const Gemm& gemm, int cus_removed);
  /// Collective on `transport`; `cus` = CUs given (0 = library default; ignored on DMA).
  Measurement collective(const Collective& collective, Transport transport, int cus);
  /// Both at once under `strategy`, timed from first launch to last completion.
  Measurement concurrent(const C3Pair& pair, const Strategy& strategy);
  /// A copy of `size_bytes` (ceilings: HBM, one link, all links).
  Measurement copy(CopyPath path, std::int64_t size_bytes);

  /// Selects the implementation of Transport::dma for later measurements ("" = the
  /// default, the first of capabilities().dma_variants). Throws InputError for a name the
  /// backend cannot run (the message lists the names it can).
  void set_dma_variant(const std::string& name);
  /// The implementation Transport::dma uses now ("" when the backend names none).
  std::string dma_variant() const;

 private:
  RunConfig run_config_;
  std::string dma_variant_;  ///< "" until set_dma_variant: the default

  /// Accepts `name` (never ""; already resolved from the default) or throws InputError.
  /// Default: only names listed in capabilities().dma_variants.
  virtual void do_set_dma_variant(const std::string& name);

  virtual Capabilities do_capabilities() const = 0;
  virtual Measurement do_gemm(const Gemm& gemm, int cus_removed) = 0;
  virtual Measurement do_collective(const Collective& collective, Transport transport,
                                    int cus) = 0;
  virtual Measurement do_concurrent(const C3Pair& pair, const Strategy& strategy) = 0;
  virtual Measurement do_copy(CopyPath path, std::int64_t size_bytes) = 0;
};

/// Makes a backend from its argument (the text after "name:", may be empty) and
/// the profile it is checked against. Throws InputError / BackendError.
using ValidatorFactory =
    std::function<std::unique_ptr<Validator>(const std::string& arg, const HardwareProfile& hw)>;

/// Adds a backend to the registry (replaces one of the same name).
void register_backend(const std::string& name, ValidatorFactory factory);
/// Registers every backend built into this library (generated by the build from the
/// backends that declare themselves, cmake/C3Backends.cmake: "sim", "replay", and "cuda"
/// when built with C3_ENABLE_CUDA). Idempotent and thread-safe; the command line and the
/// tests call it once at start. Defined in the c3_backends library.
void register_builtin_backends();
/// Names of the registered backends, sorted.
std::vector<std::string> backend_names();
/// Throws InputError, as make_validator does, when `spec`'s backend name is not registered;
/// checks nothing else (its argument is the backend's to read).
void require_known_backend(const std::string& spec);
/// "sim", "replay:FILE", "cuda:4". Throws InputError for an unknown name.
std::unique_ptr<Validator> make_validator(const std::string& spec, const HardwareProfile& hw);

}  // namespace c3
