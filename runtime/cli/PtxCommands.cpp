#include "runtime/cli/PtxCommands.h"

#include "base/Diagnostics.h"
#include "ptx/parser/Parser.h"
#include "ptx/sema/Checker.h"
#include "ptx/sema/Summary.h"

#include "runtime/fatbin/Fatbin.h"

#include "ptx/exec/Engine.h"

#include <filesystem>
#include <map>
#include <sstream>
#include <fstream>
#include <ostream>
#include <set>

namespace ptxsim::cli {

int ptxCheck(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  bool summary = false, json = false, showSource = true;
  std::vector<std::string> files;
  for (const std::string &a : args) {
    if (a == "--summary")
      summary = true;
    else if (a == "--json")
      json = summary = true;
    else if (a == "--no-source")
      showSource = false;
    else if (a == "-h" || a == "--help") {
      out << "usage: ptxsim ptx check [--summary] [--json] [--no-source] FILE.ptx...\n"
             "  Parses and checks PTX files (\"-\" reads standard input); prints diagnostics as\n"
             "  file:line:col: error: ..., each followed by the source line and a caret.\n"
             "  --summary    print kernels, parameters, registers, memory sizes, instruction mix\n"
             "  --json       print the summary as JSON (one object per line)\n"
             "  --no-source  print only the diagnostic lines\n"
             "  Exit status: 0 when every file is clean, 1 otherwise.\n";
      return 0;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      err << "ptxsim ptx check: unknown option '" << a << "'\n";
      return 2;
    } else
      files.push_back(a);
  }
  if (files.empty()) {
    err << "ptxsim ptx check: no input files (usage: ptxsim ptx check [--summary] FILE.ptx...)\n";
    return 2;
  }
  int rc = 0;
  for (const std::string &f : files) {
    DiagEngine diags;
    auto module = ptx::parsePtxFile(f, diags);
    // Check even a module with syntax errors: the parser recovers statement by statement, so
    // the checker still finds the independent mistakes in the rest of the file.
    bool ok = ptx::checkModule(*module, diags) && !diags.hasErrors();
    diags.sortByLocation();
    if (showSource)
      diags.printWithSource(err, module->fileName, module->text());
    else
      diags.print(err);
    if (!ok || diags.hasErrors()) {
      err << module->fileName << ": " << diags.errorCount() << " error(s)\n";
      rc = 1;
      continue;
    }
    if (json)
      ptx::printSummaryJson(*module, out);
    else if (summary)
      ptx::printSummary(*module, out);
  }
  return rc;
}

int ptxExtract(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  std::string binary, dir = ".";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) {
      dir = args[++i];
    } else if (args[i] == "-h" || args[i] == "--help") {
      out << "usage: ptxsim ptx extract BINARY [-o DIR]\n"
             "  Writes the PTX that nvcc embedded in BINARY (an executable or shared library)\n"
             "  to DIR, one file per PTX entry: NAME.sm_XX.ptx. Compressed entries (every\n"
             "  nvcc --compress-mode) are decompressed.\n";
      return 0;
    } else if (!args[i].empty() && args[i][0] == '-') {
      err << "ptxsim ptx extract: unknown option '" << args[i] << "'\n";
      return 2;
    } else if (binary.empty()) {
      binary = args[i];
    } else {
      err << "ptxsim ptx extract: more than one binary given\n";
      return 2;
    }
  }
  if (binary.empty()) {
    err << "ptxsim ptx extract: no binary (usage: ptxsim ptx extract BINARY [-o DIR])\n";
    return 2;
  }
  std::vector<fatbin::Entry> entries;
  std::string e = fatbin::readElfFatbins(binary, entries);
  if (!e.empty()) {
    err << "ptxsim ptx extract: " << e << "\n";
    return 1;
  }
  std::set<uint32_t> sassArchs;
  size_t ptx = 0;
  for (const fatbin::Entry &en : entries)
    if (en.kind == fatbin::EntryKind::Elf)
      sassArchs.insert(en.arch);
    else
      ++ptx;
  if (ptx == 0) {
    err << "ptxsim ptx extract: '" << binary << "' carries no PTX";
    if (!sassArchs.empty()) {
      uint32_t a = *sassArchs.rbegin();
      err << " (only SASS for sm_" << a << "); rebuild it with PTX, e.g. nvcc -gencode arch=compute_"
          << a << ",code=compute_" << a << " -gencode arch=compute_" << a << ",code=sm_" << a;
    }
    err << "\n";
    return 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string stem = std::filesystem::path(binary).filename().string();
  std::set<std::string> used;
  for (const fatbin::Entry &en : entries) {
    if (en.kind != fatbin::EntryKind::Ptx)
      continue;
    std::string name = stem + ".sm_" + std::to_string(en.arch);
    for (int n = 2; used.count(name); ++n)
      name = stem + ".sm_" + std::to_string(en.arch) + "." + std::to_string(n);
    used.insert(name);
    std::string path = (std::filesystem::path(dir) / (name + ".ptx")).string();
    std::ofstream f(path, std::ios::binary);
    f << en.data;
    if (!f) {
      err << "ptxsim ptx extract: cannot write '" << path << "'\n";
      return 1;
    }
    out << path << ": PTX " << en.versionMajor << "." << en.versionMinor << " for compute_"
        << en.arch << ", " << en.data.size() << " bytes (" << en.compression << ")\n";
  }
  return 0;
}

int ptxResources(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  std::vector<std::string> inputs;
  for (const std::string &a : args) {
    if (a == "-h" || a == "--help") {
      out << "usage: ptxsim ptx resources BINARY|FILE.ptx...\n"
             "  Per kernel: registers per thread (ptxas's count from the binary's SASS, and\n"
             "  ptxsim's estimate from the PTX that it uses when there is no SASS), PTX virtual\n"
             "  registers, static shared and local bytes, and the .maxntid limit.\n";
      return 0;
    }
    if (!a.empty() && a[0] == '-') {
      err << "ptxsim ptx resources: unknown option '" << a << "'\n";
      return 2;
    }
    inputs.push_back(a);
  }
  if (inputs.empty()) {
    err << "ptxsim ptx resources: no input (usage: ptxsim ptx resources BINARY|FILE.ptx...)\n";
    return 2;
  }
  // (diagnostic name, PTX text) of what to load, and ptxas's counts when a binary has SASS.
  std::vector<std::pair<std::string, std::string>> units;
  std::map<std::string, uint32_t> sassRegs;
  uint32_t sassArch = 0;
  for (const std::string &in : inputs) {
    std::ifstream f(in, std::ios::binary);
    if (!f) {
      err << "ptxsim ptx resources: cannot open '" << in << "'\n";
      return 1;
    }
    char magic[4] = {};
    f.read(magic, 4);
    if (std::string(magic, 4) != "\x7f" "ELF") {
      std::stringstream ss;
      f.seekg(0);
      ss << f.rdbuf();
      units.push_back({in, ss.str()});
      continue;
    }
    std::vector<fatbin::Entry> entries;
    std::string e = fatbin::readElfFatbins(in, entries);
    if (!e.empty()) {
      err << "ptxsim ptx resources: " << e << "\n";
      return 1;
    }
    // The newest PTX (one entry per translation unit with -rdc=true) and the newest SASS.
    uint32_t ptxArch = 0;
    for (const fatbin::Entry &en : entries)
      if (en.kind == fatbin::EntryKind::Ptx)
        ptxArch = std::max(ptxArch, en.arch);
      else if (en.kind == fatbin::EntryKind::Elf)
        sassArch = std::max(sassArch, en.arch);
    int n = 0;
    for (const fatbin::Entry &en : entries) {
      if (en.kind == fatbin::EntryKind::Ptx && en.arch == ptxArch)
        units.push_back({in + ".unit" + std::to_string(n++) + ".ptx", en.data});
      if (en.kind == fatbin::EntryKind::Elf && en.arch == sassArch)
        fatbin::cubinRegisterCounts(en.data, sassRegs);
    }
    if (n == 0) {
      err << "ptxsim ptx resources: '" << in << "' carries no PTX\n";
      return 1;
    }
  }
  ptx::exec::Engine engine;
  std::vector<int> ids;
  for (auto &[name, text] : units) {
    DiagEngine diags;
    int id = engine.loadModule(text, name, diags);
    if (id < 0) {
      diags.print(err);
      return 1;
    }
    ids.push_back(id);
  }
  out << "kernel  regs(sass" << (sassArch ? "_sm" + std::to_string(sassArch) : "") << ")  "
      << "regs(estimate)  ptx_vregs  reg_slots  shared  local  maxntid\n";
  for (int id : ids)
    for (const std::string &name : engine.kernelNames(id)) {
      const ptx::exec::Kernel *k = engine.findKernel(name, id);
      auto it = sassRegs.find(name);
      out << name << "  " << (it != sassRegs.end() ? std::to_string(it->second) : "-") << "  "
          << k->hwRegs << "  " << k->fn->numDataRegs() << "  " << k->numRegs << "  "
          << k->staticShared << "  " << k->localBytes
          << "  " << (k->maxThreads ? std::to_string(k->maxThreads) : "-") << "\n";
    }
  return 0;
}

} // namespace ptxsim::cli
