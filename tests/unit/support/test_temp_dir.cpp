// The tests' temporary directories (support/temp_dir.hpp): one of its own per holder,
// named after the running test, and gone with everything in it when the holder goes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"

namespace c3::test {
namespace {

TEST(TempDir, EachHolderHasItsOwnAndItIsRemoved) {
  std::filesystem::path kept;
  {
    const TempDir a;
    const TempDir b;
    EXPECT_NE(a.path(), b.path());
    EXPECT_TRUE(std::filesystem::is_directory(a.path()));
    EXPECT_EQ(a.path().parent_path(), std::filesystem::temp_directory_path());
    EXPECT_NE(a.path().filename().string().find("TempDir.EachHolderHasItsOwnAndItIsRemoved"), std::string::npos);
    std::ofstream(a.file("x.json")) << "{}";
    EXPECT_TRUE(std::filesystem::exists(a.file("x.json")));
    kept = a.path();
  }
  EXPECT_FALSE(std::filesystem::exists(kept));
}

}  // namespace
}  // namespace c3::test
