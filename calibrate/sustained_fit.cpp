// docs/model.md §4.6, docs/calibration.md "Sustained GEMMs": calibrate/sustained_fit.hpp.
#include "calibrate/sustained_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "c3/validator.hpp"

namespace c3::validator {
namespace {

// The octave of a time: 2^i us <= t < 2^(i+1) us.
int octave(double seconds) { return static_cast<int>(std::floor(std::log2(seconds * 1e6))); }

}  // namespace

Table fit_sustained_slowdown(const SustainedFile& file, const Provenance& source, std::vector<std::string>& notes) {
  struct Bin {
    std::vector<double> burst_s;
    std::vector<double> ratio;
  };
  std::map<int, Bin> bins;
  std::size_t used = 0;
  for (const SustainedRecord& r : file.records) {
    if (!r.ok || !r.verified || !(r.burst_s > 0) || !(r.sustained_s > 0)) continue;
    Bin& bin = bins[octave(r.burst_s)];
    bin.burst_s.push_back(r.burst_s);
    bin.ratio.push_back(r.sustained_s / r.burst_s);
    ++used;
  }
  Table table;
  table.name = "sustained_gemm_slowdown";
  table.provenance = source;
  std::size_t dropped = 0;
  for (const auto& [octave_index, bin] : bins) {
    if (bin.burst_s.size() < kMinSustainedPerBin) {
      dropped += bin.burst_s.size();
      continue;
    }
    table.x.push_back(median_of(bin.burst_s));
    table.y.push_back(std::max(1.0, median_of(bin.ratio)));
  }
  if (dropped > 0)
    notes.push_back("sustained_gemm_slowdown: " + std::to_string(dropped) + " of " + std::to_string(used) +
                    " GEMMs in octaves of fewer than " + std::to_string(kMinSustainedPerBin) + " left out");
  if (table.x.size() < 2) {
    notes.push_back("sustained_gemm_slowdown: not fitted (" + std::to_string(table.x.size()) +
                    " octave(s) with " + std::to_string(kMinSustainedPerBin) + " or more verified GEMMs; 2 needed)");
    return Table{};
  }
  return table;
}

}  // namespace c3::validator
