// tests/unit/support/gemm_record.hpp: an isolated GEMM record as `measure` writes it, for the
// fits that read such records (calibrate --unaligned-gemms, --gemm-times).
#pragma once

#include "c3/measurements.hpp"
#include "c3/validator.hpp"

namespace c3::testing {

/// One GEMM record of `median_s` (min, max and the one run alike) on all CUs but `cus_removed`.
inline validator::Record gemm_record(const Gemm& gemm, double median_s, int cus_removed = 0, bool ok = true,
                                     bool verified = true) {
  Measurement m;
  m.ok = ok;
  m.verified = verified;
  m.median_s = m.min_s = m.max_s = median_s;
  m.runs_s = {median_s};
  return validator::Record{validator::GemmQuery{gemm, cus_removed}, m};
}

}  // namespace c3::testing
