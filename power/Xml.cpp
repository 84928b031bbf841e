#include "power/Xml.h"

#include <cctype>

namespace ptxsim::power {

const XmlAttribute *XmlElement::attribute(const std::string &n) const {
  for (auto &a : attributes)
    if (a.name == n)
      return &a;
  return nullptr;
}

namespace {

class Parser {
public:
  Parser(const std::string &file, const std::string &text, DiagEngine &diags)
      : file_(file), s_(text), diags_(diags) {}

  bool parse(XmlElement &root) {
    skipMisc();
    if (!at('<')) {
      error("expected the root element");
      return false;
    }
    if (!element(root))
      return false;
    skipMisc();
    if (pos_ < s_.size()) {
      error("unexpected content after the root element '" + root.name + "'");
      return false;
    }
    return true;
  }

private:
  const std::string &file_;
  const std::string &s_;
  DiagEngine &diags_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;

  SourceLoc loc() const { return {line_, col_}; }
  void error(const std::string &msg) { diags_.error(file_, loc(), msg); }
  void error(SourceLoc l, const std::string &msg) { diags_.error(file_, l, msg); }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  bool startsWith(const char *p) const { return s_.compare(pos_, std::char_traits<char>::length(p), p) == 0; }
  void advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < s_.size(); ++i, ++pos_) {
      if (s_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_]))
      advance();
  }
  bool skipUntil(const char *end) {
    size_t n = std::char_traits<char>::length(end);
    while (pos_ < s_.size() && !startsWith(end))
      advance();
    if (pos_ >= s_.size())
      return false;
    advance(n);
    return true;
  }
  /// Whitespace, comments, processing instructions and text between elements.
  void skipMisc() {
    for (;;) {
      skipSpace();
      if (startsWith("<!--")) {
        SourceLoc l = loc();
        if (!skipUntil("-->")) {
          error(l, "unterminated comment");
          return;
        }
      } else if (startsWith("<?") || startsWith("<!")) {
        SourceLoc l = loc();
        if (!skipUntil(">")) {
          error(l, "unterminated declaration");
          return;
        }
      } else {
        return;
      }
    }
  }
  static bool nameChar(char c) {
    return std::isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':';
  }
  std::string name() {
    size_t b = pos_;
    while (pos_ < s_.size() && nameChar(s_[pos_]))
      advance();
    return s_.substr(b, pos_ - b);
  }
  static std::string unescape(const std::string &v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '&') {
        static const std::pair<const char *, char> ents[] = {
            {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (auto &e : ents) {
          size_t n = std::char_traits<char>::length(e.first);
          if (v.compare(i, n, e.first) == 0) {
            out += e.second;
            i += n - 1;
            done = true;
            break;
          }
        }
        if (done)
          continue;
      }
      out += v[i];
    }
    return out;
  }

  bool element(XmlElement &e) {
    e.loc = loc();
    advance(); // '<'
    e.name = name();
    if (e.name.empty()) {
      error("expected an element name after '<'");
      return false;
    }
    for (;;) {
      skipSpace();
      if (startsWith("/>")) {
        advance(2);
        return true;
      }
      if (at('>')) {
        advance();
        break;
      }
      XmlAttribute a;
      a.loc = loc();
      a.name = name();
      if (a.name.empty()) {
        error("expected an attribute name or '>' in element '" + e.name + "'");
        return false;
      }
      skipSpace();
      if (!at('=')) {
        error("expected '=' after attribute '" + a.name + "' of element '" + e.name + "'");
        return false;
      }
      advance();
      skipSpace();
      if (!at('"') && !at('\'')) {
        error("expected a quoted value for attribute '" + a.name + "' of element '" + e.name + "'");
        return false;
      }
      char q = s_[pos_];
      advance();
      size_t b = pos_;
      while (pos_ < s_.size() && s_[pos_] != q)
        advance();
      if (pos_ >= s_.size()) {
        error(a.loc, "unterminated value of attribute '" + a.name + "'");
        return false;
      }
      a.value = unescape(s_.substr(b, pos_ - b));
      advance();
      if (e.attribute(a.name)) {
        error(a.loc, "duplicate attribute '" + a.name + "' in element '" + e.name + "'");
        return false;
      }
      e.attributes.push_back(std::move(a));
    }
    // content: child elements, comments, text (ignored), then the end tag
    for (;;) {
      while (pos_ < s_.size() && !at('<'))
        advance();
      if (pos_ >= s_.size()) {
        error(e.loc, "element '" + e.name + "' is not closed");
        return false;
      }
      if (startsWith("</")) {
        SourceLoc l = loc();
        advance(2);
        std::string n = name();
        skipSpace();
        if (n != e.name || !at('>')) {
          error(l, "expected '</" + e.name + ">'");
          return false;
        }
        advance();
        return true;
      }
      if (startsWith("<!--") || startsWith("<?") || startsWith("<!")) {
        skipMisc();
        continue;
      }
      auto child = std::make_unique<XmlElement>();
      if (!element(*child))
        return false;
      e.children.push_back(std::move(child));
    }
  }
};

} // namespace

bool parseXml(const std::string &file, const std::string &text, XmlElement &root,
              DiagEngine &diags) {
  size_t before = diags.errorCount();
  Parser p(file, text, diags);
  return p.parse(root) && diags.errorCount() == before;
}

} // namespace ptxsim::power
