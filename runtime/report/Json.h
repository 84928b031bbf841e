#pragma once
// A small JSON reader for the files ptxsim itself writes (PTXSIM_STATS_JSON): a DOM of values
// with ordered object members. Used by `ptxsim report`; not on any simulation path.
//
// Contract: parseJson accepts RFC 8259 JSON (numbers as doubles, \u escapes including surrogate
// pairs, nesting up to 256 levels); on malformed input it returns false and an error that names
// line:column. Lookups on an object are by exact key; a missing key or a value of another kind
// reads as the caller's default, so a report of an older or functional-mode file shows what is
// there instead of failing.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxsim::report {

enum class JsonKind : uint8_t { Null, Bool, Number, String, Array, Object };

class JsonValue {
public:
  JsonKind kind = JsonKind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;                           ///< Array
  std::vector<std::pair<std::string, JsonValue>> members; ///< Object, in file order

  bool isObject() const { return kind == JsonKind::Object; }
  bool isArray() const { return kind == JsonKind::Array; }
  bool isNumber() const { return kind == JsonKind::Number; }
  bool isString() const { return kind == JsonKind::String; }
  /// The member `key` of an object, or null when absent (or when this is not an object).
  const JsonValue *get(std::string_view key) const;
  /// The number member `key`, or `dflt` when absent or not a number.
  double num(std::string_view key, double dflt = 0) const;
  /// The string member `key`, or `dflt` when absent or not a string.
  std::string str(std::string_view key, std::string_view dflt = {}) const;
  /// The array member `key`, or an empty array.
  const std::vector<JsonValue> &array(std::string_view key) const;

  /// Called by the parser when an object is complete: large objects (a launch has ~250
  /// counters) get a sorted index so get() is a binary search, not a scan.
  void finishObject();

private:
  std::vector<uint32_t> index_; ///< member indices sorted by key (objects with many members)
};

/// Parses `text` into `out`. Returns false with `error` = "LINE:COL: message" when malformed.
bool parseJson(std::string_view text, JsonValue &out, std::string &error);

/// Appends `s` as a JSON string literal, escaping also '<' (so the text is safe inside an HTML
/// <script> element) and control characters.
void appendJsonString(std::string &out, std::string_view s);

} // namespace ptxsim::report
