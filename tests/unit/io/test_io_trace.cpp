// Trace files for `c3advisor plan`: entries, defaults, the shipped traces, and
// malformed input naming its file, line and key path.
#include <gtest/gtest.h>

#include <filesystem>

#include "c3/io.hpp"
#include "support/test_io_support.hpp"

namespace c3 {
namespace {

using test::config_error;
using test::fixture;
using test::line_of;
using test::replace_once;

constexpr const char* kOrigin = "trace.yaml";

TEST(IoTrace, ReadsEntries) {
  const Trace trace = io::parse_trace(fixture("trace_small.yaml"), kOrigin);
  EXPECT_EQ(trace.name, "small_step");
  EXPECT_EQ(trace.description, "two entries");
  ASSERT_EQ(trace.entries.size(), 2u);
  const TraceEntry& fwd = trace.entries[0];
  EXPECT_EQ(fwd.pair.name, "fwd");
  EXPECT_EQ(fwd.repeat, 3);
  EXPECT_EQ(fwd.pair.gemm, (Gemm{4096, 4096, 4096, DType::fp8}));  // the file's default dtype
  EXPECT_EQ(fwd.pair.collective, (Collective{CollectiveKind::all_gather, 64LL << 20, 4}));
  EXPECT_FALSE(fwd.pair.gemm_class.has_value());
  const TraceEntry& bwd = trace.entries[1];
  EXPECT_EQ(bwd.pair.gemm.dtype, DType::bf16);  // given with the shape
  EXPECT_EQ(bwd.pair.gemm_class, GemmClass::compute_bound);
  EXPECT_EQ(bwd.pair.collective, (Collective{CollectiveKind::reduce_scatter, 128LL << 20, 2}));
  EXPECT_EQ(bwd.repeat, 2);
}

TEST(IoTrace, ReadsEveryShippedTrace) {
  int traces = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("data/traces"))) {
    const Trace trace = io::load_trace(entry.path().string());
    EXPECT_FALSE(trace.entries.empty()) << entry.path();
    ++traces;
  }
  EXPECT_GT(traces, 0);
}

TEST(IoTrace, MissingFileIsAConfigError) {
  const ConfigError e = config_error([] { io::load_trace("no/such/trace.yaml"); });
  EXPECT_EQ(e.file(), "no/such/trace.yaml");
  EXPECT_EQ(e.line(), 0);
}

TEST(IoTrace, ADirectoryIsAConfigError) {
  const std::string dir = test::source_path("data/traces");
  const ConfigError e = config_error([&] { io::load_trace(dir); });
  EXPECT_EQ(e.file(), dir);
  EXPECT_NE(e.message().find("directory"), std::string::npos);
}

using BadTrace = test::BadInput;

class IoBadTrace : public ::testing::TestWithParam<BadTrace> {};

TEST_P(IoBadTrace, NamesFileLineAndKey) {
  test::expect_bad_input(GetParam(), fixture("trace_small.yaml"), kOrigin,
                         [](const std::string& text, const char* origin) { io::parse_trace(text, origin); });
}

const BadTrace kBadTraces[] = {
    {"zero_repeat", "repeat: 2", "repeat: 0", "entries[1].repeat", "repeat: 0", "must be > 0"},
    {"negative_repeat", "repeat: 3", "repeat: -3", "entries[0].repeat", "repeat: -3", "must be > 0"},
    {"fractional_repeat", "repeat: 3", "repeat: 2.5", "entries[0].repeat", "repeat: 2.5",
     "expected an integer"},
    {"string_repeat", "repeat: 3", "repeat: \"3\"", "entries[0].repeat", "repeat: \"3\"",
     "quoted string"},
    {"missing_repeat", ", repeat: 3}", "}", "entries[0].repeat", "name: fwd", "required key is missing"},
    {"two_dimensions", "gemm: 4096x4096x4096,", "gemm: 4096x4096,", "entries[0].gemm",
     "4096x4096,", "4096x4096"},
    {"zero_dimension", "gemm: 4096x4096x4096,", "gemm: 0x4096x4096,", "entries[0].gemm",
     "0x4096x4096", ""},
    {"bad_dtype", "4096x4096x4096:bf16", "4096x4096x4096:int4", "entries[1].gemm", "int4", "int4"},
    {"unknown_collective", "collective: all_gather", "collective: gather", "entries[0].collective",
     "gather,", "unknown collective 'gather'"},
    {"bad_size", "size: 64MiB", "size: 64 parsecs", "entries[0].size", "parsecs", "parsecs"},
    {"one_rank", "ranks: 2}", "ranks: 1}", "entries[1].ranks", "ranks: 1", "at least 2"},
    {"huge_rank", "ranks: 2}", "ranks: 3000000000}", "entries[1].ranks", "3000000000", "out of range"},
    {"default_dtype", "dtype: fp8", "dtype: fp64", "defaults.dtype", "fp64", "unknown dtype 'fp64'"},
    {"unknown_key", "repeat: 3}", "repeat: 3, weight: 1}", "entries[0].weight", "weight: 1",
     "unknown key"},
    {"schema_version", "schema_version: 1", "schema_version: 0", "schema_version",
     "schema_version", "unsupported schema_version 0"},
};

INSTANTIATE_TEST_SUITE_P(Cases, IoBadTrace, ::testing::ValuesIn(kBadTraces),
                         [](const auto& info) { return std::string(info.param.label); });

// A dependent entry (docs/formats.md, "Traces"): its size may be left out (the GEMM
// operand the collective moves) and must be that operand when given.
constexpr const char* kDependentTrace =
    "schema_version: 1\nname: tp\ndefaults: {dtype: bf16, ranks: 2}\nentries:\n"
    "  - {name: qkv, gemm: 8192x5120x8192, collective: all_gather, dependency: collective_feeds_gemm, repeat: 4}\n"
    "  - {name: down, gemm: 8192x8192x14336, collective: reduce_scatter, size: 128MiB,"
    " dependency: gemm_feeds_collective, repeat: 4}\n"
    "  - {name: fsdp, gemm: 64x64x64, collective: all_gather, size: 8KiB, repeat: 1, dependency: none}\n";

TEST(IoTrace, ReadsDependentEntries) {
  const Trace trace = io::parse_trace(kDependentTrace, kOrigin);
  ASSERT_EQ(trace.entries.size(), 3u);
  const C3Pair& qkv = trace.entries[0].pair;
  EXPECT_EQ(qkv.dependency, Dependency::collective_feeds_gemm);
  EXPECT_EQ(qkv.collective, (Collective{CollectiveKind::all_gather, 8192LL * 8192 * 2, 2}));  // A: m x k
  const C3Pair& down = trace.entries[1].pair;
  EXPECT_EQ(down.dependency, Dependency::gemm_feeds_collective);
  EXPECT_EQ(down.collective.size_bytes, 128LL << 20);  // C: m x n, given
  EXPECT_EQ(trace.entries[2].pair.dependency, Dependency::none);
}

TEST(IoTrace, DependentEntriesNameWhatDoesNotFit) {
  struct Case {
    const char* from;
    const char* to;
    const char* key;
    const char* message;
  };
  const Case cases[] = {
      {"size: 128MiB,", "size: 64MiB,", "entries[1].size", "moves the GEMM's C"},
      {"collective: reduce_scatter", "collective: all_gather", "entries[1].collective",
       "takes reduce_scatter or all_to_all"},
      {"dependency: collective_feeds_gemm", "dependency: sideways", "entries[0].dependency", "sideways"},
      {"size: 8KiB, ", "", "entries[2].size", "required key is missing"},  // independent: size needed
  };
  for (const Case& c : cases) {
    const std::string text = replace_once(kDependentTrace, c.from, c.to);
    const ConfigError e = config_error([&] { io::parse_trace(text, kOrigin); });
    EXPECT_EQ(e.key(), c.key) << c.from;
    EXPECT_NE(e.message().find(c.message), std::string::npos) << e.message();
  }
}

TEST(IoTrace, RejectsAnEmptyEntryList) {
  const std::string text = fixture("trace_small.yaml");
  const std::string empty = text.substr(0, text.find("entries:")) + "entries: []\n";
  const ConfigError e = config_error([&] { io::parse_trace(empty, kOrigin); });
  EXPECT_EQ(e.key(), "entries");
  EXPECT_EQ(e.line(), line_of(empty, "entries:"));
  EXPECT_NE(e.message().find("at least one entry"), std::string::npos);
}

}  // namespace
}  // namespace c3
