// data_files.h — the real fields the unit tests run on: every .f32 file of data/
// and of ../shared/data (when present), read as float32.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace zt {

inline std::vector<std::string> data_files() {
  std::vector<std::string> files;
  for (const std::string& dir : {std::string(ZCOLL_TEST_SOURCE_DIR) + "/data",
                                 std::string(ZCOLL_TEST_SOURCE_DIR) + "/../shared/data"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".f32") files.push_back(e.path().string());
  }
  return files;
}

inline std::vector<float> read_f32(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  std::vector<float> v(static_cast<size_t>(f.tellg()) / 4);
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  return v;
}

}  // namespace zt
