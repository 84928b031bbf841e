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

void DiagEngine::printWithSource(std::ostream &os, const std::string &file,
                                 std::string_view source) const {
  std::vector<size_t> lineStarts{0};
  for (size_t i = 0; i < source.size(); ++i)
    if (source[i] == '\n')
      lineStarts.push_back(i + 1);
  for (const Diagnostic &d : diags_) {
    os << d.str() << '\n';
    if (d.file != file || d.loc.line == 0 || d.loc.line > lineStarts.size())
      continue;
    size_t begin = lineStarts[d.loc.line - 1];
    size_t end = source.find('\n', begin);
    std::string_view line = source.substr(begin, end == std::string_view::npos ? end : end - begin);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    // Show at most 120 characters around the column; keep tabs so the caret lines up.
    size_t col = d.loc.col ? d.loc.col - 1 : 0;
    size_t from = col > 60 ? col - 60 : 0;
    std::string_view shown = line.substr(std::min(from, line.size()), 120);
    std::string caret;
    for (size_t i = from; i < col && i < line.size(); ++i)
      caret += line[i] == '\t' ? '\t' : ' ';
    std::string text;
    for (char c : shown)
      text += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? '?' : c;
    os << "  " << text << "\n  " << caret << "^\n";
  }
}

void DiagEngine::print(std::ostream &os) const {
  for (const Diagnostic &d : diags_)
    os << d.str() << '\n';
}

} // namespace ptxsim
