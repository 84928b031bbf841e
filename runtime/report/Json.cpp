#include "runtime/report/Json.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ptxsim::report {

namespace {

const std::vector<JsonValue> kEmptyArray;

class Parser {
public:
  explicit Parser(std::string_view t) : text_(t) {}

  bool parse(JsonValue &out, std::string &error) {
    skipSpace();
    if (!value(out, 0)) {
      error = where() + error_;
      return false;
    }
    skipSpace();
    if (pos_ != text_.size()) {
      error = where() + "unexpected text after the JSON value";
      return false;
    }
    return true;
  }

private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;

  std::string where() const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return std::to_string(line) + ":" + std::to_string(col) + ": ";
  }
  bool fail(std::string msg) {
    error_ = std::move(msg);
    return false;
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool value(JsonValue &v, int depth) {
    if (depth > 256)
      return fail("nesting deeper than 256 levels");
    if (pos_ >= text_.size())
      return fail("unexpected end of input, expected a value");
    char c = text_[pos_];
    switch (c) {
    case '{':
      return object(v, depth);
    case '[':
      return array(v, depth);
    case '"':
      v.kind = JsonKind::String;
      return string(v.string);
    case 't':
      v.kind = JsonKind::Bool;
      v.boolean = true;
      return literal("true");
    case 'f':
      v.kind = JsonKind::Bool;
      return literal("false");
    case 'n':
      v.kind = JsonKind::Null;
      return literal("null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return number(v);
      return fail(std::string("unexpected character '") + c + "'");
    }
  }

  bool number(JsonValue &v) {
    size_t start = pos_;
    if (text_[pos_] == '-')
      ++pos_;
    auto digits = [&] {
      size_t s = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
        ++pos_;
      return pos_ > s;
    };
    if (!digits())
      return fail("malformed number");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!digits())
        return fail("malformed number");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (!digits())
        return fail("malformed number");
    }
    std::string s(text_.substr(start, pos_ - start));
    v.kind = JsonKind::Number;
    v.number = std::strtod(s.c_str(), nullptr);
    return true;
  }

  bool hex4(unsigned &out) {
    if (pos_ + 4 > text_.size())
      return fail("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= unsigned(c - 'A' + 10);
      else
        return fail("bad hex digit in \\u escape");
    }
    return true;
  }

  static void utf8(std::string &s, unsigned cp) {
    if (cp < 0x80) {
      s += char(cp);
    } else if (cp < 0x800) {
      s += char(0xc0 | (cp >> 6));
      s += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      s += char(0xe0 | (cp >> 12));
      s += char(0x80 | ((cp >> 6) & 0x3f));
      s += char(0x80 | (cp & 0x3f));
    } else {
      s += char(0xf0 | (cp >> 18));
      s += char(0x80 | ((cp >> 12) & 0x3f));
      s += char(0x80 | ((cp >> 6) & 0x3f));
      s += char(0x80 | (cp & 0x3f));
    }
  }

  bool string(std::string &s) {
    ++pos_; // opening quote
    while (true) {
      if (pos_ >= text_.size())
        return fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in string");
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos_ >= text_.size())
        return fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
      case '"': s += '"'; break;
      case '\\': s += '\\'; break;
      case '/': s += '/'; break;
      case 'b': s += '\b'; break;
      case 'f': s += '\f'; break;
      case 'n': s += '\n'; break;
      case 'r': s += '\r'; break;
      case 't': s += '\t'; break;
      case 'u': {
        unsigned cp;
        if (!hex4(cp))
          return false;
        if (cp >= 0xd800 && cp < 0xdc00 && text_.substr(pos_, 2) == "\\u") {
          pos_ += 2;
          unsigned lo;
          if (!hex4(lo))
            return false;
          if (lo < 0xdc00 || lo >= 0xe000)
            return fail("unpaired surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        utf8(s, cp);
        break;
      }
      default:
        --pos_;
        return fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  bool array(JsonValue &v, int depth) {
    v.kind = JsonKind::Array;
    ++pos_;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      v.items.emplace_back();
      if (!value(v.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return fail("expected ',' or ']' in array");
    }
  }

  bool object(JsonValue &v, int depth) {
    v.kind = JsonKind::Object;
    ++pos_;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      v.finishObject();
      return true;
    }
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        return fail("expected a string key in object");
      v.members.emplace_back();
      if (!string(v.members.back().first))
        return false;
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        return fail("expected ':' after object key");
      ++pos_;
      skipSpace();
      if (!value(v.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        v.finishObject();
        return true;
      }
      return fail("expected ',' or '}' in object");
    }
  }
};

} // namespace

void JsonValue::finishObject() {
  if (members.size() < 16)
    return;
  index_.resize(members.size());
  for (uint32_t i = 0; i < index_.size(); ++i)
    index_[i] = i;
  // stable: with duplicate keys the first one wins, as in the linear scan
  std::stable_sort(index_.begin(), index_.end(),
                   [&](uint32_t a, uint32_t b) { return members[a].first < members[b].first; });
}

const JsonValue *JsonValue::get(std::string_view key) const {
  if (kind != JsonKind::Object)
    return nullptr;
  if (index_.empty()) {
    for (const auto &m : members)
      if (m.first == key)
        return &m.second;
    return nullptr;
  }
  auto it = std::lower_bound(index_.begin(), index_.end(), key,
                             [&](uint32_t i, std::string_view k) { return members[i].first < k; });
  if (it != index_.end() && members[*it].first == key)
    return &members[*it].second;
  return nullptr;
}

double JsonValue::num(std::string_view key, double dflt) const {
  const JsonValue *v = get(key);
  return v && v->isNumber() ? v->number : dflt;
}

std::string JsonValue::str(std::string_view key, std::string_view dflt) const {
  const JsonValue *v = get(key);
  return v && v->isString() ? v->string : std::string(dflt);
}

const std::vector<JsonValue> &JsonValue::array(std::string_view key) const {
  const JsonValue *v = get(key);
  return v && v->isArray() ? v->items : kEmptyArray;
}

bool parseJson(std::string_view text, JsonValue &out, std::string &error) {
  out = JsonValue{};
  return Parser(text).parse(out, error);
}

void appendJsonString(std::string &out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '<': out += "\\u003c"; break;
    case '>': out += "\\u003e"; break;
    case '&': out += "\\u0026"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

} // namespace ptxsim::report
