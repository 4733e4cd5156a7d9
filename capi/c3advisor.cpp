// capi/c3advisor.cpp: the C API (include/c3advisor.h) over the C++ library. Every
// function catches everything: a C++ exception becomes a status and this thread's
// message; the C++ API is used as it is, nothing of the model is repeated here.
#include "c3advisor.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/model.hpp"
#include "c3/settings.hpp"
#include "c3/views.hpp"

#define C3A_EXPORT extern "C" __attribute__((visibility("default")))

struct c3a_advisor {
  c3::Advisor advisor;
};

namespace {

thread_local std::string t_last_error;

/// A failure with its status: thrown inside this file only, turned into a status by guard().
struct Failure {
  c3a_status status;
  std::string message;
};

[[noreturn]] void fail(c3a_status status, std::string message) { throw Failure{status, std::move(message)}; }

void require(const void* p, const char* what) {
  if (p == nullptr) fail(C3A_ERR_NULL_ARGUMENT, std::string(what) + " is NULL");
}

/// Runs `body`, mapping every exception to a status and this thread's message; the
/// exceptions the body does not classify (c3::InputError outside a classified step)
/// map to `input_status`.
template <class Body>
c3a_status guard(c3a_status input_status, Body&& body) noexcept {
  try {
    t_last_error.clear();
    return body();
  } catch (const Failure& f) {
    t_last_error = f.message;
    return f.status;
  } catch (const c3::ConfigError& e) {
    t_last_error = e.what();
    return C3A_ERR_BAD_FILE;
  } catch (const c3::InputError& e) {
    t_last_error = e.what();
    return input_status;
  } catch (const std::bad_alloc&) {
    t_last_error = "out of memory";
    return C3A_ERR_INTERNAL;
  } catch (const std::exception& e) {
    t_last_error = std::string("internal error: ") + e.what();
    return C3A_ERR_INTERNAL;
  } catch (...) {
    t_last_error = "internal error: an unknown exception";
    return C3A_ERR_INTERNAL;
  }
}

template <std::size_t N>
void copy_name(char (&dst)[N], std::string_view src) {
  const std::size_t n = std::min(src.size(), N - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

/// Copies `text` and its NUL into `buf`; C3A_ERR_BUFFER_TOO_SMALL when it does not fit.
c3a_status write_text(const std::string& text, char* buf, std::size_t buf_size, std::size_t* needed) {
  const std::size_t size = text.size() + 1;
  if (needed != nullptr) *needed = size;
  if (buf_size > 0) require(buf, "buf (with buf_size > 0)");
  if (size > buf_size) {
    t_last_error = "the buffer holds " + std::to_string(buf_size) + " bytes; " + std::to_string(size) +
                   " are needed";
    return C3A_ERR_BUFFER_TOO_SMALL;
  }
  std::memcpy(buf, text.c_str(), size);
  return C3A_OK;
}

/// The C++ pair of a c3a_pair; INVALID_ARGUMENT for what the advisor would not be asked.
c3::C3Pair to_pair(const c3::Advisor& advisor, const c3a_pair* p) {
  require(p, "pair");
  require(p->collective, "pair.collective");
  if (p->ranks < 0) fail(C3A_ERR_INVALID_ARGUMENT, "pair.ranks must be >= 2 (or 0: the profile's gpu_count)");
  if (p->chained != 0 && p->chained != 1)
    fail(C3A_ERR_INVALID_ARGUMENT, "pair.chained must be 0 (alone) or 1 (in a prefetch chain), not " +
                                       std::to_string(p->chained));
  try {
    c3::C3Pair pair;
    pair.gemm = c3::Gemm{p->m, p->n, p->k, c3::parse_dtype(p->dtype != nullptr ? p->dtype : "bf16"),
                         c3::parse_gemm_layout(p->layout != nullptr ? p->layout : "tn")};
    pair.collective = c3::Collective{c3::parse_collective_kind(p->collective), p->size_bytes,
                                     p->ranks == 0 ? advisor.profile().gpu_count : p->ranks};
    if (p->gemm_class != nullptr) pair.gemm_class = c3::parse_gemm_class(p->gemm_class);
    if (p->dependency != nullptr) pair.dependency = c3::parse_dependency(p->dependency);
    c3::validate(pair.gemm);
    // A dependent pair's size may be 0: the size of the GEMM operand it moves.
    if (pair.dependency != c3::Dependency::none && p->size_bytes == 0)
      pair.collective.size_bytes = c3::dependent_operand_bytes(pair.gemm, pair.dependency);
    c3::validate(pair.collective);
    c3::validate_dependency(pair.gemm, pair.collective, pair.dependency);
    pair.chained = p->chained == 1;
    pair.at_power_limit = pair.chained;  // a prefetch chain of a step (docs/model.md §4.6)
    c3::validate_chained(pair);  // as `advise --chained --dependency ...` refuses it
    return pair;
  } catch (const c3::InputError& e) {
    fail(C3A_ERR_INVALID_ARGUMENT, e.what());
  }
}

const c3::Advisor& advisor_of(const c3a_advisor* a) {
  require(a, "advisor");
  return a->advisor;
}

// The pair and the advisor that answers it: the shared one, or (when the pair names its
// GEMM's kernel, pair.tile_m/tile_n/split_k) one whose profile has that kernel for the
// shape (c3::model::with_gemm_kernels). The shared advisor is never changed, so calls from
// several threads stay independent.
struct Bound {
  std::optional<c3::Advisor> own;
  const c3::Advisor* shared = nullptr;
  c3::C3Pair pair;
  const c3::Advisor& get() const { return own ? *own : *shared; }
};

Bound bind(const c3a_advisor* handle, const c3a_pair* p) {
  const c3::Advisor& shared = advisor_of(handle);
  Bound b;
  b.pair = to_pair(shared, p);
  b.shared = &shared;
  if (p->tile_m == 0 && p->tile_n == 0 && p->split_k == 0) return b;
  if (!c3::model::valid_gemm_tile({p->tile_m, p->tile_n, p->split_k == 0 ? 1 : p->split_k}))
    fail(C3A_ERR_INVALID_ARGUMENT, "pair.tile_m and pair.tile_n must both be in [1, " +
                                       std::to_string(c3::model::kMaxTileDim) +
                                       "] (or all three 0: the profile's kernel), pair.split_k in [0, " +
                                       std::to_string(c3::model::kMaxTileDim) + "] (got " + std::to_string(p->tile_m) +
                                       ", " + std::to_string(p->tile_n) + ", " + std::to_string(p->split_k) + ")");
  const c3::GemmKernelShape kernel{b.pair.gemm, p->tile_m, p->tile_n, p->split_k == 0 ? 1 : p->split_k};
  b.own.emplace(c3::model::with_gemm_kernels(shared.profile(), {kernel}));
  return b;
}

c3a_launch_order to_c(c3::LaunchOrder order) {
  switch (order) {
    case c3::LaunchOrder::gemm_first: return C3A_ORDER_GEMM_FIRST;
    case c3::LaunchOrder::collective_first: return C3A_ORDER_COLLECTIVE_FIRST;
    case c3::LaunchOrder::serial: break;
  }
  return C3A_ORDER_SERIAL;
}

c3a_settings to_c(const c3::FrameworkSettings& s) {
  c3a_settings out{};
  if (s.nccl) {
    out.nccl_max_ctas = s.nccl->max_ctas;
    out.nccl_min_ctas = s.nccl->min_ctas;
  }
  if (s.green_contexts) {
    out.green_context = 1;
    out.green_gemm_sms = s.green_contexts->gemm_sms;
    out.green_collective_sms = s.green_contexts->collective_sms;
  }
  out.overlap = s.overlap ? 1 : 0;
  out.prefetch = s.prefetch ? 1 : 0;
  copy_name(out.copy_engine, s.copy_engine.value_or(""));
  return out;
}

c3a_advice to_c(const c3::HardwareProfile& hw, const c3::Advice& advice) {
  const c3::StrategyPrediction& rec = advice.recommendation();
  const c3::ExecutionPlan plan = c3::strategies::plan_of(rec.strategy);
  c3a_advice out{};
  copy_name(out.strategy, rec.strategy.label());
  copy_name(out.kind, to_string(rec.strategy.kind));
  out.order = to_c(plan.order);
  out.transport = plan.transport == c3::Transport::dma ? C3A_TRANSPORT_COPY_ENGINE : C3A_TRANSPORT_NCCL;
  out.collective_sms = rec.collective_cus;
  out.collective_ctas = plan.transport == c3::Transport::dma ? 0 : rec.collective_cus;
  out.gemm_sms = rec.gemm_cus;
  out.chunks = plan.chunks;
  out.predicted_s = rec.predicted_s;
  out.speedup = rec.speedup;
  const c3::StrategyPrediction* runner_up = nullptr;
  for (std::size_t i = 0; i < advice.strategies.size(); ++i) {
    const c3::StrategyPrediction& p = advice.strategies[i];
    if (p.strategy.kind == c3::StrategyKind::serial) out.serial_s = p.predicted_s;
    if (i != advice.recommended && (runner_up == nullptr || p.predicted_s < runner_up->predicted_s))
      runner_up = &p;
  }
  if (runner_up != nullptr) {
    copy_name(out.runner_up, runner_up->strategy.label());
    out.runner_up_s = runner_up->predicted_s;
  }
  out.strategy_count = static_cast<int>(advice.strategies.size());
  out.warning_count = static_cast<int>(advice.warnings.size());
  out.settings = to_c(c3::framework_settings(hw, rec));
  return out;
}

c3a_status plan_trace(const c3a_advisor* a, const c3::Trace& trace, c3a_plan_totals* totals, char* json,
                      std::size_t json_size, std::size_t* needed) {
  const c3::Advisor& advisor = advisor_of(a);
  const c3::Plan step = c3::plan(advisor, trace);
  c3a_plan_totals t{};
  t.entries = static_cast<int>(step.entries.size());
  t.advised_s = step.advised_s;
  t.serial_s = step.serial_s;
  t.base_s = step.base_s;
  for (const c3::PlanEntry& e : step.entries) t.warning_count += static_cast<int>(e.advice.warnings.size());
  *totals = t;
  if (json == nullptr && json_size == 0) {  // totals only; the JSON's size when asked
    if (needed != nullptr) *needed = c3::io::plan_json(advisor.profile(), trace, step).size() + 1;
    return C3A_OK;
  }
  return write_text(c3::io::plan_json(advisor.profile(), trace, step), json, json_size, needed);
}

}  // namespace

C3A_EXPORT int c3a_version(void) { return C3ADVISOR_API_VERSION; }

C3A_EXPORT const char* c3a_library_version(void) { return C3_VERSION; }

C3A_EXPORT const char* c3a_status_name(int status) {
  switch (status) {
    case C3A_OK: return "C3A_OK";
    case C3A_ERR_NULL_ARGUMENT: return "C3A_ERR_NULL_ARGUMENT";
    case C3A_ERR_INVALID_ARGUMENT: return "C3A_ERR_INVALID_ARGUMENT";
    case C3A_ERR_PROFILE_NOT_FOUND: return "C3A_ERR_PROFILE_NOT_FOUND";
    case C3A_ERR_BAD_FILE: return "C3A_ERR_BAD_FILE";
    case C3A_ERR_OUT_OF_DOMAIN: return "C3A_ERR_OUT_OF_DOMAIN";
    case C3A_ERR_NOT_IMPLEMENTED: return "C3A_ERR_NOT_IMPLEMENTED";
    case C3A_ERR_BUFFER_TOO_SMALL: return "C3A_ERR_BUFFER_TOO_SMALL";
    case C3A_ERR_INTERNAL: return "C3A_ERR_INTERNAL";
  }
  return "C3A_UNKNOWN";
}

C3A_EXPORT const char* c3a_last_error(void) { return t_last_error.c_str(); }

C3A_EXPORT c3a_status c3a_parse_size(const char* text, int64_t* bytes) {
  return guard(C3A_ERR_INVALID_ARGUMENT, [&] {
    require(text, "text");
    require(bytes, "bytes");
    *bytes = c3::parse_size_bytes(text);
    return C3A_OK;
  });
}

C3A_EXPORT c3a_status c3a_embedded_profiles(char* buf, size_t buf_size, size_t* needed) {
  return guard(C3A_ERR_INTERNAL, [&] {
    std::string names;
    for (const std::string& name : c3::io::embedded_profile_names()) names += (names.empty() ? "" : "\n") + name;
    return write_text(names, buf, buf_size, needed);
  });
}

C3A_EXPORT c3a_status c3a_advisor_create(const char* profile, c3a_advisor** out) {
  if (out != nullptr) *out = nullptr;
  return guard(C3A_ERR_BAD_FILE, [&] {
    require(out, "out");
    require(profile, "profile");
    c3::HardwareProfile hw;
    try {
      hw = c3::io::resolve_profile(profile);
    } catch (const c3::ConfigError&) {
      throw;
    } catch (const c3::InputError& e) {  // neither an embedded name nor a file
      fail(C3A_ERR_PROFILE_NOT_FOUND, e.what());
    }
    *out = new c3a_advisor{c3::Advisor(std::move(hw))};  // InputError: an unusable profile
    return C3A_OK;
  });
}

C3A_EXPORT void c3a_advisor_destroy(c3a_advisor* advisor) { delete advisor; }

C3A_EXPORT c3a_status c3a_advisor_profile(const c3a_advisor* advisor, c3a_profile_info* out) {
  return guard(C3A_ERR_INTERNAL, [&] {
    const c3::HardwareProfile& hw = advisor_of(advisor).profile();
    require(out, "out");
    c3a_profile_info info{};
    copy_name(info.name, hw.name);
    copy_name(info.gpu, hw.gpu);
    info.gpu_count = hw.gpu_count;
    info.compute_units = hw.compute_units;
    *out = info;
    return C3A_OK;
  });
}

C3A_EXPORT c3a_status c3a_advise(const c3a_advisor* advisor, const c3a_pair* pair, c3a_advice* out) {
  return guard(C3A_ERR_OUT_OF_DOMAIN, [&] {
    const Bound b = bind(advisor, pair);
    require(out, "out");
    *out = to_c(b.get().profile(), b.get().advise(b.pair));
    return C3A_OK;
  });
}

C3A_EXPORT c3a_status c3a_advise_json(const c3a_advisor* advisor, const c3a_pair* pair, char* buf,
                                      size_t buf_size, size_t* needed) {
  return guard(C3A_ERR_OUT_OF_DOMAIN, [&] {
    const Bound b = bind(advisor, pair);
    const c3::Advisor& a = b.get();
    const c3::C3Pair& p = b.pair;
    if (buf_size > 0) require(buf, "buf (with buf_size > 0)");
    const c3::Advice advice = a.advise(p);
    // The document of `c3advisor advise --json` (apps/advise.cpp), by the same calls.
    return write_text(c3::io::advice_json(a.profile(), advice, c3::io::heuristic_picks(a, p)), buf, buf_size,
                      needed);
  });
}

C3A_EXPORT c3a_status c3a_advise_warnings(const c3a_advisor* advisor, const c3a_pair* pair, char* buf,
                                          size_t buf_size, size_t* needed) {
  return guard(C3A_ERR_OUT_OF_DOMAIN, [&] {
    const Bound b = bind(advisor, pair);
    if (buf_size > 0) require(buf, "buf (with buf_size > 0)");
    std::string text;
    for (const std::string& w : b.get().advise(b.pair).warnings) text += w + "\n";
    return write_text(text, buf, buf_size, needed);
  });
}

namespace {

// c3a_plan_file and c3a_plan_yaml: the same checks, the trace from `load(source)`.
template <typename Load>
c3a_status plan_from(const c3a_advisor* advisor, const char* source, const char* source_name,
                     c3a_plan_totals* totals, char* json, size_t json_size, size_t* needed, Load load) {
  return guard(C3A_ERR_OUT_OF_DOMAIN, [&] {
    advisor_of(advisor);
    require(source, source_name);
    require(totals, "totals");
    if (json_size > 0) require(json, "json (with json_size > 0)");
    return plan_trace(advisor, load(source), totals, json, json_size, needed);
  });
}

}  // namespace

C3A_EXPORT c3a_status c3a_plan_file(const c3a_advisor* advisor, const char* trace_path, c3a_plan_totals* totals,
                                    char* json, size_t json_size, size_t* needed) {
  return plan_from(advisor, trace_path, "trace_path", totals, json, json_size, needed,
                   [](const char* path) { return c3::io::load_trace(path); });
}

C3A_EXPORT c3a_status c3a_plan_yaml(const c3a_advisor* advisor, const char* trace_yaml, c3a_plan_totals* totals,
                                    char* json, size_t json_size, size_t* needed) {
  return plan_from(advisor, trace_yaml, "trace_yaml", totals, json, json_size, needed,
                   [](const char* yaml) { return c3::io::parse_trace(yaml, "<trace text>"); });
}
