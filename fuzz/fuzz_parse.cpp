// fuzz_parse: the command-line spellings of include/c3/types.hpp on arbitrary text:
// parse_size_bytes, parse_gemm, parse_collective, parse_strategy and the enum parsers.
// Checks, beyond typed errors only: what parses is valid (validate() accepts it), a
// GEMM and a strategy read back exactly from their spelling (format_gemm, label), and
// a size reads back from format_size to within its two printed decimals.
// Seeds: fuzz/corpus/parse.
#include <cmath>
#include <cstdint>
#include <string>

#include "c3/types.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;

void check_size(std::string_view text) {
  std::int64_t size = 0;
  if (!typed("parse_size_bytes", [&] { size = parse_size_bytes(text); })) return;
  C3_FUZZ_CHECK(size > 0 && size <= (std::int64_t{1} << 62), "parse_size_bytes('%.*s') = %lld",
                static_cast<int>(text.size()), text.data(), static_cast<long long>(size));
  std::string spelled;
  no_throw("format_size", [&] { spelled = format_size(size); });
  std::int64_t back = 0;
  no_throw("parse_size_bytes(format_size)", [&] { back = parse_size_bytes(spelled); });
  // format_size keeps two decimals of its unit: off by at most half a hundredth of it, and
  // reading the spelling back rounds in doubles: a few units in the last place of the size
  // (2124e5GiB = 207421.875TiB spells 207421.88TiB, which reads back 5 bytes past the half
  // hundredth; fuzz/corpus/parse/finding-size-half-hundredth).
  const double unit = size >= (std::int64_t{1} << 40)   ? 1099511627776.0
                      : size >= (std::int64_t{1} << 30) ? 1073741824.0
                      : size >= (std::int64_t{1} << 20) ? 1048576.0
                      : size >= 1024                    ? 1024.0
                                                        : 0.0;
  C3_FUZZ_CHECK(std::fabs(static_cast<double>(back - size)) <=
                    unit * 0.005 + std::ldexp(static_cast<double>(size), -50) + 0.5,
                "format_size(%lld) = '%s' reads back as %lld", static_cast<long long>(size), spelled.c_str(),
                static_cast<long long>(back));
}

void check_gemm(std::string_view text) {
  Gemm g;
  if (!typed("parse_gemm", [&] { g = parse_gemm(text); })) return;
  no_throw("validate(parse_gemm)", [&] { validate(g); });
  Gemm back;
  no_throw("parse_gemm(format_gemm)", [&] { back = parse_gemm(format_gemm(g)); });
  C3_FUZZ_CHECK(back == g, "parse_gemm(format_gemm(g)) != g for '%s'", format_gemm(g).c_str());
}

void check_collective(std::string_view text, int ranks) {
  Collective c;
  if (!typed("parse_collective", [&] { c = parse_collective(text, ranks); })) return;
  C3_FUZZ_CHECK(c.size_bytes > 0 && c.ranks == ranks && ranks >= 2,
                "parse_collective('%.*s', %d) = size %lld, ranks %d", static_cast<int>(text.size()),
                text.data(), ranks, static_cast<long long>(c.size_bytes), c.ranks);
  no_throw("validate(parse_collective)", [&] { validate(c); });
}

void check_strategy(std::string_view text) {
  Strategy s;
  if (!typed("parse_strategy", [&] { s = parse_strategy(text); })) return;
  Strategy back;
  no_throw("parse_strategy(label)", [&] { back = parse_strategy(s.label()); });
  C3_FUZZ_CHECK(back == s, "parse_strategy(label) != s for '%s'", s.label().c_str());
  if (s.kind == StrategyKind::rp) C3_FUZZ_CHECK(s.collective_cus > 0, "rp with %d CUs", s.collective_cus);
  if (s.kind == StrategyKind::dma_rp) C3_FUZZ_CHECK(s.gemm_cus_removed > 0, "dma_rp with %d CUs", s.gemm_cus_removed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  check_size(text);
  check_gemm(text);
  check_strategy(text);
  // ranks: 2 (the smallest), 8, and from the first byte (0..255: invalid ones included).
  for (int ranks : {2, 8, size > 0 ? static_cast<int>(data[0]) : 0}) check_collective(text, ranks);
  typed("parse_dtype", [&] { parse_dtype(text); });
  typed("parse_collective_kind", [&] { parse_collective_kind(text); });
  typed("parse_strategy_kind", [&] { parse_strategy_kind(text); });
  typed("parse_gemm_class", [&] { parse_gemm_class(text); });
  typed("parse_source_kind", [&] { parse_source_kind(text); });
  return 0;
}
