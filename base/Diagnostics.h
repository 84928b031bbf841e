#pragma once
// Diagnostics for user input (PTX text, config files, command lines).
//
// Contract: every diagnostic carries the file it is about and a 1-based line and column, and
// prints as `file:line:col: error: message` (LLVM style: lowercase message, token quoted). The
// engine keeps every diagnostic up to a limit, so a tool can report all the errors in a file, not
// only the first; past the limit it records one "too many errors" note and drops the rest.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim {

/// A position in a source file; line and column are 1-based, 0 means unknown.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
};

enum class Severity : uint8_t { Error, Warning, Note };

struct Diagnostic {
  Severity severity;
  std::string file;
  SourceLoc loc;
  std::string message;

  /// `file:line:col: error: message`.
  std::string str() const;
};

class DiagEngine {
public:
  explicit DiagEngine(size_t maxErrors = 1000) : maxErrors_(maxErrors) {}

  void report(Severity sev, const std::string &file, SourceLoc loc, std::string message);
  void error(const std::string &file, SourceLoc loc, std::string message) {
    report(Severity::Error, file, loc, std::move(message));
  }
  void warning(const std::string &file, SourceLoc loc, std::string message) {
    report(Severity::Warning, file, loc, std::move(message));
  }

  size_t errorCount() const { return errors_; }
  bool hasErrors() const { return errors_ != 0; }
  /// True once the error limit is reached; producers may stop early.
  bool full() const { return errors_ >= maxErrors_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }
  void print(std::ostream &os) const;
  /// Like print(), and under each diagnostic located in `file` also the source line and a caret
  /// under the column (clang style). `source` is that file's text.
  void printWithSource(std::ostream &os, const std::string &file, std::string_view source) const;
  /// Orders diagnostics by file, line and column (stable), keeping each note after the
  /// diagnostic it belongs to.
  void sortByLocation();
  void clear() {
    diags_.clear();
    errors_ = 0;
  }

private:
  size_t maxErrors_;
  size_t errors_ = 0;
  std::vector<Diagnostic> diags_;
};

} // namespace ptxsim
