// A small command-line flag parser: `--name value`, `--name=value`, boolean `--name`, repeated
// flags, and positional arguments. Each command declares its flags with help text so `--help`
// is generated and unknown flags are errors naming the valid ones. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace weir::cli {

class Flags {
 public:
  // usage: "weir parquet cat FILE [options]"; description: a paragraph shown by --help.
  Flags(std::string usage, std::string description);

  // A flag that takes a value. `value_name` is shown in help ("N", "FILE").
  void Value(const std::string& name, const std::string& value_name, const std::string& help,
             std::optional<std::string> default_value = std::nullopt);
  // A flag that may be given several times (e.g. --topic a:1 --topic b:2).
  void Repeated(const std::string& name, const std::string& value_name, const std::string& help);
  // A flag without a value.
  void Bool(const std::string& name, const std::string& help);
  // Positional arguments: names shown in help; `min`/`max` counts (max -1 = unbounded).
  void Positional(const std::string& names, int min, int max);

  // Parses; InvalidArgument with a one-line reason on bad usage. Sets help_requested() on --help.
  Status Parse(const std::vector<std::string>& args);
  bool help_requested() const { return help_requested_; }
  std::string Help() const;

  bool Has(const std::string& name) const;
  std::string Get(const std::string& name) const;  // value or default, "" when neither
  std::vector<std::string> GetAll(const std::string& name) const;
  Result<long long> GetInt(const std::string& name) const;
  Result<double> GetDouble(const std::string& name) const;
  bool GetBool(const std::string& name) const { return Has(name); }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  struct Spec {
    std::string value_name;  // empty for Bool
    std::string help;
    std::optional<std::string> default_value;
    bool repeated = false;
  };
  std::string usage_;
  std::string description_;
  std::map<std::string, Spec> specs_;
  std::vector<std::string> order_;
  std::string positional_names_;
  int min_positional_ = 0;
  int max_positional_ = 0;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
  bool help_requested_ = false;
};

// Runs `body` after parsing; prints help (exit 0) or a usage error (exit 2). Shared by commands so
// each handles --help and errors the same way.
int RunWithFlags(Flags& flags, const std::vector<std::string>& args, int (*body)(const Flags&));

// "a, b,,c" -> {"a", "b", "c"}: a comma-separated flag value, items trimmed of spaces, empty ones
// dropped.
std::vector<std::string> SplitList(const std::string& list);

// Prints "weir: <status>" to stderr and returns 2. For failed operations.
int Fail(const Status& status);

}  // namespace weir::cli
