// Task configuration: the options a task accepts, and the values a pool was made with.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace envpool_core {

// bool, int, float, string, or a list of ints (per-env seeds).
using ConfigValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>>;

enum class OptionType { kBool, kInt, kFloat, kString, kSeed };

// One keyword argument a task accepts: its type, default and allowed range.
struct OptionDef {
  OptionDef(std::string option_name, OptionType option_type, ConfigValue value, std::string text)
      : name(std::move(option_name)),
        type(option_type),
        default_value(std::move(value)),
        doc(std::move(text)) {}

  std::string name;
  OptionType type;
  ConfigValue default_value;
  std::string doc;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // for strings: allowed values (empty = any)

  static OptionDef Bool(std::string name, bool value, std::string doc);
  static OptionDef Int(std::string name, std::int64_t value, std::string doc,
                       double min = -std::numeric_limits<double>::infinity(),
                       double max = std::numeric_limits<double>::infinity());
  static OptionDef Float(std::string name, double value, std::string doc,
                         double min = -std::numeric_limits<double>::infinity(),
                         double max = std::numeric_limits<double>::infinity());
  static OptionDef String(std::string name, std::string value, std::string doc,
                          std::vector<std::string> choices = {});
};

// Resolved values by name. Getters throw std::invalid_argument naming the key.
class Config {
 public:
  void Set(const std::string& key, ConfigValue value) { values_[key] = std::move(value); }
  bool Has(const std::string& key) const { return values_.count(key) != 0; }
  const ConfigValue& Get(const std::string& key) const;

  bool GetBool(const std::string& key) const;
  std::int64_t GetInt(const std::string& key) const;
  double GetFloat(const std::string& key) const;  // ints are widened
  const std::string& GetString(const std::string& key) const;
  const std::vector<std::int64_t>& GetIntList(const std::string& key) const;

  const std::map<std::string, ConfigValue>& values() const { return values_; }

 private:
  std::map<std::string, ConfigValue> values_;
};

// Checks `value` against `def` and converts it to the option's type (int -> float,
// int -> seed list of one). Throws std::invalid_argument with a message that
// names the option and what is allowed.
ConfigValue ValidateOption(const OptionDef& def, const ConfigValue& value);

}  // namespace envpool_core
