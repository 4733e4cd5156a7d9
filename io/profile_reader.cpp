// io/profile_reader.cpp: profiles from YAML (docs/formats.md, "Profile").
#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/strategy.hpp"
#include "io/readers.hpp"
#include "io/number_format.hpp"

namespace c3::io {
namespace detail {
namespace {

enum class FirstX { zero, positive };

class ProfileReader {
 public:
  explicit ProfileReader(const Field& root) : root_(root) {}

  HardwareProfile read() {
    check_schema_version(root_);
    root_.expect_keys({"schema_version",
                       "name",
                       "gpu",
                       "gpu_count",
                       "description",
                       "provenance",
                       "compute_units",
                       "partition_min_cus",
                       "partition_step_cus",
                       "peak_flops_per_s",
                       "gemm_tile_m",
                       "gemm_tile_n",
                       "gemm_workgroups_per_cu",
                       "hbm_bw_bytes_per_s",
                       "llc_bytes",
                       "link_bw_bytes_per_s",
                       "copy_engines",
                       "gemm_efficiency_compute",
                       "gemm_efficiency_memory",
                       "heuristic_efficiency",
                       "gemm_first_delay_factor",
                       "gemm_launch_s",
                       "chunk_wait_s",
                       "chunk_piece_latency_s",
                       "chunk_dma_step_latency_s",
                       "chunk_dma_step_min_s",
                       "chunk_batch_reread",
                       "schedule_corrections",
                       "schedule_hedges",
                       "strategy_corrections",
                       "gemm_efficiency_curve",
                       "sustained_gemm_slowdown",
                       "gemm_unaligned_compute",
                       "gemm_unaligned_memory",
                       "gemm_unaligned_latency_s",
                       "gemm_latency_s",
                       "gemm_kernels",
                       "gemm_times",
                       "prediction_error",
                       "collectives",
                       "tables",
                       "interference"});
    read_identity();
    read_compute();
    read_memory_and_links();
    read_efficiencies();
    read_collectives(root_.at("collectives"));
    read_tables(root_.at("tables"));
    read_interference(root_.at("interference"));
    return std::move(hw_);
  }

 private:
  /// The `value` of a {value, source, ref} mapping; records its provenance.
  Field valued(const Field& field) {
    field.expect_keys({"value", "source", "ref"});
    hw_.sources[field.path()] = read_provenance(field);
    return field.at("value");
  }
  Field valued(std::string_view key) { return valued(root_.at(key)); }

  static double efficiency(const Field& value) {
    const double e = value.number();
    if (!(e > 0 && e <= 1)) value.fail("an efficiency must be in (0, 1] (got " + value.text() + ")");
    return e;
  }

  void read_identity() {
    hw_.name = read_name(root_.at("name"));
    hw_.gpu = read_name(root_.at("gpu"));
    const Field gpu_count = root_.at("gpu_count");
    hw_.gpu_count = gpu_count.positive_int();
    if (hw_.gpu_count < 2)
      gpu_count.fail("must be at least 2: a profile describes a node whose GPUs run collectives together");
    if (const auto description = root_.find("description")) hw_.description = description->text();
    const Field provenance = root_.at("provenance");
    // A measured profile adds how it was measured to {source, ref}.
    provenance.expect_keys({"source",
                            "ref",
                            "device",
                            "gpus",
                            "driver",
                            "cuda",
                            "cublas",
                            "nccl",
                            "hip",
                            "hipblaslt",
                            "rccl",
                            "git_sha",
                            "date",
                            "command",
                            "dma_variant",
                            "dma_interference_variant",
                            "collectives",
                            "pairs",
                            "dma_pairs",
                            "sustained",
                            "batched_step_pairs",
                            "pairs_priced",
                            "unaligned_gemms",
                            "collective_partitions",
                            "strategy_correction_pairs",
                            "gemm_times",
                            "hedge_pairs"});
    hw_.provenance = read_provenance(provenance);
    for (const auto& [key, value] : provenance.entries()) {
      if (key != "source" && key != "ref") hw_.provenance_details[key] = value.text();
    }
  }

  void read_compute() {
    hw_.compute_units = static_cast<int>(valued("compute_units").integer_in(1, kMaxComputeUnits));
    hw_.partition_min_cus = static_cast<int>(valued("partition_min_cus").integer_in(1, hw_.compute_units));
    hw_.partition_step_cus =
        static_cast<int>(valued("partition_step_cus").integer_in(1, hw_.compute_units));
    const Field peaks = root_.at("peak_flops_per_s");
    for (const auto& [key, entry] : peaks.entries()) {
      hw_.peak_flops_per_s[dtype_named(entry, key)] = valued(entry).positive();
    }
    if (hw_.peak_flops_per_s.empty()) peaks.fail("at least one dtype is required");
    hw_.gemm_tile_m = valued("gemm_tile_m").positive_int();
    hw_.gemm_tile_n = valued("gemm_tile_n").positive_int();
    hw_.gemm_workgroups_per_cu = valued("gemm_workgroups_per_cu").positive_int();
    if (const auto kernels = root_.find("gemm_kernels")) read_gemm_kernels(*kernels);
    if (const auto times = root_.find("gemm_times")) read_gemm_times(*times);
    if (const auto corrections = root_.find("schedule_corrections")) read_schedule_corrections(*corrections);
    if (const auto corrections = root_.find("strategy_corrections")) read_strategy_corrections(*corrections);
  }

  /// `prediction_error: {source, ref, by_kind: {sp: 0.08, ...}}`: relative errors in [0, 10].
  void read_prediction_error(const Field& field) {
    field.expect_keys({"source", "ref", "by_kind"});
    hw_.sources[field.path()] = read_provenance(field);
    for (const auto& [kind, value] : field.at("by_kind").entries()) {
      const double e = value.number();
      if (!(e >= 0 && e <= 10)) value.fail("a relative error must be in [0, 10] (got " + value.text() + ")");
      hw_.prediction_error[kind] = e;
    }
  }

  /// `schedule_hedges: {source, ref, groups: [{dependency, kind, error}, ...]}`: errors in [0, 1].
  void read_schedule_hedges(const Field& field) {
    field.expect_keys({"source", "ref", "groups"});
    hw_.sources[field.path()] = read_provenance(field);
    for (const Field& entry : field.at("groups").elements()) {
      entry.expect_keys({"dependency", "kind", "error"});
      HedgeGroup g;
      g.dependency = read_dependency(entry.at("dependency"));
      if (g.dependency == Dependency::none)
        entry.at("dependency").fail("a hedged schedule's pair is dependent");
      g.kind = read_collective_kind(entry.at("kind"));
      const Field value = entry.at("error");
      const double e = value.number();
      if (!(e >= 0 && e <= 1)) value.fail("a hedge error must be in [0, 1] (got " + value.text() + ")");
      if (!hw_.schedule_hedges.emplace(g, e).second) entry.fail("a second hedge for the same family");
    }
    if (hw_.schedule_hedges.empty()) field.at("groups").fail("at least one group is required");
  }

  /// `gemm_kernels: {source, ref, shapes: [{m, n, k, dtype, tile_m, tile_n, split_k}, ...]}`.
  void read_gemm_kernels(const Field& field) {
    field.expect_keys({"source", "ref", "shapes"});
    hw_.sources[field.path()] = read_provenance(field);
    for (const Field& shape : field.at("shapes").elements()) {
      shape.expect_keys({"m", "n", "k", "dtype", "tile_m", "tile_n", "split_k"});
      GemmKernelShape k;
      k.gemm = Gemm{shape.at("m").positive_integer(), shape.at("n").positive_integer(),
                    shape.at("k").positive_integer(), read_dtype(shape.at("dtype"))};
      k.tile_m = shape.at("tile_m").positive_int();
      k.tile_n = shape.at("tile_n").positive_int();
      k.split_k = shape.at("split_k").positive_int();
      hw_.gemm_kernels.push_back(k);
    }
    if (hw_.gemm_kernels.empty()) field.at("shapes").fail("at least one shape is required");
  }

  /// `gemm_times: {source, ref, shapes: [{m, n, k, dtype, [layout,] seconds, files}, ...]}`
  /// (model.md §1.2): one entry per shape, dtype and layout (default tn), seconds > 0, files >=
  /// 1; kept sorted for lookup.
  void read_gemm_times(const Field& field) {
    field.expect_keys({"source", "ref", "shapes"});
    hw_.sources[field.path()] = read_provenance(field);
    const auto key = [](const GemmTimeShape& e) {
      return std::tuple(e.gemm.dtype, e.gemm.layout, e.gemm.m, e.gemm.n, e.gemm.k);
    };
    std::set<decltype(key(GemmTimeShape{}))> seen;
    for (const Field& shape : field.at("shapes").elements()) {
      shape.expect_keys({"m", "n", "k", "dtype", "layout", "seconds", "files"});
      GemmTimeShape t;
      t.gemm = Gemm{shape.at("m").positive_integer(), shape.at("n").positive_integer(),
                    shape.at("k").positive_integer(), read_dtype(shape.at("dtype"))};
      if (const auto layout = shape.find("layout")) t.gemm.layout = read_gemm_layout(*layout);
      t.seconds = shape.at("seconds").positive();
      t.files = shape.at("files").positive_int();
      if (!seen.insert(key(t)).second) shape.fail("this shape, dtype and layout are listed twice");
      hw_.gemm_times.push_back(t);
    }
    if (hw_.gemm_times.empty()) field.at("shapes").fail("at least one shape is required");
    std::sort(hw_.gemm_times.begin(), hw_.gemm_times.end(),
              [&](const GemmTimeShape& a, const GemmTimeShape& b) { return key(a) < key(b); });
  }

  /// `schedule_corrections: {source, ref, groups: [{dependency, kind, transport,
  /// collective_cus, chunks, factor}, ...]}` (model.md §7.4).
  void read_schedule_corrections(const Field& field) {
    field.expect_keys({"source", "ref", "groups"});
    hw_.sources[field.path()] = read_provenance(field);
    for (const Field& entry : field.at("groups").elements()) {
      entry.expect_keys({"dependency", "kind", "transport", "collective_cus", "chunks", "factor"});
      ScheduleGroup g;
      g.dependency = read_dependency(entry.at("dependency"));
      if (g.dependency == Dependency::none) entry.at("dependency").fail("a decomposed schedule's pair is dependent");
      g.kind = read_collective_kind(entry.at("kind"));
      g.transport = enum_named(entry.at("transport"), entry.at("transport").text(), "transport",
                               {Transport::cu, Transport::dma});
      g.collective_cus = static_cast<int>(entry.at("collective_cus").integer_in(0, 1 << 20));
      g.chunks = entry.at("chunks").positive_int();
      if (!hw_.schedule_corrections.emplace(g, entry.at("factor").positive()).second)
        entry.fail("a second correction for the same group");
    }
    if (hw_.schedule_corrections.empty()) field.at("groups").fail("at least one group is required");
  }

  /// `strategy_corrections: {source, ref, min_predicted_s, groups: [{kind, gemm_class,
  /// strategy, factor}, ...]}` (model.md §4.7).
  void read_strategy_corrections(const Field& field) {
    field.expect_keys({"source", "ref", "min_predicted_s", "groups"});
    hw_.sources[field.path()] = read_provenance(field);
    hw_.strategy_correction_min_s = field.at("min_predicted_s").non_negative();
    for (const Field& entry : field.at("groups").elements()) {
      entry.expect_keys({"kind", "gemm_class", "strategy", "factor"});
      StrategyGroup g;
      g.kind = read_collective_kind(entry.at("kind"));
      g.gemm_class = enum_named(entry.at("gemm_class"), entry.at("gemm_class").text(), "GEMM class",
                                {GemmClass::compute_bound, GemmClass::memory_bound});
      const Field label = entry.at("strategy");
      Strategy strategy;
      try {
        strategy = parse_strategy(label.text());
      } catch (const InputError& e) {
        label.fail(e.what());
      }
      if (strategy.kind == StrategyKind::serial || strategy.chunks > 1)
        label.fail("a correction is for an independent pair's concurrent strategy (not serial or chunked)");
      g.strategy = strategy.label();
      if (!hw_.strategy_corrections.emplace(g, entry.at("factor").positive()).second)
        entry.fail("a second correction for the same group");
    }
    if (hw_.strategy_corrections.empty()) field.at("groups").fail("at least one group is required");
  }

  void read_memory_and_links() {
    hw_.hbm_bw_bytes_per_s = valued("hbm_bw_bytes_per_s").positive();
    hw_.llc_bytes = valued("llc_bytes").positive();
    hw_.link_bw_bytes_per_s = valued("link_bw_bytes_per_s").positive();
    hw_.copy_engines = valued("copy_engines").positive_int();
  }

  void read_efficiencies() {
    hw_.gemm_efficiency_compute = efficiency(valued("gemm_efficiency_compute"));
    hw_.gemm_efficiency_memory = efficiency(valued("gemm_efficiency_memory"));
    hw_.heuristic_efficiency = efficiency(valued("heuristic_efficiency"));
    hw_.gemm_first_delay_factor = valued("gemm_first_delay_factor").non_negative();
    if (root_.find("gemm_launch_s")) hw_.gemm_launch_s = valued("gemm_launch_s").non_negative();
    if (root_.find("chunk_wait_s")) hw_.chunk_wait_s = valued("chunk_wait_s").non_negative();
    if (root_.find("chunk_piece_latency_s"))
      hw_.chunk_piece_latency_s = valued("chunk_piece_latency_s").non_negative();
    if (root_.find("chunk_dma_step_latency_s"))
      hw_.chunk_dma_step_latency_s = valued("chunk_dma_step_latency_s").non_negative();
    if (root_.find("chunk_dma_step_min_s")) {
      const Field min_s = valued("chunk_dma_step_min_s");
      hw_.chunk_dma_step_min_s = min_s.non_negative();
      if (!hw_.chunk_dma_step_latency_s)
        min_s.fail("needs chunk_dma_step_latency_s (the queued steps' latency it bounds)");
    }
    if (root_.find("chunk_batch_reread")) {
      const Field reread = valued("chunk_batch_reread");
      const double share = reread.non_negative();
      if (share > 1) reread.fail("a share of B read again must be in [0, 1] (got " + reread.text() + ")");
      hw_.chunk_batch_reread = share;
    }
    if (const auto errors = root_.find("prediction_error")) read_prediction_error(*errors);
    if (const auto hedges = root_.find("schedule_hedges")) read_schedule_hedges(*hedges);
    // Every profile has a latency floor per kernel kind (docs/formats.md): no kernel is
    // predicted faster than its launch.
    hw_.gemm_latency_s = valued("gemm_latency_s").positive();
    if (const auto curve = root_.find("gemm_efficiency_curve")) {
      hw_.gemm_efficiency_curve = read_table(*curve, FirstX::positive);
      for (std::size_t i = 0; i < hw_.gemm_efficiency_curve.y.size(); ++i)
        if (hw_.gemm_efficiency_curve.y[i] > 1)
          curve->at("points").fail("an efficiency must be in (0, 1] (point " + std::to_string(i) + ")");
    }
    if (const auto curve = root_.find("sustained_gemm_slowdown")) {
      hw_.sustained_gemm_slowdown = read_table(*curve, FirstX::positive);
      for (std::size_t i = 0; i < hw_.sustained_gemm_slowdown.y.size(); ++i)
        if (hw_.sustained_gemm_slowdown.y[i] < 1)
          curve->at("points").fail("a sustained slowdown must be >= 1 (point " + std::to_string(i) + ")");
    }
    read_unaligned_table("gemm_unaligned_compute", hw_.gemm_unaligned_compute, UnalignedY::factor);
    read_unaligned_table("gemm_unaligned_memory", hw_.gemm_unaligned_memory, UnalignedY::factor);
    read_unaligned_table("gemm_unaligned_latency_s", hw_.gemm_unaligned_latency_s, UnalignedY::seconds);
  }

  // model.md §1.1: x an alignment in bytes below 16; y a factor in (0, 1] or a time in
  // seconds below one (both positive: read_table).
  enum class UnalignedY { factor, seconds };
  void read_unaligned_table(const char* key, Table& out, UnalignedY y) {
    const auto field = root_.find(key);
    if (!field) return;
    out = read_table(*field, FirstX::positive);
    for (std::size_t i = 0; i < out.x.size(); ++i) {
      const std::string point = " (point " + std::to_string(i) + ")";
      if (out.x[i] >= 16) field->at("points").fail("an alignment must be below 16 bytes" + point);
      if (y == UnalignedY::seconds && !(out.y[i] < 1)) field->at("points").fail("a latency must be below 1 s" + point);
      if (y == UnalignedY::factor && !(out.y[i] <= 1)) field->at("points").fail("a factor must be in (0, 1]" + point);
    }
  }

  void read_collectives(const Field& collectives) {
    for (const auto& [key, entry] : collectives.entries()) {
      const CollectiveKind kind = collective_kind_named(entry, key);
      entry.expect_keys({"cu", "dma"});
      auto& transports = hw_.collectives[kind];
      transports[Transport::cu] = read_params(entry.at("cu"), Transport::cu);
      if (const auto dma = entry.find("dma")) {
        if (!dma_capable(kind)) dma->fail("copy engines cannot reduce: " + key + " has no dma transport");
        transports[Transport::dma] = read_params(*dma, Transport::dma);
      }
    }
    if (hw_.collectives.empty()) collectives.fail("at least one collective kind is required");
  }

  CollectiveParams read_params(const Field& field, Transport transport) {
    if (transport == Transport::cu) {
      field.expect_keys({"latency_s", "bus_bw_bytes_per_s", "default_cus", "unaligned_slowdown", "launch_s", "curve"});
    } else {
      field.expect_keys({"latency_s", "bus_bw_bytes_per_s", "unaligned_slowdown", "launch_s", "curve"});
    }
    CollectiveParams params;
    params.latency_s = valued(field.at("latency_s")).positive();
    params.bus_bw_bytes_per_s = valued(field.at("bus_bw_bytes_per_s")).positive();
    if (transport == Transport::cu) {
      params.default_cus = static_cast<int>(valued(field.at("default_cus")).integer_in(1, hw_.compute_units));
    }
    if (const auto unaligned = field.find("unaligned_slowdown"))
      params.unaligned_slowdown = valued(*unaligned).positive();
    if (const auto launch = field.find("launch_s")) params.launch_s = valued(*launch).non_negative();
    if (const auto curve = field.find("curve")) {
      curve->expect_keys({"ranks", "source", "ref", "points"});
      params.curve_ranks = read_ranks(curve->at("ranks"));
      params.curve_time_s = read_points(*curve, FirstX::positive);
    }
    return params;
  }

  /// A slowdown table: {source, ref, points}.
  Table read_table(const Field& field, FirstX first_x) {
    field.expect_keys({"source", "ref", "points"});
    return read_points(field, first_x);
  }

  /// `source`, `ref` and `points: [[x, y], ...]`: x strictly increasing, y finite and > 0.
  Table read_points(const Field& field, FirstX first_x) {
    Table table;
    table.name = field.path().starts_with("tables.") ? field.path().substr(7) : field.path();
    table.provenance = read_provenance(field);
    hw_.sources[field.path()] = table.provenance;
    const Field points = field.at("points");
    for (const Field& point : points.elements()) {
      const std::vector<Field> xy = point.elements();
      if (xy.size() != 2) point.fail("a point is [x, y] (got " + std::to_string(xy.size()) + " values)");
      const double x = xy[0].number();
      check_x(point, table, x, first_x);
      table.x.push_back(x);
      table.y.push_back(xy[1].positive());
    }
    if (table.x.empty()) points.fail("a table needs at least one point");
    return table;
  }

  static void check_x(const Field& point, const Table& table, double x, FirstX first_x) {
    if (table.x.empty()) {
      if (first_x == FirstX::zero && x != 0) point.fail("the first x must be 0");
      if (first_x == FirstX::positive && !(x > 0)) point.fail("x must be > 0");
      return;
    }
    if (!(x > table.x.back())) {
      point.fail("x must increase (got " + format_number(x) + " after " +
                 format_number(table.x.back()) + ")");
    }
  }

  void read_tables(const Field& tables) {
    tables.expect_keys({"gemm_slowdown", "collective_slowdown", "collective_slowdown_by_size"});
    const Field gemm = tables.at("gemm_slowdown");
    gemm.expect_keys({"compute_bound", "memory_bound"});
    for (const GemmClass cls : {GemmClass::compute_bound, GemmClass::memory_bound}) {
      hw_.gemm_slowdown[cls] = read_table(gemm.at(to_string(cls)), FirstX::zero);
    }
    if (const auto collective = tables.find("collective_slowdown")) {
      for (const auto& [key, entry] : collective->entries()) {
        const CollectiveKind kind = collective_kind_named(entry, key);
        entry.expect_keys({"latency_bound", "bandwidth_bound"});
        for (const CollectiveClass cls : {CollectiveClass::latency_bound, CollectiveClass::bandwidth_bound}) {
          hw_.collective_slowdown[kind][cls] = read_table(entry.at(to_string(cls)), FirstX::positive);
        }
      }
    }
    if (const auto sized = tables.find("collective_slowdown_by_size")) {
      for (const auto& [key, entry] : sized->entries())
        hw_.collective_slowdown_by_size[collective_kind_named(entry, key)] = read_sized(entry);
    }
  }

  /// `{source, ref, cus: [c, ...], rows: [[size_bytes, s(c0), s(c1), ...], ...]}` (model.md §3):
  /// CUs integers in [1, compute_units) and sizes > 0, both strictly increasing; slowdowns > 0.
  SizedSlowdown read_sized(const Field& field) {
    field.expect_keys({"source", "ref", "cus", "rows"});
    SizedSlowdown t;
    t.name = field.path().starts_with("tables.") ? field.path().substr(7) : field.path();
    t.provenance = read_provenance(field);
    hw_.sources[field.path()] = t.provenance;
    const Field cus = field.at("cus");
    for (const Field& c : cus.elements()) {
      const double value = static_cast<double>(c.integer_in(1, hw_.compute_units - 1));
      if (!t.cus.empty() && !(value > t.cus.back()))
        c.fail("CUs must increase (got " + format_number(value) + " after " + format_number(t.cus.back()) + ")");
      t.cus.push_back(value);
    }
    if (t.cus.empty()) cus.fail("at least one CU count is required");
    const Field rows = field.at("rows");
    for (const Field& row : rows.elements()) {
      const std::vector<Field> values = row.elements();
      if (values.size() != t.cus.size() + 1)
        row.fail("a row is [size_bytes, one slowdown per CU count] (" + std::to_string(t.cus.size() + 1) +
                 " values; got " + std::to_string(values.size()) + ")");
      const double size = values[0].positive();
      if (!t.size_bytes.empty() && !(size > t.size_bytes.back()))
        row.fail("size_bytes must increase (got " + format_number(size) + " after " +
                 format_number(t.size_bytes.back()) + ")");
      t.size_bytes.push_back(size);
      std::vector<double>& slowdowns = t.slowdown.emplace_back();
      for (std::size_t j = 1; j < values.size(); ++j) slowdowns.push_back(values[j].positive());
    }
    if (t.size_bytes.empty()) rows.fail("at least one row is required");
    return t;
  }

  void read_interference(const Field& interference) {
    interference.expect_keys({"cu", "dma", "by_kind", "pipeline"});
    hw_.interference[Transport::cu] = read_interference_classes(interference.at("cu"));
    if (const auto dma = interference.find("dma")) {
      hw_.interference[Transport::dma] = read_interference_classes(*dma);
    }
    if (const auto pipeline = interference.find("pipeline")) read_pipeline_interference(*pipeline);
    const auto by_kind = interference.find("by_kind");
    if (!by_kind) return;
    for_each_kind_transport(*by_kind, [&](CollectiveKind kind, Transport transport, const Field& classes) {
      hw_.interference_by_kind[kind][transport] = read_interference_classes(classes);
    });
  }

  /// `pipeline: {all_gather: {cu: {gemm_slowdown: {value, ...}, collective_slowdown: {...}}, dma: ...}}`.
  void read_pipeline_interference(const Field& field) {
    for_each_kind_transport(field, [&](CollectiveKind kind, Transport transport, const Field& factors) {
      hw_.pipeline_interference[kind][transport] = read_interference_factors(factors);
    });
  }

  /// Calls `read(kind, transport, value)` for each `KIND: {cu: ..., dma: ...}` entry of
  /// `field`; copy engines for a kind that cannot run on them fail.
  template <typename Read>
  void for_each_kind_transport(const Field& field, Read read) {
    for (const auto& [key, entry] : field.entries()) {
      const CollectiveKind kind = collective_kind_named(entry, key);
      entry.expect_keys({"cu", "dma"});
      for (const auto& [transport_key, value] : entry.entries()) {
        const Transport transport = transport_key == "cu" ? Transport::cu : Transport::dma;
        if (transport == Transport::dma && !dma_capable(kind))
          value.fail(std::string(to_string(kind)) + " cannot run on copy engines");
        read(kind, transport, value);
      }
    }
  }

  Interference read_interference_factors(const Field& field) {
    field.expect_keys({"gemm_slowdown", "collective_slowdown"});
    return Interference{valued(field.at("gemm_slowdown")).positive(),
                        valued(field.at("collective_slowdown")).positive()};
  }

  std::map<GemmClass, Interference> read_interference_classes(const Field& field) {
    field.expect_keys({"compute_bound", "memory_bound"});
    std::map<GemmClass, Interference> out;
    for (const GemmClass cls : {GemmClass::compute_bound, GemmClass::memory_bound})
      out[cls] = read_interference_factors(field.at(to_string(cls)));
    return out;
  }

  const Field& root_;
  HardwareProfile hw_;
};

}  // namespace

HardwareProfile read_profile(const Field& root) { return ProfileReader(root).read(); }

}  // namespace detail

HardwareProfile parse_profile(std::string_view yaml_text, const std::string& origin) {
  return detail::read_profile(detail::parse_document(yaml_text, origin));
}

HardwareProfile load_profile(const std::string& path) { return parse_profile(read_file(path), path); }

}  // namespace c3::io
