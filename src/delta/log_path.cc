#include "delta/log_path.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "fs/file_system.h"

namespace weir::delta {

namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Parses a zero-padded decimal of exactly `width` digits.
std::optional<int64_t> ParsePadded(std::string_view s, size_t width) {
  if (s.size() != width || !AllDigits(s)) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (v > (INT64_MAX - 9) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    char c = s[i];
    if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Padded(int64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(v));
  return buf;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<ParsedLogName> ParseLogFileName(std::string_view name) {
  if (name.size() < 21 || name[20] != '.') return std::nullopt;
  auto version = ParsePadded(name.substr(0, 20), 20);
  if (!version) return std::nullopt;
  std::string_view rest = name.substr(21);
  ParsedLogName out;
  out.version = *version;
  if (rest == "json") {
    out.type = LogFileType::kCommit;
    return out;
  }
  if (rest == "crc") {
    out.type = LogFileType::kChecksum;
    return out;
  }
  if (rest == "checkpoint.parquet") {
    out.type = LogFileType::kClassicCheckpoint;
    return out;
  }
  constexpr std::string_view kCheckpoint = "checkpoint.";
  if (rest.substr(0, kCheckpoint.size()) == kCheckpoint) {
    std::string_view tail = rest.substr(kCheckpoint.size());
    // Multi-part: 0000000001.0000000003.parquet
    if (tail.size() == 10 + 1 + 10 + 8 && tail[10] == '.' && tail.substr(21) == ".parquet") {
      auto part = ParsePadded(tail.substr(0, 10), 10);
      auto parts = ParsePadded(tail.substr(11, 10), 10);
      if (!part || !parts || *part < 1 || *part > *parts || *parts > INT32_MAX) return std::nullopt;
      out.type = LogFileType::kMultiPartCheckpoint;
      out.part = static_cast<int32_t>(*part);
      out.num_parts = static_cast<int32_t>(*parts);
      return out;
    }
    // UUID-named: <uuid>.json / <uuid>.parquet
    size_t dot = tail.find('.');
    if (dot != std::string_view::npos && IsUuid(tail.substr(0, dot))) {
      std::string_view ext = tail.substr(dot + 1);
      if (ext == "json" || ext == "parquet") {
        out.type = LogFileType::kUuidCheckpoint;
        out.is_json = ext == "json";
        return out;
      }
    }
    return std::nullopt;
  }
  // Compaction: <start>.<end>.compacted.json
  if (rest.size() == 20 + 15 && rest.substr(20) == ".compacted.json") {
    auto end = ParsePadded(rest.substr(0, 20), 20);
    if (!end) return std::nullopt;
    out.type = LogFileType::kCompaction;
    out.end_version = *end;
    return out;
  }
  return std::nullopt;
}

std::string CommitFileName(int64_t version) { return Padded(version, 20) + ".json"; }

std::string ClassicCheckpointFileName(int64_t version) {
  return Padded(version, 20) + ".checkpoint.parquet";
}

std::string MultiPartCheckpointFileName(int64_t version, int32_t part, int32_t num_parts) {
  return Padded(version, 20) + ".checkpoint." + Padded(part, 10) + "." + Padded(num_parts, 10) +
         ".parquet";
}

std::string LogDirPath(std::string_view table_root) { return fs::JoinPath(table_root, kLogDirName); }

Result<LastCheckpointHint> ParseLastCheckpoint(std::string_view json, std::string_view source) {
  auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Corruption("_last_checkpoint is not a JSON object: " + std::string(source));
  }
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || version->get<int64_t>() < 0) {
    return Status::Corruption("_last_checkpoint has no valid \"version\": " + std::string(source));
  }
  LastCheckpointHint hint;
  hint.version = version->get<int64_t>();
  auto int_field = [&](const char* name) -> std::optional<int64_t> {
    auto it = j.find(name);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int64_t>();
  };
  hint.size = int_field("size").value_or(0);
  if (auto parts = int_field("parts"); parts && *parts > 0 && *parts <= INT32_MAX) {
    hint.parts = static_cast<int32_t>(*parts);
  }
  hint.size_in_bytes = int_field("sizeInBytes");
  if (!hint.size_in_bytes) hint.size_in_bytes = int_field("size_in_bytes");
  hint.num_of_add_files = int_field("numOfAddFiles");
  return hint;
}

std::string SerializeLastCheckpoint(const LastCheckpointHint& hint) {
  nlohmann::ordered_json j;
  j["version"] = hint.version;
  j["size"] = hint.size;
  if (hint.parts) j["parts"] = *hint.parts;
  if (hint.size_in_bytes) j["sizeInBytes"] = *hint.size_in_bytes;
  if (hint.num_of_add_files) j["numOfAddFiles"] = *hint.num_of_add_files;
  return j.dump();
}

std::string EncodePathUri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool escape = c < 0x20 || c == 0x7f || c == '%' || c == ' ' || c == '"' || c == '#' ||
                  c == '<' || c == '>' || c == '?' || c == '[' || c == '\\' || c == ']' ||
                  c == '^' || c == '`' || c == '{' || c == '|' || c == '}';
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

std::string DecodePathUri(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size()) {
      int hi = HexValue(uri[i + 1]), lo = HexValue(uri[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += uri[i];
  }
  return out;
}

Result<std::string> ResolveDataFilePath(std::string_view table_root, std::string_view uri_path) {
  // A scheme is letters/digits/+-. before the first ':' that comes before any '/'.
  size_t colon = uri_path.find(':');
  size_t slash = uri_path.find('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon < slash) &&
      colon > 0) {
    std::string_view scheme = uri_path.substr(0, colon);
    bool valid_scheme = std::isalpha(static_cast<unsigned char>(scheme[0]));
    for (char c : scheme) {
      valid_scheme = valid_scheme && (std::isalnum(static_cast<unsigned char>(c)) || c == '+' ||
                                      c == '-' || c == '.');
    }
    if (valid_scheme) {
      if (scheme != "file") {
        return Status::InvalidArgument("data file path '" + std::string(uri_path) +
                                       "' uses the scheme '" + std::string(scheme) +
                                       "', which weir cannot read from a local table");
      }
      std::string_view rest = uri_path.substr(colon + 1);
      // file:///abs/path, file:/abs/path or file://localhost/abs/path
      if (rest.substr(0, 2) == "//") {
        rest.remove_prefix(2);
        size_t next = rest.find('/');
        if (next == std::string_view::npos) {
          return Status::InvalidArgument("data file URI without a path: " + std::string(uri_path));
        }
        rest.remove_prefix(next);
      }
      return DecodePathUri(rest);
    }
  }
  std::string decoded = DecodePathUri(uri_path);
  if (!decoded.empty() && decoded[0] == '/') return decoded;
  return fs::JoinPath(table_root, decoded);
}

}  // namespace weir::delta
