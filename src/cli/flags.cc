#include "cli/flags.h"

#include <cstdio>
#include <cstdlib>

namespace weir::cli {

Flags::Flags(std::string usage, std::string description)
    : usage_(std::move(usage)), description_(std::move(description)) {}

void Flags::Value(const std::string& name, const std::string& value_name, const std::string& help,
                  std::optional<std::string> default_value) {
  specs_[name] = Spec{value_name, help, std::move(default_value), false};
  order_.push_back(name);
}

void Flags::Repeated(const std::string& name, const std::string& value_name,
                     const std::string& help) {
  specs_[name] = Spec{value_name, help, std::nullopt, true};
  order_.push_back(name);
}

void Flags::Bool(const std::string& name, const std::string& help) {
  specs_[name] = Spec{"", help, std::nullopt, false};
  order_.push_back(name);
}

void Flags::Positional(const std::string& names, int min, int max) {
  positional_names_ = names;
  min_positional_ = min;
  max_positional_ = max;
}

Status Flags::Parse(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      help_requested_ = true;
      return Status::OK();
    }
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      std::string name = arg.substr(2);
      std::optional<std::string> value;
      if (auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      auto it = specs_.find(name);
      if (it == specs_.end()) {
        std::string valid;
        for (const auto& n : order_) valid += (valid.empty() ? "--" : ", --") + n;
        return Status::InvalidArgument("unknown option --" + name +
                                       (valid.empty() ? "" : "; valid options: " + valid));
      }
      if (it->second.value_name.empty()) {
        if (value) return Status::InvalidArgument("option --" + name + " takes no value");
        values_[name].push_back("true");
        continue;
      }
      if (!value) {
        if (i + 1 >= args.size()) {
          return Status::InvalidArgument("option --" + name + " needs a value (" +
                                         it->second.value_name + ")");
        }
        value = args[++i];
      }
      auto& slot = values_[name];
      if (!it->second.repeated) slot.clear();
      slot.push_back(*value);
      continue;
    }
    positional_.push_back(arg);
  }
  if (static_cast<int>(positional_.size()) < min_positional_) {
    return Status::InvalidArgument("missing argument: " + positional_names_);
  }
  if (max_positional_ >= 0 && static_cast<int>(positional_.size()) > max_positional_) {
    return Status::InvalidArgument("unexpected argument '" + positional_[max_positional_] + "'");
  }
  return Status::OK();
}

std::string Flags::Help() const {
  std::string out = "usage: " + usage_ + "\n";
  if (!description_.empty()) out += "\n" + description_ + "\n";
  if (!order_.empty()) out += "\noptions:\n";
  for (const auto& name : order_) {
    const Spec& spec = specs_.at(name);
    std::string left = "  --" + name + (spec.value_name.empty() ? "" : " " + spec.value_name);
    if (left.size() < 28) left.resize(28, ' ');
    else left += "\n" + std::string(28, ' ');
    out += left + spec.help;
    if (spec.default_value) out += " (default: " + *spec.default_value + ")";
    if (spec.repeated) out += " (repeatable)";
    out += "\n";
  }
  out += "  --help                    show this help\n";
  return out;
}

bool Flags::Has(const std::string& name) const { return values_.count(name) > 0; }

std::string Flags::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end() && !it->second.empty()) return it->second.back();
  auto spec = specs_.find(name);
  if (spec != specs_.end() && spec->second.default_value) return *spec->second.default_value;
  return "";
}

std::vector<std::string> Flags::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

Result<long long> Flags::GetInt(const std::string& name) const {
  std::string text = Get(name);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0) {
    return Status::InvalidArgument("option --" + name + " expects an integer, got '" + text + "'");
  }
  return v;
}

Result<double> Flags::GetDouble(const std::string& name) const {
  std::string text = Get(name);
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    return Status::InvalidArgument("option --" + name + " expects a number, got '" + text + "'");
  }
  return v;
}

int RunWithFlags(Flags& flags, const std::vector<std::string>& args, int (*body)(const Flags&)) {
  Status st = flags.Parse(args);
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return 0;
  }
  if (!st.ok()) {
    std::fprintf(stderr, "weir: %s\n(see --help)\n", st.message().c_str());
    return 2;
  }
  return body(flags);
}

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

int Fail(const Status& status) {
  std::fprintf(stderr, "weir: %s\n", status.ToString().c_str());
  return 2;
}

}  // namespace weir::cli
