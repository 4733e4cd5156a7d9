"""The launches of one rank of a dependent pair's schedule (docs/model.md §7.1, the same
schedule as validator/dependent_plan.hpp), as plain data: which stream, which operation,
which rows. Pure Python, no torch: c3advisor.torch.Executor.run_dependent runs exactly
these launches, and the tests check them without a GPU.

Rows are rows of the dependent operand (m of them): the gathered A (m x k) when the
collective feeds the GEMM, the GEMM's output C (m x n) when the GEMM feeds the collective.
R ranks, C chunks: block = m / R rows (a rank's share), piece = m / C rows, S = C / R steps.
"""
from dataclasses import dataclass
from typing import List, Tuple

DEPENDENCIES = ("collective_feeds_gemm", "gemm_feeds_collective")
#: The collective each dependency runs here; all_to_all is not run yet (run_dependent says why).
KINDS = {"collective_feeds_gemm": ("all_gather", "all_to_all"),
         "gemm_feeds_collective": ("reduce_scatter", "all_to_all")}

Rows = Tuple[Tuple[int, int], ...]  # runs of (first row, row count), in order


@dataclass(frozen=True)
class DependentLaunch:
    """One launch of one rank, in the order the host issues it.
    stream: "collective" or "gemm" (decomposed), "current" (chunks == 1: serial);
    op: "all_gather", "reduce_scatter" or "matmul";
    step: the collective step it is (collective) or waits for (matmul; -1: no wait);
    rows: the dependent operand's rows it moves (collective) or computes (matmul);
    out_rows: reduce_scatter: the rows of this rank's output it writes (else ())."""
    stream: str
    op: str
    step: int
    rows: Rows
    out_rows: Rows = ()


def check_dependent(dependency: str, kind: str, m: int, ranks: int, chunks: int):
    """Raises ValueError naming what is wrong (as validator::dependent_schedule's InputError)."""
    if dependency not in KINDS:
        raise ValueError("dependency must be one of %s, not %r (independent pairs: run_pair)" %
                         (", ".join(DEPENDENCIES), dependency))
    if kind not in KINDS[dependency]:
        raise ValueError("%s takes %s, not %r" % (dependency, " or ".join(KINDS[dependency]), kind))
    if ranks < 2:
        raise ValueError("a dependent pair needs at least 2 ranks (got %d)" % ranks)
    if m <= 0 or m % ranks:
        raise ValueError("the %d ranks must divide the GEMM's m (%d)" % (ranks, m))
    if chunks < 1 or (chunks != 1 and chunks % ranks):
        raise ValueError("chunks must be 1 or a multiple of the %d ranks (got %d)" % (ranks, chunks))
    if m % chunks:
        raise ValueError("chunks (%d) must divide the GEMM's m (%d)" % (chunks, m))


def peers_after(rank: int, ranks: int) -> List[int]:
    """The other ranks from rank + 1 on, wrapping (the order torch_symm_pull pulls in)."""
    return [(rank + i) % ranks for i in range(1, ranks)]


def dependent_launches(dependency: str, kind: str, m: int, ranks: int, rank: int, chunks: int,
                       collective_first: bool = True) -> List[DependentLaunch]:
    """The launches of rank `rank` (model.md §7.1). chunks == 1: the undecomposed pair,
    serial in the dependency's order on the current stream. Decomposed:
    collective_feeds_gemm: the collective stream runs steps 0..S-1 back to back (step s:
    the s-th piece of every rank's block); the GEMM stream first computes the local block
    (this rank's own shard, no wait), then per step s waits for it and computes the pieces
    it brought (one matmul per other rank, from rank + 1 on, as the copy engines pull). The host
    issues the collective's launches first when `collective_first` (prefetch), else the local
    block's matmul first.
    gemm_feeds_collective: per step s, one matmul of the s-th piece of every rank's block
    (m/S rows), then the step reduce-scatters those rows after it: rank r receives the sum
    of every rank's rows r*block + s*piece .. into its output rows s*piece .. ."""
    check_dependent(dependency, kind, m, ranks, chunks)
    if not 0 <= rank < ranks:
        raise ValueError("rank %d is not one of the %d ranks" % (rank, ranks))
    if kind == "all_to_all":
        raise NotImplementedError("all_to_all dependent pairs are not run by c3advisor.torch yet "
                                  "(missing: per-step all_to_all_single of each peer's piece of the "
                                  "send blocks, validator/dependent_plan.cpp's all_to_all copies)")
    block = m // ranks
    every = tuple((p * block, block) for p in range(ranks))
    if chunks == 1:
        if dependency == "collective_feeds_gemm":
            return [DependentLaunch("current", "all_gather", 0, every),
                    DependentLaunch("current", "matmul", 0, ((0, m),))]
        return [DependentLaunch("current", "matmul", -1, ((0, m),)),
                DependentLaunch("current", "reduce_scatter", 0, ((0, m),), ((0, block),))]
    piece = m // chunks
    steps = chunks // ranks

    def pieces(step, peers):
        return tuple((p * block + step * piece, piece) for p in peers)

    if dependency == "collective_feeds_gemm":
        comm = [DependentLaunch("collective", "all_gather", s, pieces(s, range(ranks))) for s in range(steps)]
        gemm = [DependentLaunch("gemm", "matmul", -1, ((rank * block, block),))]
        for s in range(steps):  # one matmul per peer piece: its rows of A and of D are contiguous
            gemm += [DependentLaunch("gemm", "matmul", s, pieces(s, (p,))) for p in peers_after(rank, ranks)]
        # GEMM first: the local block's matmul, then the steps (a matmul of a step's pieces is
        # issued after the step, so that the event it waits for is recorded), then the rest.
        return comm + gemm if collective_first else gemm[:1] + comm + gemm[1:]
    launches = []
    for s in range(steps):
        launches.append(DependentLaunch("gemm", "matmul", -1, pieces(s, range(ranks))))
        launches.append(DependentLaunch("collective", "reduce_scatter", s, pieces(s, range(ranks)),
                                        ((s * piece, piece),)))
    return launches
