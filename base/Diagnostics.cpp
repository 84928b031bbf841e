#include "base/Diagnostics.h"

#include <algorithm>
#include <ostream>

namespace ptxsim {

std::string Diagnostic::str() const {
  std::string s = file;
  if (loc.line) {
    s += ':' + std::to_string(loc.line);
    if (loc.col)
      s += ':' + std::to_string(loc.col);
  }
  switch (severity) {
  case Severity::Error:
    s += ": error: ";
    break;
  case Severity::Warning:
    s += ": warning: ";
    break;
  case Severity::Note:
    s += ": note: ";
    break;
  }
  return s + message;
}

void DiagEngine::report(Severity sev, const std::string &file, SourceLoc loc, std::string message) {
  if (sev == Severity::Error) {
    if (errors_ >= maxErrors_)
      return;
    if (++errors_ == maxErrors_) {
      diags_.push_back({sev, file, loc, std::move(message)});
      diags_.push_back({Severity::Note, file, {}, "too many errors, stopping"});
      return;
    }
  }
  diags_.push_back({sev, file, loc, std::move(message)});
}

void DiagEngine::sortByLocation() {
  // Group each diagnostic with the notes that follow it, then sort the groups.
  std::vector<std::vector<Diagnostic>> groups;
  for (Diagnostic &d : diags_) {
    if (d.severity == Severity::Note && !groups.empty())
      groups.back().push_back(std::move(d));
    else
      groups.push_back({std::move(d)});
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto &a, const auto &b) {
    const Diagnostic &x = a.front(), &y = b.front();
    if (x.file != y.file)
      return x.file < y.file;
    if (x.loc.line != y.loc.line)
      return x.loc.line < y.loc.line;
    return x.loc.col < y.loc.col;
  });
  diags_.clear();
  for (auto &g : groups)
    for (Diagnostic &d : g)
      diags_.push_back(std::move(d));
}

void DiagEngine::print(std::ostream &os) const {
  for (const Diagnostic &d : diags_)
    os << d.str() << '\n';
}

} // namespace ptxsim
