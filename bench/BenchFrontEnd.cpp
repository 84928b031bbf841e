// Front-end throughput: scanning+parsing and checking of a large PTX module (bytes/s and
// instructions/s). `PTXSIM_BENCH_PTX=file.ptx` benchmarks a real file instead of the generated one.

#include "PtxGen.h"
#include "base/Diagnostics.h"
#include "ptx/parser/Parser.h"
#include "ptx/sema/Checker.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

const std::string &input() {
  static const std::string *text = [] {
    if (const char *path = std::getenv("PTXSIM_BENCH_PTX")) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      return new std::string(ss.str());
    }
    return new std::string(ptxsim::bench::generatePtx(10u << 20));
  }();
  return *text;
}

size_t instructionCount(const ptxsim::ptx::Module &m) {
  size_t n = 0;
  for (const auto &f : m.functions)
    n += f.instrs.size();
  return n;
}

/// Parses (and, with `check`, checks) the input once per iteration.
void run(benchmark::State &state, bool check) {
  const std::string &text = input();
  size_t instrs = 0;
  for (auto _ : state) {
    ptxsim::DiagEngine diags;
    auto m = ptxsim::ptx::parsePtx(text, "bench.ptx", diags);
    if (check)
      ptxsim::ptx::checkModule(*m, diags);
    if (diags.hasErrors())
      state.SkipWithError("input has errors");
    instrs = instructionCount(*m);
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["instrs/s"] = benchmark::Counter(static_cast<double>(instrs * state.iterations()),
                                                  benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_Parse(benchmark::State &state) { run(state, false); }
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ParseAndCheck(benchmark::State &state) { run(state, true); }
BENCHMARK(BM_ParseAndCheck)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
