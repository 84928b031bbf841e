#include "ptx/sema/Summary.h"

#include "base/Config.h"

#include "ptx/sema/OpcodeTable.h"

#include <algorithm>
#include <map>
#include <ostream>

namespace ptxsim::ptx {
namespace {

struct FnStats {
  std::map<std::string, uint64_t> regs; ///< type -> count
  uint64_t shared = 0, local = 0, param = 0;
  uint64_t instrs = 0;
};

FnStats statsOf(const Function &f) {
  FnStats s;
  for (const VarDecl &v : f.decls) {
    switch (v.space) {
    case Space::Reg:
      s.regs[std::string(typeName(v.type))] += (v.isRange ? v.rangeCount : 1) * v.vecWidth;
      break;
    case Space::Shared: s.shared += v.sizeBytes(); break;
    case Space::Local: s.local += v.sizeBytes(); break;
    case Space::Param: s.param += v.sizeBytes(); break;
    default: break;
    }
  }
  s.instrs = f.instrs.size();
  return s;
}

uint64_t moduleBytes(const Module &m, Space sp) {
  uint64_t n = 0;
  for (const VarDecl &v : m.globals)
    if (v.space == sp && v.linkage != Linkage::Extern)
      n += v.sizeBytes();
  return n;
}

std::map<std::string, uint64_t> histogram(const Module &m, bool full) {
  std::map<std::string, uint64_t> h;
  for (const Function &f : m.functions)
    for (const Instruction &in : f.instrs)
      ++h[std::string(full ? in.text : in.text.substr(0, in.text.find('.')))];
  return h;
}

std::string paramText(const VarDecl &p) {
  std::string t = "." + std::string(typeName(p.type));
  if (p.vecWidth > 1)
    t = ".v" + std::to_string(p.vecWidth) + " " + t;
  std::string s = t + " " + std::string(p.name);
  for (uint64_t d : p.dims)
    s += "[" + std::to_string(d) + "]";
  if (p.isPtr)
    s += " (.ptr ." + std::string(spaceName(p.ptrSpace)) + ")";
  return s;
}

std::string jsonStr(std::string_view s) { return jsonQuote(s); }

} // namespace

void printSummary(const Module &m, std::ostream &os) {
  os << "module " << m.fileName << ": PTX " << m.versionMajor << "." << m.versionMinor
     << ", target";
  for (std::string_view t : m.targets)
    os << " " << t;
  os << ", " << m.addressSize << "-bit addresses\n";
  os << "  globals: " << moduleBytes(m, Space::Global) << " B global, "
     << moduleBytes(m, Space::Const) << " B const, " << moduleBytes(m, Space::Shared)
     << " B static shared";
  std::string dyn;
  for (const VarDecl &v : m.globals)
    if (v.space == Space::Shared && v.linkage == Linkage::Extern && v.sizeBytes() == 0)
      dyn += (dyn.empty() ? "" : ", ") + std::string(v.name);
  if (!dyn.empty())
    os << ", dynamic shared: " << dyn;
  os << "\n";
  if (!m.files.empty())
    os << "  debug info: " << m.files.size() << " source file(s)"
       << (m.sections.empty() ? " (line info)" : " (full, -G)") << "\n";
  size_t kernels = 0, funcs = 0;
  for (const Function &f : m.functions)
    (f.isEntry ? kernels : funcs) += f.hasBody;
  os << "  " << kernels << " kernel(s), " << funcs << " device function(s)\n";
  for (const Function &f : m.functions) {
    if (!f.hasBody)
      continue;
    FnStats s = statsOf(f);
    os << (f.isEntry ? "  kernel " : "  func   ") << f.name << "\n";
    os << "    params:";
    if (f.sig.params.empty())
      os << " (none)";
    for (const VarDecl &p : f.sig.params)
      os << "\n      " << paramText(p);
    os << "\n    registers:";
    uint64_t total = 0;
    for (const auto &[t, n] : s.regs) {
      os << " " << n << " ." << t;
      total += n;
    }
    os << " (" << total << " total)\n";
    os << "    shared " << s.shared << " B, local " << s.local << " B, instructions " << s.instrs
       << "\n";
    for (const FuncDirective &d : f.directives) {
      os << "    ." << d.name;
      for (size_t i = 0; i < d.values.size(); ++i)
        os << (i ? ", " : " ") << d.values[i];
      os << "\n";
    }
  }
  auto h = histogram(m, false);
  std::vector<std::pair<uint64_t, std::string>> sorted;
  uint64_t total = 0;
  for (const auto &[k, v] : h) {
    sorted.emplace_back(v, k);
    total += v;
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  os << "  instruction mix (" << total << " static instructions):\n";
  for (const auto &[n, k] : sorted) {
    char line[128];
    snprintf(line, sizeof line, "    %-16s %8llu %6.1f%%\n", k.c_str(),
             static_cast<unsigned long long>(n),
             total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0.0);
    os << line;
  }
}

void printSummaryJson(const Module &m, std::ostream &os) {
  os << "{\"file\":" << jsonStr(m.fileName) << ",\"version\":\"" << m.versionMajor << "."
     << m.versionMinor << "\",\"targets\":[";
  for (size_t i = 0; i < m.targets.size(); ++i)
    os << (i ? "," : "") << jsonStr(m.targets[i]);
  os << "],\"address_size\":" << m.addressSize << ",\"global_bytes\":"
     << moduleBytes(m, Space::Global) << ",\"const_bytes\":" << moduleBytes(m, Space::Const)
     << ",\"functions\":[";
  bool first = true;
  for (const Function &f : m.functions) {
    if (!f.hasBody)
      continue;
    FnStats s = statsOf(f);
    os << (first ? "" : ",") << "{\"name\":" << jsonStr(f.name)
       << ",\"kind\":" << (f.isEntry ? "\"kernel\"" : "\"func\"") << ",\"params\":[";
    first = false;
    for (size_t i = 0; i < f.sig.params.size(); ++i) {
      const VarDecl &p = f.sig.params[i];
      os << (i ? "," : "") << "{\"name\":" << jsonStr(p.name) << ",\"type\":\""
         << typeName(p.type) << "\",\"bytes\":" << p.sizeBytes() << "}";
    }
    os << "],\"registers\":{";
    bool f2 = true;
    for (const auto &[t, n] : s.regs) {
      os << (f2 ? "" : ",") << jsonStr(t) << ":" << n;
      f2 = false;
    }
    os << "},\"shared_bytes\":" << s.shared << ",\"local_bytes\":" << s.local
       << ",\"instructions\":" << s.instrs << "}";
  }
  os << "],\"opcodes\":{";
  first = true;
  for (const auto &[k, v] : histogram(m, false)) {
    os << (first ? "" : ",") << jsonStr(k) << ":" << v;
    first = false;
  }
  os << "}}\n";
}

} // namespace ptxsim::ptx
