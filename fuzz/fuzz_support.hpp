// fuzz/fuzz_support.hpp: what every fuzz target checks (fuzz/README.md).
//
//  * Only the library's typed errors may escape a library call: c3::Error and its
//    subclasses (include/c3/errors.hpp). typed() runs a call and tolerates them; any
//    other exception is a finding: the target prints it and aborts, and libFuzzer
//    saves the input.
//  * A call that succeeded gives finite, non-negative times and speedups: every
//    predicted_s, isolated time, speedup and ideal speedup (check_advice), and its
//    text and JSON outputs show no nan/inf (check_text, check_json_numbers).
//  * Whatever a call's result is printed with must not throw at all (no_throw).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/views.hpp"

namespace c3::fuzz {

/// Prints "c3 fuzz finding: ..." and aborts (libFuzzer saves the input as a crash).
[[noreturn]] inline void finding(const char* format, ...) {
  std::fprintf(stderr, "\n==== c3 fuzz finding: ");
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  std::abort();
}

#define C3_FUZZ_CHECK(cond, ...)                            \
  do {                                                      \
    if (!(cond)) ::c3::fuzz::finding(__VA_ARGS__);          \
  } while (0)

/// Runs `f`; true when it returned, false when it threw a c3::Error. Any other
/// exception is a finding.
template <typename F>
bool typed(const char* what, F&& f) {
  try {
    f();
    return true;
  } catch (const c3::Error&) {
    return false;
  } catch (const std::exception& e) {
    finding("%s threw %s, not a c3::Error: %s", what, typeid(e).name(), e.what());
  } catch (...) {
    finding("%s threw something that is not a std::exception", what);
  }
}

/// Runs `f`, which must not throw at all.
template <typename F>
void no_throw(const char* what, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    finding("%s threw %s after the call it prints had succeeded: %s", what, typeid(e).name(),
            e.what());
  } catch (...) {
    finding("%s threw something that is not a std::exception", what);
  }
}

/// A time in seconds: finite and >= 0 (> 0 when `positive`).
inline void check_time(double t, const char* what, bool positive = true) {
  C3_FUZZ_CHECK(std::isfinite(t) && (positive ? t > 0 : t >= 0), "%s = %g: not a %s finite time",
                what, t, positive ? "positive" : "non-negative");
}

/// A speedup: finite and > 0.
inline void check_speedup(double s, const char* what) {
  C3_FUZZ_CHECK(std::isfinite(s) && s > 0, "%s = %g: not a positive finite speedup", what, s);
}

/// A finite number (fractions of ideal may be negative).
inline void check_finite(double x, const char* what) {
  C3_FUZZ_CHECK(std::isfinite(x), "%s = %g: not finite", what, x);
}

inline bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/// No "nan" or "inf" (any case) standing as a word of its own: what printf and
/// to_chars write for non-finite numbers. User text (names, descriptions) may hold such
/// words: check outputs printed from scrubbed() copies.
inline void check_text(std::string_view text, const char* what) {
  for (std::size_t i = 0; i + 3 <= text.size(); ++i) {
    const auto lower = [&](std::size_t j) { return static_cast<char>(text[j] | 0x20); };
    const bool nan = lower(i) == 'n' && lower(i + 1) == 'a' && lower(i + 2) == 'n';
    const bool inf = lower(i) == 'i' && lower(i + 1) == 'n' && lower(i + 2) == 'f';
    if (!nan && !inf) continue;
    const bool starts = i == 0 || !is_letter(text[i - 1]);
    const bool ends = i + 3 == text.size() || !is_letter(text[i + 3]) ||
                      (inf && text.substr(i, 8) == "infinity");
    C3_FUZZ_CHECK(!(starts && ends), "%s prints a non-finite number near: %.*s", what,
                  static_cast<int>(std::min<std::size_t>(text.size() - i + 20, 60)),
                  text.data() + (i >= 20 ? i - 20 : 0));
  }
}

/// Walks a JSON document: every number is finite; every time ("..._s") and speedup
/// ("speedup", "ideal_speedup", "..._speedup") is a number >= 0. nlohmann writes NaN and
/// infinity as null, so a null there is a finding too, except where the document's
/// schema allows it: the keys in `nullable` (e.g. "collective_dma_s", null when the
/// collective cannot run on copy engines; docs/cli.md).
inline void check_json_numbers(const nlohmann::ordered_json& j, const std::string& path,
                               std::initializer_list<std::string_view> nullable) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      const std::string p = path + "." + key;
      const bool time = key.size() > 2 && key.ends_with("_s");
      const bool speedup = key == "speedup" || key.ends_with("_speedup");
      if (time || speedup) {
        bool allowed_null = false;
        for (std::string_view n : nullable) allowed_null |= key == n;
        if (value.is_null()) {
          C3_FUZZ_CHECK(allowed_null, "%s is null (a NaN or infinity written as JSON)", p.c_str());
        } else if (value.is_number()) {
          const double x = value.get<double>();
          C3_FUZZ_CHECK(std::isfinite(x) && x >= 0, "%s = %g: negative or not finite", p.c_str(), x);
        }
      }
      check_json_numbers(value, p, nullable);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      check_json_numbers(j[i], path + "[" + std::to_string(i) + "]", nullable);
  } else if (j.is_number_float()) {
    C3_FUZZ_CHECK(std::isfinite(j.get<double>()), "%s is not finite", path.c_str());
  }
}

/// Parses a JSON document the library wrote and checks its numbers.
inline void check_json_text(const std::string& text, const char* what,
                            std::initializer_list<std::string_view> nullable = {}) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const std::exception& e) {
    finding("%s is not valid JSON: %s", what, e.what());
  }
  check_json_numbers(j, what, nullable);
}

// ---- copies without user text, for check_text ----

inline C3Pair scrubbed(C3Pair p) {
  p.name = p.name.empty() ? "" : "pair";
  p.gemm_class_measured_on = p.gemm_class_measured_on.empty() ? "" : "profile";
  return p;
}
inline Advice scrubbed(Advice a) {
  a.pair = scrubbed(a.pair);
  return a;
}
inline HardwareProfile scrubbed(HardwareProfile hw) {
  hw.name = "profile";
  hw.gpu = "gpu";
  hw.description.clear();
  hw.provenance.ref.clear();
  hw.provenance_details.clear();
  return hw;
}
inline Trace scrubbed(Trace t) {
  t.name = "trace";
  t.description.clear();
  for (TraceEntry& e : t.entries) e.pair = scrubbed(e.pair);
  return t;
}
inline Plan scrubbed(Plan p) {
  for (PlanEntry& e : p.entries) {
    e.entry.pair = scrubbed(e.entry.pair);
    e.advice = scrubbed(e.advice);
  }
  return p;
}

/// Every time and speedup of one advice; the recommendation within the list.
inline void check_advice(const HardwareProfile& hw, const Advice& a) {
  check_time(a.isolated.gemm_s, "isolated.gemm_s");
  check_time(a.isolated.collective_s, "isolated.collective_s");
  if (dma_capable(a.pair.collective.kind)) {
    check_time(a.isolated.collective_dma_s, "isolated.collective_dma_s");
  } else {
    C3_FUZZ_CHECK(a.isolated.collective_dma_s == 0,
                  "isolated.collective_dma_s = %g for a reduction (documented: 0)",
                  a.isolated.collective_dma_s);
  }
  check_speedup(a.ideal_speedup, "ideal_speedup");
  C3_FUZZ_CHECK(a.ideal_speedup >= 1 && a.ideal_speedup <= 2 + 1e-9,
                "ideal_speedup = %g outside [1, 2]", a.ideal_speedup);
  C3_FUZZ_CHECK(!a.strategies.empty(), "no strategy predicted");
  C3_FUZZ_CHECK(a.strategies.front().strategy.kind == StrategyKind::serial,
                "the first strategy is %s, not serial", a.strategies.front().strategy.label().c_str());
  C3_FUZZ_CHECK(a.recommended < a.strategies.size(), "recommended index %zu of %zu strategies",
                a.recommended, a.strategies.size());
  for (const StrategyPrediction& p : a.strategies) {
    const std::string label = p.strategy.label();
    check_time(p.predicted_s, (label + ".predicted_s").c_str());
    check_speedup(p.speedup, (label + ".speedup").c_str());
    check_finite(p.fraction_of_ideal, (label + ".fraction_of_ideal").c_str());
    C3_FUZZ_CHECK(p.collective_cus >= 0 && p.gemm_cus > 0, "%s: collective_cus %d, gemm_cus %d",
                  label.c_str(), p.collective_cus, p.gemm_cus);
  }
  // The pick is within the tie margin of the fastest, or, when hedged (advisor.hpp), of the
  // smallest predicted worst case, time x (1 + the strategy's hedge error).
  const auto worst = [&](const StrategyPrediction& p) {
    if (!a.confidence.hedged) return p.predicted_s;
    return p.predicted_s * (1 + hedge_error(hw, a.pair, p.strategy));
  };
  const double best = worst(a.recommendation());
  for (const StrategyPrediction& p : a.strategies)
    C3_FUZZ_CHECK(best <= worst(p) * (1 + kTieMargin) * (1 + 1e-12),
                  "recommended %s (%g s) is not within the tie margin of %s (%g s)",
                  a.recommendation().strategy.label().c_str(), best, p.strategy.label().c_str(),
                  p.predicted_s);
  C3_FUZZ_CHECK(!a.reason.empty(), "empty reason");
  check_text(a.reason, "reason");
}

/// advise() and everything printed from its result (text, JSON, heuristics).
/// Returns false when the pair was rejected with a typed error.
inline bool advise_and_print(const Advisor& advisor, const C3Pair& pair, Advice* out = nullptr) {
  Advice a;
  if (!typed("Advisor::advise", [&] { a = advisor.advise(pair); })) return false;
  check_advice(advisor.profile(), a);
  std::vector<io::HeuristicPick> picks;
  // The heuristics run on the same validated pair; their documented errors are typed.
  typed("io::heuristic_picks", [&] { picks = io::heuristic_picks(advisor, pair); });
  no_throw("io::advice_text", [&] {
    io::advice_text(advisor.profile(), a, picks);  // with the user's names: must not fail
    check_text(io::advice_text(scrubbed(advisor.profile()), scrubbed(a), picks), "advice_text");
  });
  no_throw("io::advice_json", [&] {
    check_json_text(io::advice_json(advisor.profile(), a, picks), "advice_json", {"collective_dma_s"});
  });
  if (out != nullptr) *out = std::move(a);
  return true;
}

/// The profiles compiled into the library, each with its Advisor (built once).
struct EmbeddedAdvisors {
  std::vector<Advisor> advisors;
  static const EmbeddedAdvisors& get() {
    static const EmbeddedAdvisors all = [] {
      EmbeddedAdvisors e;
      for (const std::string& name : io::embedded_profile_names())
        e.advisors.emplace_back(io::resolve_profile(name));
      return e;
    }();
    return all;
  }
};

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace c3::fuzz
