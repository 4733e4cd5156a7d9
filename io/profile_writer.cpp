// io/profile_writer.cpp: a profile as YAML in the layout of docs/formats.md,
// read back exactly by parse_profile (numbers in their shortest exact spelling).
#include <nlohmann/json.hpp>

#include "c3/io.hpp"
#include "io/number_format.hpp"

namespace c3::io {
namespace {

using detail::format_number;

/// A double-quoted YAML scalar (JSON string escapes are valid YAML ones).
std::string quote(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string provenance_fields(const Provenance& p) {
  return "source: " + std::string(to_string(p.source)) + ", ref: " + quote(p.ref);
}

class ProfileWriter {
 public:
  explicit ProfileWriter(const HardwareProfile& hw) : hw_(hw) {}

  std::string write() {
    write_identity();
    write_compute();
    write_memory_and_links();
    write_efficiencies();
    write_collectives();
    write_tables();
    write_interference();
    return std::move(out_);
  }

 private:
  void line(int indent, const std::string& text) {
    out_ += std::string(static_cast<std::size_t>(indent) * 2, ' ') + text + "\n";
  }

  /// The provenance recorded for `path`, else the whole profile's.
  const Provenance& source_of(const std::string& path) const {
    const auto it = hw_.sources.find(path);
    return it != hw_.sources.end() ? it->second : hw_.provenance;
  }

  /// `key: {value: V, source: S, ref: R}` for the value at `path` (its last part is `key`).
  void valued(int indent, const std::string& path, const std::string& value) {
    const std::string key = path.substr(path.rfind('.') + 1);
    line(indent, key + ": {value: " + value + ", " + provenance_fields(source_of(path)) + "}");
  }
  void valued(int indent, const std::string& path, double value) {
    valued(indent, path, format_number(value));
  }
  void valued(int indent, const std::string& path, int value) {
    valued(indent, path, std::to_string(value));
  }

  static std::string points(const Table& table) {
    std::string text;
    for (std::size_t i = 0; i < table.x.size(); ++i) {
      if (i > 0) text += ", ";
      text += "[" + format_number(table.x[i]) + ", " + format_number(table.y[i]) + "]";
    }
    return "[" + text + "]";
  }

  void write_identity() {
    line(0, "schema_version: " + std::to_string(kSchemaVersion));
    line(0, "name: " + quote(hw_.name));
    line(0, "gpu: " + quote(hw_.gpu));
    line(0, "gpu_count: " + std::to_string(hw_.gpu_count));
    if (!hw_.description.empty()) line(0, "description: " + quote(hw_.description));
    std::string provenance = provenance_fields(hw_.provenance);
    for (const auto& [key, value] : hw_.provenance_details) provenance += ", " + key + ": " + quote(value);
    line(0, "provenance: {" + provenance + "}");
  }

  void write_compute() {
    valued(0, "compute_units", hw_.compute_units);
    valued(0, "partition_min_cus", hw_.partition_min_cus);
    valued(0, "partition_step_cus", hw_.partition_step_cus);
    line(0, "peak_flops_per_s:");
    for (const auto& [dtype, flops] : hw_.peak_flops_per_s) {
      valued(1, "peak_flops_per_s." + std::string(to_string(dtype)), flops);
    }
    valued(0, "gemm_tile_m", hw_.gemm_tile_m);
    valued(0, "gemm_tile_n", hw_.gemm_tile_n);
    valued(0, "gemm_workgroups_per_cu", hw_.gemm_workgroups_per_cu);
    write_gemm_times();
    if (hw_.gemm_kernels.empty()) return;
    table_header("gemm_kernels");
    line(1, "shapes:");
    for (const GemmKernelShape& k : hw_.gemm_kernels)
      line(2, "- {" + shape_fields(k.gemm) + ", tile_m: " + std::to_string(k.tile_m) +
                  ", tile_n: " + std::to_string(k.tile_n) + ", split_k: " + std::to_string(k.split_k) + "}");
  }

  // The first lines of an optional measured table: its key, source and ref.
  void table_header(const std::string& key) {
    line(0, key + ":");
    line(1, "source: " + std::string(to_string(source_of(key).source)));
    line(1, "ref: " + quote(source_of(key).ref));
  }

  // "m: M, n: N, k: K, dtype: D" of a GEMM shape row.
  static std::string shape_fields(const Gemm& g) {
    return "m: " + std::to_string(g.m) + ", n: " + std::to_string(g.n) + ", k: " + std::to_string(g.k) +
           ", dtype: " + std::string(to_string(g.dtype));
  }

  void write_gemm_times() {
    if (hw_.gemm_times.empty()) return;
    table_header("gemm_times");
    line(1, "shapes:");
    for (const GemmTimeShape& t : hw_.gemm_times)
      line(2, "- {" + shape_fields(t.gemm) +
                  (t.gemm.layout == GemmLayout::tn ? "" : ", layout: " + std::string(to_string(t.gemm.layout))) +
                  ", seconds: " + format_number(t.seconds) + ", files: " + std::to_string(t.files) + "}");
  }

  void write_schedule_corrections() {
    if (hw_.schedule_corrections.empty()) return;
    table_header("schedule_corrections");
    line(1, "groups:");
    for (const auto& [g, factor] : hw_.schedule_corrections)
      line(2, "- {dependency: " + std::string(to_string(g.dependency)) + ", kind: " + std::string(to_string(g.kind)) +
                  ", transport: " + std::string(to_string(g.transport)) + ", collective_cus: " +
                  std::to_string(g.collective_cus) + ", chunks: " + std::to_string(g.chunks) +
                  ", factor: " + format_number(factor) + "}");
  }

  void write_schedule_hedges() {
    if (hw_.schedule_hedges.empty()) return;
    table_header("schedule_hedges");
    line(1, "groups:");
    for (const auto& [g, error] : hw_.schedule_hedges)
      line(2, "- {dependency: " + std::string(to_string(g.dependency)) +
                  ", kind: " + std::string(to_string(g.kind)) + ", error: " + format_number(error) + "}");
  }

  void write_strategy_corrections() {
    if (hw_.strategy_corrections.empty()) return;
    table_header("strategy_corrections");
    line(1, "min_predicted_s: " + format_number(hw_.strategy_correction_min_s));
    line(1, "groups:");
    for (const auto& [g, factor] : hw_.strategy_corrections)
      line(2, "- {kind: " + std::string(to_string(g.kind)) + ", gemm_class: " + std::string(to_string(g.gemm_class)) +
                  ", strategy: " + quote(g.strategy) + ", factor: " + format_number(factor) + "}");
  }

  void write_efficiencies() {
    valued(0, "gemm_efficiency_compute", hw_.gemm_efficiency_compute);
    valued(0, "gemm_efficiency_memory", hw_.gemm_efficiency_memory);
    valued(0, "heuristic_efficiency", hw_.heuristic_efficiency);
    valued(0, "gemm_first_delay_factor", hw_.gemm_first_delay_factor);
    if (hw_.gemm_launch_s > 0 || hw_.sources.contains("gemm_launch_s")) valued(0, "gemm_launch_s", hw_.gemm_launch_s);
    if (hw_.chunk_wait_s > 0 || hw_.sources.contains("chunk_wait_s")) valued(0, "chunk_wait_s", hw_.chunk_wait_s);
    if (hw_.chunk_piece_latency_s) valued(0, "chunk_piece_latency_s", *hw_.chunk_piece_latency_s);
    if (hw_.chunk_dma_step_latency_s) valued(0, "chunk_dma_step_latency_s", *hw_.chunk_dma_step_latency_s);
    if (hw_.chunk_dma_step_min_s) valued(0, "chunk_dma_step_min_s", *hw_.chunk_dma_step_min_s);
    if (hw_.chunk_batch_reread) valued(0, "chunk_batch_reread", *hw_.chunk_batch_reread);
    write_schedule_corrections();
    write_strategy_corrections();
    if (!hw_.prediction_error.empty()) {
      std::string by_kind;
      for (const auto& [kind, e] : hw_.prediction_error)
        by_kind += (by_kind.empty() ? "" : ", ") + kind + ": " + format_number(e);
      line(0, "prediction_error: {" + provenance_fields(source_of("prediction_error")) + ", by_kind: {" + by_kind + "}}");
    }
    write_schedule_hedges();
    valued(0, "gemm_latency_s", hw_.gemm_latency_s);
    if (!hw_.gemm_efficiency_curve.x.empty())
      table(0, "gemm_efficiency_curve", hw_.gemm_efficiency_curve);
    if (!hw_.sustained_gemm_slowdown.x.empty())
      table(0, "sustained_gemm_slowdown", hw_.sustained_gemm_slowdown);
    if (!hw_.gemm_unaligned_compute.x.empty()) table(0, "gemm_unaligned_compute", hw_.gemm_unaligned_compute);
    if (!hw_.gemm_unaligned_memory.x.empty()) table(0, "gemm_unaligned_memory", hw_.gemm_unaligned_memory);
    if (!hw_.gemm_unaligned_latency_s.x.empty())
      table(0, "gemm_unaligned_latency_s", hw_.gemm_unaligned_latency_s);
  }

  void write_memory_and_links() {
    valued(0, "hbm_bw_bytes_per_s", hw_.hbm_bw_bytes_per_s);
    valued(0, "llc_bytes", hw_.llc_bytes);
    valued(0, "link_bw_bytes_per_s", hw_.link_bw_bytes_per_s);
    valued(0, "copy_engines", hw_.copy_engines);
  }

  void write_collectives() {
    line(0, "collectives:");
    for (const auto& [kind, transports] : hw_.collectives) {
      line(1, std::string(to_string(kind)) + ":");
      for (const auto& [transport, params] : transports) {
        const std::string path = "collectives." + std::string(to_string(kind)) + "." +
                                 std::string(to_string(transport));
        line(2, std::string(to_string(transport)) + ":");
        write_params(path, transport, params);
      }
    }
  }

  void write_params(const std::string& path, Transport transport, const CollectiveParams& params) {
    valued(3, path + ".latency_s", params.latency_s);
    valued(3, path + ".bus_bw_bytes_per_s", params.bus_bw_bytes_per_s);
    if (transport == Transport::cu) valued(3, path + ".default_cus", params.default_cus);
    if (params.unaligned_slowdown != 1.0) valued(3, path + ".unaligned_slowdown", params.unaligned_slowdown);
    if (params.launch_s != 0.0) valued(3, path + ".launch_s", params.launch_s);
    if (params.curve_time_s.x.empty()) return;
    line(3, "curve:");
    line(4, "ranks: " + std::to_string(params.curve_ranks));
    line(4, "source: " + std::string(to_string(params.curve_time_s.provenance.source)));
    line(4, "ref: " + quote(params.curve_time_s.provenance.ref));
    line(4, "points: " + points(params.curve_time_s));
  }

  void table(int indent, const std::string& key, const Table& t) {
    line(indent, key + ": {" + provenance_fields(t.provenance) + ", points: " + points(t) + "}");
  }

  void write_tables() {
    line(0, "tables:");
    line(1, "gemm_slowdown:");
    for (const auto& [cls, t] : hw_.gemm_slowdown) table(2, std::string(to_string(cls)), t);
    if (!hw_.collective_slowdown.empty()) {
      line(1, "collective_slowdown:");
      for (const auto& [kind, classes] : hw_.collective_slowdown) {
        line(2, std::string(to_string(kind)) + ":");
        for (const auto& [cls, t] : classes) table(3, std::string(to_string(cls)), t);
      }
    }
    if (hw_.collective_slowdown_by_size.empty()) return;
    line(1, "collective_slowdown_by_size:");
    for (const auto& [kind, t] : hw_.collective_slowdown_by_size) {
      std::string cus, rows;
      for (const double c : t.cus) cus += (cus.empty() ? "" : ", ") + format_number(c);
      for (std::size_t i = 0; i < t.size_bytes.size(); ++i) {
        rows += std::string(rows.empty() ? "" : ", ") + "[" + format_number(t.size_bytes[i]);
        for (const double s : t.slowdown[i]) rows += ", " + format_number(s);
        rows += "]";
      }
      line(2, std::string(to_string(kind)) + ": {" + provenance_fields(t.provenance) + ", cus: [" + cus +
                  "], rows: [" + rows + "]}");
    }
  }

  void write_interference() {
    line(0, "interference:");
    for (const auto& [transport, classes] : hw_.interference)
      write_interference_classes(1, "interference", transport, classes);
    if (!hw_.pipeline_interference.empty()) {
      line(1, "pipeline:");
      for (const auto& [kind, transports] : hw_.pipeline_interference) {
        line(2, std::string(to_string(kind)) + ":");
        for (const auto& [transport, f] : transports) {
          const std::string path =
              "interference.pipeline." + std::string(to_string(kind)) + "." + std::string(to_string(transport));
          line(3, std::string(to_string(transport)) + ":");
          valued(4, path + ".gemm_slowdown", f.gemm_slowdown);
          valued(4, path + ".collective_slowdown", f.collective_slowdown);
        }
      }
    }
    if (hw_.interference_by_kind.empty()) return;
    line(1, "by_kind:");
    for (const auto& [kind, transports] : hw_.interference_by_kind) {
      line(2, std::string(to_string(kind)) + ":");
      for (const auto& [transport, classes] : transports)
        write_interference_classes(3, "interference.by_kind." + std::string(to_string(kind)), transport, classes);
    }
  }

  void write_interference_classes(int indent, const std::string& parent, Transport transport,
                                  const std::map<GemmClass, Interference>& classes) {
    line(indent, std::string(to_string(transport)) + ":");
    for (const auto& [cls, factors] : classes) {
      const std::string path = parent + "." + std::string(to_string(transport)) + "." + std::string(to_string(cls));
      line(indent + 1, std::string(to_string(cls)) + ":");
      valued(indent + 2, path + ".gemm_slowdown", factors.gemm_slowdown);
      valued(indent + 2, path + ".collective_slowdown", factors.collective_slowdown);
    }
  }

  const HardwareProfile& hw_;
  std::string out_;
};

}  // namespace

std::string profile_yaml(const HardwareProfile& hw) { return ProfileWriter(hw).write(); }

}  // namespace c3::io
