// Dependent schedules (validator/dependent_plan.hpp): played out on row labels, every
// schedule (both dependencies, both kinds, 2-4 ranks, undecomposed and 1-4 steps) leaves
// every rank's output holding exactly what the undecomposed computation gives, each output
// row written once, every GEMM job reading only rows that have arrived by the step it
// waits for, every step moving only rows its GEMM job has written; and the pieces are the
// ones model.md §7 prices.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "c3/errors.hpp"
#include "c3/validator.hpp"
#include "validator/dependent_plan.hpp"

namespace c3::validator {
namespace {

// What a row holds: a tag ('A': row `row` of the global A; 'S': row `row` of rank `rank`'s
// send buffer; 'C': row `row` of rank `rank`'s GEMM output), or, after a reduction, the
// set of rows summed.
struct Label {
  char tag = '?';
  int rank = 0;
  std::int64_t row = 0;
  friend auto operator<=>(const Label&, const Label&) = default;
};
using Content = std::set<Label>;  // one label, or the terms of a sum

// One rank's buffers, row by row (nullopt: never written).
struct Buffers {
  std::map<DepBuffer, std::vector<std::optional<Content>>> rows;
  std::map<DepBuffer, std::vector<int>> writes;
};

struct Played {
  std::vector<Buffers> ranks;
  std::vector<std::string> errors;
};

std::string where(int rank, DepBuffer b, std::int64_t row) {
  const char* names[] = {"a", "send", "staged", "out"};
  return "rank " + std::to_string(rank) + " " + names[static_cast<int>(b)] + " row " + std::to_string(row);
}

// Plays a schedule on row labels. Reads of unwritten rows and second writes are errors.
Played play(const DependentSchedule& s) {
  Played p;
  const std::int64_t m = s.m;
  const std::int64_t block = block_rows(m, s.ranks);
  p.ranks.resize(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) {
    Buffers& b = p.ranks[static_cast<std::size_t>(r)];
    for (DepBuffer buf : {DepBuffer::a, DepBuffer::send, DepBuffer::staged, DepBuffer::out}) {
      const std::int64_t n = buf == DepBuffer::out ? s.out_rows : m;
      b.rows[buf].assign(static_cast<std::size_t>(n), std::nullopt);
      b.writes[buf].assign(static_cast<std::size_t>(n), 0);
    }
    for (std::int64_t i = 0; i < m; ++i) {
      const auto iu = static_cast<std::size_t>(i);
      if (s.dependency == Dependency::gemm_feeds_collective) b.rows[DepBuffer::a][iu] = Content{{'A', r, i}};
      else if (s.kind == CollectiveKind::all_to_all) b.rows[DepBuffer::send][iu] = Content{{'S', r, i}};
      else if (i / block == r) b.rows[DepBuffer::a][iu] = Content{{'A', r, i}};  // own shard of the global A
    }
  }
  const auto read = [&](int r, DepBuffer b, std::int64_t row) -> Content {
    auto& v = p.ranks[static_cast<std::size_t>(r)].rows[b];
    if (row < 0 || row >= static_cast<std::int64_t>(v.size())) {
      p.errors.push_back("read outside " + where(r, b, row));
      return {};
    }
    if (!v[static_cast<std::size_t>(row)]) {
      p.errors.push_back("read before written: " + where(r, b, row));
      return {};
    }
    return *v[static_cast<std::size_t>(row)];
  };
  const auto write = [&](int r, DepBuffer b, std::int64_t row, Content c) {
    auto& v = p.ranks[static_cast<std::size_t>(r)].rows[b];
    if (row < 0 || row >= static_cast<std::int64_t>(v.size())) {
      p.errors.push_back("write outside " + where(r, b, row));
      return;
    }
    const bool moved_input = b == DepBuffer::a;  // A rows arrive once; the local shard is never overwritten
    if (++p.ranks[static_cast<std::size_t>(r)].writes[b][static_cast<std::size_t>(row)] > 1 ||
        (moved_input && v[static_cast<std::size_t>(row)]))
      p.errors.push_back("written twice: " + where(r, b, row));
    v[static_cast<std::size_t>(row)] = std::move(c);
  };
  const auto run_gemm = [&](int r, const DepGemm& g) {
    for (int i = 0; i < g.count; ++i)
      for (std::int64_t t = 0; t < g.rows; ++t) {
        const Content in = read(r, g.a_buffer, g.a_row + i * g.a_stride + t);
        // A GEMM row of A gives the same row of its output; label it by where A's row came from.
        Content out;
        for (const Label& l : in) {
          if (s.dependency == Dependency::gemm_feeds_collective) out.insert({'C', r, l.row});
          else out.insert({l.tag == 'S' ? 'D' : 'd', l.rank, l.row});
        }
        write(r, g.out_buffer, g.out_row + i * g.out_stride + t, out);
      }
  };
  const auto run_step = [&](const DepStep& st) {
    switch (st.op) {
      case DepStep::Op::copies:
        for (const RowCopy& c : st.copies)
          for (std::int64_t t = 0; t < c.rows; ++t) write(c.dst_rank, c.dst, c.dst_row + t, read(c.src_rank, c.src, c.src_row + t));
        break;
      case DepStep::Op::all_gather:
        for (int owner = 0; owner < s.ranks; ++owner)
          for (std::int64_t t = 0; t < st.rows; ++t) {
            const std::int64_t row = owner * st.rows + t;
            const Content c = read(owner, DepBuffer::a, row);
            for (int q = 0; q < s.ranks; ++q)
              if (q != owner) write(q, DepBuffer::a, row, c);
          }
        break;
      case DepStep::Op::reduce_scatter:
        for (int r = 0; r < s.ranks; ++r)
          for (std::int64_t t = 0; t < st.rows; ++t) {
            Content sum;
            for (int q = 0; q < s.ranks; ++q)
              for (const Label& l : read(q, DepBuffer::staged, st.src_row + r * st.rows + t)) sum.insert(l);
            write(r, DepBuffer::out, st.dst_row + t, sum);
          }
        break;
    }
  };

  // Stream order with the waits, played adversarially: the consumer of the moved data (the
  // GEMM when the collective feeds it, the collective otherwise) runs as soon as its waits
  // allow, the producer as late as they allow.
  std::vector<std::size_t> next(static_cast<std::size_t>(s.ranks), 0);
  std::size_t step = 0;
  const bool gemm_consumes = s.dependency == Dependency::collective_feeds_gemm;
  const auto run_gemms = [&](bool all) {
    bool ran = false;
    for (int r = 0; r < s.ranks; ++r) {
      auto& jobs = s.gemms[static_cast<std::size_t>(r)];
      auto& j = next[static_cast<std::size_t>(r)];
      while (j < jobs.size() && jobs[j].waits_for_step < static_cast<int>(step)) {
        run_gemm(r, jobs[j++]);
        ran = true;
        if (!all) break;
      }
    }
    return ran;
  };
  const auto try_step = [&] {
    if (step >= s.comm.size()) return false;
    const int w = s.comm[step].waits_for_gemm;
    for (std::size_t j : next)
      if (static_cast<int>(j) <= w) return false;
    run_step(s.comm[step++]);
    return true;
  };
  for (int guard = 0; guard < 100000; ++guard) {
    const bool progressed = gemm_consumes ? (run_gemms(true) || try_step()) : (try_step() || run_gemms(false));
    if (!progressed) break;
  }
  if (step != s.comm.size()) p.errors.push_back("steps left: a wait that never ends");
  for (int r = 0; r < s.ranks; ++r)
    if (next[static_cast<std::size_t>(r)] != s.gemms[static_cast<std::size_t>(r)].size())
      p.errors.push_back("GEMM jobs left on rank " + std::to_string(r));
  return p;
}

// What the undecomposed computation leaves in rank r's output row i.
Content expected(const DependentSchedule& s, int r, std::int64_t i) {
  const std::int64_t block = block_rows(s.m, s.ranks);
  if (s.dependency == Dependency::collective_feeds_gemm) {
    if (s.kind == CollectiveKind::all_gather) return {{'d', static_cast<int>(i / block), i}};  // row i of the global A
    return {{'D', static_cast<int>(i / block), r * block + i % block}};  // rank p's send block r
  }
  if (s.kind == CollectiveKind::all_to_all) return {{'C', static_cast<int>(i / block), r * block + i % block}};
  Content sum;  // reduce_scatter: rank r's rows of every rank's C
  for (int p = 0; p < s.ranks; ++p) sum.insert({'C', p, r * block + i});
  return sum;
}

using Case = std::tuple<Dependency, CollectiveKind>;
const Case kCases[] = {{Dependency::collective_feeds_gemm, CollectiveKind::all_gather},
                       {Dependency::collective_feeds_gemm, CollectiveKind::all_to_all},
                       {Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter},
                       {Dependency::gemm_feeds_collective, CollectiveKind::all_to_all}};

TEST(DependentSchedule, EveryScheduleComputesTheUndecomposedResult) {
  const std::int64_t m = 192;
  int played = 0;
  for (const auto& [dep, kind] : kCases)
    for (int ranks : {2, 3, 4})
      for (int chunks : {1, ranks, 2 * ranks, 4 * ranks}) {
        const DependentSchedule s = dependent_schedule(dep, kind, m, ranks, chunks);
        const std::string name = std::string(to_string(dep)) + "/" + std::string(to_string(kind)) + " ranks " +
                                 std::to_string(ranks) + " chunks " + std::to_string(chunks);
        const Played p = play(s);
        EXPECT_TRUE(p.errors.empty()) << name << ": " << p.errors.front();
        for (int r = 0; r < ranks; ++r) {
          const auto& out = p.ranks[static_cast<std::size_t>(r)].rows.at(DepBuffer::out);
          ASSERT_EQ(static_cast<std::int64_t>(out.size()), s.out_rows) << name;
          for (std::int64_t i = 0; i < s.out_rows; ++i) {
            const auto& got = out[static_cast<std::size_t>(i)];
            ASSERT_TRUE(got.has_value()) << name << ": " << where(r, DepBuffer::out, i) << " never written";
            ASSERT_EQ(*got, expected(s, r, i)) << name << ": " << where(r, DepBuffer::out, i);
            // The host reference of the cuda backend's check (out_row_terms) says the same.
            Content terms;
            for (const RowTerm& t : out_row_terms(s, r, i)) {
              if (s.dependency == Dependency::gemm_feeds_collective) terms.insert({'C', t.rank, t.row});
              else terms.insert({t.buffer == DepBuffer::send ? 'D' : 'd', t.rank, t.row});
            }
            ASSERT_EQ(terms, expected(s, r, i)) << name << ": out_row_terms of " << where(r, DepBuffer::out, i);
          }
        }
        ++played;
      }
  EXPECT_EQ(played, 48);
}

TEST(DependentSchedule, PiecesAreThoseTheModelPrices) {
  // model.md §7.1: collective_feeds_gemm: the local block first, then per step
  // pieces of m/C rows after that step; gemm_feeds_collective: per step m/S rows, then
  // that step's collective.
  const std::int64_t m = 1024;
  for (int ranks : {2, 4}) {
    for (int chunks : {ranks, 2 * ranks, 4 * ranks}) {
      const int steps = chunks / ranks;
      for (auto kind : {CollectiveKind::all_gather, CollectiveKind::all_to_all}) {
        const auto s = dependent_schedule(Dependency::collective_feeds_gemm, kind, m, ranks, chunks);
        EXPECT_EQ(s.steps, steps);
        ASSERT_EQ(static_cast<int>(s.comm.size()), steps);
        for (int r = 0; r < ranks; ++r) {
          const auto& jobs = s.gemms[static_cast<std::size_t>(r)];
          EXPECT_EQ(jobs.front().waits_for_step, -1);
          EXPECT_EQ(jobs.front().rows * jobs.front().count, m / ranks);
          std::vector<std::int64_t> rows_per_step(static_cast<std::size_t>(steps), 0);
          for (std::size_t j = 1; j < jobs.size(); ++j)
            rows_per_step.at(static_cast<std::size_t>(jobs[j].waits_for_step)) += jobs[j].rows * jobs[j].count;
          for (std::int64_t rows : rows_per_step) EXPECT_EQ(rows, m / chunks * (ranks - 1));
          // One job per step at the first and last rank (one strided run of peers), two between.
          const std::size_t runs = r == 0 || r == ranks - 1 ? 1 : 2;
          EXPECT_EQ(jobs.size(), 1 + runs * static_cast<std::size_t>(steps));
        }
        for (const DepStep& st : s.comm) EXPECT_EQ(st.copies.size(), static_cast<std::size_t>(ranks * (ranks - 1)));
      }
      for (auto kind : {CollectiveKind::reduce_scatter, CollectiveKind::all_to_all}) {
        const auto s = dependent_schedule(Dependency::gemm_feeds_collective, kind, m, ranks, chunks);
        for (const auto& jobs : s.gemms) {
          ASSERT_EQ(static_cast<int>(jobs.size()), steps);
          for (const DepGemm& g : jobs) {
            EXPECT_EQ(g.rows * g.count, m / steps);
            EXPECT_EQ(g.count, ranks);  // one strided-batched GEMM per step
          }
        }
        for (int st = 0; st < steps; ++st) EXPECT_EQ(s.comm[static_cast<std::size_t>(st)].waits_for_gemm, st);
      }
    }
  }
}

TEST(DependentSchedule, UndecomposedIsOneCollectiveAndOneGemm) {
  auto s = dependent_schedule(Dependency::collective_feeds_gemm, CollectiveKind::all_gather, 512, 2, 1);
  ASSERT_EQ(s.comm.size(), 1u);
  EXPECT_EQ(s.comm[0].op, DepStep::Op::all_gather);
  EXPECT_EQ(s.comm[0].rows, 256);
  EXPECT_EQ(s.gemms[0], (std::vector<DepGemm>{{0, DepBuffer::a, 0, 0, DepBuffer::out, 0, 0, 512, 1}}));
  s = dependent_schedule(Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter, 512, 2, 1);
  EXPECT_EQ(s.gemms[1], (std::vector<DepGemm>{{-1, DepBuffer::a, 0, 0, DepBuffer::staged, 0, 0, 512, 1}}));
  ASSERT_EQ(s.comm.size(), 1u);
  EXPECT_EQ(s.comm[0].op, DepStep::Op::reduce_scatter);
  EXPECT_EQ(s.comm[0].rows, 256);
  EXPECT_EQ(s.out_rows, 256);
  EXPECT_TRUE(s.uses(DepBuffer::staged));
  EXPECT_FALSE(s.uses(DepBuffer::send));
  EXPECT_THROW(out_row_terms(s, 0, 256), InputError);
  EXPECT_THROW(out_row_terms(s, 2, 0), InputError);
  EXPECT_EQ(out_row_terms(s, 1, 3), (std::vector<RowTerm>{{0, DepBuffer::a, 259}, {1, DepBuffer::a, 259}}));
}

TEST(DependentSchedule, RefusesWhatCannotBeCut) {
  const auto message = [](Dependency d, CollectiveKind k, std::int64_t m, int ranks, int chunks) {
    try {
      dependent_schedule(d, k, m, ranks, chunks);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const auto feeds = Dependency::collective_feeds_gemm;
  EXPECT_NE(message(Dependency::none, CollectiveKind::all_gather, 64, 2, 2).find("dependent pair"), std::string::npos);
  EXPECT_NE(message(feeds, CollectiveKind::reduce_scatter, 64, 2, 2).find("all_gather or all_to_all"),
            std::string::npos);
  EXPECT_NE(message(Dependency::gemm_feeds_collective, CollectiveKind::all_gather, 64, 2, 2).find("reduce_scatter"),
            std::string::npos);
  EXPECT_NE(message(feeds, CollectiveKind::all_gather, 64, 1, 1).find("at least 2 ranks"), std::string::npos);
  EXPECT_NE(message(feeds, CollectiveKind::all_gather, 63, 2, 1).find("must divide"), std::string::npos);
  EXPECT_NE(message(feeds, CollectiveKind::all_gather, 64, 2, 3).find("multiple of the 2 ranks"), std::string::npos);
  EXPECT_NE(message(feeds, CollectiveKind::all_gather, 96, 4, 2).find("multiple of the 4 ranks"), std::string::npos);
  EXPECT_NE(message(feeds, CollectiveKind::all_gather, 68, 2, 8).find("chunks (8) must divide"), std::string::npos);
  EXPECT_NE(message(feeds, CollectiveKind::all_gather, 64, 2, 0).find("chunks"), std::string::npos);
  EXPECT_EQ(message(feeds, CollectiveKind::all_gather, 64, 2, 16), "accepted");
}

TEST(DependentSchedule, ABackendThatCutsPairsOffersChunked) {
  const auto has_chunked = [](int max_chunks) {
    const auto kinds = runnable_kinds({true, true, max_chunks});
    return std::find(kinds.begin(), kinds.end(), StrategyKind::chunked) != kinds.end();
  };
  EXPECT_FALSE(has_chunked(1));
  EXPECT_TRUE(has_chunked(16));  // the cuda backend with 2 or more GPUs
}

}  // namespace
}  // namespace c3::validator
