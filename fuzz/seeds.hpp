// fuzz/seeds.hpp: seeds a fuzz target writes itself, from the library's own data, when
// run as `fuzz_TARGET --c3-make-seeds=DIR` (fuzz/CMakeLists.txt runs this at build time
// for the targets whose inputs are binary or whose data files are too large to seed
// with directly).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace c3::fuzz {

/// The DIR of --c3-make-seeds=DIR among the arguments, or "".
inline std::string seeds_dir_argument(int argc, char** argv) {
  constexpr std::string_view kFlag = "--c3-make-seeds=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with(kFlag)) return std::string(arg.substr(kFlag.size()));
  }
  return "";
}

inline void write_seed(const std::string& dir, const std::string& name, std::string_view bytes) {
  std::filesystem::create_directories(dir);
  const std::string path = (std::filesystem::path(dir) / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write seed %s\n", path.c_str());
    std::exit(1);
  }
}

inline void write_seed(const std::string& dir, const std::string& name,
                       const std::vector<std::uint8_t>& bytes) {
  write_seed(dir, name, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

/// Calls `make(dir)` and exits when the arguments ask for seeds.
template <typename Make>
void make_seeds_if_asked(int argc, char** argv, Make&& make) {
  const std::string dir = seeds_dir_argument(argc, argv);
  if (dir.empty()) return;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  make(dir);
  std::exit(0);
}

}  // namespace c3::fuzz
