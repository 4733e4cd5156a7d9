// docs/model.md §1.2, docs/calibration.md "GEMM times per shape": calibrate/gemm_times_fit.hpp.
#include "calibrate/gemm_times_fit.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include "c3/errors.hpp"
#include "calibrate/median.hpp"

namespace c3::validator {

bool gated_timing(const RawMeasurements& file) {
  return std::any_of(file.provenance.notes.begin(), file.provenance.notes.end(),
                     [](const std::string& note) { return note.rfind("timing: gated runs", 0) == 0; });
}

std::vector<GemmTimeShape> fit_gemm_times(const std::vector<RawMeasurements>& files,
                                          const std::vector<std::string>& paths,
                                          std::vector<std::string>& notes) {
  if (paths.size() != files.size()) throw InputError("fit_gemm_times: one path per file is needed");
  for (std::size_t i = 0; i < files.size(); ++i)
    if (files[i].provenance.backend == "torch")
      throw InputError(
          "--gemm-times: " + paths[i] +
          " was timed by PyTorch (backend torch): its GEMMs are torch.matmul's, not the runner's");
  for (std::size_t i = 1; i < files.size(); ++i)
    if (gated_timing(files[i]) != gated_timing(files.front()))
      throw InputError("--gemm-times: " + paths[i] + " was timed " +
                       (gated_timing(files[i]) ? "gated" : "host-paced") + " and " + paths.front() + " " +
                       (gated_timing(files.front()) ? "gated" : "host-paced") +
                       ": the times of one table come from one kind of run");
  using Key = std::tuple<DType, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, std::vector<double>> by_shape;
  std::size_t used_files = 0;
  for (const RawMeasurements& file : files) {
    std::set<Key> seen;  // a file's first record of a shape
    for (const Record& record : file.records) {
      const auto* q = std::get_if<GemmQuery>(&record.query);
      const Measurement& m = record.measurement;
      if (q == nullptr || q->cus_removed != 0 || q->gemm.layout != GemmLayout::tn || !m.ok || !m.verified ||
          !(m.median_s > 0))
        continue;
      const Key key{q->gemm.dtype, q->gemm.m, q->gemm.n, q->gemm.k};
      if (seen.insert(key).second) by_shape[key].push_back(m.median_s);
    }
    if (!seen.empty()) ++used_files;
  }
  std::vector<GemmTimeShape> table;
  for (const auto& [key, values] : by_shape) {
    const auto& [dtype, m, n, k] = key;
    table.push_back({Gemm{m, n, k, dtype}, median(values), static_cast<int>(values.size())});
  }
  notes.push_back("gemm_times: " + std::to_string(table.size()) + " shapes from " +
                  std::to_string(used_files) + " of " + std::to_string(files.size()) + " files");
  return table;
}

}  // namespace c3::validator
