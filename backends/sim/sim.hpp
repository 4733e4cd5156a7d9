// backends/sim/sim.hpp: the `sim` backend, a wave-level simulator of one GPU of a
// node. It is deliberately not the advisor's analytical model: GEMM workgroups are
// dispatched in waves onto CUs, collective channels and copy engines move bytes,
// and everything shares HBM and link bandwidth (backends/sim/sim_engine.hpp). Its
// parameters are its own (defaults derived from a profile's ceilings); see docs/sim.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "c3/profile.hpp"
#include "c3/validator.hpp"

namespace c3::validator {

struct SimParams {
  std::string device;  ///< "simulated mi300x"
  int gpus = 0;
  int compute_units = 0;

  // --- GEMM ---
  int gemm_tile_m = 256;
  int gemm_tile_n = 128;
  int gemm_workgroups_per_cu = 1;
  std::map<DType, double> cu_flops_per_s;  ///< one CU's peak, per dtype
  double cu_max_bw_bytes_per_s = 0;        ///< most HBM traffic one CU can draw
  double gemm_unit_cache_bytes = 0;        ///< last-level cache one running GEMM CU holds
  double kernel_launch_s = 0;              ///< launch to first dispatch, every kernel

  // --- memory ---
  double hbm_bw_bytes_per_s = 0;  ///< attainable, shared by everything
  double llc_bytes = 0;

  // --- collectives on CUs: one channel per CU ---
  double link_bw_bytes_per_s = 0;              ///< per GPU, per direction, all links
  double peer_link_bw_bytes_per_s = 0;         ///< to one peer
  std::map<CollectiveKind, double> channel_bw_bytes_per_s;
  std::map<CollectiveKind, int> default_channels;
  double collective_launch_s = 0;  ///< per launch: setup and cross-rank handshake
  double step_latency_s = 0;       ///< per algorithm step (ranks - 1; twice for all_reduce)
  double chunk_bytes = 0;          ///< a channel moves its bytes in chunks of this size
  double chunk_overhead_s = 0;     ///< per chunk
  double channel_cache_bytes = 0;  ///< last-level cache one running channel holds

  // --- collectives on copy engines ---
  int copy_engines = 0;
  double engine_bw_bytes_per_s = 0;
  double dma_issue_s = 0;  ///< host time to issue one per-peer transfer
  double dma_sync_s = 0;   ///< host time to synchronize after the last
  double event_wait_s = 0; ///< a decomposed schedule's cross-stream wait (event record + wait)

  // --- run-to-run spread ---
  double noise = 0;        ///< relative standard deviation of a run's time
  std::uint64_t seed = 1;  ///< with the query, fixes every run's noise
};

/// The simulator's defaults for a machine described by `hw` (docs/sim.md lists the
/// rules). Throws InputError when `hw` lacks a ceiling the simulator needs.
SimParams sim_params(const HardwareProfile& hw);

/// Applies a backend argument "key=value,key=value" (keys: noise, seed) to `params`.
/// Throws InputError naming the valid keys.
void apply_sim_arg(SimParams& params, std::string_view arg);

/// A `sim` backend with explicit parameters.
std::unique_ptr<Validator> make_sim_validator(const SimParams& params);
/// The registry's factory: sim_params(hw) with `arg` applied.
std::unique_ptr<Validator> make_sim_validator(const std::string& arg, const HardwareProfile& hw);

}  // namespace c3::validator
