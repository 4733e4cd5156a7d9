// backends/hip/row_gemm.hpp: internal to the hip backend: GEMMs on row pieces of row-major
// matrices through hipBLASLt, for the dependent runner (dependent.cpp); the cuda backend's
// RowGemm on hipBLASLt.
//
//   out[i][j] = sum_l a[i][l] b[j][l]   (a: rows of k; b: n rows of k; out: rows of n)
//
// In hipBLASLt's column-major terms: out^T (n x rows, ld n) = op(b) (b stored k x n, ld k,
// transposed) * a^T (k x rows, ld k), "TN"; a strided run of pieces is one strided-batched
// call (the layouts' batch count and strided batch offset; b's stride 0).
// Built without hipBLASLt (C3_HIP_HAVE_HIPBLASLT=0) its constructor throws
// HipFailure("unsupported") naming hipBLASLt.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/device/dependent_run.hpp"
#include "backends/hip/runtime.hpp"

namespace c3::hip {

class RowGemm {
 public:
  /// `count` pieces of `rows` rows (device::RowPiece).
  using Piece = device::RowPiece;

  /// On GPU `device`: a hipBLASLt handle and a workspace; `b` (n rows of k) stays the
  /// caller's. Throws HipFailure("unsupported") for dtypes other than bf16 and fp16, and
  /// without hipBLASLt.
  RowGemm(int device, DType dtype, std::int64_t n, std::int64_t k, const std::uint16_t* b);
  ~RowGemm();
  RowGemm(const RowGemm&) = delete;
  RowGemm& operator=(const RowGemm&) = delete;

  /// Chooses the algorithm for the piece's shape and alignment now (outside timed runs).
  void prepare(const Piece& piece);
  /// Enqueues the piece on `lane`. A batch hipBLASLt has no algorithm for runs as `count`
  /// GEMMs of one piece each (describe() says so); a candidate that fails to launch is
  /// replaced by the next one.
  void launch(const Piece& piece, const Lane& lane);
  /// What is known of the piece's kernel: hipBLASLt's waves (tiles are not exposed).
  GemmKernel kernel(const Piece& piece);
  /// "hipBLASLt heuristic choice N of M, waves W rows=R [batch=C | xC one by one]".
  std::string describe(const Piece& piece);

 private:
  struct Plan;
  using Key = device::RowPieceKey;
  Key key_of(const Piece& p) const;
  Plan& plan(const Piece& p);
  Plan& run_plan(const Piece& p);  // the plan that launches: the single piece's when one by one

  int device_;
  DType dtype_;
  std::int64_t n_, k_;
  const std::uint16_t* b_;
  void* lt_ = nullptr;  // hipblasLtHandle_t
  DeviceBuffer workspace_;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

}  // namespace c3::hip
