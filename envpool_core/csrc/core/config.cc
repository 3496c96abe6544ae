#include "core/config.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace envpool_core {

OptionDef OptionDef::Bool(std::string name, bool value, std::string doc) {
  return OptionDef{std::move(name), OptionType::kBool, value, std::move(doc)};
}

OptionDef OptionDef::Int(std::string name, std::int64_t value, std::string doc, double min,
                         double max) {
  OptionDef d{std::move(name), OptionType::kInt, value, std::move(doc)};
  d.min = min;
  d.max = max;
  return d;
}

OptionDef OptionDef::Float(std::string name, double value, std::string doc, double min,
                           double max) {
  OptionDef d{std::move(name), OptionType::kFloat, value, std::move(doc)};
  d.min = min;
  d.max = max;
  return d;
}

OptionDef OptionDef::String(std::string name, std::string value, std::string doc,
                            std::vector<std::string> choices) {
  OptionDef d{std::move(name), OptionType::kString, std::move(value), std::move(doc)};
  d.choices = std::move(choices);
  return d;
}

const ConfigValue& Config::Get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::invalid_argument("config has no option '" + key + "'");
  return it->second;
}

namespace {
template <typename T>
const T& GetAs(const Config& c, const std::string& key, const char* type_name) {
  const ConfigValue& v = c.Get(key);
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw std::invalid_argument("config option '" + key + "' is not a " + type_name);
}

std::string FormatBound(double x) {
  std::ostringstream os;
  if (std::floor(x) == x && std::fabs(x) < 1e15) {
    os << static_cast<std::int64_t>(x);
  } else {
    os << x;
  }
  return os.str();
}

std::string RangeText(const OptionDef& def) {
  bool has_min = std::isfinite(def.min), has_max = std::isfinite(def.max);
  if (has_min && has_max) return " in [" + FormatBound(def.min) + ", " + FormatBound(def.max) + "]";
  if (has_min) return " >= " + FormatBound(def.min);
  if (has_max) return " <= " + FormatBound(def.max);
  return "";
}

void CheckRange(const OptionDef& def, double x) {
  if (std::isnan(x) || x < def.min || x > def.max) {
    std::ostringstream os;
    os << "invalid value " << FormatBound(x) << " for '" << def.name << "': expected a value" << RangeText(def);
    throw std::invalid_argument(os.str());
  }
}

[[noreturn]] void WrongType(const OptionDef& def, const char* expected) {
  throw std::invalid_argument("invalid type for '" + def.name + "': expected " + expected);
}
}  // namespace

bool Config::GetBool(const std::string& key) const { return GetAs<bool>(*this, key, "bool"); }
std::int64_t Config::GetInt(const std::string& key) const {
  return GetAs<std::int64_t>(*this, key, "int");
}
double Config::GetFloat(const std::string& key) const {
  const ConfigValue& v = Get(key);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return GetAs<double>(*this, key, "float");
}
const std::string& Config::GetString(const std::string& key) const {
  return GetAs<std::string>(*this, key, "string");
}
const std::vector<std::int64_t>& Config::GetIntList(const std::string& key) const {
  return GetAs<std::vector<std::int64_t>>(*this, key, "list of int");
}

ConfigValue ValidateOption(const OptionDef& def, const ConfigValue& value) {
  switch (def.type) {
    case OptionType::kBool:
      if (!std::holds_alternative<bool>(value)) WrongType(def, "a bool");
      return value;
    case OptionType::kInt: {
      const auto* i = std::get_if<std::int64_t>(&value);
      if (i == nullptr) WrongType(def, ("an int" + RangeText(def)).c_str());
      CheckRange(def, static_cast<double>(*i));
      return value;
    }
    case OptionType::kFloat: {
      double x;
      if (const auto* i = std::get_if<std::int64_t>(&value)) {
        x = static_cast<double>(*i);
      } else if (const auto* d = std::get_if<double>(&value)) {
        x = *d;
      } else {
        WrongType(def, ("a float" + RangeText(def)).c_str());
      }
      CheckRange(def, x);
      return x;
    }
    case OptionType::kString: {
      const auto* s = std::get_if<std::string>(&value);
      if (s == nullptr) WrongType(def, "a string");
      if (!def.choices.empty()) {
        for (const auto& c : def.choices) {
          if (c == *s) return value;
        }
        std::string allowed;
        for (const auto& c : def.choices) allowed += (allowed.empty() ? "'" : ", '") + c + "'";
        throw std::invalid_argument("invalid value '" + *s + "' for '" + def.name +
                                    "': expected one of " + allowed);
      }
      return value;
    }
    case OptionType::kSeed: {
      std::vector<std::int64_t> seeds;
      if (const auto* i = std::get_if<std::int64_t>(&value)) {
        seeds.push_back(*i);
      } else if (const auto* list = std::get_if<std::vector<std::int64_t>>(&value)) {
        seeds = *list;
      } else {
        WrongType(def, ("an int or a sequence of num_envs ints" + RangeText(def)).c_str());
      }
      // The envs take the low 32 bits of a seed, so a larger one would silently play
      // another seed's episodes; refused, as EnvPool refuses seeds outside int32.
      for (std::int64_t seed : seeds) CheckRange(def, static_cast<double>(seed));
      return seeds;
    }
  }
  return value;
}

}  // namespace envpool_core
