// docs/model.md §1.2, docs/calibration.md "GEMM times per shape": calibrate/gemm_times_fit.hpp.
#include "calibrate/gemm_times_fit.hpp"

#include <algorithm>

#include "c3/errors.hpp"

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
  // The runner times tn GEMMs only; a record of another layout is not one of its times.
  std::vector<GemmTimeShape> table = measured_gemm_times(files);
  table.erase(std::remove_if(table.begin(), table.end(),
                             [](const GemmTimeShape& t) { return t.gemm.layout != GemmLayout::tn; }),
              table.end());
  const auto used = std::count_if(files.begin(), files.end(), [](const RawMeasurements& f) {
    return std::any_of(f.records.begin(), f.records.end(),
                       [](const Record& r) { return gemm_time_query(r) != nullptr; });
  });
  notes.push_back("gemm_times: " + std::to_string(table.size()) + " shapes from " + std::to_string(used) +
                  " of " + std::to_string(files.size()) + " files");
  return table;
}

}  // namespace c3::validator
