// model.md §6: what a profile covers, and where a query leaves it.
#include <cmath>
#include <cstdio>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::model {
namespace {

std::string flops_text(double flops) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", flops);
  return buf;
}

std::string size_text(double bytes) { return format_size(static_cast<std::int64_t>(std::llround(bytes))); }

}  // namespace

Domain domain(const HardwareProfile& hw) {
  Domain d;
  d.gpus_per_node = hw.gpu_count;
  for (const auto& [dtype, peak] : hw.peak_flops_per_s)
    if (peak > 0) d.dtypes.push_back(dtype);
  const Table& eff = hw.gemm_efficiency_curve;
  if (!eff.x.empty()) d.measured.push_back({"GEMM flops", eff.x.front(), eff.x.back(), 0});
  for (const auto& [kind, transports] : hw.collectives)
    for (const auto& [transport, p] : transports)
      if (!p.curve_time_s.x.empty())
        d.measured.push_back({std::string(to_string(kind)) + " " + std::string(to_string(transport)) + " sizes",
                              p.curve_time_s.x.front(), p.curve_time_s.x.back(), p.curve_ranks});
  return d;
}

std::vector<std::string> domain_warnings(const HardwareProfile& hw, const C3Pair& pair) {
  validate(pair.gemm);
  validate(pair.collective);
  const int ranks = pair.collective.ranks;
  if (hw.gpu_count > 0 && ranks > hw.gpu_count)
    throw InputError("ranks: " + std::to_string(ranks) + " exceed the " + std::to_string(hw.gpu_count) +
                     " GPUs of the one node profile '" + hw.name + "' covers (the model has no inter-node term)");
  machine_op_per_byte(hw, pair.gemm.dtype);  // throws InputError for a dtype without a peak
  const auto kinds = hw.collectives.find(pair.collective.kind);
  if (kinds == hw.collectives.end() || !kinds->second.contains(Transport::cu))
    throw InputError("profile '" + hw.name + "' has no parameters for " +
                     std::string(to_string(pair.collective.kind)));

  std::vector<std::string> out;
  const Table& eff = hw.gemm_efficiency_curve;
  const double flops = gemm_flops(pair.gemm);
  if (!eff.x.empty() && (flops < eff.x.front() || flops > eff.x.back()))
    out.push_back("GEMM " + format_gemm(pair.gemm) + " (" + flops_text(flops) +
                  " flops) is outside the measured efficiency curve (" + flops_text(eff.x.front()) + " to " +
                  flops_text(eff.x.back()) + " flops): its efficiency is held at the curve's end");
  const auto size = static_cast<double>(pair.collective.size_bytes);
  for (const auto& [transport, p] : kinds->second) {
    if (transport == Transport::dma && !dma_capable(pair.collective.kind)) continue;
    const Table& curve = p.curve_time_s;
    if (curve.x.empty()) continue;
    const std::string what = std::string(to_string(pair.collective.kind)) + " " + format_size(pair.collective.size_bytes) +
                             " on " + std::string(to_string(transport));
    if (size < curve.x.front() || size > curve.x.back())
      out.push_back(what + " is outside the measured curve (" + size_text(curve.x.front()) + " to " +
                    size_text(curve.x.back()) + "): predicted from latency + wire bytes / bus bandwidth");
    else if (p.curve_ranks != ranks)
      out.push_back(what + ": the curve was measured at " + std::to_string(p.curve_ranks) +
                    " ranks and is scaled to " + std::to_string(ranks) + " by wire bytes");
  }
  return out;
}

}  // namespace c3::model
