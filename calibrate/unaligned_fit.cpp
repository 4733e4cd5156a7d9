// docs/model.md §1.1, docs/calibration.md "Unaligned GEMMs": calibrate/unaligned_fit.hpp.
#include "calibrate/unaligned_fit.hpp"

#include <algorithm>
#include <map>
#include <variant>

#include "c3/model.hpp"
#include "c3/validator.hpp"

namespace c3::validator {
namespace {

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
    const double y = median_of(values);
    if (!(y > 0)) continue;  // a latency of none: 0 is no point of a table of positive values
    table.x.push_back(alignment);
    table.y.push_back(y);
  }
  if (table.x.empty()) {
    notes.push_back(name + ": not fitted (" + (counts.empty() ? "no GEMM" : counts) + "; " +
                    std::to_string(kMinUnalignedPerPoint) + " at one alignment needed, a positive median)");
    return Table{};
  }
  notes.push_back(name + ": from " + counts);
  return table;
}

struct Sample {
  int alignment = 16;
  double median_s = 0;
  model::GemmRoofline aligned;
};

double at(const Table& table, int alignment, double none) {
  return table.x.empty() ? none : model::interpolate_log_x_held(table, static_cast<double>(alignment));
}

}  // namespace

UnalignedFit fit_unaligned_gemms(const HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                 const Provenance& source, std::vector<std::string>& notes) {
  std::vector<Sample> samples;
  for (const RawMeasurements& file : files)
    for (const Record& record : file.records) {
      const auto* q = std::get_if<GemmQuery>(&record.query);
      const Measurement& m = record.measurement;
      if (q == nullptr || q->cus_removed != 0 || !m.ok || !m.verified || !(m.median_s > 0)) continue;
      const int alignment = model::gemm_alignment_bytes(q->gemm);
      if (alignment < 16) samples.push_back({alignment, m.median_s, model::gemm_aligned_roofline_s(hw, q->gemm)});
    }
  const double latency_s = hw.gemm_latency_s;
  const auto long_enough = [&](const Sample& s) { return std::max(s.aligned.compute_s, s.aligned.memory_s) >= latency_s; };
  UnalignedFit fit;
  std::vector<std::string> pass_notes;
  for (int pass = 0; pass < 2; ++pass) {
    pass_notes.clear();
    std::map<int, std::vector<double>> compute, memory, latency;
    for (const Sample& s : samples) {
      if (!long_enough(s)) continue;
      const double busy_s = s.median_s - latency_s - at(fit.latency_s, s.alignment, 0.0);
      if (!(busy_s > 0)) continue;
      if (s.aligned.compute_s >= s.aligned.memory_s)
        compute[s.alignment].push_back(std::min(1.0, s.aligned.compute_s / busy_s));
      else
        memory[s.alignment].push_back(std::min(1.0, s.aligned.memory_s / busy_s));
    }
    fit.compute = table_of(compute, "gemm_unaligned_compute", source, pass_notes);
    fit.memory = table_of(memory, "gemm_unaligned_memory", source, pass_notes);
    for (const Sample& s : samples) {
      if (long_enough(s)) continue;
      const double busy_s = std::max(s.aligned.compute_s / at(fit.compute, s.alignment, 1.0),
                                     s.aligned.memory_s / at(fit.memory, s.alignment, 1.0));
      latency[s.alignment].push_back(s.median_s - latency_s - busy_s);
    }
    fit.latency_s = table_of(latency, "gemm_unaligned_latency_s", source, pass_notes);
  }
  notes.insert(notes.end(), pass_notes.begin(), pass_notes.end());
  return fit;
}

}  // namespace c3::validator
