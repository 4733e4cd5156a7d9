// A small profile with round numbers, built in code, so that model and advisor
// tests can be checked by hand (tests/unit/model/test_model.cpp derives each number).
#pragma once

#include "c3/profile.hpp"

namespace c3::testing {

inline Table table(std::string name, std::vector<double> x, std::vector<double> y) {
  return Table{std::move(name), std::move(x), std::move(y), {SourceKind::published, "toy"}};
}

// 100 CUs in steps of 10; 1 PFLOP/s bf16; 1 TB/s HBM (machine op:byte 1000);
// efficiencies 0.5; 100x100 tiles; all_gather on CUs: 10 us + wire / 100 GB/s
// with 20 CUs by default; on DMA: 100 us + wire / 100 GB/s.
inline HardwareProfile toy_profile() {
  HardwareProfile hw;
  hw.name = "toy";
  hw.gpu = "Toy GPU";
  hw.gpu_count = 8;
  hw.compute_units = 100;
  hw.partition_min_cus = 10;
  hw.partition_step_cus = 10;
  hw.peak_flops_per_s[DType::bf16] = 1e15;
  hw.gemm_tile_m = 100;
  hw.gemm_tile_n = 100;
  hw.gemm_workgroups_per_cu = 1;
  hw.hbm_bw_bytes_per_s = 1e12;
  hw.llc_bytes = 1e8;
  hw.link_bw_bytes_per_s = 1e11;
  hw.copy_engines = 8;
  hw.gemm_efficiency_compute = 0.5;
  hw.gemm_efficiency_memory = 0.5;
  hw.heuristic_efficiency = 0.5;
  hw.gemm_first_delay_factor = 1.0;
  hw.collectives[CollectiveKind::all_gather][Transport::cu] = {.latency_s = 1e-5, .bus_bw_bytes_per_s = 1e11, .default_cus = 20};
  hw.collectives[CollectiveKind::all_gather][Transport::dma] = {.latency_s = 1e-4, .bus_bw_bytes_per_s = 1e11};
  hw.collectives[CollectiveKind::reduce_scatter][Transport::cu] = {.latency_s = 1e-5, .bus_bw_bytes_per_s = 1e11, .default_cus = 20};
  hw.gemm_slowdown[GemmClass::compute_bound] =
      table("gemm_slowdown.compute_bound", {0, 50}, {1.0, 1.5});
  hw.gemm_slowdown[GemmClass::memory_bound] =
      table("gemm_slowdown.memory_bound", {0, 50}, {1.0, 1.0});
  for (auto kind : {CollectiveKind::all_gather, CollectiveKind::reduce_scatter}) {
    hw.collective_slowdown[kind][CollectiveClass::latency_bound] =
        table("collective_slowdown.latency_bound", {10, 50}, {1.0, 1.0});
    hw.collective_slowdown[kind][CollectiveClass::bandwidth_bound] =
        table("collective_slowdown.bandwidth_bound", {10, 20, 50}, {2.0, 1.0, 1.0});
  }
  hw.interference[Transport::cu][GemmClass::compute_bound] = {1.0, 1.0};
  hw.interference[Transport::cu][GemmClass::memory_bound] = {1.2, 1.5};
  hw.interference[Transport::dma][GemmClass::compute_bound] = {1.0, 1.0};
  hw.interference[Transport::dma][GemmClass::memory_bound] = {1.1, 1.2};
  return hw;
}

}  // namespace c3::testing
