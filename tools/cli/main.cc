// main.cc — the `zcoll` command-line tool: compress, decompress, inspect,
// evaluate and homomorphically add raw float arrays, in the style of sz/zfp.
// Exit status: 0 success, 1 a failed command, 2 a command-line error.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "commands.h"
#include "common.h"

namespace {

using namespace zcoll_cli;

// An error bound must be a positive finite number (CLI11's PositiveNumber
// prints its range as a 300-digit DBL_MAX).
const CLI::Validator kPositiveFinite(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(v > 0) || !std::isfinite(v))
        return "must be a positive finite number, got '" + text + "'";
      return "";
    },
    "POSITIVE");

// The --abs / --rel options shared by compress and eval.
struct BoundFlags {
  CLI::Option* abs = nullptr;
  CLI::Option* rel = nullptr;
};

BoundFlags add_bound_options(CLI::App* sub, BoundOptions* b) {
  BoundFlags f;
  f.abs = sub->add_option("--abs", b->abs, "absolute error bound: |x - x'| <= E")
              ->check(kPositiveFinite);
  f.rel = sub->add_option("--rel", b->rel,
                          "relative error bound: |x - x'| <= E * (max - min) of the finite values")
              ->check(kPositiveFinite);
  f.abs->excludes(f.rel);
  return f;
}

// CLI11 has no "exactly one of" for plain options: checked after parsing.
bool has_bound(const BoundFlags& f) { return f.abs->count() + f.rel->count() > 0; }

CLI::Option* add_threads(CLI::App* sub, int* threads) {
  return sub->add_option("--threads", *threads, "OpenMP threads (0 = all available)")
      ->check(CLI::Range(0, 4096));
}

CLI::Option* add_type(CLI::App* sub, std::string* type) {
  return sub->add_option("--type", *type, "value type of the raw input")
      ->required()
      ->check(CLI::IsMember({"f32", "f64", "bf16", "f16"}));
}

// One line on stderr, whatever the message contains.
void print_error(std::string msg) {
  for (char& c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "zcoll: error: %s\n", msg.c_str());
}

// The subcommands and the options they fill (bound by reference: not copied).
struct Commands {
  CompressOptions co;
  DecompressOptions dop;
  InfoOptions io;
  EvalOptions eo;
  AddOptions ao;
  CLI::App* compress = nullptr;
  CLI::App* decompress = nullptr;
  CLI::App* info = nullptr;
  CLI::App* eval = nullptr;
  CLI::App* add = nullptr;
  BoundFlags co_bound, eo_bound;
};

void add_codec(CLI::App* cmd, std::string* codec) {
  cmd->add_option("--codec", *codec,
                  "fast (bit planes, the default) or dense (Lorenzo prediction + rANS: higher "
                  "ratio, slower)")
      ->check(CLI::IsMember({"fast", "dense"}));
}

void add_dims(CLI::App* cmd, std::string* dims) {
  cmd->add_option("--dims", *dims,
                  "the array's shape, slowest dimension first (C order, as numpy's shape), e.g. "
                  "17x96x192; the product must be the value count. The dense codec predicts "
                  "along the fastest two or three dimensions (Lorenzo, or interpolation of "
                  "decoded values, per chunk; a single dimension allows the latter) and, "
                  "without --chunk-size, takes chunks of 262144 values or four planes; the "
                  "fast codec ignores it");
}

void add_compress(CLI::App& app, Commands* c) {
  CompressOptions& co = c->co;
  CLI::App* compress = app.add_subcommand("compress", "compress a raw array into a stream");
  compress->add_option("-i,--input", co.input, "raw input file")->required();
  compress->add_option("-o,--output", co.output, "compressed output file")->required();
  add_type(compress, &co.type);
  c->co_bound = add_bound_options(compress, &co.bound);
  add_threads(compress, &co.threads);
  compress->add_option("--chunk-size", co.chunk_size,
                       "values per chunk: a multiple of 32 in [1024, 1048576] (default 16384)");
  add_codec(compress, &co.codec);
  add_dims(compress, &co.dims);
  c->compress = compress;
}

void add_decompress_and_info(CLI::App& app, Commands* c) {
  DecompressOptions& dop = c->dop;
  CLI::App* decompress =
      app.add_subcommand("decompress", "decompress a stream (type and size come from its header)");
  decompress->add_option("-i,--input", dop.input, "compressed input file")->required();
  decompress->add_option("-o,--output", dop.output, "raw output file")->required();
  add_threads(decompress, &dop.threads);
  c->decompress = decompress;

  InfoOptions& io = c->io;
  CLI::App* info = app.add_subcommand("info", "print the header fields of a compressed file");
  info->add_option("-i,--input", io.input, "compressed input file")->required();
  info->add_flag("--json", io.json, "print one JSON object");
  c->info = info;
}

void add_eval(CLI::App& app, Commands* c) {
  EvalOptions& eo = c->eo;
  CLI::App* eval = app.add_subcommand(
      "eval", "compress and decompress in memory; print ratio, speed and error metrics");
  eval->add_option("-i,--input", eo.input, "raw input file")->required();
  add_type(eval, &eo.type);
  c->eo_bound = add_bound_options(eval, &eo.bound);
  add_threads(eval, &eo.threads);
  eval->add_option("--chunk-size", eo.chunk_size, "values per chunk (default 16384)");
  add_codec(eval, &eo.codec);
  add_dims(eval, &eo.dims);
  eval->add_option("--repeat", eo.repeat, "runs to time; the best is reported")
      ->check(CLI::Range(1, 1000));
  eval->add_flag("--json", eo.json, "print one JSON object");
  c->eval = eval;
}

void add_add(CLI::App& app, Commands* c) {
  AddOptions& ao = c->ao;
  CLI::App* add = app.add_subcommand(
      "add", "sum compressed files without decompressing them (homomorphic addition)");
  add->add_option("inputs", ao.inputs, "two or more compressed files")->required();
  add->add_option("-o,--output", ao.output, "compressed output file (the sum)")->required();
  add->add_flag("--stats", ao.stats, "print how the blocks were combined");
  CLI::Option* mean = add->add_flag("--mean", ao.mean, "divide the sum by the number of inputs");
  CLI::Option* scale = add->add_option("--scale", ao.scale, "divide the sum by K")
                           ->check(CLI::Range(uint32_t{1}, UINT32_MAX));
  mean->excludes(scale);
  add_threads(add, &ao.threads);
  c->add = add;
}

// The parsed subcommand; its failure is exit status 1.
int run_command(const Commands& c) {
  try {
    if (c.compress->parsed()) return run_compress(c.co);
    if (c.decompress->parsed()) return run_decompress(c.dop);
    if (c.info->parsed()) return run_info(c.io);
    if (c.eval->parsed()) return run_eval(c.eo);
    if (c.add->parsed()) return run_add(c.ao);
  } catch (const Error& e) {
    print_error(e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
    return 1;
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  return 2;  // unreachable: require_subcommand(1)
}

int cli_main(int argc, char** argv) {
  CLI::App app{"zcoll: error-bounded lossy compression of float arrays", "zcoll"};
  app.set_version_flag("--version", std::to_string(ZCOLL_VERSION_MAJOR) + "." +
                                        std::to_string(ZCOLL_VERSION_MINOR) + "." +
                                        std::to_string(ZCOLL_VERSION_PATCH));
  app.require_subcommand(1);
  app.footer(
      "Raw files hold little-endian float32 (f32), float64 (f64), bfloat16 (bf16)\n"
      "or IEEE float16 (f16) values.\n"
      "Example: zcoll compress -i t.f32 -o t.zc --type f32 --rel 1e-3");
  Commands c;
  add_compress(app, &c);
  add_decompress_and_info(app, &c);
  add_eval(app, &c);
  add_add(app, &c);

  // CLI11 would report a mistyped command as "A subcommand is required"
  const auto known = [&](const char* name) {
    for (CLI::App* sub : {c.compress, c.decompress, c.info, c.eval, c.add})
      if (sub->check_name(name)) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
    print_error(std::string("unknown command '") + argv[1] +
                "' (expected compress, decompress, info, eval or add; see zcoll --help)");
    return 2;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    print_error(e.what() + std::string(" (see zcoll --help)"));
    return 2;
  }

  if ((c.compress->parsed() && !has_bound(c.co_bound)) ||
      (c.eval->parsed() && !has_bound(c.eo_bound))) {
    print_error("an error bound is required: --abs E or --rel E (see zcoll --help)");
    return 2;
  }
  return run_command(c);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return cli_main(argc, argv);
  } catch (const std::exception& e) {  // setting up the command line (out of memory)
    print_error(e.what());
    return 1;
  }
}
