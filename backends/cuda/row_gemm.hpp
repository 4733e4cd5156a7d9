// backends/cuda/row_gemm.hpp: internal to the cuda backend: GEMMs on row pieces of
// row-major matrices through cuBLASLt, for the dependent runner (dependent.cpp).
//
//   out[i][j] = sum_l a[i][l] b[j][l]   (a: rows of k; b: n rows of k; out: rows of n)
//
// Rows are contiguous in a and out, so a piece of rows (and a strided run of pieces, one
// strided-batched call) is a pointer and a row count: what a decomposed schedule cuts.
// In cuBLASLt's column-major terms it is out^T (n x rows, ld n) = op(b) (n x k, b stored
// k x n with ld k, transposed) * a^T (k x rows, ld k): "TN" like GemmRunner's, with the
// roles of m and n exchanged.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/cuda/runtime.hpp"
#include "backends/device/dependent_run.hpp"

namespace c3::cuda {

class RowGemm {
 public:
  /// `count` pieces of `rows` rows (device::RowPiece).
  using Piece = device::RowPiece;

  /// On GPU `device`: a cuBLASLt handle and a workspace; `b` (n rows of k) stays the
  /// caller's. Throws CudaFailure("unsupported") for dtypes other than bf16 and fp16.
  RowGemm(int device, DType dtype, std::int64_t n, std::int64_t k, const std::uint16_t* b);
  ~RowGemm();
  RowGemm(const RowGemm&) = delete;
  RowGemm& operator=(const RowGemm&) = delete;

  /// Chooses the algorithm for the piece's shape and alignment now (outside timed runs).
  void prepare(const Piece& piece);
  /// Enqueues the piece on `lane` (its context made current). A batch cuBLASLt has no
  /// algorithm for runs as `count` GEMMs of one piece each (describe() says so).
  void launch(const Piece& piece, const Lane& lane);
  /// The kernel of the piece's plan: tile along m (rows) and n, split-K, CTAs of all pieces.
  GemmKernel kernel(const Piece& piece);
  /// "algo=.. tile=.. splitk=.. waves=.. batch=C" of the piece's plan.
  std::string describe(const Piece& piece);

 private:
  using Key = device::RowPieceKey;
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t lb = nullptr, la = nullptr, lo = nullptr;  // b, a piece, out piece
    std::vector<cublasLtMatmulAlgo_t> candidates;  // heuristic order
    std::vector<float> waves;
    std::size_t current = 0;
    bool one_by_one = false;  // no batched algorithm: `count` launches of the single-piece plan
    std::string launch_errors;
  };
  Key key_of(const Piece& p) const;
  Plan& plan(const Piece& p);
  void destroy(Plan& p) noexcept;

  int device_;
  DType dtype_;
  std::int64_t n_, k_;
  const std::uint16_t* b_;
  cublasLtHandle_t lt_ = nullptr;
  DeviceBuffer workspace_;
  std::map<Key, Plan> plans_;
};

/// The alignment cuBLASLt may assume of a piece (device::common_alignment).
using device::common_alignment;

}  // namespace c3::cuda
