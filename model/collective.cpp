// model.md §2: the isolated collective (alpha-beta per kind and transport, or a
// measured curve).
#include <cmath>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::model {

const CollectiveParams& collective_params(const HardwareProfile& hw, CollectiveKind kind,
                                          Transport transport) {
  if (transport == Transport::dma && !dma_capable(kind))
    throw InputError(std::string(to_string(kind)) +
                     " cannot run on copy engines: they cannot reduce");
  const auto by_kind = hw.collectives.find(kind);
  if (by_kind != hw.collectives.end()) {
    const auto it = by_kind->second.find(transport);
    if (it != by_kind->second.end()) return it->second;
  }
  throw InputError("profile '" + hw.name + "' has no parameters for " +
                   std::string(to_string(kind)) + " on " + std::string(to_string(transport)));
}

namespace {

double wire_fraction(CollectiveKind kind, int ranks) {
  const double n = ranks;
  const double once = (n - 1.0) / n;
  return kind == CollectiveKind::all_reduce ? 2.0 * once : once;
}

// Piecewise linear in log(size) -> log(time), inside the curve's range only.
bool curve_covers(const Table& curve, double size_bytes) {
  return !curve.x.empty() && size_bytes >= curve.x.front() && size_bytes <= curve.x.back();
}

double curve_time_s(const Table& curve, double size_bytes) {
  if (curve.x.size() == 1) return curve.y.front();
  std::size_t i = 1;
  while (i + 1 < curve.x.size() && curve.x[i] < size_bytes) ++i;
  const double lx0 = std::log(curve.x[i - 1]), lx1 = std::log(curve.x[i]);
  const double ly0 = std::log(curve.y[i - 1]), ly1 = std::log(curve.y[i]);
  const double t = (std::log(size_bytes) - lx0) / (lx1 - lx0);
  return std::exp(ly0 + t * (ly1 - ly0));
}

}  // namespace

double wire_bytes(const Collective& coll) {
  return static_cast<double>(coll.size_bytes) * wire_fraction(coll.kind, coll.ranks);
}

bool chunk_aligned(const Collective& coll) {
  return coll.size_bytes % coll.ranks == 0 && (coll.size_bytes / coll.ranks) % kAlignedChunkBytes == 0;
}

double collective_time_s(const HardwareProfile& hw, const Collective& coll, Transport transport) {
  validate(coll);
  const CollectiveParams& p = collective_params(hw, coll.kind, transport);
  const double alignment = chunk_aligned(coll) ? 1.0 : p.unaligned_slowdown;
  const auto size = static_cast<double>(coll.size_bytes);
  if (p.curve_ranks >= 2 && curve_covers(p.curve_time_s, size)) {
    // The curve was measured at curve_ranks: scale by the wire-byte ratio.
    const double ratio =
        wire_fraction(coll.kind, coll.ranks) / wire_fraction(coll.kind, p.curve_ranks);
    return curve_time_s(p.curve_time_s, size) * ratio * alignment;
  }
  return (p.latency_s + wire_bytes(coll) / p.bus_bw_bytes_per_s) * alignment;
}

CollectiveClass collective_class(const HardwareProfile& hw, const Collective& coll) {
  validate(coll);
  const CollectiveParams& p = collective_params(hw, coll.kind, Transport::cu);
  return p.latency_s >= wire_bytes(coll) / p.bus_bw_bytes_per_s ? CollectiveClass::latency_bound
                                                                 : CollectiveClass::bandwidth_bound;
}

int collective_default_cus(const HardwareProfile& hw, CollectiveKind kind) {
  return collective_params(hw, kind, Transport::cu).default_cus;
}

}  // namespace c3::model
