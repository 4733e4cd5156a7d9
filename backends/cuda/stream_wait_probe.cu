// c3_stream_wait_probe: the cost of one cross-stream dependency on one GPU (docs/model.md
// §7.2, the profile key chunk_wait_s): a decomposed schedule's GEMM piece waits for its
// collective piece (or the other way round) through an event recorded on one stream and
// waited for on the other.
//
// Method: 2K spin kernels of one block, each `piece_us` long, run (a) on one stream, in
// stream order, and (b) alternating between two streams, each waiting for the previous
// one's event (a ping-pong chain of 2K - 1 cross-stream waits). Both chains are queued
// behind a long spin so that the host's launches are not what is timed; the device time
// of each is taken with events. wait_s = (t_b - t_a) / (2K - 1), median over repeats.
//
//   c3_stream_wait_probe [--device D] [--k K] [--repeats R] [--pieces-us 5,20,100] [--out FILE]
//
// Writes one JSON document (stdout or --out) with the device, the CUDA versions, the
// environment's C3_GIT_SHA, the date, its command line and every repeat's times.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

namespace {

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "c3_stream_wait_probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Options {
  int device = 0;
  int k = 64;
  int repeats = 15;
  std::vector<double> pieces_us{5, 20, 100};
  std::string out;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "c3_stream_wait_probe: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    const auto positive = [&](const std::string& v) {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(x > 0) || x > 1e6) {
        std::fprintf(stderr, "c3_stream_wait_probe: %s: '%s' is not a positive number\n", a.c_str(), v.c_str());
        std::exit(2);
      }
      return x;
    };
    if (a == "--device") o.device = std::atoi(value().c_str());
    else if (a == "--k") o.k = static_cast<int>(positive(value()));
    else if (a == "--repeats") o.repeats = static_cast<int>(positive(value()));
    else if (a == "--out") o.out = value();
    else if (a == "--pieces-us") {
      o.pieces_us.clear();
      std::stringstream ss(value());
      for (std::string item; std::getline(ss, item, ',');) o.pieces_us.push_back(positive(item));
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: c3_stream_wait_probe [--device D] [--k K] [--repeats R] [--pieces-us 5,20,100] [--out FILE]\n"
                  "The device-time cost of one cross-stream event wait (docs/model.md section 7.2).\n");
      std::exit(0);
    } else {
      std::fprintf(stderr, "c3_stream_wait_probe: unknown argument '%s' (--help)\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Device seconds of 2K pieces: on one stream (pingpong false) or alternating two streams.
double chain_s(cudaStream_t a, cudaStream_t b, const std::vector<cudaEvent_t>& events, cudaEvent_t start,
               cudaEvent_t stop, long long piece_cycles, long long head_cycles, int k, bool pingpong) {
  spin<<<1, 32, 0, a>>>(head_cycles);  // the queue fills while this runs
  check(cudaEventRecord(start, a), "cudaEventRecord");
  cudaStream_t prev = a;
  for (int i = 0; i < 2 * k; ++i) {
    cudaStream_t s = pingpong && (i % 2 == 1) ? b : a;
    if (s != prev) check(cudaStreamWaitEvent(s, events[static_cast<std::size_t>(i - 1)], 0), "cudaStreamWaitEvent");
    spin<<<1, 32, 0, s>>>(piece_cycles);
    if (pingpong) check(cudaEventRecord(events[static_cast<std::size_t>(i)], s), "cudaEventRecord");
    prev = s;
  }
  if (prev != a) check(cudaStreamWaitEvent(a, events[static_cast<std::size_t>(2 * k - 1)], 0), "cudaStreamWaitEvent");
  check(cudaEventRecord(stop, a), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  check(cudaGetLastError(), "spin launch");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  return ms * 1e-3;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  check(cudaSetDevice(o.device), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, o.device), "cudaGetDeviceProperties");
  int clock_khz = 0, runtime = 0, driver = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, o.device), "cudaDeviceGetAttribute");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  cudaStream_t a, b;
  check(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), "cudaStreamCreate");
  std::vector<cudaEvent_t> events(static_cast<std::size_t>(2 * o.k));
  for (auto& e : events) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  std::string command = "c3_stream_wait_probe";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::ostringstream js;
  js.precision(9);
  const char* sha = std::getenv("C3_GIT_SHA");
  char date[32] = {};
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  js << "{\n  \"what\": \"stream_wait_probe\",\n  \"device\": \"" << prop.name << "\",\n  \"gpus\": 1,\n"
     << "  \"cuda_runtime\": " << runtime << ",\n  \"cuda_driver\": " << driver << ",\n  \"sm_clock_khz\": "
     << clock_khz << ",\n  \"git_sha\": \"" << (sha ? sha : "") << "\",\n  \"date\": \"" << date
     << "\",\n  \"command\": \"" << command << "\",\n  \"k\": " << o.k << ",\n  \"repeats\": " << o.repeats << ",\n  \"results\": [";
  for (std::size_t p = 0; p < o.pieces_us.size(); ++p) {
    const double us = o.pieces_us[p];
    const auto cycles = static_cast<long long>(us * clock_khz / 1000.0);
    const long long head = static_cast<long long>(2.0 * o.k * (us + 10.0) * clock_khz / 1000.0);
    chain_s(a, b, events, start, stop, cycles, head, o.k, false);  // warm-up
    chain_s(a, b, events, start, stop, cycles, head, o.k, true);
    std::vector<double> single, pingpong, wait;
    for (int r = 0; r < o.repeats; ++r) {
      single.push_back(chain_s(a, b, events, start, stop, cycles, head, o.k, false));
      pingpong.push_back(chain_s(a, b, events, start, stop, cycles, head, o.k, true));
      wait.push_back((pingpong.back() - single.back()) / (2.0 * o.k - 1.0));
    }
    const auto list = [](const std::vector<double>& v) {
      std::ostringstream s;
      s.precision(9);
      for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
      return s.str();
    };
    js << (p ? "," : "") << "\n    {\"piece_us\": " << us << ", \"single_stream_s\": " << median(single)
       << ", \"two_streams_s\": " << median(pingpong) << ", \"wait_s\": " << median(wait)
       << ",\n     \"single_stream_runs_s\": [" << list(single) << "],\n     \"two_streams_runs_s\": ["
       << list(pingpong) << "]}";
  }
  js << "\n  ]\n}\n";
  if (o.out.empty()) {
    std::fputs(js.str().c_str(), stdout);
  } else {
    FILE* f = std::fopen(o.out.c_str(), "w");
    if (!f || std::fputs(js.str().c_str(), f) < 0 || std::fclose(f) != 0) {
      std::fprintf(stderr, "c3_stream_wait_probe: cannot write %s\n", o.out.c_str());
      return 1;
    }
  }
  return 0;
}
