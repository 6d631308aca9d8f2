// commands.h — the subcommands of the zcoll tool. main.cc parses the command
// line into these structs; each run_* throws zcoll_cli::Error on failure and
// returns the process exit status otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zcoll.h"

namespace zcoll_cli {

// Error bound as given on the command line: exactly one of abs / rel is > 0.
struct BoundOptions {
  double abs = 0;
  double rel = 0;
};

struct CompressOptions {
  std::string input, output, type;
  BoundOptions bound;
  int threads = 0;
  uint32_t chunk_size = 0;  // 0 = library default
  std::string codec = "fast";
  std::string dims;  // "17x96x192", slowest first; empty = flat
};

struct DecompressOptions {
  std::string input, output;
  int threads = 0;
};

struct InfoOptions {
  std::string input;
  bool json = false;
};

struct EvalOptions {
  std::string input, type;
  BoundOptions bound;
  int threads = 0;
  uint32_t chunk_size = 0;
  std::string codec = "fast";
  std::string dims;
  int repeat = 3;
  bool json = false;
};

struct AddOptions {
  std::vector<std::string> inputs;
  std::string output;
  bool stats = false;
  bool mean = false;
  uint32_t scale = 0;  // 0 = not given
  int threads = 0;
};

// zcoll_params for an error bound, thread count and chunk size (shared by
// compress and eval; the library validates the values).
// codec: "fast" or "dense"; dims: "AxBxC" (slowest first) or empty. A
// malformed dims string throws Error; their product is the library's check.
zcoll_params make_params(const BoundOptions& bound, uint32_t chunk_size,
                         const std::string& codec = "fast", const std::string& dims = "");

int run_compress(const CompressOptions& o);
int run_decompress(const DecompressOptions& o);
int run_info(const InfoOptions& o);
int run_eval(const EvalOptions& o);
int run_add(const AddOptions& o);

}  // namespace zcoll_cli
