// tests/device/hip_device_tests.cpp: the first checks an MI300X owner runs (docs/mi300x.md),
// before calibrating: does the hip backend run, are its outputs right, and do CU masks
// confine work the way partitions need? Never run in CI.
//
//   c3_hip_device_tests [--gpus N] [--out FILE.json]
//
//   env          provenance and capabilities
//   partition    the CU-id probe of partitions taking 8, 16, 32, 64 and 152 CUs (group and
//                rest on disjoint CUs, no more than their sizes)
//   correctness  copies; all_gather / all_to_all on the SDMA engines; the four collectives
//                through RCCL, default and with 32 CUs; a GEMM alone and with 64 CUs
//                removed; one paper pair under serial, base, sp, rp:32, dma, dma_rp:8; a
//                dependent pair on 2 ranks (all_gather feeds the GEMM) under serial,
//                chunked:2:cu, chunked:2:dma and chunked:2:cu:16, and one whose GEMM feeds a
//                reduce_scatter under chunked:2:cu (every output verified)
//
// Prints one line per check and "N passed, M failed"; exit 0 when all passed, 1 otherwise,
// 2 on bad arguments. Writes the checks as JSON with --out.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/hip/hip_backend.hpp"

namespace {

struct Check {
  std::string section, name;
  bool ok = false;
  std::string detail;
};

std::string esc(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o + "\"";
}

std::string describe(const c3::Measurement& m) {
  if (!m.ok) return "failed: " + m.error;
  char buf[96];
  std::snprintf(buf, sizeof buf, "median %.1f us%s", m.median_s * 1e6, m.verified ? ", verified" : ", NOT verified");
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  int gpus = 0;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--gpus" && i + 1 < argc) gpus = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc) out = argv[++i];
    else {
      std::fprintf(stderr, "usage: c3_hip_device_tests [--gpus N] [--out FILE.json]\n");
      return 2;
    }
  }
  c3::HardwareProfile hw;
  hw.name = "hip-device-tests";
  std::unique_ptr<c3::hip::HipValidator> v;
  c3::hip::HipProvenance prov;
  try {
    c3::hip::HipOptions o;
    o.gpus = gpus;
    o.run_timeout_s = 30;
    v = std::make_unique<c3::hip::HipValidator>(o, hw);
    prov = c3::hip::hip_provenance();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot start the hip backend: %s\n", e.what());
    return 1;
  }
  const int n = v->gpu_count();
  std::vector<Check> checks;
  const auto record = [&](const std::string& section, const std::string& name, bool ok, const std::string& detail) {
    std::printf("%-4s %-11s %-40s %s\n", ok ? "ok" : "FAIL", section.c_str(), name.c_str(), detail.c_str());
    std::fflush(stdout);
    checks.push_back({section, name, ok, detail});
  };
  const auto measured = [&](const std::string& section, const std::string& name, const c3::Measurement& m) {
    record(section, name, m.ok && m.verified, describe(m));
  };

  // ---- env ----
  const c3::Capabilities caps = v->capabilities();
  record("env", "device", true,
         prov.device + " x" + std::to_string(n) + ", " + std::to_string(prov.cus) + " CUs, " + prov.arch + ", HIP " +
             prov.runtime + ", hipBLASLt " + prov.hipblaslt + ", RCCL " + prov.rccl + ", " + prov.peers);
  record("env", "strategies", !caps.strategies.empty(), std::to_string(caps.strategies.size()) + " kinds runnable");
  for (const std::string& note : caps.notes) std::printf("     note: %s\n", note.c_str());

  // ---- partition ----
  for (int cus : {0, 8, 16, 32, 64, 152}) {
    if (cus >= v->cu_count()) continue;
    const c3::hip::ProbeResult p = v->probe_cu_ids(cus);
    record("partition", p.name, p.ok, p.error.empty() ? p.verdict : p.error);
  }

  // ---- correctness ----
  const std::int64_t mib = 1 << 20;
  measured("correctness", "copy device_local 256MiB", v->copy(c3::CopyPath::device_local, 256 * mib));
  if (n >= 2) {
    measured("correctness", "copy one_peer 256MiB", v->copy(c3::CopyPath::one_peer, 256 * mib));
    measured("correctness", "copy all_peers 256MiB", v->copy(c3::CopyPath::all_peers, 256 * mib));
    for (c3::CollectiveKind k : {c3::CollectiveKind::all_gather, c3::CollectiveKind::all_to_all})
      measured("correctness", std::string(c3::to_string(k)) + " 256MiB dma",
               v->collective({k, 256 * mib, n}, c3::Transport::dma, 0));
    for (c3::CollectiveKind k : {c3::CollectiveKind::all_gather, c3::CollectiveKind::all_to_all,
                                 c3::CollectiveKind::reduce_scatter, c3::CollectiveKind::all_reduce})
      for (int cus : {0, 32})
        measured("correctness", std::string(c3::to_string(k)) + " 256MiB rccl cus=" + std::to_string(cus),
                 v->collective({k, 256 * mib, n}, c3::Transport::cu, cus));
  }
  c3::Gemm g;
  g.m = g.n = g.k = 8192;
  measured("correctness", "gemm 8192^3", v->gemm(g, 0));
  if (v->cu_count() > 64) measured("correctness", "gemm 8192^3 with 64 CUs removed", v->gemm(g, 64));
  if (n >= 2) {
    c3::C3Pair pair;
    pair.name = "cb1_896M";
    pair.gemm.m = pair.gemm.n = pair.gemm.k = 8192;  // the paper's cb1 (data/scenarios/paper.yaml)
    pair.collective = {c3::CollectiveKind::all_gather, 896 * mib, n};
    for (const char* label : {"serial", "base", "sp", "rp:32", "dma", "dma_rp:8"}) {
      const c3::Strategy s = c3::parse_strategy(label);
      if (std::find(caps.strategies.begin(), caps.strategies.end(), s.kind) == caps.strategies.end()) {
        record("correctness", std::string("pair ") + label, false, "not runnable on this build");
        continue;
      }
      measured("correctness", std::string("pair cb1_896M/") + label, v->concurrent(pair, s));
    }
    // Dependent pairs (backends/hip/dependent.cpp): outputs against the undecomposed computation.
    const auto dependent = [&](c3::Dependency dep, c3::CollectiveKind kind, const char* label) {
      c3::C3Pair d;
      d.gemm.m = d.gemm.n = d.gemm.k = 8192;
      d.dependency = dep;
      d.collective = {kind, c3::dependent_operand_bytes(d.gemm, dep), 2};
      const c3::Strategy s = c3::parse_strategy(label);
      const std::string name = std::string("dependent ") + std::string(c3::to_string(kind)) + "/" + label;
      if (std::find(caps.strategies.begin(), caps.strategies.end(), s.kind) == caps.strategies.end())
        record("correctness", name, false, "not runnable on this build");
      else
        measured("correctness", name, v->concurrent(d, s));
    };
    for (const char* label : {"serial", "chunked:2:cu", "chunked:2:dma", "chunked:2:cu:16"})
      dependent(c3::Dependency::collective_feeds_gemm, c3::CollectiveKind::all_gather, label);
    dependent(c3::Dependency::gemm_feeds_collective, c3::CollectiveKind::reduce_scatter, "chunked:2:cu");
  }

  int passed = 0, failed = 0;
  for (const Check& c : checks) (c.ok ? passed : failed)++;
  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\"device\":" << esc(prov.device) << ",\"arch\":" << esc(prov.arch) << ",\"gpus\":" << n
      << ",\"hip_runtime\":" << esc(prov.runtime) << ",\"rccl\":" << esc(prov.rccl) << ",\"checks\":[";
    for (std::size_t i = 0; i < checks.size(); ++i)
      f << (i ? "," : "") << "{\"section\":" << esc(checks[i].section) << ",\"name\":" << esc(checks[i].name)
        << ",\"ok\":" << (checks[i].ok ? "true" : "false") << ",\"detail\":" << esc(checks[i].detail) << "}";
    f << "],\"passed\":" << passed << ",\"failed\":" << failed << "}\n";
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
