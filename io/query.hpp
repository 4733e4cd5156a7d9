// io/query.hpp: one thing a Validator can measure, as a value. Calibration
// plans queries, the raw-measurements file records them, and the replay backend
// looks them up, all by the same key.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "c3/types.hpp"
#include "c3/validator.hpp"

namespace c3::validator {

struct GemmQuery {
  Gemm gemm;
  int cus_removed = 0;
  friend bool operator==(const GemmQuery&, const GemmQuery&) = default;
};

struct CollectiveQuery {
  Collective collective;
  Transport transport = Transport::cu;
  int cus = 0;  ///< 0 = the library's default; always 0 on DMA
  friend bool operator==(const CollectiveQuery&, const CollectiveQuery&) = default;
};

struct ConcurrentQuery {
  Gemm gemm;
  Collective collective;
  Strategy strategy;
  friend bool operator==(const ConcurrentQuery&, const ConcurrentQuery&) = default;
};

struct CopyQuery {
  CopyPath path = CopyPath::device_local;
  std::int64_t size_bytes = 0;
  friend bool operator==(const CopyQuery&, const CopyQuery&) = default;
};

using Query = std::variant<GemmQuery, CollectiveQuery, ConcurrentQuery, CopyQuery>;

/// "gemm", "collective", "concurrent" or "copy".
std::string_view what(const Query& query);

/// A stable key naming everything the result depends on (not the pair's name),
/// e.g. "collective all_gather size_bytes=67108864 ranks=4 transport=cu cus=16".
std::string measurement_key(const Query& query);

/// Short human-readable form for progress lines, e.g. "collective all_gather 64MiB cu cus=16".
std::string describe(const Query& query);

/// Runs the query on `validator` (through its checked public calls).
Measurement run(Validator& validator, const Query& query);

}  // namespace c3::validator
