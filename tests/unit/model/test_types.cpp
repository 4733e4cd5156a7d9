// Sizes, shapes, names and strategy labels (include/c3/types.hpp).
#include <gtest/gtest.h>

#include "c3/errors.hpp"
#include "c3/profile.hpp"
#include "c3/strategy.hpp"
#include "c3/types.hpp"

namespace c3 {
namespace {

TEST(ParseSize, BinaryDecimalAndPaperSpellings) {
  EXPECT_EQ(parse_size_bytes("896MiB"), 896LL * 1024 * 1024);
  EXPECT_EQ(parse_size_bytes("3.25GiB"), 3489660928LL);  // 3.25 * 2^30
  EXPECT_EQ(parse_size_bytes("512KiB"), 524288);
  EXPECT_EQ(parse_size_bytes("4096"), 4096);
  EXPECT_EQ(parse_size_bytes("4096B"), 4096);
  EXPECT_EQ(parse_size_bytes("1.5GB"), 1500000000LL);
  EXPECT_EQ(parse_size_bytes("896M"), 896LL * 1024 * 1024);
  EXPECT_EQ(parse_size_bytes("26.5G"), 28454158336LL);
  EXPECT_EQ(parse_size_bytes(" 1TiB "), 1LL << 40);
}

TEST(ParseSize, RejectsBadInput) {
  for (const char* bad : {"", "0", "-1", "-4KiB", "nan", "inf", "NaNGiB", "1e300", "abc", "12XB",
                          "1..5MiB", "MiB", "0.1", "99999999999999999999999", "5e18GiB"}) {
    EXPECT_THROW(parse_size_bytes(bad), InputError) << bad;
  }
}

TEST(ParseSize, WholeBytesAreReadExactlyUpTo2To62) {
  // through a double, 2^53 + 1 read as 2^53 and 2^62 + 1 as 2^62 (then accepted)
  EXPECT_EQ(parse_size_bytes("9007199254740993"), 9007199254740993LL);
  EXPECT_EQ(parse_size_bytes("4611686018427387904B"), 4611686018427387904LL);
  // through the double path only up to 2^53, where every byte count is still exact
  EXPECT_EQ(parse_size_bytes("9007199254740991.0"), 9007199254740991LL);
  EXPECT_THROW(parse_size_bytes("4611686018427387905.0"), InputError);
  EXPECT_THROW(parse_size_bytes("9007199254740993e0"), InputError);
  for (const char* bad : {"4611686018427387905", "4611686018427387905B", "9223372036854775808"}) {
    try {
      parse_size_bytes(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("too large (limit 2^62 bytes)"), std::string::npos) << e.what();
    }
  }
}

TEST(FormatSize, RoundTripsCommonSizes) {
  EXPECT_EQ(format_size(896LL << 20), "896MiB");
  EXPECT_EQ(format_size(3489660928LL), "3.25GiB");
  EXPECT_EQ(format_size(512), "512B");
  EXPECT_EQ(format_size(1536), "1.5KiB");
}

TEST(ParseGemm, ShapesAndDtypes) {
  EXPECT_EQ(parse_gemm("8192x8192x8192"), (Gemm{8192, 8192, 8192, DType::bf16}));
  EXPECT_EQ(parse_gemm("16x57344x8192:fp8"), (Gemm{16, 57344, 8192, DType::fp8}));
  EXPECT_EQ(format_gemm(Gemm{1, 2, 3, DType::fp32}), "1x2x3:fp32");
}

TEST(ParseGemm, LayoutsAfterTheDtype) {
  EXPECT_EQ(parse_gemm("8x16x32:bf16:row_major"), (Gemm{8, 16, 32, DType::bf16, GemmLayout::row_major}));
  EXPECT_EQ(parse_gemm("8x16x32:fp16:tn"), (Gemm{8, 16, 32, DType::fp16, GemmLayout::tn}));
  // tn, the default, is left out of the text, so that keys written before layouts stay the same
  EXPECT_EQ(format_gemm(Gemm{8, 16, 32, DType::bf16}), "8x16x32:bf16");
  const Gemm row{8, 16, 32, DType::bf16, GemmLayout::row_major};
  EXPECT_EQ(format_gemm(row), "8x16x32:bf16:row_major");
  EXPECT_EQ(parse_gemm(format_gemm(row)), row);
  EXPECT_NE(row, (Gemm{8, 16, 32, DType::bf16}));
  for (const char* bad : {"8x16x32:bf16:nt", "8x16x32:bf16:", "8x16x32::row_major", "8x16x32:bf16:row_major:x"})
    EXPECT_THROW(parse_gemm(bad), InputError) << bad;
  try {
    parse_gemm("8x16x32:bf16:colmajor");
    ADD_FAILURE() << "no throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("row_major"), std::string::npos) << e.what();  // names the valid ones
  }
}

TEST(ParseGemm, RejectsBadShapes) {
  for (const char* bad : {"", "8192", "8192x8192", "8192x8192x8192x1", "0x1x1", "-1x2x3",
                          "1x2x3:int4", "axbxc", "1x2x", "99999999999999999999x1x1",
                          "4000000000x4000000000x4000000000"}) {
    EXPECT_THROW(parse_gemm(bad), InputError) << bad;
  }
}

TEST(ParseCollective, KindSizeAndRanks) {
  const Collective c = parse_collective("all_to_all:1GiB", 4);
  EXPECT_EQ(c.kind, CollectiveKind::all_to_all);
  EXPECT_EQ(c.size_bytes, 1LL << 30);
  EXPECT_EQ(c.ranks, 4);
  EXPECT_THROW(parse_collective("all_gather", 8), InputError);
  EXPECT_THROW(parse_collective("allgather:1MiB", 8), InputError);
  EXPECT_THROW(parse_collective("all_gather:1MiB", 1), InputError);
}

TEST(Names, UnknownNamesListTheValidOnes) {
  try {
    parse_collective_kind("broadcast");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("all_gather"), std::string::npos);
  }
  EXPECT_THROW(parse_dtype("int8"), InputError);
  EXPECT_THROW(parse_gemm_class("io_bound"), InputError);
  EXPECT_TRUE(dma_capable(CollectiveKind::all_to_all));
  EXPECT_FALSE(dma_capable(CollectiveKind::reduce_scatter));
}

TEST(Names, SourceKindsRoundTripAndTheErrorListsThemAll) {
  for (const SourceKind kind : kSourceKinds) EXPECT_EQ(parse_source_kind(to_string(kind)), kind);
  EXPECT_EQ(to_string(SourceKind::fitted), "fitted");
  try {
    parse_source_kind("guessed");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("published, spec, measured, assumed, fitted"), std::string::npos)
        << e.what();
  }
}

TEST(SourceCounts, CountsEveryKindAndListsTheKeysOfOne) {
  HardwareProfile hw;
  hw.sources["a"] = {SourceKind::spec, "datasheet"};
  hw.sources["b"] = {SourceKind::fitted, "the paper's 21%"};
  hw.sources["c"] = {SourceKind::fitted, "the paper's 42%"};
  const std::map<SourceKind, int> counts = source_counts(hw);
  EXPECT_EQ(counts.size(), std::size(kSourceKinds));
  EXPECT_EQ(counts.at(SourceKind::spec), 1);
  EXPECT_EQ(counts.at(SourceKind::fitted), 2);
  EXPECT_EQ(counts.at(SourceKind::measured), 0);
  EXPECT_EQ(keys_from(hw, SourceKind::fitted), (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(keys_from(hw, SourceKind::assumed).empty());
}

TEST(Strategy, LabelsRoundTrip) {
  for (const char* label : {"serial", "base", "sp", "rp:32", "dma", "dma_rp:8"}) {
    EXPECT_EQ(parse_strategy(label).label(), label);
  }
  const Strategy rp = parse_strategy("rp:32");
  EXPECT_EQ(rp.collective_cus, 32);
  EXPECT_EQ(rp.gemm_cus_removed, 32);
  EXPECT_EQ(rp.order(), LaunchOrder::collective_first);
  EXPECT_EQ(parse_strategy("base").order(), LaunchOrder::gemm_first);
  EXPECT_EQ(parse_strategy("dma_rp:8").transport(), Transport::dma);
  for (const char* bad : {"rp", "sp:4", "rp:0", "rp:-8", "rp:x", "fast"}) {
    EXPECT_THROW(parse_strategy(bad), InputError) << bad;
  }
}

TEST(Dependency, SpellingsOperandsAndChecks) {
  EXPECT_EQ(parse_dependency("collective_feeds_gemm"), Dependency::collective_feeds_gemm);
  EXPECT_EQ(to_string(Dependency::gemm_feeds_collective), "gemm_feeds_collective");
  EXPECT_THROW(parse_dependency("feeds"), InputError);
  const Gemm g{8192, 5120, 4096, DType::bf16};
  EXPECT_EQ(dependent_operand_bytes(g, Dependency::collective_feeds_gemm), 8192LL * 4096 * 2);  // A
  EXPECT_EQ(dependent_operand_bytes(g, Dependency::gemm_feeds_collective), 8192LL * 5120 * 2);  // C
  EXPECT_EQ(dependent_operand_bytes(g, Dependency::none), 0);
  EXPECT_THROW(dependent_operand_bytes(Gemm{1LL << 40, 1, 1LL << 40, DType::bf16}, Dependency::collective_feeds_gemm),
               InputError);
  // The size is the operand's, the kind one that can carry it.
  const Collective a{CollectiveKind::all_gather, 8192LL * 4096 * 2, 2};
  EXPECT_NO_THROW(validate_dependency(g, a, Dependency::collective_feeds_gemm));
  try {
    validate_dependency(g, Collective{CollectiveKind::all_gather, 1 << 20, 2}, Dependency::collective_feeds_gemm);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("64MiB"), std::string::npos) << e.what();
  }
  EXPECT_THROW(validate_dependency(g, Collective{CollectiveKind::reduce_scatter, a.size_bytes, 2},
                                   Dependency::collective_feeds_gemm), InputError);
  EXPECT_THROW(validate_dependency(g, Collective{CollectiveKind::all_reduce, 8192LL * 5120 * 2, 2},
                                   Dependency::gemm_feeds_collective), InputError);
  EXPECT_NO_THROW(validate_dependency(g, Collective{CollectiveKind::all_reduce, 1, 2}, Dependency::none));
  // KIND alone: the operand's size.
  EXPECT_EQ(parse_collective("reduce_scatter", 2, g, Dependency::gemm_feeds_collective).size_bytes, 8192LL * 5120 * 2);
  EXPECT_THROW(parse_collective("reduce_scatter", 2, g, Dependency::none), InputError);
  EXPECT_THROW(parse_collective("reduce_scatter:1MiB", 2, g, Dependency::gemm_feeds_collective), InputError);
}

}  // namespace
}  // namespace c3
