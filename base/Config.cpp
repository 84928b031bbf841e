#include "base/Config.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace ptxsim {

std::string jsonQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      size_t sub = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, sub});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string formatDouble(double v) {
  char buf[64];
  // Enough digits for the integer part, so 700 prints as 700 and not 7e+02.
  int start = 1;
  if (std::isfinite(v) && std::fabs(v) >= 1 && std::fabs(v) < 1e15)
    start = int(std::floor(std::log10(std::fabs(v)))) + 1;
  for (int prec = start; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s = buf;
  if (std::isfinite(v) && s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

namespace {

bool parseUnsigned(const std::string &s, uint64_t &out, std::string &err) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) {
    err = "expected an unsigned integer";
    return false;
  }
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (*end != '\0') {
    err = "expected an unsigned integer";
    return false;
  }
  if (errno == ERANGE) {
    err = "out of range";
    return false;
  }
  out = v;
  return true;
}

bool parseBool(const std::string &s, bool &out) {
  std::string l;
  for (char c : s)
    l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "1" || l == "true" || l == "yes" || l == "on") {
    out = true;
    return true;
  }
  if (l == "0" || l == "false" || l == "no" || l == "off") {
    out = false;
    return true;
  }
  return false;
}

bool parseDouble(const std::string &s, double &out) {
  if (s.empty())
    return false;
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

std::string rangeText(const Option &o) {
  auto num = [&](double v) {
    return o.kind() == OptionKind::Double ? formatDouble(v) : std::to_string(uint64_t(v));
  };
  if (o.lowerBound() && o.upperBound())
    return "between " + num(*o.lowerBound()) + " and " + num(*o.upperBound());
  if (o.lowerBound())
    return "at least " + num(*o.lowerBound());
  return "at most " + num(*o.upperBound());
}

bool inRange(const Option &o, double v) {
  return !(o.lowerBound() && v < *o.lowerBound()) && !(o.upperBound() && v > *o.upperBound());
}

bool isOptionName(const std::string &t) {
  return t.size() >= 2 && t[0] == '-' &&
         (std::isalpha(static_cast<unsigned char>(t[1])) || t[1] == '_');
}

std::string quoteIfNeeded(const std::string &v) {
  if (!v.empty() && v.find_first_of(" \t\n#\"") == std::string::npos)
    return v;
  return "\"" + v + "\"";
}

std::string kindName(OptionKind k) {
  switch (k) {
  case OptionKind::Bool:
    return "bool";
  case OptionKind::UInt32:
    return "uint32";
  case OptionKind::UInt64:
    return "uint64";
  case OptionKind::Double:
    return "double";
  case OptionKind::String:
    return "string";
  case OptionKind::Custom:
    return "custom";
  case OptionKind::Ignored:
    return "ignored";
  }
  return "";
}

std::string mdEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

} // namespace

std::string Option::jsonValue() const {
  std::string v = value();
  switch (kind_) {
  case OptionKind::Bool:
  case OptionKind::UInt32:
  case OptionKind::UInt64:
  case OptionKind::Double:
    return v;
  default:
    return jsonQuote(v);
  }
}

Option &OptionSet::insert(std::unique_ptr<Option> opt) {
  assert(byName_.count(opt->name_) == 0 && "option added twice");
  if (opt->print_)
    opt->default_ = opt->print_();
  Option &ref = *opt;
  byName_[opt->name_] = &ref;
  opts_.push_back(std::move(opt));
  return ref;
}

Option &OptionSet::add(const std::string &name, bool *field, const std::string &help) {
  auto o = std::make_unique<Option>();
  o->name_ = name;
  o->help_ = help;
  o->kind_ = OptionKind::Bool;
  o->typeName_ = "bool";
  o->parse_ = [field](const std::string &v, std::string &err) {
    if (!parseBool(v, *field)) {
      err = "expected a boolean (0, 1, true, false)";
      return false;
    }
    return true;
  };
  o->print_ = [field] { return std::string(*field ? "1" : "0"); };
  return insert(std::move(o));
}

Option &OptionSet::add(const std::string &name, uint32_t *field, const std::string &help) {
  auto o = std::make_unique<Option>();
  o->name_ = name;
  o->help_ = help;
  o->kind_ = OptionKind::UInt32;
  o->typeName_ = "uint32";
  Option *self = o.get();
  o->parse_ = [field, self](const std::string &v, std::string &err) {
    uint64_t x;
    if (!parseUnsigned(v, x, err))
      return false;
    if (x > UINT32_MAX || !inRange(*self, double(x))) {
      err = "out of range";
      return false;
    }
    *field = uint32_t(x);
    return true;
  };
  o->print_ = [field] { return std::to_string(*field); };
  return insert(std::move(o));
}

Option &OptionSet::add(const std::string &name, uint64_t *field, const std::string &help) {
  auto o = std::make_unique<Option>();
  o->name_ = name;
  o->help_ = help;
  o->kind_ = OptionKind::UInt64;
  o->typeName_ = "uint64";
  Option *self = o.get();
  o->parse_ = [field, self](const std::string &v, std::string &err) {
    uint64_t x;
    if (!parseUnsigned(v, x, err))
      return false;
    if (!inRange(*self, double(x))) {
      err = "out of range";
      return false;
    }
    *field = x;
    return true;
  };
  o->print_ = [field] { return std::to_string(*field); };
  return insert(std::move(o));
}

Option &OptionSet::add(const std::string &name, double *field, const std::string &help) {
  auto o = std::make_unique<Option>();
  o->name_ = name;
  o->help_ = help;
  o->kind_ = OptionKind::Double;
  o->typeName_ = "double";
  Option *self = o.get();
  o->parse_ = [field, self](const std::string &v, std::string &err) {
    double x;
    if (!parseDouble(v, x)) {
      err = "expected a number";
      return false;
    }
    if (!inRange(*self, x)) {
      err = "out of range";
      return false;
    }
    *field = x;
    return true;
  };
  o->print_ = [field] { return formatDouble(*field); };
  return insert(std::move(o));
}

Option &OptionSet::add(const std::string &name, std::string *field, const std::string &help) {
  auto o = std::make_unique<Option>();
  o->name_ = name;
  o->help_ = help;
  o->kind_ = OptionKind::String;
  o->typeName_ = "string";
  Option *self = o.get();
  o->parse_ = [field, self](const std::string &v, std::string &err) {
    const auto &c = self->choices_;
    if (!c.empty() && std::find(c.begin(), c.end(), v) == c.end()) {
      err = "expected one of";
      for (size_t i = 0; i < c.size(); ++i)
        err += (i ? ", " : " ") + c[i];
      return false;
    }
    *field = v;
    return true;
  };
  o->print_ = [field] { return *field; };
  return insert(std::move(o));
}

Option &OptionSet::addCustom(const std::string &name, const std::string &typeName,
                             Option::ParseFn parse, Option::PrintFn print,
                             const std::string &help) {
  auto o = std::make_unique<Option>();
  o->name_ = name;
  o->help_ = help;
  o->kind_ = OptionKind::Custom;
  o->typeName_ = typeName;
  o->parse_ = std::move(parse);
  o->print_ = std::move(print);
  return insert(std::move(o));
}

Option &OptionSet::addIgnored(const std::string &name, const std::string &help) {
  auto o = std::make_unique<Option>();
  o->name_ = name;
  o->help_ = help;
  o->kind_ = OptionKind::Ignored;
  o->typeName_ = "any";
  return insert(std::move(o));
}

void OptionSet::addAlias(const std::string &alias, const std::string &target) {
  auto it = byName_.find(target);
  assert(it != byName_.end() && "alias of an unknown option");
  assert(byName_.count(alias) == 0 && "alias shadows an option");
  byName_[alias] = it->second;
  aliases_[alias] = target;
}

const Option *OptionSet::find(const std::string &name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : it->second;
}

std::vector<const Option *> OptionSet::options() const {
  std::vector<const Option *> v;
  for (const auto &o : opts_)
    v.push_back(o.get());
  return v;
}

std::string OptionSet::suggest(const std::string &name) const {
  std::string best;
  size_t bestDist = SIZE_MAX;
  for (const auto &[known, opt] : byName_) {
    (void)opt;
    size_t d = editDistance(name, known);
    if (d < bestDist) {
      bestDist = d;
      best = known;
    }
  }
  // Close enough to be a typo: a few edits, relative to the length.
  size_t limit = std::max<size_t>(2, name.size() / 4);
  return bestDist <= limit ? best : std::string();
}

bool OptionSet::parseFile(const std::string &path, DiagEngine &diags, bool lenient) {
  // (a directory opens as a stream that reads as empty: it would silently configure nothing)
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    diags.error(path, {}, "is a directory, not a config file");
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(path, {}, "cannot open config file");
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseText(ss.str(), path, diags, lenient);
}

bool OptionSet::parseText(std::string_view text, const std::string &fileName, DiagEngine &diags,
                          bool lenient) {
  std::vector<Token> tokens;
  size_t errorsBefore = diags.errorCount();
  uint32_t line = 1, col = 1;
  size_t i = 0;
  auto advance = [&] {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    ++i;
  };
  auto skipComment = [&] {
    while (i < text.size() && text[i] != '\n')
      advance();
  };
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance();
      continue;
    }
    if (c == '#') {
      skipComment();
      continue;
    }
    Token t;
    t.loc = {line, col};
    if (c == '"') {
      t.quoted = true;
      advance();
      bool closed = false, pendingSpace = false;
      while (i < text.size()) {
        char d = text[i];
        if (d == '"') {
          advance();
          closed = true;
          break;
        }
        if (d == '#') { // GPGPU-Sim strips comments before it looks at quotes
          skipComment();
          pendingSpace = true;
          continue;
        }
        if (std::isspace(static_cast<unsigned char>(d))) {
          pendingSpace = true;
        } else {
          if (pendingSpace && !t.text.empty())
            t.text += ' ';
          pendingSpace = false;
          t.text += d;
        }
        advance();
      }
      if (!closed) {
        diags.error(fileName, t.loc, "unterminated quoted value");
        return false;
      }
    } else {
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
             text[i] != '#') {
        t.text += text[i];
        advance();
      }
    }
    tokens.push_back(std::move(t));
  }
  return parseTokens(tokens, fileName, diags, lenient) && diags.errorCount() == errorsBefore;
}

bool OptionSet::parseArgs(const std::vector<std::string> &args, DiagEngine &diags, bool lenient,
                          const std::string &source) {
  std::vector<Token> tokens;
  uint32_t col = 1;
  for (const std::string &a : args) {
    Token t;
    t.text = a;
    t.loc = {1, col};
    // A word with spaces came quoted from the shell: it is a value, never an option name.
    t.quoted = a.find_first_of(" \t") != std::string::npos;
    col += uint32_t(a.size()) + 1;
    tokens.push_back(std::move(t));
  }
  return parseTokens(tokens, source, diags, lenient);
}

bool OptionSet::parseTokens(const std::vector<Token> &tokens, const std::string &file,
                            DiagEngine &diags, bool lenient) {
  size_t errorsBefore = diags.errorCount();
  auto isName = [](const Token &t) { return !t.quoted && isOptionName(t.text); };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token &t = tokens[i];
    if (!isName(t)) {
      if (i > 0 && !isName(tokens[i - 1]))
        diags.error(file, t.loc, "unexpected value '" + t.text + "' (one value per option)");
      else
        diags.error(file, t.loc, "expected an option name (-name value), found '" + t.text + "'");
      continue;
    }
    const Token *value =
        (i + 1 < tokens.size() && !isName(tokens[i + 1])) ? &tokens[i + 1] : nullptr;
    auto it = byName_.find(t.text);
    if (it == byName_.end()) {
      std::string msg = "unknown option '" + t.text + "'";
      std::string s = suggest(t.text);
      if (!s.empty())
        msg += "; did you mean '" + s + "'?";
      if (lenient)
        diags.warning(file, t.loc, msg + " (ignored)");
      else
        diags.error(file, t.loc, msg);
      if (value)
        ++i;
      continue;
    }
    Option &opt = *it->second;
    if (opt.kind_ == OptionKind::Ignored) {
      if (warnedIgnored_.insert(opt.name_).second)
        diags.warning(file, t.loc,
                      "option '" + t.text + "' is accepted but has no effect in ptxsim");
      if (value)
        ++i;
      continue;
    }
    if (!value) {
      if (opt.kind_ == OptionKind::Bool) { // a flag
        Token one{"1", t.loc, false};
        assign(opt, one, file, diags);
        continue;
      }
      diags.error(file, t.loc, "option '" + t.text + "' needs a value");
      continue;
    }
    ++i;
    assign(opt, *value, file, diags);
  }
  return diags.errorCount() == errorsBefore;
}

bool OptionSet::assign(Option &opt, const Token &value, const std::string &file,
                       DiagEngine &diags) {
  std::string err;
  if (!opt.parse_(value.text, err)) {
    if (err == "out of range" && (opt.lo_ || opt.hi_))
      diags.error(file, value.loc,
                  "value '" + value.text + "' for option '" + opt.name_ +
                      "' is out of range: must be " + rangeText(opt));
    else if (err == "out of range")
      diags.error(file, value.loc,
                  "value '" + value.text + "' for option '" + opt.name_ + "' is out of range");
    else
      diags.error(file, value.loc,
                  "invalid value '" + value.text + "' for option '" + opt.name_ + "': " + err);
    return false;
  }
  ++opt.setCount_;
  opt.setAt_ = file + ":" + std::to_string(value.loc.line);
  return true;
}

std::string OptionSet::json(int indent) const {
  std::string pad(size_t(indent), ' ');
  std::string out = "{";
  bool first = true;
  for (const auto &o : opts_) {
    if (o->kind_ == OptionKind::Ignored)
      continue;
    out += first ? "\n" : ",\n";
    first = false;
    out += pad + jsonQuote(o->name_) + ": " + o->jsonValue();
  }
  return out + (first ? "}" : "\n}");
}

std::string OptionSet::text() const {
  size_t width = 0;
  for (const auto &o : opts_)
    if (o->kind_ != OptionKind::Ignored)
      width = std::max(width, o->name_.size() + 1 + quoteIfNeeded(o->value()).size());
  std::string out;
  for (const auto &o : opts_) {
    if (o->kind_ == OptionKind::Ignored)
      continue;
    std::string line = o->name_ + " " + quoteIfNeeded(o->value());
    line.resize(std::max(line.size(), width), ' ');
    out += line + "  # " + o->help_ + "\n";
  }
  return out;
}

std::string OptionSet::markdown() const {
  std::string out = "| option | type | default | meaning |\n| --- | --- | --- | --- |\n";
  for (const auto &o : opts_) {
    if (o->kind_ == OptionKind::Ignored)
      continue;
    std::string type =
        o->kind_ == OptionKind::Custom ? "`" + o->typeName_ + "`" : kindName(o->kind_);
    std::string help = o->help_;
    if (!o->choices_.empty()) {
      help += " (one of";
      for (size_t i = 0; i < o->choices_.size(); ++i)
        help += std::string(i ? ", " : " ") + "`" + o->choices_[i] + "`";
      help += ")";
    }
    if ((o->lo_ && *o->lo_ > 0) || o->hi_)
      help += " (" + rangeText(*o) + ")";
    std::string def = o->defaultValue().empty() ? "" : "`" + o->defaultValue() + "`";
    out += "| `" + o->name_ + "` | " + mdEscape(type) + " | " + mdEscape(def) + " | " +
           mdEscape(help) + " |\n";
  }
  if (!aliases_.empty()) {
    out += "\nAliases (other spellings of the options above, as some GPGPU-Sim versions name "
           "them):\n\n| alias | option |\n| --- | --- |\n";
    for (const auto &[alias, target] : aliases_)
      out += "| `" + alias + "` | `" + target + "` |\n";
  }
  bool anyIgnored = false;
  for (const auto &o : opts_)
    if (o->kind_ == OptionKind::Ignored) {
      if (!anyIgnored)
        out += "\nAccepted with a warning, no effect in ptxsim:\n\n| option | what it does in "
               "GPGPU-Sim |\n| --- | --- |\n";
      anyIgnored = true;
      out += "| `" + o->name_ + "` | " + mdEscape(o->help_) + " |\n";
    }
  return out;
}

} // namespace ptxsim
