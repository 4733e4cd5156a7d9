// docs/model.md §1.1, docs/calibration.md "Unaligned GEMMs": calibrate/unaligned_fit.hpp.
#include "calibrate/unaligned_fit.hpp"

#include <algorithm>
#include <map>
#include <variant>

#include "c3/model.hpp"

namespace c3::validator {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One table from the values per alignment; empty with a note when no alignment has enough.
Table table_of(const std::map<int, std::vector<double>>& by_alignment, const std::string& name,
               const Provenance& source, std::vector<std::string>& notes) {
  Table table;
  table.name = name;
  table.provenance = source;
  std::string counts;
  for (const auto& [alignment, values] : by_alignment) {
    counts += (counts.empty() ? "" : ", ") + std::to_string(values.size()) + " at " + std::to_string(alignment) + " B";
    if (values.size() < kMinUnalignedPerPoint) continue;
    table.x.push_back(alignment);
    table.y.push_back(median(values));
  }
  if (table.x.empty()) {
    notes.push_back(name + ": not fitted (" + (counts.empty() ? "no GEMM" : counts) + "; " +
                    std::to_string(kMinUnalignedPerPoint) + " at one alignment needed)");
    return Table{};
  }
  notes.push_back(name + ": from " + counts);
  return table;
}

}  // namespace

UnalignedFit fit_unaligned_gemms(const HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                 const Provenance& source, std::vector<std::string>& notes) {
  std::map<int, std::vector<double>> compute, memory;
  for (const RawMeasurements& file : files)
    for (const Record& record : file.records) {
      const auto* q = std::get_if<GemmQuery>(&record.query);
      const Measurement& m = record.measurement;
      if (q == nullptr || q->cus_removed != 0 || !m.ok || !m.verified) continue;
      const int alignment = model::gemm_alignment_bytes(q->gemm);
      if (alignment >= 16 || !(m.median_s >= 2 * hw.gemm_latency_s)) continue;
      const double busy_s = m.median_s - hw.gemm_latency_s;
      const model::GemmRoofline r = model::gemm_aligned_roofline_s(hw, q->gemm);
      if (r.compute_s >= r.memory_s)
        compute[alignment].push_back(std::min(1.0, r.compute_s / busy_s));
      else
        memory[alignment].push_back(std::min(1.0, r.memory_s / busy_s));
    }
  UnalignedFit fit;
  fit.compute = table_of(compute, "gemm_unaligned_compute", source, notes);
  fit.memory = table_of(memory, "gemm_unaligned_memory", source, notes);
  return fit;
}

}  // namespace c3::validator
