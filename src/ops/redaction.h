// Keeps secrets out of what the operations endpoint serves: JSON keys that name a credential
// (password, secret, sasl.jaas.config, connection strings, tokens, access keys) have their values
// replaced, and string values that look like a connection string or JAAS login are masked.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace weir::ops {

inline constexpr std::string_view kRedacted = "*****(redacted)";

// True for option names that hold a credential ("kafka.sasl.jaas.config", "password", ...).
bool IsSecretKey(std::string_view key);
// True for values that embed one ("Endpoint=sb://...;SharedAccessKey=...", "... password=\"x\"").
bool LooksLikeSecretValue(std::string_view value);
// `json` with every secret key's value and every secret-looking string replaced by kRedacted.
// Text that is not JSON is returned redacted as a whole when it looks like a secret.
std::string RedactJson(std::string_view json);

}  // namespace weir::ops
