// calibrate/gemm_times_fit.hpp: the isolated GEMM times measured per shape (docs/model.md
// §1.2), from isolated GEMM records of `measure` files (calibrate --gemm-times).
#pragma once

#include <string>
#include <vector>

#include "c3/measurements.hpp"
#include "c3/profile.hpp"

namespace c3::validator {

/// Whether `file` was timed in gated runs (the cuda option gate=1: its provenance notes say
/// "timing: gated runs"), which leave out the host's launch pacing (docs/device.md).
bool gated_timing(const RawMeasurements& file);

/// The profile's gemm_times from the ok, verified isolated GEMM records (no CUs removed,
/// layout tn, median > 0) of `files`: per shape and dtype, the median over the files that
/// timed it of each file's median (a file's first record of a shape), `files` the count;
/// sorted by (dtype, m, n, k). Empty when no record qualifies; a note says how many shapes
/// from how many files. Throws InputError, naming the file (`paths`, one per file), for a file
/// timed by PyTorch (provenance backend "torch") or files that mix gated and host-paced timing.
std::vector<GemmTimeShape> fit_gemm_times(const std::vector<RawMeasurements>& files,
                                          const std::vector<std::string>& paths,
                                          std::vector<std::string>& notes);

}  // namespace c3::validator
