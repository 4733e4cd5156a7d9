// views/bench_views.hpp: collective benchmarks (io/bench_file.hpp) for people: the
// nccl-tests-style table and the bus-bandwidth charts.
#pragma once

#include <string>

#include "io/bench_file.hpp"

namespace c3::validator {

/// nccl-tests-style table: one block per kind and transport, columns size, count (bf16
/// elements), time (us), algbw and busbw (GB/s), and "#wrong" (0, or the error).
std::string bench_table(const BenchFile& file);

/// The bus-bandwidth-vs-size chart of one kind: one line per transport (log-log), SVG.
std::string bench_chart_svg(const BenchFile& file, CollectiveKind kind);

}  // namespace c3::validator
