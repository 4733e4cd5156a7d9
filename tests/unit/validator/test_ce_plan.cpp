// Copy-engine variants and transfer lists (validator/ce_plan.hpp): names round-trip,
// bad names are refused with the reason, and every variant's transfers write every
// output byte exactly once from the right input byte, at sizes that are not multiples of
// the chunk count, of 16 bytes or of anything.
#include <gtest/gtest.h>

#include <vector>

#include "c3/errors.hpp"
#include "validator/ce_plan.hpp"

namespace c3::validator {
namespace {

TEST(CeVariant, NamesRoundTrip) {
  for (const char* name : {"ce_push_peer", "ce_pull_peer", "ce_push_batch", "ce_pull_batch_ovl", "ce_push_peer_c4",
                           "ce_pull_batch_c16_ovl_graph", "ce_push_peer_graph", "ce_pull_peer_c3_graph",
                           "ce_push_peer_fixed", "ce_pull_batch_c2_ovl_graph_fixed"})
    EXPECT_EQ(to_string(parse_ce_variant(name)), name);
  const CeOptions o = parse_ce_variant("ce_pull_batch_c8_ovl_graph");
  EXPECT_EQ(o.direction, CeDirection::pull);
  EXPECT_EQ(o.api, CeApi::batch_memcpy);
  EXPECT_EQ(o.chunks, 8);
  EXPECT_TRUE(o.prefer_overlap);
  EXPECT_EQ(o.launch, CeLaunch::graph);
  EXPECT_EQ(to_string(CeOptions{}), "ce_push_peer");  // the paper's ConCCL baseline
  EXPECT_EQ(parse_ce_variant("ce_push_peer_c1"), CeOptions{});
}

TEST(CeVariant, BadNamesSayWhatIsWrong) {
  const auto message = [](const char* name) {
    try {
      parse_ce_variant(name);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("nccl").find("must start with ce_push or ce_pull"), std::string::npos);
  EXPECT_NE(message("ce_push").find("_peer or _batch"), std::string::npos);
  EXPECT_NE(message("ce_push_peer_c0").find("chunks"), std::string::npos);
  EXPECT_NE(message("ce_push_peer_c65").find("chunks"), std::string::npos);
  EXPECT_NE(message("ce_push_peer_cx").find("chunks"), std::string::npos);
  EXPECT_NE(message("ce_push_peer_ovl").find("needs _batch"), std::string::npos);
  EXPECT_NE(message("ce_push_peer_graph_c4").find("unexpected '_c4'"), std::string::npos);
  EXPECT_NE(message("ce_push_peer ").find("unexpected ' '"), std::string::npos);
}

TEST(CeTransfers, PiecesAreAlignedAndNeverEmpty) {
  EXPECT_EQ(ce_piece_bytes(1000, 1), 1008u);  // rounded up: one piece holds everything
  EXPECT_EQ(ce_piece_bytes(1000, 4), 256u);
  EXPECT_EQ(ce_piece_bytes(3, 4), 16u);  // smaller than the chunk count: one 16-byte piece
  EXPECT_EQ(ce_piece_bytes(0, 4), 16u);
  EXPECT_THROW(ce_piece_bytes(100, 0), InputError);
}

TEST(CeTransfers, RefusesWhatCopyEnginesCannotDo) {
  EXPECT_THROW(ce_transfers(CollectiveKind::all_reduce, 2, 64, {}), InputError);
  EXPECT_THROW(ce_transfers(CollectiveKind::reduce_scatter, 2, 64, {}), InputError);
  EXPECT_THROW(ce_transfers(CollectiveKind::all_gather, 0, 64, {}), InputError);
}

// Applies the transfers to byte-labelled buffers and checks every output byte.
void check_exact_cover(CollectiveKind kind, int ranks, std::size_t chunk, const CeOptions& o) {
  SCOPED_TRACE(std::string(to_string(kind)) + " ranks=" + std::to_string(ranks) + " chunk=" + std::to_string(chunk) +
               " " + to_string(o));
  const std::size_t send_bytes = kind == CollectiveKind::all_gather ? chunk : chunk * static_cast<std::size_t>(ranks);
  const std::size_t recv_bytes = chunk * static_cast<std::size_t>(ranks);
  // label of input byte b of rank r: r * send_bytes + b (unique), output starts at "unwritten"
  constexpr long kUnwritten = -1;
  std::vector<std::vector<long>> recv(static_cast<std::size_t>(ranks), std::vector<long>(recv_bytes, kUnwritten));
  std::vector<std::vector<int>> writes(static_cast<std::size_t>(ranks), std::vector<int>(recv_bytes, 0));
  for (const CeTransfer& t : ce_transfers(kind, ranks, chunk, o)) {
    ASSERT_GT(t.bytes, 0u);
    ASSERT_LE(t.src_offset + t.bytes, send_bytes);
    ASSERT_LE(t.dst_offset + t.bytes, recv_bytes);
    // push: the source's streams; pull: the target's (the local copy stays with its GPU)
    const bool pull = o.direction == CeDirection::pull && t.src_rank != t.dst_rank;
    EXPECT_EQ(t.owner_rank, pull ? t.dst_rank : t.src_rank);
    EXPECT_EQ(t.lane_peer, pull ? t.src_rank : t.dst_rank);
    EXPECT_EQ((t.dst_offset - static_cast<std::size_t>(t.src_rank) * chunk) % 16, 0u)
        << "pieces start 16-byte aligned within their slot";
    for (std::size_t b = 0; b < t.bytes; ++b) {
      const auto dr = static_cast<std::size_t>(t.dst_rank);
      recv[dr][t.dst_offset + b] = static_cast<long>(static_cast<std::size_t>(t.src_rank) * send_bytes + t.src_offset + b);
      ++writes[dr][t.dst_offset + b];
    }
  }
  for (int j = 0; j < ranks; ++j)
    for (int i = 0; i < ranks; ++i)
      for (std::size_t b = 0; b < chunk; ++b) {
        const std::size_t at = static_cast<std::size_t>(i) * chunk + b;  // slot i of rank j
        const std::size_t src = (kind == CollectiveKind::all_gather ? 0 : static_cast<std::size_t>(j) * chunk) + b;
        ASSERT_EQ(writes[static_cast<std::size_t>(j)][at], 1) << "rank " << j << " byte " << at;
        ASSERT_EQ(recv[static_cast<std::size_t>(j)][at], static_cast<long>(static_cast<std::size_t>(i) * send_bytes + src))
            << "rank " << j << " byte " << at;
      }
}

TEST(CeTransfers, EveryOutputByteWrittenOnceFromTheRightInput) {
  for (const CollectiveKind kind : {CollectiveKind::all_gather, CollectiveKind::all_to_all})
    for (const int ranks : {1, 2, 3, 4, 8})
      for (const std::size_t chunk : {std::size_t{0}, std::size_t{2}, std::size_t{6}, std::size_t{15}, std::size_t{16},
                                      std::size_t{17}, std::size_t{1001}, std::size_t{4098}})
        for (const int chunks : {1, 3, 4, 7})
          for (const CeDirection d : {CeDirection::push, CeDirection::pull})
            for (const CeOrder order : {CeOrder::rotate, CeOrder::fixed}) {
              CeOptions o;
              o.direction = d;
              o.chunks = chunks;
              o.order = order;
              check_exact_cover(kind, ranks, chunk, o);
            }
}

TEST(CeTransfers, IssueOrderRotatesTargets) {
  // the first transfer of each source goes to itself, the second to the next rank, ...
  const std::vector<CeTransfer> t = ce_transfers(CollectiveKind::all_gather, 4, 64, {});
  ASSERT_EQ(t.size(), 16u);
  for (int i = 0; i < 4; ++i)
    for (int step = 0; step < 4; ++step) {
      const CeTransfer& x = t[static_cast<std::size_t>(i * 4 + step)];
      EXPECT_EQ(x.src_rank, i);
      EXPECT_EQ(x.dst_rank, (i + step) % 4);
    }
}

TEST(CeTransfers, FixedOrderSendsEveryoneToTheSameTargetFirst) {
  CeOptions o;
  o.order = CeOrder::fixed;
  const std::vector<CeTransfer> t = ce_transfers(CollectiveKind::all_to_all, 4, 64, o);
  ASSERT_EQ(t.size(), 16u);
  for (int i = 0; i < 4; ++i)
    for (int step = 0; step < 4; ++step) EXPECT_EQ(t[static_cast<std::size_t>(i * 4 + step)].dst_rank, step);
}

}  // namespace
}  // namespace c3::validator
