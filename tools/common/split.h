// split.h — the comma-list splitting the command-line tools share
// (zcoll-bench --modes, zcoll-simscale --sizes, ...).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace zcoll::tools {

// "a,,b" -> {"a", "b"}: the non-empty items between separators.
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace zcoll::tools
