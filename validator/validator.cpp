// The Validator's argument checks (NVI), summarize_runs and the backend registry
// (include/c3/validator.hpp).
#include "c3/validator.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string_view>

#include "c3/errors.hpp"


namespace c3 {
namespace {

Measurement failed_summary(std::vector<double> runs_s, int warmup_runs, std::string error) {
  Measurement m;
  m.ok = false;
  m.error = std::move(error);
  m.runs_s = std::move(runs_s);
  m.warmup_runs = warmup_runs;
  return m;
}

// ---- argument checks shared by every backend ----

void check_cus(int cus, int compute_units, std::string_view what) {
  if (cus < 0) throw InputError(std::string(what) + " must be >= 0 (got " + std::to_string(cus) + ")");
  if (compute_units > 0 && cus >= compute_units)
    throw InputError(std::string(what) + " must be below the " + std::to_string(compute_units) +
                     " compute units (got " + std::to_string(cus) + ")");
}

void check_ranks(const Collective& coll, const Capabilities& caps) {
  if (caps.gpus > 0 && coll.ranks > caps.gpus)
    throw InputError("collective over " + std::to_string(coll.ranks) + " ranks, but backend '" +
                     caps.backend + "' has " + std::to_string(caps.gpus) + " GPUs");
}

void check_transport(const Collective& coll, Transport transport) {
  if (transport == Transport::dma && !dma_capable(coll.kind))
    throw InputError(std::string(to_string(coll.kind)) +
                     " cannot run on copy engines (they cannot reduce)");
}

void check_supported(const Strategy& s, const Capabilities& caps) {
  if (std::find(caps.strategies.begin(), caps.strategies.end(), s.kind) == caps.strategies.end())
    throw InputError("backend '" + caps.backend + "' cannot run strategy '" +
                     std::string(to_string(s.kind)) + "'");
}

}  // namespace

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<StrategyKind> runnable_kinds(const Mechanisms& m) {
  std::vector<StrategyKind> out;
  for (StrategyKind kind : strategies::all_kinds()) {
    // A representative strategy of the kind (parametrized kinds: 8 compute units).
    const strategies::Family& family = strategies::family_of(kind);
    const ExecutionPlan plan = family.plan(family.make(kind, 8));
    const bool partitioned = plan.collective_cus > 0 || plan.gemm_cus_removed > 0;
    if (partitioned && !m.partitions) continue;
    if (plan.transport == Transport::dma && !m.copy_engines) continue;
    if (plan.chunks > m.max_chunks) continue;
    out.push_back(kind);
  }
  return out;
}

namespace {

// ---- registry ----

// The backends register themselves (c3::register_builtin_backends(), generated from
// the backends that called c3_add_backend in CMake; or register_backend by hand).
struct Registry {
  std::mutex mutex;
  std::map<std::string, ValidatorFactory> factories;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string joined_names(const std::map<std::string, ValidatorFactory>& factories) {
  std::string out;
  for (const auto& [name, factory] : factories) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

Measurement summarize_runs(std::vector<double> runs_s, int warmup_runs, bool verified) {
  if (runs_s.empty()) return failed_summary({}, warmup_runs, "no measured runs");
  for (const double t : runs_s)
    if (!std::isfinite(t) || t <= 0)
      return failed_summary(std::move(runs_s), warmup_runs,
                            "a measured run time is not finite and positive");
  std::vector<double> sorted = runs_s;
  std::sort(sorted.begin(), sorted.end());
  Measurement m;
  m.ok = true;
  m.median_s = median_of(sorted);
  m.min_s = sorted.front();
  m.max_s = sorted.back();
  m.runs_s = std::move(runs_s);
  m.warmup_runs = warmup_runs;
  m.verified = verified;
  return m;
}

std::string_view to_string(CopyPath path) {
  switch (path) {
    case CopyPath::device_local:
      return "device_local";
    case CopyPath::one_peer:
      return "one_peer";
    case CopyPath::all_peers:
      return "all_peers";
  }
  return "?";
}

void Validator::set_run_config(const RunConfig& config) {
  if (config.warmup_runs < 0) throw InputError("warm-up runs must be >= 0");
  if (config.measured_runs < 1) throw InputError("measured runs must be >= 1");
  if (!(config.min_warmup_s >= 0) || !std::isfinite(config.min_warmup_s))
    throw InputError("the warm-up's least time must be a finite number of seconds >= 0");
  if (!(config.min_time_s >= 0) || !std::isfinite(config.min_time_s))
    throw InputError("the measured runs' least time must be a finite number of seconds >= 0");
  if (config.max_runs < config.measured_runs || config.max_runs < config.warmup_runs)
    throw InputError("max runs (" + std::to_string(config.max_runs) + ") must be at least the measured (" +
                     std::to_string(config.measured_runs) + ") and warm-up (" + std::to_string(config.warmup_runs) +
                     ") runs");
  run_config_ = config;
}

Measurement Validator::gemm(const Gemm& g, int cus_removed) {
  validate(g);
  check_cus(cus_removed, capabilities().compute_units, "cus_removed");
  return do_gemm(g, cus_removed);
}

Measurement Validator::collective(const Collective& coll, Transport transport, int cus) {
  validate(coll);
  const Capabilities caps = capabilities();
  check_ranks(coll, caps);
  check_transport(coll, transport);
  if (caps.compute_units > 0 && cus > caps.compute_units)
    throw InputError("cus must be at most the " + std::to_string(caps.compute_units) +
                     " compute units (got " + std::to_string(cus) + ")");
  if (cus < 0) throw InputError("cus must be >= 0 (got " + std::to_string(cus) + ")");
  return do_collective(coll, transport, transport == Transport::dma ? 0 : cus);
}

Measurement Validator::concurrent(const C3Pair& pair, const Strategy& strategy) {
  validate(pair.gemm);
  validate(pair.collective);
  const Capabilities caps = capabilities();
  check_ranks(pair.collective, caps);
  check_transport(pair.collective, strategy.transport());
  strategies::check(strategy, caps.compute_units);
  check_supported(strategy, caps);
  return do_concurrent(pair, strategy);
}

Measurement Validator::copy(CopyPath path, std::int64_t size_bytes) {
  if (size_bytes <= 0) throw InputError("copy size must be > 0 bytes");
  if (path != CopyPath::device_local && capabilities().gpus < 2)
    throw InputError("a " + std::string(to_string(path)) + " copy needs at least 2 GPUs");
  return do_copy(path, size_bytes);
}

void Validator::set_dma_variant(const std::string& name) {
  const Capabilities caps = capabilities();
  const std::string resolved = name.empty() && !caps.dma_variants.empty() ? caps.dma_variants.front() : name;
  if (!resolved.empty()) do_set_dma_variant(resolved);
  dma_variant_ = resolved;
}

std::string Validator::dma_variant() const {
  if (!dma_variant_.empty()) return dma_variant_;
  const Capabilities caps = capabilities();
  return caps.dma_variants.empty() ? std::string() : caps.dma_variants.front();
}

void Validator::do_set_dma_variant(const std::string& name) {
  const Capabilities caps = capabilities();
  if (std::find(caps.dma_variants.begin(), caps.dma_variants.end(), name) != caps.dma_variants.end()) return;
  std::string known;
  for (const std::string& v : caps.dma_variants) known += (known.empty() ? "" : ", ") + v;
  throw InputError("backend '" + caps.backend + "' has no dma variant '" + name + "' (it has: " +
                   (known.empty() ? "only its default" : known) + ")");
}

void register_backend(const std::string& name, ValidatorFactory factory) {
  if (name.empty() || name.find(':') != std::string::npos)
    throw InputError("backend name '" + name + "' must be non-empty and contain no ':'");
  if (!factory) throw InputError("backend '" + name + "' registered without a factory");
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.factories[name] = std::move(factory);
}

std::vector<std::string> backend_names() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.factories) names.push_back(name);
  return names;
}

namespace {

/// The factory of a spec's backend ("cuda" of "cuda:4"); InputError naming the known ones.
ValidatorFactory factory_of(const std::string& spec) {
  const std::string name = spec.substr(0, spec.find(':'));
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  const auto it = r.factories.find(name);
  if (it == r.factories.end())
    throw InputError("unknown backend '" + name + "' (known: " +
                     (r.factories.empty() ? std::string("none registered; call c3::register_builtin_backends()")
                                          : joined_names(r.factories)) +
                     ")");
  return it->second;
}

}  // namespace

void require_known_backend(const std::string& spec) { factory_of(spec); }

std::unique_ptr<Validator> make_validator(const std::string& spec, const HardwareProfile& hw) {
  const auto colon = spec.find(':');
  const std::string arg = colon == std::string::npos ? std::string() : spec.substr(colon + 1);
  return factory_of(spec)(arg, hw);
}

}  // namespace c3
