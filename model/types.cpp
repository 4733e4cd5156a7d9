// Value types and their text spellings (include/c3/types.hpp).
#include "c3/types.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3 {
namespace {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr NameTable<DType, 4> kDTypes{{
    {DType::bf16, "bf16"}, {DType::fp16, "fp16"}, {DType::fp32, "fp32"}, {DType::fp8, "fp8"}}};
constexpr NameTable<GemmLayout, 2> kGemmLayouts{{{GemmLayout::tn, "tn"}, {GemmLayout::row_major, "row_major"}}};
constexpr NameTable<CollectiveKind, 4> kCollectives{{{CollectiveKind::all_gather, "all_gather"},
                                                      {CollectiveKind::all_to_all, "all_to_all"},
                                                      {CollectiveKind::reduce_scatter, "reduce_scatter"},
                                                      {CollectiveKind::all_reduce, "all_reduce"}}};
constexpr NameTable<Dependency, 3> kDependencies{{{Dependency::none, "none"},
                                                   {Dependency::collective_feeds_gemm, "collective_feeds_gemm"},
                                                   {Dependency::gemm_feeds_collective, "gemm_feeds_collective"}}};
template <typename Enum, std::size_t N>
std::string_view name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <typename Enum, std::size_t N>
Enum parse_name(const NameTable<Enum, N>& table, std::string_view text, std::string_view what) {
  for (const auto& [e, name] : table)
    if (name == text) return e;
  std::string valid;
  for (const auto& [e, name] : table) valid += (valid.empty() ? "" : ", ") + std::string(name);
  throw InputError("unknown " + std::string(what) + " '" + std::string(text) + "' (valid: " + valid +
                   ")");
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parses a positive integer that fits in int64; `what` names it in errors.
std::int64_t parse_positive_int(std::string_view text, std::string_view what) {
  text = trim(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw InputError(std::string(what) + " '" + std::string(text) + "' is too large");
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw InputError(std::string(what) + " '" + std::string(text) + "' is not an integer");
  if (value <= 0)
    throw InputError(std::string(what) + " must be positive (got " + std::string(text) + ")");
  return value;
}

struct SizeUnit {
  std::string_view suffix;
  double bytes;
};
// Longest suffixes first so that "MiB" is not read as "B".
constexpr std::array<SizeUnit, 14> kSizeUnits{{{"KiB", 1024.0},
                                               {"MiB", 1048576.0},
                                               {"GiB", 1073741824.0},
                                               {"TiB", 1099511627776.0},
                                               {"KB", 1e3},
                                               {"MB", 1e6},
                                               {"GB", 1e9},
                                               {"TB", 1e12},
                                               {"K", 1024.0},
                                               {"M", 1048576.0},
                                               {"G", 1073741824.0},
                                               {"T", 1099511627776.0},
                                               {"B", 1.0},
                                               {"", 1.0}}};

constexpr std::int64_t kMaxSizeBytes = std::int64_t{1} << 62;  // the largest size, in bytes

}  // namespace

int bytes_per_element(DType dtype) {
  switch (dtype) {
    case DType::bf16:
    case DType::fp16:
      return 2;
    case DType::fp32:
      return 4;
    case DType::fp8:
      return 1;
  }
  return 2;
}

std::string_view to_string(DType dtype) { return name_of(kDTypes, dtype); }
DType parse_dtype(std::string_view text) { return parse_name(kDTypes, trim(text), "dtype"); }

std::string_view to_string(GemmLayout layout) { return name_of(kGemmLayouts, layout); }
GemmLayout parse_gemm_layout(std::string_view text) { return parse_name(kGemmLayouts, trim(text), "GEMM layout"); }

std::string_view to_string(CollectiveKind kind) { return name_of(kCollectives, kind); }
CollectiveKind parse_collective_kind(std::string_view text) {
  return parse_name(kCollectives, trim(text), "collective");
}
bool dma_capable(CollectiveKind kind) {
  return kind == CollectiveKind::all_gather || kind == CollectiveKind::all_to_all;
}

std::string_view to_string(Dependency dependency) { return name_of(kDependencies, dependency); }
Dependency parse_dependency(std::string_view text) {
  return parse_name(kDependencies, trim(text), "dependency");
}

std::int64_t dependent_operand_bytes(const Gemm& gemm, Dependency dependency) {
  if (dependency == Dependency::none) return 0;
  const std::int64_t cols = dependency == Dependency::collective_feeds_gemm ? gemm.k : gemm.n;
  std::int64_t elements = 0, bytes = 0;
  if (__builtin_mul_overflow(gemm.m, cols, &elements) ||
      __builtin_mul_overflow(elements, static_cast<std::int64_t>(bytes_per_element(gemm.dtype)), &bytes))
    throw InputError("GEMM " + format_gemm(gemm) + ": its operand's size overflows");
  return bytes;
}

void validate_dependency(const Gemm& gemm, const Collective& collective, Dependency dependency) {
  if (dependency == Dependency::none) return;
  const bool feeds = dependency == Dependency::collective_feeds_gemm;
  const CollectiveKind kind = collective.kind;
  const bool kind_ok = feeds ? (kind == CollectiveKind::all_gather || kind == CollectiveKind::all_to_all)
                             : (kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::all_to_all);
  if (!kind_ok)
    throw InputError("dependency " + std::string(to_string(dependency)) + " takes " +
                     (feeds ? "all_gather or all_to_all" : "reduce_scatter or all_to_all") + ", not " +
                     std::string(to_string(kind)));
  const std::int64_t expected = dependent_operand_bytes(gemm, dependency);
  if (collective.size_bytes != expected)
    throw InputError("dependency " + std::string(to_string(dependency)) + ": the " +
                     std::string(to_string(kind)) + " moves the GEMM's " + (feeds ? "A (m x k = " : "C (m x n = ") +
                     std::to_string(gemm.m) + " x " + std::to_string(feeds ? gemm.k : gemm.n) + " " +
                     std::string(to_string(gemm.dtype)) + ", " + std::to_string(expected) + " bytes = " +
                     format_size(expected) + "), not " + std::to_string(collective.size_bytes) + " bytes");
}

void validate_chained(const C3Pair& pair) {
  if (pair.chained && pair.dependency != Dependency::none)
    throw InputError("a dependent pair is priced by its own schedule (docs/model.md §7), not as a chained pair "
                     "(§4.6)");
}

std::string_view to_string(Transport transport) {
  return transport == Transport::cu ? "cu" : "dma";
}

std::string_view to_string(LaunchOrder order) {
  switch (order) {
    case LaunchOrder::serial:
      return "serial";
    case LaunchOrder::gemm_first:
      return "gemm_first";
    case LaunchOrder::collective_first:
      return "collective_first";
  }
  return "?";
}

std::int64_t parse_size_bytes(std::string_view text) {
  const std::string_view original = text;
  text = trim(text);
  auto fail = [&](const std::string& why) -> std::int64_t {
    throw InputError("size '" + std::string(original) + "': " + why +
                     " (examples: 896MiB, 3.25GiB, 512KiB, 4096)");
  };
  if (text.empty()) return fail("empty");
  for (const auto& unit : kSizeUnits) {
    if (text.size() < unit.suffix.size() || !text.ends_with(unit.suffix)) continue;
    const std::string_view number = trim(text.substr(0, text.size() - unit.suffix.size()));
    if (number.empty()) return fail("no number");
    if (unit.bytes == 1.0) {  // whole bytes: read exactly, not through a double (2^62 + 1 is not 2^62)
      std::int64_t whole = 0;
      const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), whole);
      if (end == number.data() + number.size()) {
        if (ec == std::errc::result_out_of_range || whole > kMaxSizeBytes)
          return fail("too large (limit 2^62 bytes)");
        if (ec == std::errc()) return whole > 0 ? whole : fail("must be positive");
      }
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec == std::errc::result_out_of_range) return fail("too large");
    if (ec != std::errc() || end != number.data() + number.size()) continue;  // try next unit
    if (!std::isfinite(value)) return fail("not a finite number");
    if (value <= 0) return fail("must be positive");
    if (unit.bytes == 1.0 && value != std::floor(value)) return fail("a size in bytes must be a whole number");
    if (unit.bytes == 1.0 && value >= 9007199254740992.0)  // from 2^53 a double no longer holds every count
      return fail("a size in bytes of 2^53 or more must be written as digits only (no point, no exponent)");
    const double bytes = value * unit.bytes;
    if (bytes > static_cast<double>(kMaxSizeBytes)) return fail("too large (limit 2^62 bytes)");
    const double rounded = std::round(bytes);
    if (rounded < 1) return fail("less than one byte");
    return static_cast<std::int64_t>(rounded);
  }
  return fail("not a size");
}

std::string format_size(std::int64_t size_bytes) {
  constexpr std::array<std::pair<std::int64_t, std::string_view>, 4> units{
      {{1LL << 40, "TiB"}, {1LL << 30, "GiB"}, {1LL << 20, "MiB"}, {1LL << 10, "KiB"}}};
  for (const auto& [scale, suffix] : units) {
    if (size_bytes < scale) continue;
    const double value = static_cast<double>(size_bytes) / static_cast<double>(scale);
    // Up to two decimals, trailing zeros dropped: 3.25GiB, 896MiB, 1.5KiB.
    std::string text = std::to_string(std::round(value * 100.0) / 100.0);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    return text + std::string(suffix);
  }
  return std::to_string(size_bytes) + "B";
}

void validate(const Gemm& gemm) {
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0)
    throw InputError("GEMM " + std::to_string(gemm.m) + "x" + std::to_string(gemm.n) + "x" +
                     std::to_string(gemm.k) + ": every dimension must be positive");
  // 2 m n k must be representable exactly enough as a double and the operands
  // addressable: cap each dimension and the product.
  constexpr double kMaxFlops = 1e24;
  const double flops = 2.0 * static_cast<double>(gemm.m) * static_cast<double>(gemm.n) *
                       static_cast<double>(gemm.k);
  if (flops > kMaxFlops) throw InputError("GEMM " + format_gemm(gemm) + " is too large");
}

void validate(const Collective& collective) {
  if (collective.size_bytes <= 0)
    throw InputError(std::string(to_string(collective.kind)) + ": size must be positive (got " +
                     std::to_string(collective.size_bytes) + ")");
  if (collective.size_bytes > kMaxSizeBytes)  // as parse_size_bytes
    throw InputError(std::string(to_string(collective.kind)) + ": size " + std::to_string(collective.size_bytes) +
                     " is over the limit of 2^62 bytes");
  if (collective.ranks < 2)
    throw InputError(std::string(to_string(collective.kind)) + ": ranks must be at least 2 (got " +
                     std::to_string(collective.ranks) + ")");
}

model::GemmTile model::parse_gemm_tile(std::string_view text) {
  const std::string original(text);
  const auto number = [&](std::string_view part) {
    try {
      const std::int64_t v = parse_positive_int(part, "tile dimension");
      if (v <= kMaxTileDim) return static_cast<int>(v);
    } catch (const InputError&) {
    }
    throw InputError("'" + original + "': expected TILE_MxTILE_N or TILE_MxTILE_N:SPLIT_K with positive integers "
                     "up to " + std::to_string(kMaxTileDim) + ", e.g. 192x192 or 128x256:2");
  };
  text = trim(text);
  const std::size_t x = text.find_first_of("xX");
  const std::size_t colon = text.find(':');
  if (x == std::string_view::npos || (colon != std::string_view::npos && colon < x)) number("");
  GemmTile tile;
  tile.m = number(text.substr(0, x));
  tile.n = number(text.substr(x + 1, colon == std::string_view::npos ? std::string_view::npos : colon - x - 1));
  tile.split_k = colon == std::string_view::npos ? 1 : number(text.substr(colon + 1));
  return tile;
}

bool model::valid_gemm_tile(const GemmTile& tile) {
  const auto in_range = [](int v) { return v >= 1 && v <= kMaxTileDim; };
  return in_range(tile.m) && in_range(tile.n) && in_range(tile.split_k);
}

Gemm parse_gemm(std::string_view text) {
  const std::string_view original = text;
  text = trim(text);
  Gemm gemm;
  const auto colon = text.find(':');
  if (colon != std::string_view::npos) {
    std::string_view rest = text.substr(colon + 1);
    const auto second = rest.find(':');
    if (second != std::string_view::npos) {
      gemm.layout = parse_gemm_layout(rest.substr(second + 1));
      rest = rest.substr(0, second);
    }
    gemm.dtype = parse_dtype(rest);
    text = text.substr(0, colon);
  }
  std::array<std::int64_t, 3> dims{};
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto x = text.find_first_of("xX");
    if ((i < 2) == (x == std::string_view::npos))
      throw InputError("GEMM shape '" + std::string(original) +
                       "': expected MxNxK, MxNxK:dtype or MxNxK:dtype:layout, e.g. 8192x8192x8192:bf16");
    dims[i] = parse_positive_int(text.substr(0, x), "GEMM dimension");
    text = x == std::string_view::npos ? std::string_view{} : text.substr(x + 1);
  }
  gemm.m = dims[0];
  gemm.n = dims[1];
  gemm.k = dims[2];
  validate(gemm);
  return gemm;
}

std::string format_gemm(const Gemm& gemm) {
  std::string text = std::to_string(gemm.m) + "x" + std::to_string(gemm.n) + "x" + std::to_string(gemm.k) + ":" +
                     std::string(to_string(gemm.dtype));
  // The default layout is left out, so that every key written before layouts is unchanged.
  if (gemm.layout != GemmLayout::tn) text += ":" + std::string(to_string(gemm.layout));
  return text;
}

Collective parse_collective(std::string_view text, int ranks) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    throw InputError("collective '" + std::string(text) +
                     "': expected KIND:SIZE, e.g. all_gather:896MiB");
  Collective c{parse_collective_kind(text.substr(0, colon)), parse_size_bytes(text.substr(colon + 1)),
               ranks};
  validate(c);
  return c;
}

Collective parse_collective(std::string_view text, int ranks, const Gemm& gemm, Dependency dependency) {
  Collective c;
  if (dependency != Dependency::none && text.find(':') == std::string_view::npos) {
    c = Collective{parse_collective_kind(text), dependent_operand_bytes(gemm, dependency), ranks};
    validate(c);
  } else {
    c = parse_collective(text, ranks);
  }
  validate_dependency(gemm, c, dependency);
  return c;
}

}  // namespace c3
