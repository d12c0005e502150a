#include "base/text.h"

#include <charconv>

namespace weir {

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

namespace {

template <typename T>
Result<T> ParseInteger(std::string_view text, std::string_view what) {
  T value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || ptr != end) {
    std::string why = error == std::errc::result_out_of_range ? " is out of range"
                                                              : " is not an integer";
    return Status::InvalidArgument(std::string(what) + " '" + std::string(text) + "'" + why);
  }
  return value;
}

}  // namespace

Result<int64_t> ParseInt64(std::string_view text, std::string_view what) {
  return ParseInteger<int64_t>(text, what);
}

Result<int32_t> ParseInt32(std::string_view text, std::string_view what) {
  return ParseInteger<int32_t>(text, what);
}

}  // namespace weir
