// apps/advise.cpp: `c3advisor advise`: one GEMM + collective pair.
#include <memory>
#include <string>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/model.hpp"
#include "c3/views.hpp"

namespace c3::apps {
namespace {

struct AdviseOptions {
  std::string profile;
  std::string gemm;
  std::string collective;
  std::string gemm_class;
  std::string dependency = "none";
  bool chained = false;
  std::string gemm_tile;
  double gemm_time_us = 0;
  CLI::Option* gemm_time_given = nullptr;
  int ranks = 0;
  CLI::Option* ranks_given = nullptr;
  bool json = false;
};

// --gemm-tile TMxTN[:S]: the GEMM's own kernel (cuBLASLt's choice for the shape).
GemmKernelShape gemm_kernel_of(const std::string& text, const Gemm& gemm) {
  try {
    const model::GemmTile t = model::parse_gemm_tile(text);
    return GemmKernelShape{gemm, t.m, t.n, t.split_k};
  } catch (const InputError& e) {
    throw InputError(std::string("--gemm-tile ") + e.what());
  }
}

std::string run_advise(const AdviseOptions& o) {
  const Gemm gemm = parse_gemm(o.gemm);
  HardwareProfile hw = io::resolve_profile(o.profile);
  if (!o.gemm_tile.empty()) hw = model::with_gemm_kernels(std::move(hw), {gemm_kernel_of(o.gemm_tile, gemm)});
  const int ranks = o.ranks_given->count() > 0 ? o.ranks : hw.gpu_count;
  C3Pair pair;
  pair.gemm = gemm;
  pair.dependency = parse_dependency(o.dependency);
  pair.collective = parse_collective(o.collective, ranks, pair.gemm, pair.dependency);
  pair.chained = o.chained;
  pair.at_power_limit = o.chained;  // a prefetch chain of a step (docs/model.md §4.6)
  note_if_fitted_chained(hw, o.chained);
  try {
    validate_chained(pair);
  } catch (const InputError& e) {
    throw InputError(std::string("--chained: ") + e.what());
  }
  if (!o.gemm_class.empty()) pair.gemm_class = parse_gemm_class(o.gemm_class);
  if (o.gemm_time_given->count() > 0) {
    // The GEMM's own time on this machine (docs/model.md §1.2), files = 0: given, not from a file.
    if (pair.dependency != Dependency::none)
      throw InputError(
          "--gemm-time-us: a dependent pair's schedules price the GEMM's pieces (docs/model.md §7.3), "
          "not its whole time; give it for an independent pair");
    hw = model::with_gemm_times(std::move(hw),
                                {GemmTimeShape{model::gemm_as_run(pair), o.gemm_time_us * 1e-6, 0}});
  }
  const Advisor advisor(std::move(hw));
  const Advice advice = advisor.advise(pair);
  const std::vector<io::HeuristicPick> picks = io::heuristic_picks(advisor, pair);
  return o.json ? io::advice_json(advisor.profile(), advice, picks)
                : io::advice_text(advisor.profile(), advice, picks);
}

}  // namespace

Command add_advise(CLI::App& app) {
  auto o = std::make_shared<AdviseOptions>();
  CLI::App* sub = app.add_subcommand(
      "advise", "Predict every way to run one GEMM + collective pair and recommend the fastest");
  add_profile_option(*sub, o->profile);
  sub->add_option("--gemm", o->gemm, "The GEMM: MxNxK, MxNxK:dtype or MxNxK:dtype:layout (bf16, fp16, fp32, fp8; default bf16; layout tn, the default, or row_major: docs/model.md 1.1)")
      ->required();
  sub->add_option("--collective", o->collective,
                  "The collective: KIND:SIZE, KIND one of all_gather, all_to_all, reduce_scatter, "
                  "all_reduce; SIZE as 896MiB, 3.25GiB, 1.5GB, 896M (binary) or bytes; a dependent pair "
                  "may give KIND alone (the size of the GEMM operand it moves)")
      ->required();
  sub->add_option("--dependency", o->dependency,
                  "none (independent), collective_feeds_gemm (the all_gather/all_to_all output is the "
                  "GEMM's A, m x k) or gemm_feeds_collective (the GEMM's output, m x n, is "
                  "reduce_scattered or all_to_all'd); dependent pairs get decomposed schedules")
      ->capture_default_str();
  sub->add_option("--gemm-class", o->gemm_class,
                  "The GEMM's class where it was measured (compute_bound or memory_bound); "
                  "default: from the roofline");
  sub->add_option("--gemm-tile", o->gemm_tile,
                  "The GEMM's own kernel, TILE_MxTILE_N[:SPLIT_K] (e.g. 192x192; cuBLASLt's heuristic for "
                  "the shape names it without running it): its CTAs and waves price launch order and "
                  "partitions; default: the kernel of the profile's nearest measured shape");
  o->gemm_time_given =
      sub->add_option(
             "--gemm-time-us", o->gemm_time_us,
             "The GEMM's own time alone on this machine, in us (e.g. timed with CUDA events): it "
             "replaces the model's and the profile's measured time of the shape (docs/model.md §1.2); "
             "independent pairs only")
          ->check(CLI::Range(1e-3, 1e9));
  o->ranks_given = add_ranks_option(*sub, o->ranks, "default: the profile's gpu_count");
  sub->add_flag("--chained", o->chained,
                "The pair is issued in a prefetch chain (the previous pair still running, the host ahead): "
                "no launch cost, and collective-first on the library's CUs runs GEMM-first (docs/model.md §4.6)");
  sub->add_flag("--json", o->json, "Print a JSON document (schema in docs/cli.md)");
  sub->footer(
      "Examples:\n"
      "  c3advisor advise --gemm 8192x8192x8192 --collective all_gather:896MiB\n"
      "  c3advisor advise --profile h200_sxm --gemm 16384x8192x16384:fp8 \\\n"
      "      --collective all_to_all:3.25GiB --ranks 4 --json\n"
      "  c3advisor advise --profile h200x2 --gemm 8192x5120x8192 --collective all_gather \\\n"
      "      --dependency collective_feeds_gemm\n");
  return {sub, [o] { return run_advise(*o); }};
}

}  // namespace c3::apps
