// model.md §1: the isolated GEMM (roofline with efficiencies) and its waves.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <tuple>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::model {
namespace {

double peak_flops_per_s(const HardwareProfile& hw, DType dtype) {
  const auto it = hw.peak_flops_per_s.find(dtype);
  if (it == hw.peak_flops_per_s.end() || !(it->second > 0))
    throw InputError("profile '" + hw.name + "' has no peak_flops_per_s for " +
                     std::string(to_string(dtype)));
  return it->second;
}

// a, b > 0; a + b - 1 would overflow for a near INT64_MAX.
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace

double gemm_flops(const Gemm& gemm) {
  return 2.0 * static_cast<double>(gemm.m) * static_cast<double>(gemm.n) *
         static_cast<double>(gemm.k);
}

double gemm_min_bytes(const Gemm& gemm) {
  const double m = static_cast<double>(gemm.m), n = static_cast<double>(gemm.n),
               k = static_cast<double>(gemm.k);
  return (m * k + k * n + m * n) * bytes_per_element(gemm.dtype);
}

double gemm_op_per_byte(const Gemm& gemm) { return gemm_flops(gemm) / gemm_min_bytes(gemm); }

double machine_op_per_byte(const HardwareProfile& hw, DType dtype) {
  return peak_flops_per_s(hw, dtype) / hw.hbm_bw_bytes_per_s;
}

GemmClass gemm_class(const HardwareProfile& hw, const Gemm& gemm) {
  return gemm_op_per_byte(gemm) > machine_op_per_byte(hw, gemm.dtype) ? GemmClass::compute_bound
                                                                       : GemmClass::memory_bound;
}

double gemm_compute_efficiency(const HardwareProfile& hw, const Gemm& gemm) {
  const Table& curve = hw.gemm_efficiency_curve;
  if (curve.x.empty()) return hw.gemm_efficiency_compute;
  return interpolate_log_x_held(curve, gemm_flops(gemm));
}

double sustained_gemm_slowdown(const HardwareProfile& hw, double gemm_s) {
  const Table& curve = hw.sustained_gemm_slowdown;
  return curve.x.empty() ? 1.0 : interpolate_log_x_held(curve, gemm_s);
}

namespace {

// The largest power of two up to 16 that divides `bytes`.
int power_of_two_alignment(std::int64_t bytes) {
  int alignment = 1;
  while (alignment < 16 && bytes % (2 * alignment) == 0) alignment *= 2;
  return alignment;
}

}  // namespace

int gemm_alignment_bytes(const Gemm& gemm) {
  const std::int64_t element = bytes_per_element(gemm.dtype);
  // k is A's and B's leading dimension in both layouts; the output's is m (tn) or n (row_major).
  const std::int64_t output_lead = gemm.layout == GemmLayout::tn ? gemm.m : gemm.n;
  int alignment = 16;
  // (lead mod 16) * element has the alignment of lead * element (16 divides both the same
  // way) and cannot overflow; 0 is 16-byte aligned.
  for (const std::int64_t lead : {gemm.k, output_lead})
    if (lead > 1) alignment = std::min(alignment, power_of_two_alignment((lead % 16) * element));
  return alignment;
}

UnalignedFactors gemm_unaligned_factors(const HardwareProfile& hw, const Gemm& gemm) {
  const int alignment = gemm_alignment_bytes(gemm);
  if (alignment >= 16) return {};
  const auto at = [&](const Table& table, double none) {
    return table.x.empty() ? none : interpolate_log_x_held(table, static_cast<double>(alignment));
  };
  return {at(hw.gemm_unaligned_compute, 1.0), at(hw.gemm_unaligned_memory, 1.0), at(hw.gemm_unaligned_latency_s, 0.0)};
}

namespace {

// §1's two roofline terms at `compute_efficiency`, without the latency, each divided by the
// §1.1 factor (1: aligned); extra_bytes: operands read again (§7.3's batched steps).
GemmRoofline roofline_terms_s(const HardwareProfile& hw, const Gemm& gemm, double compute_efficiency,
                              double extra_bytes = 0, const UnalignedFactors& u = {}) {
  return {gemm_flops(gemm) / (peak_flops_per_s(hw, gemm.dtype) * compute_efficiency * u.compute),
          (gemm_min_bytes(gemm) + extra_bytes) / (hw.hbm_bw_bytes_per_s * hw.gemm_efficiency_memory * u.memory)};
}

// l_u + max(compute / u_c, memory / u_m): §1 without the latency, u_c, u_m and l_u of §1.1.
double gemm_busy_s(const HardwareProfile& hw, const Gemm& gemm, double compute_efficiency, double extra_bytes = 0) {
  const UnalignedFactors u = gemm_unaligned_factors(hw, gemm);
  const GemmRoofline r = roofline_terms_s(hw, gemm, compute_efficiency, extra_bytes, u);
  return u.latency_s + std::max(r.compute_s, r.memory_s);
}

}  // namespace

GemmRoofline gemm_aligned_roofline_s(const HardwareProfile& hw, const Gemm& gemm) {
  validate(gemm);
  return roofline_terms_s(hw, gemm, gemm_compute_efficiency(hw, gemm));
}

namespace {

auto gemm_time_key(const Gemm& g) { return std::tuple(g.dtype, g.layout, g.m, g.n, g.k); }

}  // namespace

const GemmTimeShape* measured_gemm_time(const HardwareProfile& hw, const Gemm& gemm) {
  const auto at =
      std::lower_bound(hw.gemm_times.begin(), hw.gemm_times.end(), gemm_time_key(gemm),
                       [](const GemmTimeShape& e, const auto& key) { return gemm_time_key(e.gemm) < key; });
  return at != hw.gemm_times.end() && gemm_time_key(at->gemm) == gemm_time_key(gemm) ? &*at : nullptr;
}

HardwareProfile with_gemm_times(HardwareProfile hw, const std::vector<GemmTimeShape>& times) {
  for (const GemmTimeShape& t : times) {
    validate(t.gemm);
    if (!(t.seconds > 0 && std::isfinite(t.seconds)))
      throw InputError("a GEMM's measured time must be a finite number of seconds > 0");
    const auto at =
        std::lower_bound(hw.gemm_times.begin(), hw.gemm_times.end(), gemm_time_key(t.gemm),
                         [](const GemmTimeShape& e, const auto& key) { return gemm_time_key(e.gemm) < key; });
    if (at != hw.gemm_times.end() && gemm_time_key(at->gemm) == gemm_time_key(t.gemm))
      *at = t;
    else
      hw.gemm_times.insert(at, t);
  }
  return hw;
}

double gemm_time_s(const HardwareProfile& hw, const Gemm& gemm) {
  validate(gemm);
  if (const GemmTimeShape* measured = measured_gemm_time(hw, gemm)) return measured->seconds;
  return hw.gemm_latency_s + gemm_busy_s(hw, gemm, gemm_compute_efficiency(hw, gemm));
}

double gemm_piece_time_s(const HardwareProfile& hw, const Gemm& piece, const Gemm& whole, double latency_s) {
  validate(piece);
  validate(whole);
  if (!(latency_s >= 0)) throw InputError("a GEMM piece's latency must be a non-negative number of seconds");
  return latency_s + gemm_busy_s(hw, piece, gemm_compute_efficiency(hw, whole));
}

double gemm_batched_piece_time_s(const HardwareProfile& hw, const Gemm& block, int blocks, const Gemm& whole,
                                 double latency_s, double reread) {
  validate(block);
  validate(whole);
  if (blocks < 1) throw InputError("a batched GEMM piece needs at least one block (got " + std::to_string(blocks) + ")");
  if (!(reread >= 0 && reread <= 1)) throw InputError("the share of B read again must be in [0, 1]");
  if (!(latency_s >= 0)) throw InputError("a GEMM piece's latency must be a non-negative number of seconds");
  Gemm rows = block;
  rows.m = block.m * blocks;
  validate(rows);
  const double b_again_bytes = (blocks - 1) * reread * static_cast<double>(block.k) *
                               static_cast<double>(block.n) * bytes_per_element(block.dtype);
  return latency_s + gemm_busy_s(hw, rows, gemm_compute_efficiency(hw, whole), b_again_bytes);
}

double gemm_roofline_time_s(const HardwareProfile& hw, const Gemm& gemm, double efficiency) {
  validate(gemm);
  const double compute_s = gemm_flops(gemm) / (peak_flops_per_s(hw, gemm.dtype) * efficiency);
  const double memory_s = gemm_min_bytes(gemm) / (hw.hbm_bw_bytes_per_s * efficiency);
  return std::max(compute_s, memory_s);
}

namespace {

double log_of(std::int64_t x) { return std::log(static_cast<double>(x)); }

// The log shapes of a kernel list, kept per thread for the last list seen: an advise call
// looks up tiles many times in one profile, and the logs of a few hundred kernels cost far
// more than comparing the list with the cached one (docs/python.md, the per-call cost).
// Only a cache: the answer is that of computing every log on every call.
const std::vector<std::array<double, 3>>& kernel_logs(const std::vector<GemmKernelShape>& kernels) {
  thread_local std::vector<GemmKernelShape> cached;
  thread_local std::vector<std::array<double, 3>> logs;
  // The logs depend on the shapes alone.
  const bool hit = cached.size() == kernels.size() &&
                   std::equal(cached.begin(), cached.end(), kernels.begin(),
                              [](const GemmKernelShape& a, const GemmKernelShape& b) { return a.gemm == b.gemm; });
  if (!hit) {
    cached = kernels;
    logs.clear();
    for (const GemmKernelShape& k : kernels) logs.push_back({log_of(k.gemm.m), log_of(k.gemm.n), log_of(k.gemm.k)});
  }
  return logs;
}

}  // namespace

GemmTile gemm_tile(const HardwareProfile& hw, const Gemm& gemm) {
  const std::vector<std::array<double, 3>>& logs = kernel_logs(hw.gemm_kernels);
  const double lm = log_of(gemm.m), ln = log_of(gemm.n), lk = log_of(gemm.k);
  const GemmKernelShape* nearest = nullptr;
  double best = std::numeric_limits<double>::infinity();
  bool best_same_dtype = false;
  for (std::size_t i = 0; i < hw.gemm_kernels.size(); ++i) {
    const GemmKernelShape& k = hw.gemm_kernels[i];
    const bool same_dtype = k.gemm.dtype == gemm.dtype;
    const double dm = logs[i][0] - lm, dn = logs[i][1] - ln, dk = logs[i][2] - lk;
    const double d = dm * dm + dn * dn + dk * dk;  // the squared distance: the same order, no root
    if ((same_dtype && !best_same_dtype) || (same_dtype == best_same_dtype && d < best)) {
      nearest = &k;
      best = d;
      best_same_dtype = same_dtype;
    }
  }
  if (nearest == nullptr) return GemmTile{hw.gemm_tile_m, hw.gemm_tile_n, 1};
  return GemmTile{nearest->tile_m, nearest->tile_n, nearest->split_k};
}

HardwareProfile with_gemm_kernels(HardwareProfile hw, const std::vector<GemmKernelShape>& kernels) {
  for (const GemmKernelShape& k : kernels) {
    const auto same = std::find_if(hw.gemm_kernels.begin(), hw.gemm_kernels.end(),
                                   [&](const GemmKernelShape& h) { return h.gemm == k.gemm; });
    if (same != hw.gemm_kernels.end())
      *same = k;
    else
      hw.gemm_kernels.push_back(k);
  }
  return hw;
}

std::int64_t gemm_workgroups(const HardwareProfile& hw, const Gemm& gemm) {
  const GemmTile tile = gemm_tile(hw, gemm);
  const std::int64_t tiles_m = ceil_div(gemm.m, tile.m);
  const std::int64_t tiles_n = ceil_div(gemm.n, tile.n);
  // A valid GEMM (validate) may have more tiles than an int64 holds: saturate.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (tiles_m > kMax / tiles_n) return kMax;
  const std::int64_t tiles = tiles_m * tiles_n;
  return tiles > kMax / tile.split_k ? kMax : tiles * tile.split_k;
}

std::int64_t workgroup_waves(const HardwareProfile& hw, std::int64_t workgroups, int cus) {
  if (cus <= 0) throw InputError("a GEMM needs at least one CU (got " + std::to_string(cus) + ")");
  return ceil_div(workgroups, static_cast<std::int64_t>(cus) * hw.gemm_workgroups_per_cu);
}

std::int64_t gemm_waves(const HardwareProfile& hw, const Gemm& gemm, int cus) {
  if (cus <= 0) throw InputError("a GEMM needs at least one CU (got " + std::to_string(cus) + ")");
  return workgroup_waves(hw, gemm_workgroups(hw, gemm), cus);
}

int gemm_last_wave_idle_cus(const HardwareProfile& hw, const Gemm& gemm, int cus) {
  if (cus <= 0) throw InputError("a GEMM needs at least one CU (got " + std::to_string(cus) + ")");
  const std::int64_t per_wave = static_cast<std::int64_t>(cus) * hw.gemm_workgroups_per_cu;
  const std::int64_t workgroups = gemm_workgroups(hw, gemm);  // one tile lookup, not two
  const std::int64_t in_last_wave = workgroups - (ceil_div(workgroups, per_wave) - 1) * per_wave;
  return static_cast<int>((per_wave - in_last_wave) / hw.gemm_workgroups_per_cu);
}

}  // namespace c3::model
