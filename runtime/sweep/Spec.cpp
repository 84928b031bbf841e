#include "runtime/sweep/Spec.h"

#include <toml++/toml.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <set>
#include <sstream>
#include <unistd.h>

namespace ptxsim::sweep {

const char *modeName(ModeKind m) {
  switch (m) {
  case ModeKind::Functional:
    return "functional";
  case ModeKind::Timing:
    return "timing";
  case ModeKind::Power:
    return "power";
  case ModeKind::SampleKernels:
    return "sample-kernels";
  case ModeKind::SampleCtas:
    return "sample-ctas";
  }
  return "timing";
}

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

  bool keys(const toml::table &t, const std::string &where,
            std::initializer_list<const char *> ok) {
    for (auto &&[k, v] : t) {
      bool known = false;
      for (const char *o : ok)
        known |= k.str() == o;
      if (!known) {
        std::string list;
        for (const char *o : ok)
          list += std::string(list.empty() ? "" : ", ") + o;
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

} // namespace

bool loadSpec(const std::string &path, const std::vector<std::pair<std::string, std::string>> &sets,
              const std::string &outputOverride, Spec &out, std::string &error) {
  toml::table root;
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
  out = Spec();
  out.path = path;
  char cwdBuf[PATH_MAX];
  std::string cwd = getcwd(cwdBuf, sizeof cwdBuf) ? cwdBuf : ".";
  size_t slash = path.find_last_of('/');
  out.dir = absolute(slash == std::string::npos ? "." : path.substr(0, slash + 1), cwd);
  out.absPath = out.dir + "/" + (slash == std::string::npos ? path : path.substr(slash + 1));

  // variables first: every other string may use them
  std::map<std::string, std::string> vars{{"spec_dir", out.dir}};
  {
    Reader raw(path, vars);
    if (const toml::node *v = root.get("vars")) {
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
    }
  }
  for (const auto &[k, v] : sets)
    vars[k] = v;
  for (const auto &[k, v] : vars)
    out.vars.emplace_back(k, v);
  Reader r(path, vars);
  // names set per point by axis values (their `vars`), used in programs' commands
  if (const toml::node *axes = root.get("axis"); axes && axes->is_array())
    for (const toml::node &an : *axes->as_array())
      if (const toml::table *at = an.as_table())
        if (const toml::node *vals = at->get("values"); vals && vals->is_array())
          for (const toml::node &vn : *vals->as_array())
            if (const toml::table *vt = vn.as_table())
              if (const toml::node *vv = vt->get("vars"); vv && vv->is_table())
                for (auto &&[k, v] : *vv->as_table())
                  if (!vars.count(std::string(k.str())))
                    r.deferred.insert(std::string(k.str()));
  auto done = [&](bool ok) {
    if (!ok)
      error = r.error.empty() ? path + ": invalid spec" : r.error;
    return ok;
  };
  if (!r.keys(root, "spec",
              {"name", "title", "output", "configs", "options", "run_args", "modes", "repeats",
               "stats", "vars", "baseline", "resources", "outputs", "program", "axis", "exclude"}))
    return done(false);

  const toml::node *n = root.get("name");
  if (!n) {
    error = path + ": the spec needs a name (name = \"...\")";
    return false;
  }
  if (!r.string(*n, "name", out.name))
    return done(false);
  if (!safeName(out.name))
    return done(
        r.fail(*n, "name", "'" + out.name + "' is not a safe name (letters, digits, _ . + -)"));
  out.title = out.name;
  if ((n = root.get("title")) && !r.string(*n, "title", out.title))
    return done(false);
  std::string output = "sweep-" + out.name;
  if ((n = root.get("output")) && !r.string(*n, "output", output))
    return done(false);
  // the output directory is relative to where ptxsim runs, like -o
  out.output = absolute(outputOverride.empty() ? output : outputOverride, cwd);

  std::vector<std::string> list;
  if ((n = root.get("configs"))) {
    if (!r.strings(*n, "configs", list))
      return done(false);
    for (const std::string &c : list)
      out.configs.push_back(absolute(c, out.dir));
  }
  if ((n = root.get("options")) && !r.pairs(*n, "options", out.options))
    return done(false);
  if ((n = root.get("run_args")) && !r.strings(*n, "run_args", out.runArgs))
    return done(false);
  out.mode = out.configs.empty() ? ModeKind::Functional : ModeKind::Timing;
  Axis modeAxis{"mode", {}};
  if ((n = root.get("modes"))) {
    list.clear();
    if (!r.strings(*n, "modes", list))
      return done(false);
    if (list.empty())
      return done(r.fail(*n, "modes", "empty"));
    for (const std::string &m : list) {
      AxisValue v;
      v.name = m;
      v.hasMode = true;
      if (!parseMode(m, v.mode))
        return done(r.fail(*n, "modes",
                           "unknown mode '" + m +
                               "' (functional, timing, power, sample-kernels, "
                               "sample-ctas)"));
      modeAxis.values.push_back(v);
    }
    if (modeAxis.values.size() == 1)
      out.mode = modeAxis.values[0].mode;
  }
  uint64_t repeats = 1;
  if ((n = root.get("repeats")) && !r.unsignedValue(*n, "repeats", 1, repeats))
    return done(false);
  if ((n = root.get("stats")) && !r.strings(*n, "stats", out.stats))
    return done(false);
  if (out.stats.empty())
    out.stats = out.mode == ModeKind::Functional && modeAxis.values.size() <= 1
                    ? std::vector<std::string>{"launches", "warp_insts"}
                    : std::vector<std::string>{"cycles", "ipc", "stall_cycles", "l1d_hit_rate",
                                               "dram_bytes"};

  if ((n = root.get("resources"))) {
    const toml::table *t = n->as_table();
    if (!t)
      return done(r.fail(*n, "resources", "expected a table"));
    if (!r.keys(*t, "resources", {"cpus", "memory", "time", "partition", "sbatch", "max_parallel"}))
      return done(false);
    Resources &res = out.resources;
    uint64_t u;
    if (const toml::node *x = t->get("cpus")) {
      if (!r.unsignedValue(*x, "resources.cpus", 1, u))
        return done(false);
      res.cpus = static_cast<unsigned>(u);
    }
    if (const toml::node *x = t->get("memory")) {
      std::string s;
      if (!r.scalar(*x, "resources.memory", s))
        return done(false);
      if (!parseMemory(s, res.memoryMiB))
        return done(
            r.fail(*x, "resources.memory", "'" + s + "' is not a size (e.g. \"2G\", \"512M\")"));
    }
    if (const toml::node *x = t->get("time"); x && !r.string(*x, "resources.time", res.time))
      return done(false);
    if (const toml::node *x = t->get("partition");
        x && !r.string(*x, "resources.partition", res.partition))
      return done(false);
    if (const toml::node *x = t->get("sbatch"); x && !r.strings(*x, "resources.sbatch", res.sbatch))
      return done(false);
    if (const toml::node *x = t->get("max_parallel")) {
      if (!r.unsignedValue(*x, "resources.max_parallel", 1, u))
        return done(false);
      res.maxParallel = static_cast<unsigned>(u);
    }
  }
  if ((n = root.get("outputs"))) {
    const toml::table *t = n->as_table();
    if (!t)
      return done(r.fail(*n, "outputs", "expected a table"));
    if (!r.keys(*t, "outputs", {"csv", "json", "report"}))
      return done(false);
    for (auto [key, dst] : {std::pair<const char *, std::string *>{"csv", &out.csvName},
                            {"json", &out.jsonName},
                            {"report", &out.reportName}})
      if (const toml::node *x = t->get(key)) {
        if (!r.string(*x, std::string("outputs.") + key, *dst))
          return done(false);
        if (dst->empty() || dst->find('/') != std::string::npos)
          return done(
              r.fail(*x, std::string("outputs.") + key, "a file name inside the output directory"));
      }
  }

  // programs
  n = root.get("program");
  const toml::array *progs = n ? n->as_array() : nullptr;
  if (!progs || progs->empty()) {
    if (n)
      return done(r.fail(*n, "program", "expected [[program]] tables"));
    error = path + ": the spec runs no program (add a [[program]] table)";
    return false;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < progs->size(); ++i) {
    std::string where = "program[" + std::to_string(i) + "]";
    const toml::node &pn = (*progs)[i];
    const toml::table *t = pn.as_table();
    if (!t)
      return done(r.fail(pn, where, "expected a table"));
    if (!r.keys(*t, where, {"name", "kind", "command", "cwd", "expect", "env", "inputs", "run_args", "grid",
                  "transport"}))
      return done(false);
    Program p;
    const toml::node *x = t->get("name");
    if (!x)
      return done(r.fail(pn, where, "needs a name"));
    if (!r.string(*x, where + ".name", p.name))
      return done(false);
    if (!safeName(p.name))
      return done(r.fail(*x, where + ".name",
                         "'" + p.name +
                             "' is not a safe name (letters, digits, _ . + -; "
                             "no \"__\")"));
    if (!seen.insert(p.name).second)
      return done(r.fail(*x, where + ".name", "a second program named '" + p.name + "'"));
    if ((x = t->get("kind"))) {
      std::string kind;
      if (!r.string(*x, where + ".kind", kind))
        return done(false);
      if (kind == "chiplets")
        p.kind = ProgramKind::Chiplets;
      else if (kind != "run")
        return done(r.fail(*x, where + ".kind", "'" + kind + "' is not run or chiplets"));
    }
    for (const char *k : {"grid", "transport"})
      if ((x = t->get(k)) && p.kind != ProgramKind::Chiplets)
        return done(r.fail(*x, where + "." + k, "only a program of kind = \"chiplets\" has one"));
    if (p.kind == ProgramKind::Chiplets) {
      if (!(x = t->get("grid")))
        return done(r.fail(pn, where, "a chiplets program needs a grid (\"WxH\")"));
      r.keepEscapes = true; // an axis value's vars may set it
      if (!r.string(*x, where + ".grid", p.grid))
        return done(false);
      r.keepEscapes = false;
      unsigned gw, gh;
      if (p.grid.find('$') == std::string::npos && !parseGrid(p.grid, gw, gh))
        return done(r.fail(*x, where + ".grid", "'" + p.grid + "' is not WxH (1..64 each)"));
      if ((x = t->get("transport"))) {
        if (!r.string(*x, where + ".transport", p.transport))
          return done(false);
        if (p.transport != "files" && p.transport != "mpi")
          return done(
              r.fail(*x, where + ".transport", "'" + p.transport + "' is not files or mpi"));
      }
    }
    x = t->get("command");
    if (!x)
      return done(r.fail(pn, where, "needs a command (an array: program and arguments)"));
    r.keepEscapes = true; // command, run_args and env are filled in per point
    if (x->is_string()) {
      std::string s;
      if (!r.string(*x, where + ".command", s))
        return done(false);
      p.command.push_back(s);
    } else if (!r.strings(*x, where + ".command", p.command)) {
      return done(false);
    }
    if (p.command.empty() || p.command[0].empty())
      return done(r.fail(*x, where + ".command", "empty"));
    if (p.command[0].find('/') != std::string::npos)
      p.command[0] = absolute(p.command[0], out.dir);
    if ((x = t->get("env")) && !r.pairs(*x, where + ".env", p.env))
      return done(false);
    if ((x = t->get("run_args")) && !r.strings(*x, where + ".run_args", p.runArgs))
      return done(false);
    r.keepEscapes = false;
    if ((x = t->get("cwd"))) {
      if (!r.string(*x, where + ".cwd", p.cwd))
        return done(false);
      p.cwd = absolute(p.cwd, out.dir);
    }
    if ((x = t->get("expect")) && !r.string(*x, where + ".expect", p.expect))
      return done(false);
    if ((x = t->get("inputs"))) {
      list.clear();
      if (!r.strings(*x, where + ".inputs", list))
        return done(false);
      for (const std::string &f : list)
        p.inputs.push_back(absolute(f, out.dir));
    }
    out.programs.push_back(std::move(p));
  }

  // axes
  if ((n = root.get("axis"))) {
    const toml::array *axes = n->as_array();
    if (!axes)
      return done(r.fail(*n, "axis", "expected [[axis]] tables"));
    std::set<std::string> axisNames{"program", "mode", "repeat", "point", "status"};
    for (size_t i = 0; i < axes->size(); ++i) {
      std::string where = "axis[" + std::to_string(i) + "]";
      const toml::node &an = (*axes)[i];
      const toml::table *t = an.as_table();
      if (!t)
        return done(r.fail(an, where, "expected a table"));
      if (!r.keys(*t, where, {"name", "option", "values"}))
        return done(false);
      Axis axis;
      const toml::node *x = t->get("name");
      if (!x)
        return done(r.fail(an, where, "needs a name"));
      if (!r.string(*x, where + ".name", axis.name))
        return done(false);
      if (!safeName(axis.name))
        return done(r.fail(*x, where + ".name", "'" + axis.name + "' is not a safe name"));
      if (!axisNames.insert(axis.name).second)
        return done(r.fail(*x, where + ".name",
                           "'" + axis.name + "' is taken (by another axis or a built-in column)"));
      std::string option;
      if ((x = t->get("option")) && !r.string(*x, where + ".option", option))
        return done(false);
      x = t->get("values");
      const toml::array *vals = x ? x->as_array() : nullptr;
      if (!vals || vals->empty())
        return done(r.fail(x ? *x : an, where, "needs a non-empty array 'values'"));
      std::set<std::string> valueNames;
      for (size_t j = 0; j < vals->size(); ++j) {
        std::string vw = where + ".values[" + std::to_string(j) + "]";
        const toml::node &vn = (*vals)[j];
        AxisValue v;
        if (const toml::table *vt = vn.as_table()) {
          if (!r.keys(*vt, vw,
                      {"name", "configs", "options", "run_args", "args", "mode", "value", "vars"}))
            return done(false);
          const toml::node *y = vt->get("name");
          if (!y)
            return done(r.fail(vn, vw, "needs a name"));
          if (!r.string(*y, vw + ".name", v.name))
            return done(false);
          if ((y = vt->get("configs"))) {
            list.clear();
            if (!r.strings(*y, vw + ".configs", list))
              return done(false);
            for (const std::string &c : list)
              v.configs.push_back(absolute(c, out.dir));
          }
          if ((y = vt->get("options")) && !r.pairs(*y, vw + ".options", v.options))
            return done(false);
          if ((y = vt->get("value"))) {
            std::string s;
            if (option.empty())
              return done(r.fail(*y, vw + ".value", "'value' needs the axis' 'option'"));
            if (!r.scalar(*y, vw + ".value", s))
              return done(false);
            v.options.emplace_back(option, s);
          }
          if ((y = vt->get("vars")) && !r.pairs(*y, vw + ".vars", v.vars))
            return done(false);
          if ((y = vt->get("run_args")) && !r.strings(*y, vw + ".run_args", v.runArgs))
            return done(false);
          if ((y = vt->get("args")) && !r.strings(*y, vw + ".args", v.args))
            return done(false);
          if ((y = vt->get("mode"))) {
            std::string m;
            if (!r.string(*y, vw + ".mode", m))
              return done(false);
            if (!parseMode(m, v.mode))
              return done(r.fail(*y, vw + ".mode", "unknown mode '" + m + "'"));
            v.hasMode = true;
          }
        } else {
          // shorthand: values = ["lrr", "gto"] with option = "-gpgpu_scheduler"
          if (option.empty())
            return done(r.fail(vn, vw,
                               "a bare value needs the axis' 'option' (or write a table "
                               "{ name = ..., configs/options = ... })"));
          if (!r.scalar(vn, vw, v.name))
            return done(false);
          v.options.emplace_back(option, v.name);
        }
        if (!safeName(v.name))
          return done(r.fail(vn, vw,
                             "'" + v.name +
                                 "' is not a safe name (letters, digits, _ . + -; no "
                                 "\"__\")"));
        if (!valueNames.insert(v.name).second)
          return done(r.fail(vn, vw, "a second value named '" + v.name + "'"));
        axis.values.push_back(std::move(v));
      }
      out.axes.push_back(std::move(axis));
    }
  }
  if (modeAxis.values.size() > 1)
    out.axes.push_back(modeAxis);
  if (repeats > 1) {
    Axis rep{"repeat", {}};
    for (uint64_t k = 1; k <= repeats; ++k) {
      AxisValue v;
      v.name = std::to_string(k);
      rep.values.push_back(v);
    }
    out.axes.push_back(rep);
  }

  if ((n = root.get("baseline"))) {
    std::vector<std::pair<std::string, std::string>> b;
    if (!r.pairs(*n, "baseline", b))
      return done(false);
    for (const auto &[axisName, value] : b) {
      bool found = false;
      if (axisName == "program") {
        for (const Program &p : out.programs)
          found |= p.name == value;
      } else {
        bool axisFound = false;
        for (const Axis &a : out.axes)
          if (a.name == axisName) {
            axisFound = true;
            for (const AxisValue &v : a.values)
              found |= v.name == value;
          }
        if (!axisFound)
          return done(r.fail(*n, "baseline." + axisName, "no axis named '" + axisName + "'"));
      }
      if (!found)
        return done(r.fail(*n, "baseline." + axisName,
                           "axis '" + axisName + "' has no value '" + value + "'"));
      out.baseline[axisName] = value;
    }
  }
  for (const Axis &a : out.axes)
    if (!out.baseline.count(a.name))
      out.baseline[a.name] = a.values[0].name;

  if ((n = root.get("exclude"))) {
    const toml::array *ex = n->as_array();
    if (!ex)
      return done(r.fail(*n, "exclude", "expected an array of { AXIS = VALUE or [VALUES] }"));
    for (size_t i = 0; i < ex->size(); ++i) {
      std::string where = "exclude[" + std::to_string(i) + "]";
      const toml::table *t = (*ex)[i].as_table();
      if (!t || t->empty())
        return done(r.fail((*ex)[i], where, "expected { AXIS = VALUE or [VALUES], ... }"));
      Spec::Exclusion e;
      for (auto &&[k, v] : *t) {
        std::string axisName(k.str());
        std::vector<std::string> names;
        if (v.is_array()) {
          if (!r.strings(v, where + "." + axisName, names))
            return done(false);
        } else {
          std::string one;
          if (!r.string(v, where + "." + axisName, one))
            return done(false);
          names.push_back(one);
        }
        std::vector<std::string> known;
        if (axisName == "program") {
          for (const Program &p : out.programs)
            known.push_back(p.name);
        } else {
          for (const Axis &a : out.axes)
            if (a.name == axisName)
              for (const AxisValue &av : a.values)
                known.push_back(av.name);
          if (known.empty())
            return done(r.fail(v, where + "." + axisName, "no axis named '" + axisName + "'"));
        }
        for (const std::string &nm : names)
          if (std::find(known.begin(), known.end(), nm) == known.end())
            return done(r.fail(v, where + "." + axisName,
                               "axis '" + axisName + "' has no value '" + nm + "'"));
        e.emplace_back(axisName, names);
      }
      out.excludes.push_back(std::move(e));
    }
  }
  return true;
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

bool parseGrid(const std::string &s, unsigned &w, unsigned &h) {
  size_t x = s.find('x');
  auto num = [](const std::string &t, unsigned &v) {
    if (t.empty() || t.size() > 2 || t.find_first_not_of("0123456789") != std::string::npos)
      return false;
    v = static_cast<unsigned>(std::stoul(t));
    return v >= 1 && v <= 64;
  };
  return x != std::string::npos && num(s.substr(0, x), w) && num(s.substr(x + 1), h);
}

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
