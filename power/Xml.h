#pragma once
// A small XML reader for the power configuration files: elements, attributes, comments, the
// `<?xml ...?>` prolog. Enough for configuration files; no namespaces, DTDs or entities beyond
// the five predefined ones. Text content is ignored.
//
// Contract: parseXml() returns the root element with the 1-based line and column of every
// element and attribute, so configuration errors can name `file:line:col` and the element.
// Malformed input is reported through `diags` and parseXml() returns false.

#include "base/Diagnostics.h"

#include <memory>
#include <string>
#include <vector>

namespace ptxsim::power {

struct XmlAttribute {
  std::string name, value;
  SourceLoc loc;
};

struct XmlElement {
  std::string name;
  SourceLoc loc;
  std::vector<XmlAttribute> attributes;
  std::vector<std::unique_ptr<XmlElement>> children;

  /// The attribute named `name`, or nullptr.
  const XmlAttribute *attribute(const std::string &name) const;
};

/// Parses `text` (from `file`, used in diagnostics) into `root`.
bool parseXml(const std::string &file, const std::string &text, XmlElement &root,
              DiagEngine &diags);

} // namespace ptxsim::power
