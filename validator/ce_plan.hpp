// validator/ce_plan.hpp: copy-engine (DMA) collectives as plain data: the variant
// names ("ce_push_peer", "ce_pull_batch_c4_ovl_graph") and the list of transfers a
// variant issues for an all-gather or all-to-all. Needs no CUDA header, so CI checks
// the transfer lists (every output byte written exactly once, at every size) without a
// GPU; the cuda backend issues exactly these transfers (backends/cuda/collectives.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "c3/types.hpp"

namespace c3::validator {

/// Which host API issues each transfer.
enum class CeApi { peer_memcpy, batch_memcpy };  ///< cudaMemcpyPeerAsync / cudaMemcpyBatchAsync
/// Whose streams (and so whose copy engines) issue a transfer: the source GPU's or the target's.
enum class CeDirection { push, pull };
/// How the transfers reach the GPUs: host API calls every run, or one CUDA graph captured
/// once and launched every run (one host call).
enum class CeLaunch { host, graph };
/// Order of each source's targets: rotated (source i sends to i, i+1, ...: at any moment
/// the GPUs' first transfers go to different targets) or fixed (every source sends to 0,
/// 1, 2, ... in turn: all first transfers hit GPU 0, a hot spot; the control for rotate).
enum class CeOrder { rotate, fixed };

/// One copy-engine variant. `push` + `peer_memcpy` + 1 chunk + host launch is the paper's
/// ConCCL baseline.
struct CeOptions {
  CeApi api = CeApi::peer_memcpy;
  CeDirection direction = CeDirection::push;
  int chunks = 1;               ///< each peer transfer split into this many copies (>= 1)
  bool prefer_overlap = false;  ///< batch_memcpy: cudaMemcpyFlagPreferOverlapWithCompute
  CeLaunch launch = CeLaunch::host;
  CeOrder order = CeOrder::rotate;
  friend bool operator==(const CeOptions&, const CeOptions&) = default;
};

/// The variant's name: "ce_" + push|pull + "_" + peer|batch [+ "_c" chunks] [+ "_ovl"]
/// [+ "_graph"] [+ "_fixed"], e.g. "ce_push_peer", "ce_pull_batch_c4_ovl_graph".
std::string to_string(const CeOptions& options);
/// Parses a name written by to_string (the parts in that order; chunks 1..64; "_ovl" only
/// with batch). Throws InputError naming what is wrong.
CeOptions parse_ce_variant(std::string_view name);

/// One copy: `bytes` from rank `src_rank`'s send buffer at `src_offset` to rank
/// `dst_rank`'s receive buffer at `dst_offset`, issued on the stream that GPU `owner_rank`
/// keeps for peer `lane_peer` (its own index: the local copy).
struct CeTransfer {
  int src_rank = 0;
  std::size_t src_offset = 0;
  int dst_rank = 0;
  std::size_t dst_offset = 0;
  std::size_t bytes = 0;
  int owner_rank = 0;
  int lane_peer = 0;
  friend bool operator==(const CeTransfer&, const CeTransfer&) = default;
};

/// Piece size when one transfer of `bytes` is split in `chunks`: bytes / chunks rounded up
/// to 16 bytes (so that every piece but the last stays 16-byte aligned).
std::size_t ce_piece_bytes(std::size_t bytes, int chunks);

/// The transfers of an all_gather or all_to_all of `ranks` ranks whose per-rank chunk is
/// `chunk_bytes` (all_gather: rank i's send buffer is one chunk and lands in slot i of every
/// receive buffer; all_to_all: chunk j of rank i's send buffer lands in slot i of rank j's
/// receive buffer), in issue order: for each source i, targets i, i+1, ... (CeOrder::rotate,
/// so that the first transfers of different GPUs go to different targets) or 0, 1, ...
/// (CeOrder::fixed), each split into `options.chunks` pieces. Throws InputError for other kinds, ranks < 1 or chunks < 1.
std::vector<CeTransfer> ce_transfers(CollectiveKind kind, int ranks, std::size_t chunk_bytes,
                                     const CeOptions& options);

}  // namespace c3::validator
