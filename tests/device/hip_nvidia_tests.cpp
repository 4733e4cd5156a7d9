// tests/device/hip_nvidia_tests.cpp: the hip backend, built for HIP's NVIDIA platform, run
// next to the cuda backend on the same NVIDIA GPUs (never run in CI; docs/device.md, "HIP's
// NVIDIA platform"). Both backends share the vendor-neutral layer (backends/device/: run
// loop, timing loop, checks, failure names); this program shows that the hip backend's own
// calls (HIP streams, events, memory, peer copies, NCCL standing in for RCCL) give the
// results the cuda backend gives:
//
//   copies       device_local, one_peer, all_peers: both verified, medians within --tolerance
//   dma          all_gather and all_to_all on the copy engines (ce_push_peer, ce_pull_peer)
//   ccl          the four collectives through NCCL, default and with a CTA budget
//   failures     what the NVIDIA platform cannot run is named the same way ("unsupported":
//                CU masks, hipBLASLt and so dependent pairs; "out_of_memory" from a real
//                allocation failure), then a real watchdog timeout ("timeout") poisons the
//                hip backend only: its next measurement is "device_unusable", the cuda
//                backend's still runs
//
//   c3_hip_nvidia_tests [--gpus N] [--size-mib S] [--tolerance T] [--out FILE.json]
//
// Prints one line per check and "N passed, M failed"; exit 0 when all passed, 1 otherwise,
// 2 on bad arguments.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c3/errors.hpp"
#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/hip/hip_backend.hpp"

namespace {

struct Check {
  std::string section, name;
  bool ok = false;
  std::string detail;
  double cuda_s = 0, hip_s = 0;
  Check(std::string s, std::string n, bool good = false, std::string d = {})
      : section(std::move(s)), name(std::move(n)), ok(good), detail(std::move(d)) {}
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
  int gpus = 2;
  std::int64_t size_mib = 256;
  double tolerance = 0.10;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--gpus") gpus = std::atoi(value().c_str());
    else if (a == "--size-mib") size_mib = std::atoll(value().c_str());
    else if (a == "--tolerance") tolerance = std::atof(value().c_str());
    else if (a == "--out") out = value();
    else {
      std::fprintf(stderr, "usage: c3_hip_nvidia_tests [--gpus N] [--size-mib S] [--tolerance T] [--out FILE.json]\n");
      return 2;
    }
  }
  if (gpus < 2 || size_mib < 1 || !(tolerance > 0)) {
    std::fprintf(stderr, "need --gpus >= 2, --size-mib >= 1, --tolerance > 0\n");
    return 2;
  }

  c3::HardwareProfile hw;
  hw.name = "hip-nvidia-tests";
  std::unique_ptr<c3::cuda::CudaValidator> cu;
  std::unique_ptr<c3::hip::HipValidator> hp;
  c3::hip::HipProvenance prov;
  try {
    c3::cuda::CudaOptions co;
    co.gpus = gpus;
    co.run_timeout_s = 30;
    co.partition_collective = false;  // NCCL with maxCTAs only, as the hip backend on NVIDIA
    cu = std::make_unique<c3::cuda::CudaValidator>(co, hw);
    c3::hip::HipOptions ho;
    ho.gpus = gpus;
    ho.run_timeout_s = 30;
    ho.partition_collective = false;
    hp = std::make_unique<c3::hip::HipValidator>(ho, hw);
    prov = c3::hip::hip_provenance();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot start the backends: %s\n", e.what());
    return 1;
  }
  std::printf("hip backend on HIP's %s platform: %s x%d, HIP runtime %s, %s %s\n", prov.platform.c_str(),
              prov.device.c_str(), hp->gpu_count(), prov.runtime.c_str(), "collectives", prov.rccl.c_str());

  std::vector<Check> checks;
  const auto record = [&](Check c) {
    std::printf("%-4s %-9s %-44s %s\n", c.ok ? "ok" : "FAIL", c.section.c_str(), c.name.c_str(), c.detail.c_str());
    std::fflush(stdout);
    checks.push_back(std::move(c));
  };
  // Both verified, medians within the tolerance of each other.
  const auto same = [&](const std::string& section, const std::string& name,
                        const std::function<c3::Measurement(c3::Validator&)>& measure) {
    const c3::Measurement a = measure(*cu);
    const c3::Measurement b = measure(*hp);
    Check c{section, name};
    c.cuda_s = a.ok ? a.median_s : 0;
    c.hip_s = b.ok ? b.median_s : 0;
    const double diff = a.ok && b.ok ? std::fabs(b.median_s - a.median_s) / a.median_s : 1e9;
    c.ok = a.ok && b.ok && a.verified && b.verified && diff <= tolerance;
    char buf[64];
    std::snprintf(buf, sizeof buf, " (hip/cuda %+.1f%%)", a.ok && b.ok ? 100 * (b.median_s / a.median_s - 1) : 0.0);
    c.detail = "cuda " + describe(a) + "; hip " + describe(b) + (a.ok && b.ok ? buf : "");
    record(c);
  };
  // A measurement of the hip backend fails with an error starting with `code`.
  const auto fails = [&](const std::string& name, const std::string& code, const c3::Measurement& m) {
    Check c{"failures", name};
    c.ok = !m.ok && m.error.rfind(code, 0) == 0;
    c.detail = m.ok ? "ran (expected " + code + ")" : m.error;
    record(c);
  };

  const std::int64_t size = size_mib << 20;
  // ---- copies ----
  for (c3::CopyPath path : {c3::CopyPath::device_local, c3::CopyPath::one_peer, c3::CopyPath::all_peers})
    same("copies", std::string(c3::to_string(path)) + ":" + c3::format_size(size),
         [&](c3::Validator& v) { return v.copy(path, size); });
  // ---- copy-engine collectives (the ConCCL baseline and its pull variant) ----
  for (const char* variant : {"ce_push_peer", "ce_pull_peer"})
    for (c3::CollectiveKind kind : {c3::CollectiveKind::all_gather, c3::CollectiveKind::all_to_all}) {
      cu->set_dma_variant(variant);
      hp->set_dma_variant(variant);
      const c3::Collective coll{kind, size, gpus};
      same("dma", std::string(c3::to_string(kind)) + "/" + variant,
           [&](c3::Validator& v) { return v.collective(coll, c3::Transport::dma, 0); });
    }
  // ---- NCCL through both backends (RCCL's code path on the hip side) ----
  for (c3::CollectiveKind kind : {c3::CollectiveKind::all_gather, c3::CollectiveKind::reduce_scatter,
                                  c3::CollectiveKind::all_reduce, c3::CollectiveKind::all_to_all})
    for (int ctas : {0, 16}) {
      const c3::Collective coll{kind, size / 4, gpus};
      same("ccl", std::string(c3::to_string(kind)) + ":" + c3::format_size(size / 4) + "/ctas=" + std::to_string(ctas),
           [&](c3::Validator& v) { return v.collective(coll, c3::Transport::cu, ctas); });
    }
  // ---- failures, named as the cuda backend names them ----
  c3::Gemm g;
  g.m = g.n = g.k = 1024;
  fails("gemm without hipBLASLt", "unsupported", hp->gemm(g, 0));
  fails("CU mask partition on NVIDIA", "unsupported", hp->gemm(g, 16));
  {
    // Without hipBLASLt the backend lists no strategies (its capabilities say why): a
    // dependent pair is refused as an independent one is.
    c3::C3Pair dep;
    dep.gemm = g;
    dep.dependency = c3::Dependency::collective_feeds_gemm;
    dep.collective = {c3::CollectiveKind::all_gather, c3::dependent_operand_bytes(dep.gemm, dep.dependency), 2};
    std::string why = "ran";
    try {
      const c3::Measurement m = hp->concurrent(dep, c3::parse_strategy("chunked:2:cu"));
      why = m.ok ? "ran" : m.error;
    } catch (const c3::InputError& e) {
      why = e.what();
    }
    bool named = false;
    for (const std::string& note : hp->capabilities().notes)
      named = named || note.find("without hipBLASLt") != std::string::npos;
    record({"failures", "dependent pair without hipBLASLt", why != "ran" && named, why});
  }
  const c3::Collective ag{c3::CollectiveKind::all_gather, 64 << 20, gpus};
  fails("smaller than one element per rank", "unsupported",
        hp->collective({c3::CollectiveKind::all_gather, 2, gpus}, c3::Transport::dma, 0));
  {
    std::string why = "accepted";
    try {
      hp->set_dma_variant("ce_push_batch");  // HIP has no batched copies
    } catch (const c3::InputError& e) {
      why = e.what();
    }
    record({"failures", "batched copy-engine variant refused", why != "accepted", why});
  }
  hp->inject_fault_next("oom");
  fails("oom fault (real hipMalloc failure)", "out_of_memory", hp->collective(ag, c3::Transport::cu, 0));
  {
    const c3::Measurement after = hp->collective(ag, c3::Transport::cu, 0);
    record({"failures", "runs on after out_of_memory", after.ok && after.verified, describe(after)});
  }
  hp->inject_fault_next("timeout");
  fails("timeout fault (0.1 ms watchdog)", "timeout", hp->collective(ag, c3::Transport::dma, 0));
  fails("hip after its timeout", "device_unusable", hp->collective(ag, c3::Transport::dma, 0));
  {
    const c3::Measurement cuda_after = cu->collective(ag, c3::Transport::dma, 0);
    record({"failures", "cuda backend unaffected by hip's timeout", cuda_after.ok && cuda_after.verified,
            describe(cuda_after)});
  }

  int passed = 0, failed = 0;
  for (const Check& c : checks) (c.ok ? passed : failed)++;
  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\"platform\":" << esc(prov.platform) << ",\"device\":" << esc(prov.device) << ",\"gpus\":" << gpus
      << ",\"hip_runtime\":" << esc(prov.runtime) << ",\"collectives\":" << esc(prov.rccl)
      << ",\"tolerance\":" << tolerance << ",\"checks\":[";
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const Check& c = checks[i];
      f << (i ? "," : "") << "{\"section\":" << esc(c.section) << ",\"name\":" << esc(c.name)
        << ",\"ok\":" << (c.ok ? "true" : "false") << ",\"cuda_median_s\":" << c.cuda_s
        << ",\"hip_median_s\":" << c.hip_s << ",\"detail\":" << esc(c.detail) << "}";
    }
    f << "],\"passed\":" << passed << ",\"failed\":" << failed << "}\n";
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
