// backends/sim/sim_engine.hpp: the event-driven core of the `sim` backend. It runs a
// few kernels on one GPU: GEMMs (workgroups dispatched in waves onto CUs), stream
// kernels (collective channels or copy kernels, one per CU) and copy-engine
// transfers, with HBM bandwidth and link bandwidth shared max-min fairly among
// everything active. Work is simulated per cohort (the units one kernel dispatched
// at the same instant, which progress identically), so an event is a dispatch, the
// end of a channel's setup or a cohort's retirement; never a byte. See docs/sim.md.
#pragma once

#include <cstdint>
#include <vector>

namespace c3::validator::sim {

/// Reuse of a GEMM's operands in the last-level cache (docs/sim.md, "GEMM traffic").
/// Bytes a GEMM moves from HBM: fixed_bytes + reread_bytes * (1 + rereads * miss), with
/// miss = 1 - free_cache / reread_bytes clamped to [0, 1] and free_cache = llc_bytes -
/// footprint of the active GEMM units and collective channels.
struct GemmTraffic {
  double fixed_bytes = 0;   ///< read or written once: the streamed operand and the output
  double reread_bytes = 0;  ///< the operand every row of tiles reads again
  double rereads = 0;       ///< rows of tiles - 1
  double llc_bytes = 0;
  double unit_footprint_bytes = 0;     ///< cache one running GEMM unit holds
  double channel_footprint_bytes = 0;  ///< cache one running collective channel holds
};

/// A GEMM: `units` equal units of work (one CU each), dispatched in waves.
struct GemmKernel {
  std::int64_t units = 0;
  double unit_flops = 0;
  double cu_flops_per_s = 0;       ///< one CU's peak
  double cu_max_bytes_per_s = 0;   ///< one CU's most HBM traffic
  GemmTraffic traffic;
};

/// Channels on CUs, each moving `unit_bytes` after `setup_s`.
struct StreamKernel {
  std::int64_t units = 0;
  double setup_s = 0;
  double unit_bytes = 0;
  double unit_max_bytes_per_s = 0;  ///< per-channel cap
  double link_bytes_per_byte = 0;   ///< 0: no link traffic
  double hbm_bytes_per_byte = 0;
  double link_bw_bytes_per_s = 0;   ///< shared by this kernel's channels
  bool is_collective = true;        ///< its channels hold cache (GemmTraffic)
};

/// Copy-engine transfers issued one by one from the host, round-robin over engines
/// (a busy engine queues), and a host synchronization after the last one.
struct DmaKernel {
  std::int64_t transfers = 0;
  double transfer_bytes = 0;
  double issue_s = 0;  ///< host time to issue one transfer
  double sync_s = 0;   ///< host time to synchronize after the last
  int engines = 1;
  double engine_bw_bytes_per_s = 0;
  double link_bw_bytes_per_s = 0;
  double hbm_bytes_per_byte = 0;
};

/// The engine's view of a kernel: what it runs, in which CU pool, from when.
struct Launch {
  enum class Type { gemm, stream, dma };
  Type type = Type::gemm;
  int pool = 0;          ///< index into Machine::pools (ignored for dma)
  double launch_s = 0;   ///< earliest dispatch
  GemmKernel gemm;
  StreamKernel stream;
  DmaKernel dma;
};

struct Machine {
  std::vector<int> pools;      ///< CUs of each partition
  double hbm_bw_bytes_per_s = 0;
};

/// Runs the launches (in launch order: within a pool a later kernel dispatches only
/// once every earlier one has dispatched all its units) and returns each one's
/// completion time in seconds. Throws BackendError if the run cannot progress.
std::vector<double> run(const Machine& machine, const std::vector<Launch>& launches);

/// Max-min fair division of `capacity` among groups of identical claimants
/// (`count` members each demanding `demand`); returns each group's per-member share.
struct Claim {
  double count = 0;
  double demand = 0;
};
std::vector<double> water_fill(const std::vector<Claim>& claims, double capacity);

}  // namespace c3::validator::sim
