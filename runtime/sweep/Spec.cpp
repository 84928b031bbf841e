#include "runtime/sweep/Spec.h"

#include "runtime/sweep/ProgramKind.h"

#include <toml++/toml.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <set>
#include <sstream>
#include <unistd.h>

namespace ptxsim::sweep {

namespace {

bool parseMode(const std::string &s, ModeKind &m) {
  for (ModeKind k : {ModeKind::Functional, ModeKind::Timing, ModeKind::Power,
                     ModeKind::SampleKernels, ModeKind::SampleCtas})
    if (s == modeName(k)) {
      m = k;
      return true;
    }
  return false;
}

/// Names become directory names and CSV headers: letters, digits, '_', '.', '+', '-', no "__".
bool safeName(const std::string &s) {
  if (s.empty() || s.size() > 64 || s == "." || s == ".." || s.find("__") != std::string::npos)
    return false;
  for (char c : s)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-'))
      return false;
  return true;
}

std::string absolute(const std::string &p, const std::string &base) {
  std::string r = !p.empty() && p[0] == '/' ? p : base + "/" + p;
  char buf[PATH_MAX];
  // normalise when it exists (nicer in messages); otherwise keep it as written
  if (realpath(r.c_str(), buf))
    return buf;
  // lexically, without "." and "dir/.." parts
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= r.size()) {
    size_t j = r.find('/', i);
    if (j == std::string::npos)
      j = r.size();
    std::string c = r.substr(i, j - i);
    if (c == ".." && !parts.empty())
      parts.pop_back();
    else if (!c.empty() && c != "." && c != "..")
      parts.push_back(c);
    i = j + 1;
  }
  std::string o;
  for (const std::string &c : parts)
    o += "/" + c;
  return o.empty() ? "/" : o;
}

class Reader {
public:
  Reader(std::string file, std::map<std::string, std::string> vars)
      : file_(std::move(file)), vars_(std::move(vars)) {}
  std::string error;
  /// Names that axis values define (`vars`): kept as ${NAME} for the point to fill in.
  std::set<std::string> deferred;
  /// Keep "$$" as it is (strings that the point fills in later, which then turns it into '$').
  bool keepEscapes = false;

  bool fail(const toml::node &n, const std::string &where, const std::string &msg) {
    if (error.empty()) {
      std::ostringstream os;
      os << file_ << ":" << n.source().begin.line << ":" << n.source().begin.column << ": " << where
         << ": " << msg;
      error = os.str();
    }
    return false;
  }

  bool keys(const toml::table &t, const std::string &where, const std::vector<std::string> &ok) {
    for (auto &&[k, v] : t) {
      bool known = false;
      for (const std::string &o : ok)
        known |= k.str() == o;
      if (!known) {
        std::string list;
        for (const std::string &o : ok)
          list += (list.empty() ? "" : ", ") + o;
        return fail(v, where, "unknown key '" + std::string(k.str()) + "' (known: " + list + ")");
      }
    }
    return true;
  }

  bool subst(const toml::node &n, const std::string &where, const std::string &in,
             std::string &out) {
    out.clear();
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == '$' && i + 1 < in.size() && in[i + 1] == '$') {
        out += keepEscapes ? "$$" : "$"; // "$$": a literal '$' (shell text: "$${PWD}")
        ++i;
      } else if (in[i] == '$' && i + 1 < in.size() && in[i + 1] == '{') {
        size_t end = in.find('}', i + 2);
        if (end == std::string::npos)
          return fail(n, where, "unterminated '${' in \"" + in + "\"");
        std::string name = in.substr(i + 2, end - i - 2);
        auto it = vars_.find(name);
        if (it == vars_.end() && deferred.count(name)) {
          out += "${" + name + "}";
          i = end;
          continue;
        }
        if (it == vars_.end())
          return fail(n, where,
                      "undefined variable '${" + name +
                          "}' (define it in [vars] or "
                          "with --set " +
                          name + "=VALUE)");
        out += it->second;
        i = end;
      } else {
        out += in[i];
      }
    }
    return true;
  }

  /// A string, or a number or boolean written as TOML (option values may be numbers).
  bool scalar(const toml::node &n, const std::string &where, std::string &out) {
    if (auto s = n.as_string())
      return subst(n, where, s->get(), out);
    if (auto i = n.as_integer()) {
      out = std::to_string(i->get());
      return true;
    }
    if (auto f = n.as_floating_point()) {
      std::ostringstream os;
      os << f->get();
      out = os.str();
      return true;
    }
    if (auto b = n.as_boolean()) {
      out = b->get() ? "1" : "0";
      return true;
    }
    return fail(n, where, "expected a string or a number");
  }

  bool string(const toml::node &n, const std::string &where, std::string &out) {
    if (!n.is_string())
      return fail(n, where, "expected a string");
    return subst(n, where, n.as_string()->get(), out);
  }

  bool strings(const toml::node &n, const std::string &where, std::vector<std::string> &out) {
    const toml::array *a = n.as_array();
    if (!a)
      return fail(n, where, "expected an array of strings");
    for (size_t i = 0; i < a->size(); ++i) {
      std::string s;
      if (!string((*a)[i], where + "[" + std::to_string(i) + "]", s))
        return false;
      out.push_back(s);
    }
    return true;
  }

  bool pairs(const toml::node &n, const std::string &where,
             std::vector<std::pair<std::string, std::string>> &out) {
    const toml::table *t = n.as_table();
    if (!t)
      return fail(n, where, "expected a table of NAME = VALUE");
    for (auto &&[k, v] : *t) {
      std::string s;
      if (!scalar(v, where + "." + std::string(k.str()), s))
        return false;
      out.emplace_back(std::string(k.str()), s);
    }
    return true;
  }

  bool unsignedValue(const toml::node &n, const std::string &where, uint64_t lo, uint64_t &out) {
    auto i = n.as_integer();
    if (!i || i->get() < static_cast<int64_t>(lo))
      return fail(n, where, "expected an integer >= " + std::to_string(lo));
    out = static_cast<uint64_t>(i->get());
    return true;
  }

private:
  std::string file_;
  std::map<std::string, std::string> vars_;
};

/// "2G", "512M", "1024" (MiB).
bool parseMemory(const std::string &s, uint64_t &mib) {
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || v <= 0)
    return false;
  std::string unit(end);
  if (unit.empty() || unit == "M" || unit == "MiB" || unit == "MB")
    mib = static_cast<uint64_t>(v);
  else if (unit == "G" || unit == "GiB" || unit == "GB")
    mib = static_cast<uint64_t>(v * 1024);
  else
    return false;
  return mib > 0;
}

/// The spec's directory and absolute path (relative ones against `cwd`).
void setPaths(const std::string &path, const std::string &cwd, Spec &out) {
  out.path = path;
  size_t slash = path.find_last_of('/');
  out.dir = absolute(slash == std::string::npos ? "." : path.substr(0, slash + 1), cwd);
  out.absPath = out.dir + "/" + (slash == std::string::npos ? path : path.substr(slash + 1));
}

bool parseToml(const std::string &path, toml::table &root, std::string &error) {
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error &e) {
    std::ostringstream os;
    if (e.source().begin.line == 0)
      os << path << ": cannot read the spec: " << e.description();
    else
      os << path << ":" << e.source().begin.line << ":" << e.source().begin.column << ": "
         << e.description();
    error = os.str();
    return false;
  }
  return true;
}

/// [vars] into `vars` (read first: every other string may use them).
bool readVars(const toml::table &root, const std::string &path,
              std::map<std::string, std::string> &vars, std::string &error) {
  Reader raw(path, vars);
  const toml::node *v = root.get("vars");
  if (!v)
    return true;
  const toml::table *t = v->as_table();
  if (!t) {
    raw.fail(*v, "vars", "expected a table of NAME = \"value\"");
    error = raw.error;
    return false;
  }
  for (auto &&[k, val] : *t) {
    std::string s;
    if (!raw.scalar(val, "vars." + std::string(k.str()), s)) {
      error = raw.error;
      return false;
    }
    vars[std::string(k.str())] = s;
  }
  return true;
}

/// Names set per point by axis values (their `vars`), used in programs' commands: kept as
/// ${NAME} for the point to fill in.
void deferAxisVars(const toml::table &root, const std::map<std::string, std::string> &vars,
                   Reader &r) {
  const toml::node *axes = root.get("axis");
  if (!axes || !axes->is_array())
    return;
  for (const toml::node &an : *axes->as_array()) {
    const toml::table *at = an.as_table();
    const toml::node *vals = at ? at->get("values") : nullptr;
    if (!vals || !vals->is_array())
      continue;
    for (const toml::node &vn : *vals->as_array())
      if (const toml::table *vt = vn.as_table())
        if (const toml::node *vv = vt->get("vars"); vv && vv->is_table())
          for (auto &&[k, v] : *vv->as_table())
            if (!vars.count(std::string(k.str())))
              r.deferred.insert(std::string(k.str()));
  }
}

/// A [[program]] table as its kind reads its own keys (ProgramKind.h).
class KindKeys : public ProgramKeys {
public:
  KindKeys(Reader &r, const toml::node &pn, const toml::table &t, std::string where)
      : r_(r), pn_(pn), t_(t), where_(std::move(where)) {}
  bool has(const std::string &key) const override { return t_.get(key) != nullptr; }
  bool string(const std::string &key, std::string &out, bool perPoint) override {
    const toml::node *x = t_.get(key);
    if (!x)
      return fail(key, "missing");
    r_.keepEscapes = perPoint;
    bool ok = r_.string(*x, where_ + "." + key, out);
    r_.keepEscapes = false;
    return ok;
  }
  bool fail(const std::string &key, const std::string &message) override {
    const toml::node *x = key.empty() ? nullptr : t_.get(key);
    return x ? r_.fail(*x, where_ + "." + key, message) : r_.fail(pn_, where_, message);
  }

private:
  Reader &r_;
  const toml::node &pn_;
  const toml::table &t_;
  std::string where_;
};

/// loadSpec's steps in the order the file is checked: each returns false with the error in the
/// Reader (or in `direct`, for errors without a place).
class SpecLoader {
public:
  SpecLoader(const std::string &path, const std::string &cwd, const std::string &outputOverride,
             const toml::table &root, Reader &r, Spec &out)
      : path_(path), cwd_(cwd), outputOverride_(outputOverride), root_(root), r_(r), out_(out) {}
  std::string direct; ///< an error that names the file only (no line)

  bool load() {
    return readNames() && readRunSettings() && readResources() && readOutputs() && readPrograms() &&
           readAxes() && readBaseline() && readExcludes();
  }

private:
  const std::string &path_, &cwd_, &outputOverride_;
  const toml::table &root_;
  Reader &r_;
  Spec &out_;
  Axis modeAxis_{"mode", {}};
  uint64_t repeats_ = 1;

  /// An error about the whole file (no line and column to name).
  bool failWithoutPlace(const std::string &msg) {
    direct = path_ + ": " + msg;
    return false;
  }

  /// Relative paths against the spec's directory.
  bool paths(const toml::node &n, const std::string &where, std::vector<std::string> &out) {
    std::vector<std::string> list;
    if (!r_.strings(n, where, list))
      return false;
    for (const std::string &c : list)
      out.push_back(absolute(c, out_.dir));
    return true;
  }

  bool readNames() {
    if (!r_.keys(root_, "spec",
                 {"name", "title", "output", "configs", "options", "run_args", "modes", "repeats",
                  "stats", "vars", "baseline", "resources", "outputs", "program", "axis",
                  "exclude"}))
      return false;
    const toml::node *n = root_.get("name");
    if (!n)
      return failWithoutPlace("the spec needs a name (name = \"...\")");
    if (!r_.string(*n, "name", out_.name))
      return false;
    if (!safeName(out_.name))
      return r_.fail(*n, "name",
                     "'" + out_.name + "' is not a safe name (letters, digits, _ . + -)");
    out_.title = out_.name;
    if ((n = root_.get("title")) && !r_.string(*n, "title", out_.title))
      return false;
    std::string output = "sweep-" + out_.name;
    if ((n = root_.get("output")) && !r_.string(*n, "output", output))
      return false;
    // the output directory is relative to where ptxsim runs, like -o
    out_.output = absolute(outputOverride_.empty() ? output : outputOverride_, cwd_);
    return true;
  }

  bool readRunSettings() {
    const toml::node *n;
    if ((n = root_.get("configs")) && !paths(*n, "configs", out_.configs))
      return false;
    if ((n = root_.get("options")) && !r_.pairs(*n, "options", out_.options))
      return false;
    if ((n = root_.get("run_args")) && !r_.strings(*n, "run_args", out_.runArgs))
      return false;
    out_.mode = out_.configs.empty() ? ModeKind::Functional : ModeKind::Timing;
    if ((n = root_.get("modes")) && !readModes(*n))
      return false;
    if ((n = root_.get("repeats")) && !r_.unsignedValue(*n, "repeats", 1, repeats_))
      return false;
    if ((n = root_.get("stats")) && !r_.strings(*n, "stats", out_.stats))
      return false;
    if (out_.stats.empty())
      out_.stats = out_.mode == ModeKind::Functional && modeAxis_.values.size() <= 1
                       ? std::vector<std::string>{"launches", "warp_insts"}
                       : std::vector<std::string>{"cycles", "ipc", "stall_cycles", "l1d_hit_rate",
                                                  "dram_bytes"};
    return true;
  }

  bool readModes(const toml::node &n) {
    std::vector<std::string> list;
    if (!r_.strings(n, "modes", list))
      return false;
    if (list.empty())
      return r_.fail(n, "modes", "empty");
    for (const std::string &m : list) {
      AxisValue v;
      v.name = m;
      v.hasMode = true;
      if (!parseMode(m, v.mode))
        return r_.fail(n, "modes",
                       "unknown mode '" + m +
                           "' (functional, timing, power, sample-kernels, "
                           "sample-ctas)");
      modeAxis_.values.push_back(v);
    }
    if (modeAxis_.values.size() == 1)
      out_.mode = modeAxis_.values[0].mode;
    return true;
  }

  bool readUnsigned(const toml::table &t, const char *key, unsigned &out) {
    uint64_t u = 0;
    const toml::node *x = t.get(key);
    if (!x)
      return true;
    if (!r_.unsignedValue(*x, std::string("resources.") + key, 1, u))
      return false;
    out = static_cast<unsigned>(u);
    return true;
  }

  bool readResources() {
    const toml::node *n = root_.get("resources");
    if (!n)
      return true;
    const toml::table *t = n->as_table();
    if (!t)
      return r_.fail(*n, "resources", "expected a table");
    if (!r_.keys(*t, "resources",
                 {"cpus", "memory", "time", "partition", "sbatch", "max_parallel"}))
      return false;
    Resources &res = out_.resources;
    if (!readUnsigned(*t, "cpus", res.cpus))
      return false;
    if (const toml::node *x = t->get("memory")) {
      std::string s;
      if (!r_.scalar(*x, "resources.memory", s))
        return false;
      if (!parseMemory(s, res.memoryMiB))
        return r_.fail(*x, "resources.memory", "'" + s + "' is not a size (e.g. \"2G\", \"512M\")");
    }
    if (const toml::node *x = t->get("time"); x && !r_.string(*x, "resources.time", res.time))
      return false;
    if (const toml::node *x = t->get("partition");
        x && !r_.string(*x, "resources.partition", res.partition))
      return false;
    if (const toml::node *x = t->get("sbatch");
        x && !r_.strings(*x, "resources.sbatch", res.sbatch))
      return false;
    return readUnsigned(*t, "max_parallel", res.maxParallel);
  }

  bool readOutputs() {
    const toml::node *n = root_.get("outputs");
    if (!n)
      return true;
    const toml::table *t = n->as_table();
    if (!t)
      return r_.fail(*n, "outputs", "expected a table");
    if (!r_.keys(*t, "outputs", {"csv", "json", "report"}))
      return false;
    for (auto [key, dst] : {std::pair<const char *, std::string *>{"csv", &out_.csvName},
                            {"json", &out_.jsonName},
                            {"report", &out_.reportName}})
      if (const toml::node *x = t->get(key)) {
        if (!r_.string(*x, std::string("outputs.") + key, *dst))
          return false;
        if (dst->empty() || dst->find('/') != std::string::npos)
          return r_.fail(*x, std::string("outputs.") + key,
                         "a file name inside the output directory");
      }
    return true;
  }

  bool readPrograms() {
    const toml::node *n = root_.get("program");
    const toml::array *progs = n ? n->as_array() : nullptr;
    if (!progs || progs->empty()) {
      if (n)
        return r_.fail(*n, "program", "expected [[program]] tables");
      return failWithoutPlace("the spec runs no program (add a [[program]] table)");
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < progs->size(); ++i)
      if (!readProgram((*progs)[i], "program[" + std::to_string(i) + "]", seen))
        return false;
    return true;
  }

  bool readProgram(const toml::node &pn, const std::string &where, std::set<std::string> &seen) {
    const toml::table *t = pn.as_table();
    if (!t)
      return r_.fail(pn, where, "expected a table");
    // the keys of every program, then each registered kind's own
    std::vector<std::string> known = {"name",   "kind", "command", "cwd",
                                      "expect", "env",  "inputs",  "run_args"};
    for (const ProgramKind *k : kinds())
      for (const std::string &key : k->keys())
        known.push_back(key);
    if (!r_.keys(*t, where, known))
      return false;
    Program p;
    const toml::node *x = t->get("name");
    if (!x)
      return r_.fail(pn, where, "needs a name");
    if (!r_.string(*x, where + ".name", p.name))
      return false;
    if (!safeName(p.name))
      return r_.fail(*x, where + ".name",
                     "'" + p.name +
                         "' is not a safe name (letters, digits, _ . + -; "
                         "no \"__\")");
    if (!seen.insert(p.name).second)
      return r_.fail(*x, where + ".name", "a second program named '" + p.name + "'");
    if (!readProgramKind(pn, *t, where, p) || !readCommand(pn, *t, where, p))
      return false;
    if ((x = t->get("cwd"))) {
      if (!r_.string(*x, where + ".cwd", p.cwd))
        return false;
      p.cwd = absolute(p.cwd, out_.dir);
    }
    if ((x = t->get("expect")) && !r_.string(*x, where + ".expect", p.expect))
      return false;
    if ((x = t->get("inputs")) && !paths(*x, where + ".inputs", p.inputs))
      return false;
    out_.programs.push_back(std::move(p));
    return true;
  }

  /// kind = one of the registered kinds (ProgramKind.h; `run` when absent), and its own keys.
  bool readProgramKind(const toml::node &pn, const toml::table &t, const std::string &where,
                       Program &p) {
    const toml::node *x;
    p.kind = programKinds().find("run");
    if ((x = t.get("kind"))) {
      std::string kind;
      if (!r_.string(*x, where + ".kind", kind))
        return false;
      if (!(p.kind = programKinds().find(kind)))
        return r_.fail(*x, where + ".kind", "'" + kind + "' is not " + programKindList());
    }
    // a key of another kind
    for (const ProgramKind *k : kinds())
      for (const std::string &key : k->keys()) {
        std::vector<std::string> own = p.kind->keys();
        if ((x = t.get(key)) && std::find(own.begin(), own.end(), key) == own.end())
          return r_.fail(*x, where + "." + key,
                         std::string("only a program of kind = \"") + k->name() + "\" has one");
      }
    KindKeys keys(r_, pn, t, where);
    return p.kind->readSpec(keys, p.settings);
  }

  static std::vector<const ProgramKind *> kinds() {
    std::vector<const ProgramKind *> out;
    for (const std::string &n : programKinds().names())
      out.push_back(programKinds().find(n));
    return out;
  }

  /// command, env and run_args: filled in per point, so "$$" is kept for the point.
  bool readCommand(const toml::node &pn, const toml::table &t, const std::string &where,
                   Program &p) {
    const toml::node *x = t.get("command");
    if (!x)
      return r_.fail(pn, where, "needs a command (an array: program and arguments)");
    r_.keepEscapes = true;
    if (x->is_string()) {
      std::string s;
      if (!r_.string(*x, where + ".command", s))
        return false;
      p.command.push_back(s);
    } else if (!r_.strings(*x, where + ".command", p.command)) {
      return false;
    }
    if (p.command.empty() || p.command[0].empty())
      return r_.fail(*x, where + ".command", "empty");
    if (p.command[0].find('/') != std::string::npos)
      p.command[0] = absolute(p.command[0], out_.dir);
    if ((x = t.get("env")) && !r_.pairs(*x, where + ".env", p.env))
      return false;
    if ((x = t.get("run_args")) && !r_.strings(*x, where + ".run_args", p.runArgs))
      return false;
    r_.keepEscapes = false;
    return true;
  }

  /// The [[axis]] tables, then the built-in "mode" (several modes) and "repeat" axes.
  bool readAxes() {
    if (const toml::node *n = root_.get("axis")) {
      const toml::array *axes = n->as_array();
      if (!axes)
        return r_.fail(*n, "axis", "expected [[axis]] tables");
      std::set<std::string> axisNames{"program", "mode", "repeat", "point", "status"};
      for (size_t i = 0; i < axes->size(); ++i)
        if (!readAxis((*axes)[i], "axis[" + std::to_string(i) + "]", axisNames))
          return false;
    }
    if (modeAxis_.values.size() > 1)
      out_.axes.push_back(modeAxis_);
    if (repeats_ > 1) {
      Axis rep{"repeat", {}};
      for (uint64_t k = 1; k <= repeats_; ++k) {
        AxisValue v;
        v.name = std::to_string(k);
        rep.values.push_back(v);
      }
      out_.axes.push_back(rep);
    }
    return true;
  }

  bool readAxis(const toml::node &an, const std::string &where, std::set<std::string> &axisNames) {
    const toml::table *t = an.as_table();
    if (!t)
      return r_.fail(an, where, "expected a table");
    if (!r_.keys(*t, where, {"name", "option", "values"}))
      return false;
    Axis axis;
    const toml::node *x = t->get("name");
    if (!x)
      return r_.fail(an, where, "needs a name");
    if (!r_.string(*x, where + ".name", axis.name))
      return false;
    if (!safeName(axis.name))
      return r_.fail(*x, where + ".name", "'" + axis.name + "' is not a safe name");
    if (!axisNames.insert(axis.name).second)
      return r_.fail(*x, where + ".name",
                     "'" + axis.name + "' is taken (by another axis or a built-in column)");
    std::string option;
    if ((x = t->get("option")) && !r_.string(*x, where + ".option", option))
      return false;
    x = t->get("values");
    const toml::array *vals = x ? x->as_array() : nullptr;
    if (!vals || vals->empty())
      return r_.fail(x ? *x : an, where, "needs a non-empty array 'values'");
    std::set<std::string> valueNames;
    for (size_t j = 0; j < vals->size(); ++j) {
      std::string vw = where + ".values[" + std::to_string(j) + "]";
      const toml::node &vn = (*vals)[j];
      AxisValue v;
      if (!readAxisValue(vn, vw, option, v))
        return false;
      if (!safeName(v.name))
        return r_.fail(vn, vw,
                       "'" + v.name +
                           "' is not a safe name (letters, digits, _ . + -; no "
                           "\"__\")");
      if (!valueNames.insert(v.name).second)
        return r_.fail(vn, vw, "a second value named '" + v.name + "'");
      axis.values.push_back(std::move(v));
    }
    out_.axes.push_back(std::move(axis));
    return true;
  }

  bool readAxisValue(const toml::node &vn, const std::string &vw, const std::string &option,
                     AxisValue &v) {
    if (const toml::table *vt = vn.as_table())
      return readAxisValueTable(vn, *vt, vw, option, v);
    // shorthand: values = ["lrr", "gto"] with option = "-gpgpu_scheduler"
    if (option.empty())
      return r_.fail(vn, vw,
                     "a bare value needs the axis' 'option' (or write a table "
                     "{ name = ..., configs/options = ... })");
    if (!r_.scalar(vn, vw, v.name))
      return false;
    v.options.emplace_back(option, v.name);
    return true;
  }

  bool readAxisValueTable(const toml::node &vn, const toml::table &vt, const std::string &vw,
                          const std::string &option, AxisValue &v) {
    if (!r_.keys(vt, vw,
                 {"name", "configs", "options", "run_args", "args", "mode", "value", "vars"}))
      return false;
    const toml::node *y = vt.get("name");
    if (!y)
      return r_.fail(vn, vw, "needs a name");
    if (!r_.string(*y, vw + ".name", v.name))
      return false;
    if ((y = vt.get("configs")) && !paths(*y, vw + ".configs", v.configs))
      return false;
    if ((y = vt.get("options")) && !r_.pairs(*y, vw + ".options", v.options))
      return false;
    if ((y = vt.get("value"))) {
      std::string s;
      if (option.empty())
        return r_.fail(*y, vw + ".value", "'value' needs the axis' 'option'");
      if (!r_.scalar(*y, vw + ".value", s))
        return false;
      v.options.emplace_back(option, s);
    }
    if ((y = vt.get("vars")) && !r_.pairs(*y, vw + ".vars", v.vars))
      return false;
    if ((y = vt.get("run_args")) && !r_.strings(*y, vw + ".run_args", v.runArgs))
      return false;
    if ((y = vt.get("args")) && !r_.strings(*y, vw + ".args", v.args))
      return false;
    if ((y = vt.get("mode"))) {
      std::string m;
      if (!r_.string(*y, vw + ".mode", m))
        return false;
      if (!parseMode(m, v.mode))
        return r_.fail(*y, vw + ".mode", "unknown mode '" + m + "'");
      v.hasMode = true;
    }
    return true;
  }

  /// The value names of an axis ("program": the programs); false when there is no such axis.
  bool axisValues(const std::string &axisName, std::vector<std::string> &known) const {
    if (axisName == "program") {
      for (const Program &p : out_.programs)
        known.push_back(p.name);
      return true;
    }
    bool axisFound = false;
    for (const Axis &a : out_.axes)
      if (a.name == axisName) {
        axisFound = true;
        for (const AxisValue &v : a.values)
          known.push_back(v.name);
      }
    return axisFound;
  }

  bool readBaseline() {
    if (const toml::node *n = root_.get("baseline")) {
      std::vector<std::pair<std::string, std::string>> b;
      if (!r_.pairs(*n, "baseline", b))
        return false;
      for (const auto &[axisName, value] : b) {
        std::vector<std::string> known;
        if (!axisValues(axisName, known))
          return r_.fail(*n, "baseline." + axisName, "no axis named '" + axisName + "'");
        if (std::find(known.begin(), known.end(), value) == known.end())
          return r_.fail(*n, "baseline." + axisName,
                         "axis '" + axisName + "' has no value '" + value + "'");
        out_.baseline[axisName] = value;
      }
    }
    for (const Axis &a : out_.axes)
      if (!out_.baseline.count(a.name))
        out_.baseline[a.name] = a.values[0].name;
    return true;
  }

  bool readExcludes() {
    const toml::node *n = root_.get("exclude");
    if (!n)
      return true;
    const toml::array *ex = n->as_array();
    if (!ex)
      return r_.fail(*n, "exclude", "expected an array of { AXIS = VALUE or [VALUES] }");
    for (size_t i = 0; i < ex->size(); ++i) {
      std::string where = "exclude[" + std::to_string(i) + "]";
      const toml::table *t = (*ex)[i].as_table();
      if (!t || t->empty())
        return r_.fail((*ex)[i], where, "expected { AXIS = VALUE or [VALUES], ... }");
      Spec::Exclusion e;
      for (auto &&[k, v] : *t)
        if (!readExclusionEntry(v, where + "." + std::string(k.str()), std::string(k.str()), e))
          return false;
      out_.excludes.push_back(std::move(e));
    }
    return true;
  }

  bool readExclusionEntry(const toml::node &v, const std::string &where,
                          const std::string &axisName, Spec::Exclusion &e) {
    std::vector<std::string> names;
    if (v.is_array()) {
      if (!r_.strings(v, where, names))
        return false;
    } else {
      std::string one;
      if (!r_.string(v, where, one))
        return false;
      names.push_back(one);
    }
    std::vector<std::string> known;
    if (!axisValues(axisName, known))
      return r_.fail(v, where, "no axis named '" + axisName + "'");
    for (const std::string &nm : names)
      if (std::find(known.begin(), known.end(), nm) == known.end())
        return r_.fail(v, where, "axis '" + axisName + "' has no value '" + nm + "'");
    e.emplace_back(axisName, names);
    return true;
  }
};

} // namespace

bool loadSpec(const std::string &path, const std::vector<std::pair<std::string, std::string>> &sets,
              const std::string &outputOverride, Spec &out, std::string &error) {
  toml::table root;
  if (!parseToml(path, root, error))
    return false;
  out = Spec();
  char cwdBuf[PATH_MAX];
  std::string cwd = getcwd(cwdBuf, sizeof cwdBuf) ? cwdBuf : ".";
  setPaths(path, cwd, out);
  std::map<std::string, std::string> vars{{"spec_dir", out.dir}};
  if (!readVars(root, path, vars, error))
    return false;
  for (const auto &[k, v] : sets)
    vars[k] = v;
  for (const auto &[k, v] : vars)
    out.vars.emplace_back(k, v);
  Reader r(path, vars);
  deferAxisVars(root, vars, r);
  SpecLoader loader(path, cwd, outputOverride, root, r, out);
  if (loader.load())
    return true;
  error = !loader.direct.empty() ? loader.direct
          : r.error.empty()      ? path + ": invalid spec"
                                 : r.error;
  return false;
}

namespace {

/// Whether every coordinate an exclusion names has one of its values.
bool excluded(const Spec &spec, const Point &p) {
  for (const Spec::Exclusion &e : spec.excludes) {
    bool all = true;
    for (const auto &[axisName, names] : e) {
      std::string v;
      if (axisName == "program")
        v = spec.programs[p.program].name;
      for (size_t a = 0; a < spec.axes.size(); ++a)
        if (spec.axes[a].name == axisName)
          v = spec.axes[a].values[p.values[a]].name;
      all = all && std::find(names.begin(), names.end(), v) != names.end();
    }
    if (all)
      return true;
  }
  return false;
}

} // namespace

std::vector<Point> expandGrid(const Spec &spec) {
  std::vector<Point> points;
  std::vector<size_t> idx(spec.axes.size(), 0);
  for (size_t p = 0; p < spec.programs.size(); ++p) {
    std::fill(idx.begin(), idx.end(), 0);
    while (true) {
      Point pt;
      pt.index = points.size();
      pt.program = p;
      pt.values = idx;
      pt.id = spec.programs[p].name;
      for (size_t a = 0; a < spec.axes.size(); ++a)
        pt.id += "__" + spec.axes[a].values[idx[a]].name;
      if (!excluded(spec, pt))
        points.push_back(std::move(pt));
      // odometer, last axis fastest
      bool carry = true;
      for (size_t a = spec.axes.size(); carry && a > 0;) {
        --a;
        if (++idx[a] < spec.axes[a].values.size())
          carry = false;
        else
          idx[a] = 0;
      }
      if (carry)
        break;
    }
  }
  return points;
}

ModeKind pointMode(const Spec &spec, const Point &p) {
  ModeKind m = spec.mode;
  for (size_t a = 0; a < spec.axes.size(); ++a)
    if (spec.axes[a].values[p.values[a]].hasMode)
      m = spec.axes[a].values[p.values[a]].mode;
  return m;
}

} // namespace ptxsim::sweep
