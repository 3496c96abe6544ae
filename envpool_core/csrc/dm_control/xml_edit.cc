#include "dm_control/xml_edit.h"

#include <cstdio>
#include <stdexcept>

namespace envpool_core::dm_control {

namespace {

std::size_t Find(const std::string& xml, const std::string& anchor, const char* what) {
  std::size_t at = xml.find(anchor);
  if (at == std::string::npos) {
    throw std::invalid_argument(std::string(what) + ": the installed dm_control's model has no '" +
                                anchor + "' (a dm_control this envpool_core does not know)");
  }
  return at;
}

// [begin, end) of attribute `name`'s value in the element at `element`.
std::pair<std::size_t, std::size_t> AttributeValue(const std::string& xml, std::size_t element,
                                                   const std::string& name, const char* what) {
  std::size_t tag_end = xml.find('>', element);
  std::size_t at = xml.find(" " + name + "=\"", element);
  if (at == std::string::npos || at > tag_end) {
    throw std::invalid_argument(std::string(what) + ": no attribute " + name + " where expected");
  }
  std::size_t begin = at + name.size() + 3;
  return {begin, xml.find('"', begin)};
}

}  // namespace

std::string XmlNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", x);
  return buffer;
}

void InsertAfter(std::string* xml, const std::string& anchor, const std::string& text,
                 const char* what) {
  xml->insert(Find(*xml, anchor, what) + anchor.size(), text);
}

void InsertBefore(std::string* xml, const std::string& anchor, const std::string& text,
                  const char* what) {
  xml->insert(Find(*xml, anchor, what), text);
}

void SetAttribute(std::string* xml, const std::string& element_start, const std::string& name,
                  const std::string& value, const char* what) {
  auto [begin, end] = AttributeValue(*xml, Find(*xml, element_start, what), name, what);
  xml->replace(begin, end - begin, value);
}

void RemoveBody(std::string* xml, const std::string& element_start, const char* what) {
  std::size_t begin = Find(*xml, element_start, what);
  // Walk the tags from there: <body ...> opens, </body> closes, <body .../> neither.
  int depth = 0;
  std::size_t at = begin;
  while (true) {
    std::size_t open = xml->find("<body", at);
    std::size_t close = xml->find("</body>", at);
    if (close == std::string::npos) {
      throw std::invalid_argument(std::string(what) + ": unbalanced <body> in the model");
    }
    if (open != std::string::npos && open < close) {
      std::size_t tag_end = xml->find('>', open);
      if ((*xml)[tag_end - 1] != '/') ++depth;
      at = tag_end + 1;
      continue;
    }
    at = close + 7;
    if (--depth == 0) break;
  }
  xml->erase(begin, at - begin);
}

void RemoveEmptyElement(std::string* xml, const std::string& element_start, const char* what) {
  std::size_t begin = Find(*xml, element_start, what);
  std::size_t end = xml->find("/>", begin);
  if (end == std::string::npos || xml->find('>', begin) != end + 1) {
    throw std::invalid_argument(std::string(what) + ": '" + element_start + "' is not empty");
  }
  xml->erase(begin, end + 2 - begin);
}

std::string GetAttribute(const std::string& xml, const std::string& element_start,
                         const std::string& name, const char* what) {
  auto [begin, end] = AttributeValue(xml, Find(xml, element_start, what), name, what);
  return xml.substr(begin, end - begin);
}

}  // namespace envpool_core::dm_control
