// One c3::Advisor shared by 8 threads (Advisor::advise is documented const and
// thread-safe): each thread advises every paper scenario several times, and every
// result must equal the single-threaded reference exactly. An ordinary test in every
// build; in a ThreadSanitizer build (C3_SANITIZE=thread, scripts/sanitize.sh) it is the
// race check of the query path.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "c3/advisor.hpp"
#include "c3/io.hpp"

namespace c3 {
namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 3;

// Everything advise() returns, for an exact comparison.
bool same_advice(const Advice& a, const Advice& b) {
  if (a.pair.name != b.pair.name || !(a.pair.gemm == b.pair.gemm) ||
      !(a.pair.collective == b.pair.collective) || a.isolated.gemm_s != b.isolated.gemm_s ||
      a.isolated.collective_s != b.isolated.collective_s ||
      a.isolated.collective_dma_s != b.isolated.collective_dma_s ||
      a.taxonomy.overlap != b.taxonomy.overlap || a.taxonomy.gemm != b.taxonomy.gemm ||
      a.taxonomy.collective != b.taxonomy.collective || a.ideal_speedup != b.ideal_speedup ||
      a.recommended != b.recommended || a.reason != b.reason ||
      a.strategies.size() != b.strategies.size())
    return false;
  for (std::size_t i = 0; i < a.strategies.size(); ++i) {
    const StrategyPrediction& p = a.strategies[i];
    const StrategyPrediction& q = b.strategies[i];
    if (!(p.strategy == q.strategy) || p.collective_cus != q.collective_cus ||
        p.gemm_cus != q.gemm_cus || p.predicted_s != q.predicted_s || p.speedup != q.speedup ||
        p.fraction_of_ideal != q.fraction_of_ideal)
      return false;
  }
  return true;
}

TEST(AdvisorThreads, EightThreadsAdvisingThePaperScenariosMatchOneThread) {
  const std::vector<C3Pair> pairs = io::resolve_scenarios("paper");
  ASSERT_FALSE(pairs.empty());
  for (const std::string& profile : {std::string("mi300x"), std::string("h200x2")}) {
    SCOPED_TRACE(profile);
    const Advisor advisor(io::resolve_profile(profile));
    std::vector<C3Pair> on_profile = pairs;
    if (profile == "h200x2") io::set_ranks(on_profile, 2);

    std::vector<Advice> reference;
    for (const C3Pair& p : on_profile) reference.push_back(advisor.advise(p));

    std::atomic<bool> go{false};
    std::vector<int> mismatches(kThreads, 0);
    std::vector<int> advised(kThreads, 0);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();  // start together
        try {
          for (int round = 0; round < kRounds; ++round) {
            // Each thread walks the pairs from its own offset, so that different pairs run
            // at the same moment as well as the same pair.
            for (std::size_t i = 0; i < on_profile.size(); ++i) {
              const std::size_t j = (i + static_cast<std::size_t>(t) * 5) % on_profile.size();
              const Advice a = advisor.advise(on_profile[j]);
              ++advised[t];
              if (!same_advice(a, reference[j])) ++mismatches[t];
            }
          }
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    }
    go = true;
    for (std::thread& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(errors[t], "") << "thread " << t;
      EXPECT_EQ(mismatches[t], 0) << "thread " << t;
      EXPECT_EQ(advised[t], kRounds * static_cast<int>(on_profile.size())) << "thread " << t;
    }
  }
}

}  // namespace
}  // namespace c3
