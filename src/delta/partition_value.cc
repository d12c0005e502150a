#include "delta/partition_value.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <strings.h>

#include "columnar/text_format.h"

namespace weir::delta {

using columnar::Column;
using columnar::Int128;
using columnar::TypeId;

namespace {

// Shortest round-trip digits and decimal exponent of a finite, non-zero value:
// value = 0.d1d2...dn * 10^(exponent + 1), i.e. d1.d2...dn * 10^exponent.
template <typename T>
void ShortestDigits(T v, std::string* digits, int* exponent) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view s(buf, res.ptr - buf);
  size_t e = s.find('e');
  std::string_view mantissa = s.substr(0, e);
  digits->clear();
  for (char c : mantissa) {
    if (c >= '0' && c <= '9') digits->push_back(c);
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  std::string_view exp = s.substr(e + 1);
  if (!exp.empty() && exp[0] == '+') exp.remove_prefix(1);
  int x = 0;
  std::from_chars(exp.data(), exp.data() + exp.size(), x);
  *exponent = x;
}

template <typename T>
std::string FormatJava(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  std::string out = std::signbit(v) ? "-" : "";
  T a = std::fabs(v);
  std::string digits;
  int e = 0;
  ShortestDigits(a, &digits, &e);
  if (a >= T(1e-3) && a < T(1e7)) {
    if (e >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), e + 1));
      while (static_cast<int>(int_part.size()) < e + 1) int_part.push_back('0');
      std::string frac = digits.size() > static_cast<size_t>(e + 1) ? digits.substr(e + 1) : "0";
      out += int_part + "." + frac;
    } else {
      out += "0." + std::string(-e - 1, '0') + digits;
    }
  } else {
    out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
           std::to_string(e);
  }
  return out;
}

template <typename T>
std::optional<T> ParseFloating(std::string_view s) {
  if (s == "NaN") return std::numeric_limits<T>::quiet_NaN();
  if (s == "Infinity" || s == "+Infinity" || s == "inf") return std::numeric_limits<T>::infinity();
  if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<T>::infinity();
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  T v;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

template <typename T>
std::optional<T> ParseInteger(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  T v;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && ptr == s.data() + s.size()) return v;
  // Some writers store integral partition values as "2021.0".
  auto d = ParseFloating<double>(s);
  if (d && std::isfinite(*d) && *d == std::trunc(*d) &&
      *d >= static_cast<double>(std::numeric_limits<T>::min()) &&
      *d <= static_cast<double>(std::numeric_limits<T>::max())) {
    return static_cast<T>(*d);
  }
  return std::nullopt;
}

}  // namespace

std::string FormatJavaDouble(double v) { return FormatJava(v); }
std::string FormatJavaFloat(float v) { return FormatJava(v); }

bool IsPartitionableType(const columnar::DataType& type) { return !type.is_nested(); }

Result<std::optional<std::string>> SerializePartitionValue(const Column& c, int64_t row) {
  if (c.IsNull(row)) return std::optional<std::string>();
  switch (c.type_id()) {
    case TypeId::kBoolean: return std::optional<std::string>(c.Value<uint8_t>(row) ? "true" : "false");
    case TypeId::kInt8: return std::optional<std::string>(std::to_string(c.Value<int8_t>(row)));
    case TypeId::kInt16: return std::optional<std::string>(std::to_string(c.Value<int16_t>(row)));
    case TypeId::kInt32: return std::optional<std::string>(std::to_string(c.Value<int32_t>(row)));
    case TypeId::kInt64: return std::optional<std::string>(std::to_string(c.Value<int64_t>(row)));
    case TypeId::kFloat: return std::optional<std::string>(FormatJavaFloat(c.Value<float>(row)));
    case TypeId::kDouble: return std::optional<std::string>(FormatJavaDouble(c.Value<double>(row)));
    case TypeId::kDecimal:
      return std::optional<std::string>(columnar::FormatDecimal(c.Value<Int128>(row), c.type()->scale()));
    case TypeId::kDate: return std::optional<std::string>(columnar::FormatDate(c.Value<int32_t>(row)));
    case TypeId::kTimestamp:
      return std::optional<std::string>(columnar::FormatTimestampMicros(c.Value<int64_t>(row)));
    case TypeId::kTimestampNtz:
      return std::optional<std::string>(columnar::FormatTimestampForPartition(c.Value<int64_t>(row)));
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view s = c.StringAt(row);
      if (s.empty()) return std::optional<std::string>();
      if (!columnar::IsValidUtf8(s)) {
        return Status::InvalidArgument(
            "a partition value must be valid UTF-8 to be stored in the Delta log; got " +
            std::to_string(s.size()) + " bytes that are not");
      }
      return std::optional<std::string>(std::string(s));
    }
    default:
      return Status::InvalidArgument("a partition column cannot have the type " + c.type()->ToDdl());
  }
}

Status AppendPartitionValue(const std::optional<std::string>& text, std::string_view column_name,
                            Column* out, int64_t zoneless_utc_offset_seconds) {
  if (!text || text->empty()) {
    out->AppendNull();
    return Status::OK();
  }
  const std::string& s = *text;
  auto bad = [&] {
    return Status::InvalidArgument("partition value '" + s + "' of column '" +
                                   std::string(column_name) + "' is not a valid " +
                                   out->type()->ToDdl());
  };
  switch (out->type_id()) {
    case TypeId::kBoolean: {
      if (strcasecmp(s.c_str(), "true") == 0) {
        out->Append<uint8_t>(1);
      } else if (strcasecmp(s.c_str(), "false") == 0) {
        out->Append<uint8_t>(0);
      } else {
        return bad();
      }
      return Status::OK();
    }
    case TypeId::kInt8: {
      auto v = ParseInteger<int8_t>(s);
      if (!v) return bad();
      out->Append<int8_t>(*v);
      return Status::OK();
    }
    case TypeId::kInt16: {
      auto v = ParseInteger<int16_t>(s);
      if (!v) return bad();
      out->Append<int16_t>(*v);
      return Status::OK();
    }
    case TypeId::kInt32: {
      auto v = ParseInteger<int32_t>(s);
      if (!v) return bad();
      out->Append<int32_t>(*v);
      return Status::OK();
    }
    case TypeId::kInt64: {
      auto v = ParseInteger<int64_t>(s);
      if (!v) return bad();
      out->Append<int64_t>(*v);
      return Status::OK();
    }
    case TypeId::kFloat: {
      auto v = ParseFloating<float>(s);
      if (!v) return bad();
      out->Append<float>(*v);
      return Status::OK();
    }
    case TypeId::kDouble: {
      auto v = ParseFloating<double>(s);
      if (!v) return bad();
      out->Append<double>(*v);
      return Status::OK();
    }
    case TypeId::kDecimal: {
      auto v = columnar::ParseDecimal(s, out->type()->precision(), out->type()->scale());
      if (!v) return bad();
      out->Append<Int128>(*v);
      return Status::OK();
    }
    case TypeId::kDate: {
      auto v = columnar::ParseDate(s);
      if (!v) return bad();
      out->Append<int32_t>(*v);
      return Status::OK();
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      // Timestamps without a zone were written in the writer's time zone, which the log does not
      // record: the caller says which offset to assume.
      auto v = columnar::ParseTimestamp(s);
      if (!v) return bad();
      int64_t micros = *v;
      if (out->type_id() == TypeId::kTimestamp && s.size() > 10 &&
          s.find_first_of("Z+-", 10) == std::string::npos && s.find(" UTC") == std::string::npos) {
        micros -= zoneless_utc_offset_seconds * 1000000;
      }
      out->Append<int64_t>(micros);
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
      out->AppendString(s);
      return Status::OK();
    default:
      return Status::InvalidArgument("partition column '" + std::string(column_name) +
                                     "' has the non-partitionable type " + out->type()->ToDdl());
  }
}

std::string EscapePartitionPathComponent(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool escape = c < 0x20 || c == 0x7f || c == '"' || c == '#' || c == '%' || c == '\'' ||
                  c == '*' || c == '/' || c == ':' || c == '=' || c == '?' || c == '\\' ||
                  c == '{' || c == '[' || c == ']' || c == '^';
    if (escape) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace weir::delta
