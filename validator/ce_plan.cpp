// Copy-engine variants and transfer lists (validator/ce_plan.hpp).
#include "validator/ce_plan.hpp"

#include <algorithm>
#include <charconv>

#include "c3/errors.hpp"

namespace c3::validator {
namespace {

constexpr int kMaxChunks = 64;
constexpr std::size_t kPieceAlignment = 16;

// Removes `part` from the front of `rest` when it is there.
bool take(std::string_view& rest, std::string_view part) {
  if (rest.substr(0, part.size()) != part) return false;
  rest.remove_prefix(part.size());
  return true;
}

}  // namespace

std::string to_string(const CeOptions& o) {
  std::string s = o.direction == CeDirection::push ? "ce_push" : "ce_pull";
  s += o.api == CeApi::peer_memcpy ? "_peer" : "_batch";
  if (o.chunks > 1) s += "_c" + std::to_string(o.chunks);
  if (o.prefer_overlap) s += "_ovl";
  if (o.launch == CeLaunch::graph) s += "_graph";
  if (o.order == CeOrder::fixed) s += "_fixed";
  return s;
}

CeOptions parse_ce_variant(std::string_view name) {
  const std::string what = "copy-engine variant '" + std::string(name) + "'";
  const std::string grammar =
      " (expected ce_{push|pull}_{peer|batch}[_cN][_ovl][_graph][_fixed], e.g. ce_push_peer)";
  CeOptions o;
  std::string_view rest = name;
  if (take(rest, "ce_push")) o.direction = CeDirection::push;
  else if (take(rest, "ce_pull")) o.direction = CeDirection::pull;
  else throw InputError(what + ": must start with ce_push or ce_pull" + grammar);
  if (take(rest, "_peer")) o.api = CeApi::peer_memcpy;
  else if (take(rest, "_batch")) o.api = CeApi::batch_memcpy;
  else throw InputError(what + ": _peer or _batch must follow the direction" + grammar);
  if (take(rest, "_c")) {
    const char* end = rest.data() + rest.size();
    const auto [ptr, ec] = std::from_chars(rest.data(), end, o.chunks);
    if (ec != std::errc() || ptr == rest.data() || o.chunks < 1 || o.chunks > kMaxChunks)
      throw InputError(what + ": chunks (_cN) must be 1.." + std::to_string(kMaxChunks) + grammar);
    rest.remove_prefix(static_cast<std::size_t>(ptr - rest.data()));
  }
  if (take(rest, "_ovl")) {
    if (o.api != CeApi::batch_memcpy)
      throw InputError(what + ": _ovl (cudaMemcpyFlagPreferOverlapWithCompute) needs _batch" + grammar);
    o.prefer_overlap = true;
  }
  if (take(rest, "_graph")) o.launch = CeLaunch::graph;
  if (take(rest, "_fixed")) o.order = CeOrder::fixed;
  if (!rest.empty()) throw InputError(what + ": unexpected '" + std::string(rest) + "'" + grammar);
  return o;
}

std::size_t ce_piece_bytes(std::size_t bytes, int chunks) {
  if (chunks < 1) throw InputError("copy-engine chunks must be at least 1, got " + std::to_string(chunks));
  const std::size_t piece = bytes / static_cast<std::size_t>(chunks);
  return std::max<std::size_t>(kPieceAlignment, (piece + kPieceAlignment - 1) & ~(kPieceAlignment - 1));
}

std::vector<CeTransfer> ce_transfers(CollectiveKind kind, int ranks, std::size_t chunk_bytes,
                                     const CeOptions& o) {
  if (kind != CollectiveKind::all_gather && kind != CollectiveKind::all_to_all)
    throw InputError("copy engines cannot reduce: " + std::string(to_string(kind)) + " has no dma transport");
  if (ranks < 1) throw InputError("copy-engine collective needs at least 1 rank, got " + std::to_string(ranks));
  const std::size_t piece = ce_piece_bytes(chunk_bytes, o.chunks);
  std::vector<CeTransfer> out;
  for (int i = 0; i < ranks; ++i) {
    for (int step = 0; step < ranks; ++step) {
      const int j = o.order == CeOrder::rotate ? (i + step) % ranks : step;  // target
      const auto ii = static_cast<std::size_t>(i);
      const auto jj = static_cast<std::size_t>(j);
      const std::size_t src = kind == CollectiveKind::all_gather ? 0 : jj * chunk_bytes;
      const std::size_t dst = ii * chunk_bytes;  // target j's slot for source i
      const bool pull = o.direction == CeDirection::pull && i != j;
      const int owner = pull ? j : i;
      const int other = pull ? i : j;
      for (std::size_t off = 0; off < chunk_bytes; off += piece)
        out.push_back(CeTransfer{i, src + off, j, dst + off, std::min(piece, chunk_bytes - off), owner, other});
    }
  }
  return out;
}

}  // namespace c3::validator
