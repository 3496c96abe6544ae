// Small text edits of the suite's XML files, for the models dm_control builds
// by editing them with lxml (more cartpole poles, swimmer links): the result is
// a different text but the same model.
#pragma once

#include <string>

namespace envpool_core::dm_control {

// `x` in a form MuJoCo's parser reads back as the same double.
std::string XmlNumber(double x);

// Inserts `text` right after the first occurrence of `anchor` (or before it:
// InsertBefore); throws std::invalid_argument naming `what` when `xml` has no
// `anchor` (a dm_control whose models this code does not know).
void InsertAfter(std::string* xml, const std::string& anchor, const std::string& text,
                 const char* what);
void InsertBefore(std::string* xml, const std::string& anchor, const std::string& text,
                  const char* what);

// Replaces the value of attribute `name` in the first element that starts with
// `element_start` (e.g. `<camera name="tracking1"`).
void SetAttribute(std::string* xml, const std::string& element_start, const std::string& name,
                  const std::string& value, const char* what);

// Removes the element that starts with `element_start` (a `<body ...` with
// everything inside it, as lxml's remove does).
void RemoveBody(std::string* xml, const std::string& element_start, const char* what);

// Removes the empty element (`<geom .../>`) that starts with `element_start`.
void RemoveEmptyElement(std::string* xml, const std::string& element_start, const char* what);

// The value of attribute `name` of that element.
std::string GetAttribute(const std::string& xml, const std::string& element_start,
                         const std::string& name, const char* what);

}  // namespace envpool_core::dm_control
