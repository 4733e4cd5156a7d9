// The profiles and scenarios compiled into the library, and resolving a profile
// by name or path.
#include <gtest/gtest.h>

#include <algorithm>

#include "c3/io.hpp"
#include "support/test_io_support.hpp"

namespace c3 {
namespace {

TEST(IoEmbedded, ListsTheDataProfilesSorted) {
  const std::vector<std::string> names = io::embedded_profile_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* name : {"h100_sxm", "h200_sxm", "mi300x"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(IoEmbedded, EveryProfileParsesUnderItsOwnName) {
  for (const std::string& name : io::embedded_profile_names()) {
    const HardwareProfile hw = io::resolve_profile(name);
    EXPECT_EQ(hw.name, name);
    EXPECT_GE(hw.gpu_count, 2) << name;
    EXPECT_FALSE(hw.sources.empty()) << name;
  }
}

// docs/mi300x.md: the published profile says which values were fitted to the paper's
// aggregates, and names the aggregate in each one's ref; nothing in it is measured.
TEST(IoEmbedded, Mi300xSaysWhichValuesAreFitted) {
  const HardwareProfile hw = io::resolve_profile("mi300x");
  const std::vector<std::string> fitted = keys_from(hw, SourceKind::fitted);
  EXPECT_NE(std::find(fitted.begin(), fitted.end(), "gemm_first_delay_factor"), fitted.end());
  EXPECT_NE(std::find(fitted.begin(), fitted.end(), "interference.cu.compute_bound.collective_slowdown"), fitted.end());
  EXPECT_NE(std::find(fitted.begin(), fitted.end(), "interference.dma.memory_bound.gemm_slowdown"), fitted.end());
  for (const std::string& key : fitted) {
    EXPECT_EQ(key.rfind("interference.", 0) == 0 || key == "gemm_first_delay_factor", true) << key;
    EXPECT_NE(hw.sources.at(key).ref.find("% of ideal"), std::string::npos) << key << ": no aggregate named";
  }
  EXPECT_EQ(source_counts(hw).at(SourceKind::measured), 0);
  EXPECT_EQ(hw.sources.at("compute_units").source, SourceKind::spec);
  EXPECT_EQ(hw.sources.at("collectives.all_gather.cu.latency_s").source, SourceKind::assumed);
}

TEST(IoEmbedded, TextIsTheDataFile) {
  EXPECT_EQ(io::embedded_profile_text("mi300x"),
            test::read_text(test::source_path("data/profiles/mi300x.yaml")));
}

TEST(IoEmbedded, UnknownNameListsTheEmbeddedOnes) {
  try {
    io::embedded_profile_text("mi250x");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mi300x"), std::string::npos) << e.what();
  }
}

TEST(IoEmbedded, ResolvesAProfileFile) {
  EXPECT_EQ(io::resolve_profile(test::fixture_path("profiles/small.yaml")).name, "small");
}

TEST(IoEmbedded, ResolveNamesTheChoicesForNeitherNameNorFile) {
  try {
    io::resolve_profile("no_such_profile");
    FAIL() << "expected an InputError";
  } catch (const ConfigError&) {
    FAIL() << "a name that is no file is not a malformed file";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'no_such_profile'"), std::string::npos) << what;
    EXPECT_NE(what.find("mi300x"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace c3
