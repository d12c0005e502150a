#include "ops/redaction.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace weir::ops {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void RedactValue(nlohmann::ordered_json& j) {
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (IsSecretKey(key) && !value.is_null()) {
        value = std::string(kRedacted);
      } else {
        RedactValue(value);
      }
    }
  } else if (j.is_array()) {
    for (auto& v : j) RedactValue(v);
  } else if (j.is_string() && LooksLikeSecretValue(j.get_ref<const std::string&>())) {
    j = std::string(kRedacted);
  }
}

}  // namespace

bool IsSecretKey(std::string_view key) {
  const std::string k = Lower(key);
  for (const char* word : {"password", "passwd", "secret", "jaas", "connectionstring",
                           "connection.string", "sharedaccesskey", "token", "credential", "apikey",
                           "api.key", "sasl.oauthbearer.client", "ssl.key"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

bool LooksLikeSecretValue(std::string_view value) {
  const std::string v = Lower(value);
  for (const char* marker : {"sharedaccesskey=", "sharedaccesssignature",
                             "password=", "accountkey=", "loginmodule", "client_secret="}) {
    if (v.find(marker) != std::string::npos) return true;
  }
  return false;
}

std::string RedactJson(std::string_view json) {
  auto j = nlohmann::ordered_json::parse(json, nullptr, false);
  if (j.is_discarded()) {
    return LooksLikeSecretValue(json) ? std::string(kRedacted) : std::string(json);
  }
  RedactValue(j);
  return j.dump();
}

}  // namespace weir::ops
