#include "delta/streaming_source.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "delta/log_path.h"
#include "delta/log_replay.h"
#include "delta/log_segment.h"
#include "delta/table_features.h"

// Semantics follow delta-io/delta spark/src/main/scala/org/apache/spark/sql/delta/:
// sources/DeltaSource.scala (getFileChanges, getStartingOffset, getNextOffsetFromPreviousOffset,
// buildOffsetFromIndexedFile, validateCommitAndDecideSkipping, extractStartingState,
// AdmissionLimits, getStartingVersion, getStartingVersionFromTimestamp,
// checkReadIncompatibleSchemaChanges), sources/DeltaSourceOffset.scala (JSON form, sentinels),
// files/DeltaSourceSnapshot.scala (initial snapshot order), DeltaOptions.scala (option parsing),
// DeltaLog.getChangeLogFiles (failOnDataLoss) and resources/error/delta-error-classes.json (the
// messages, whose lines are joined here with a space so that a message stays on one line).

namespace weir::delta {

using Json = nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Offset JSON (DeltaSourceOffset.scala)

constexpr int64_t kSourceVersion1 = 1;
constexpr int64_t kSourceVersion2 = 2;  // reserved: refused
constexpr int64_t kSourceVersion3 = 3;  // adds the schema-tracking indexes
constexpr int64_t kCurrentSourceVersion = kSourceVersion3;
constexpr int64_t kBaseIndexV1 = -1;

int64_t SteadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status InvalidOffsetFormat(std::string_view json) {
  return Status::Corruption(
      "[DELTA_INVALID_SOURCE_OFFSET_FORMAT] The stored source offset format is invalid: " +
      std::string(json));
}

// Jackson's coercions for a long field: integral numbers, floats (truncated), numeric strings;
// null is the default 0. nullopt: not a long (InvalidFormatException in Jackson).
std::optional<int64_t> JsonLong(const Json& v) {
  if (v.is_null()) return 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return std::nullopt;
    }
    return v.get<int64_t>();
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!(d > -9.2e18 && d < 9.2e18)) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.empty()) return 0;
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return std::nullopt;
    int64_t value = 0;
    for (; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
      int digit = s[i] - '0';
      if (value > (INT64_MAX - digit) / 10) return std::nullopt;
      value = value * 10 + digit;
    }
    return s[0] == '-' ? -value : value;
  }
  return std::nullopt;
}

std::optional<bool> JsonBool(const Json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>() != 0;
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "true") return true;
    if (s == "false" || s.empty()) return false;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Messages (delta-error-classes.json)

std::string DifferentTableMessage(std::string_view new_id, std::string_view old_id) {
  return "[DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE] The streaming query was reading from "
         "an unexpected Delta table (id = '" +
         std::string(new_id) + "'). It used to read from another Delta table (id = '" +
         std::string(old_id) +
         "') according to checkpoint. This may happen when you changed the code to read from a "
         "new table or you deleted and re-created a table. Please revert your change or delete "
         "your streaming query checkpoint to restart from scratch.";
}

Status MissingFilesError(int64_t expected, int64_t earliest) {
  return Status::DataLoss(
      "[DELTA_MISSING_FILES_UNEXPECTED_VERSION] The stream from your Delta table was expecting "
      "process data from version " +
      std::to_string(expected) +
      ", but the earliest available version in the _delta_log directory is " +
      std::to_string(earliest) +
      ". The files in the transaction log may have been deleted due to log cleanup. In order to "
      "avoid losing data, we recommend that you restart your stream with a new checkpoint "
      "location and to increase your delta.logRetentionDuration setting, if you have explicitly "
      "set it below 30 days. If you would like to ignore the missed data and continue your "
      "stream from where it left off, you can set the .option(\"failOnDataLoss\", \"false\") as "
      "part of your readStream statement.");
}

Status LogFileNotFoundError(const Status& cause) {
  return Status::DataLoss(
      "[DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE] " + cause.message() +
      ". If you never deleted it, it's likely your query is lagging behind. Please delete its "
      "checkpoint to restart from scratch. To avoid this happening again, you can update your "
      "retention policy of your Delta table");
}

Status IllegalOption(std::string_view name, std::string_view input, std::string_view explain) {
  return Status::InvalidArgument("[DELTA_ILLEGAL_OPTION] Invalid value '" + std::string(input) +
                                 "' for option '" + std::string(name) + "', " +
                                 std::string(explain));
}

// Scala's Map#toString of operationParameters, as Delta prints it in the ignoreChanges error.
std::string ScalaMapString(const StringMap& map) {
  std::string out = "Map(";
  bool first = true;
  for (const auto& [k, v] : map) {
    if (!first) out += ", ";
    first = false;
    out += k + " -> " + v;
  }
  return out + ")";
}

// ---------------------------------------------------------------------------------------------
// Option values (DeltaOptions.scala)

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// java.lang.Long.parseLong: an optional sign and decimal digits, in range.
std::optional<int64_t> ParseJavaLong(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = s[0] == '-';
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  uint64_t value = 0;
  const uint64_t limit = negative ? static_cast<uint64_t>(INT64_MAX) + 1 : INT64_MAX;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(s[i] - '0');
    if (value > limit) return std::nullopt;
  }
  if (negative) return value == limit ? INT64_MIN : -static_cast<int64_t>(value);
  return static_cast<int64_t>(value);
}

// Spark's JavaUtils.byteStringAs(s, ByteUnit.BYTE): "<digits>[b|k|kb|m|mb|g|gb|t|tb|p|pb]",
// case-insensitive, binary multiples; fractions and overflow are errors.
std::optional<int64_t> ParseByteString(std::string_view input) {
  std::string s = Lower(input);
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return std::nullopt;
  s = s.substr(b, s.find_last_not_of(" \t\n\r\f\v") - b + 1);
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == 0) return std::nullopt;
  auto number = ParseJavaLong(std::string_view(s).substr(0, digits));
  if (!number) return std::nullopt;
  std::string suffix = s.substr(digits);
  static const std::map<std::string, int> kShifts = {{"", 0},   {"b", 0},   {"k", 10}, {"kb", 10},
                                                     {"m", 20}, {"mb", 20}, {"g", 30}, {"gb", 30},
                                                     {"t", 40}, {"tb", 40}, {"p", 50}, {"pb", 50}};
  auto it = kShifts.find(suffix);
  if (it == kShifts.end()) return std::nullopt;
  if (it->second > 0 && *number > (INT64_MAX >> it->second)) return std::nullopt;
  return *number << it->second;
}

Result<bool> ParseBooleanOption(std::string_view name, std::string_view input) {
  std::string v = Lower(input);
  if (v == "true") return true;
  if (v == "false") return false;
  return IllegalOption(name, input, "must be 'true' or 'false'");
}

// ---------------------------------------------------------------------------------------------
// Timestamps (startingTimestamp; java.sql.Timestamp and Spark's formatter in messages)

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yoe + era * 400 + (*m <= 2);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// 'YYYY-M[M]-D[D]' optionally followed by ' ' or 'T', 'H[H]:M[M][:S[S][.fraction]]' and a zone
// ('Z', 'UTC', '+HH[:MM]', '-HH[:MM]'); no zone means UTC. Micros since the epoch.
std::optional<int64_t> ParseTimestampMicros(std::string_view input) {
  size_t b = input.find_first_not_of(" \t\n\r");
  if (b == std::string_view::npos) return std::nullopt;
  std::string_view s = input.substr(b, input.find_last_not_of(" \t\n\r") - b + 1);
  size_t pos = 0;
  auto number = [&](size_t min_digits, size_t max_digits, int64_t* out) {
    size_t start = pos;
    int64_t v = 0;
    while (pos < s.size() && pos - start < max_digits &&
           std::isdigit(static_cast<unsigned char>(s[pos]))) {
      v = v * 10 + (s[pos] - '0');
      ++pos;
    }
    *out = v;
    return pos - start >= min_digits;
  };
  auto expect = [&](char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  int64_t year, month, day, hour = 0, minute = 0, second = 0, micros = 0;
  if (!number(4, 4, &year) || !expect('-') || !number(1, 2, &month) || !expect('-') ||
      !number(1, 2, &day)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12) return std::nullopt;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int64_t month_days = kDays[month - 1] + (month == 2 && IsLeap(year) ? 1 : 0);
  if (day < 1 || day > month_days) return std::nullopt;
  if (pos < s.size() && (s[pos] == ' ' || s[pos] == 'T')) {
    ++pos;
    if (!number(1, 2, &hour) || !expect(':') || !number(1, 2, &minute)) return std::nullopt;
    if (expect(':')) {
      if (!number(1, 2, &second)) return std::nullopt;
      if (expect('.')) {
        size_t start = pos;
        int64_t fraction = 0;
        if (!number(1, 9, &fraction)) return std::nullopt;
        size_t n = pos - start;
        for (size_t i = n; i < 6; ++i) fraction *= 10;
        for (size_t i = 6; i < n; ++i) fraction /= 10;
        micros = fraction;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
  }
  int64_t zone_seconds = 0;
  if (pos < s.size()) {
    std::string_view zone = s.substr(pos);
    if (zone == "Z" || zone == "UTC") {
      pos = s.size();
    } else if (zone[0] == '+' || zone[0] == '-') {
      int sign = zone[0] == '-' ? -1 : 1;
      ++pos;
      int64_t zh = 0, zm = 0;
      if (!number(2, 2, &zh)) return std::nullopt;
      if (expect(':')) {
        if (!number(2, 2, &zm)) return std::nullopt;
      }
      if (zh > 18 || zm > 59) return std::nullopt;
      zone_seconds = sign * (zh * 3600 + zm * 60);
    }
    if (pos != s.size()) return std::nullopt;
  }
  int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - zone_seconds;
  return seconds * 1000000 + micros;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// "yyyy-MM-dd HH:mm:ss" in UTC, then the fraction of `micros` if any (Spark's
// TimestampFormatter, trailing zeros dropped) or, for java.sql.Timestamp#toString, always at least
// one fractional digit.
std::string FormatTimestamp(int64_t micros, bool java_style) {
  int64_t seconds = FloorDiv(micros, 1000000);
  int64_t fraction = micros - seconds * 1000000;
  int64_t days = FloorDiv(seconds, 86400);
  int64_t in_day = seconds - days * 86400;
  int64_t y, m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[64];
  snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", static_cast<long long>(y),
           static_cast<long long>(m), static_cast<long long>(d),
           static_cast<long long>(in_day / 3600), static_cast<long long>(in_day / 60 % 60),
           static_cast<long long>(in_day % 60));
  std::string out = buf;
  if (fraction != 0 || java_style) {
    char frac[16];
    snprintf(frac, sizeof(frac), "%06lld", static_cast<long long>(fraction));
    std::string f = frac;
    while (f.size() > 1 && f.back() == '0') f.pop_back();
    if (f == "0" && !java_style) return out;
    out += "." + f;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Schema compatibility (SchemaUtils.isReadCompatible with forbidTightenNullability = true, and
// DeltaColumnMapping.hasNoColumnMappingSchemaChanges)

bool NullabilityCompatible(bool existing_nullable, bool read_nullable) {
  return read_nullable || !existing_nullable;
}

bool StructReadCompatible(const std::vector<columnar::Field>& existing,
                          const std::vector<columnar::Field>& read,
                          const std::vector<std::string>* new_partitions,
                          const std::vector<std::string>* old_partitions);

bool TypeReadCompatible(const columnar::DataType& existing, const columnar::DataType& read) {
  using columnar::TypeId;
  if (existing.id() == TypeId::kStruct && read.id() == TypeId::kStruct) {
    return StructReadCompatible(existing.children(), read.children(), nullptr, nullptr);
  }
  if (existing.id() == TypeId::kList && read.id() == TypeId::kList) {
    return NullabilityCompatible(existing.element().nullable, read.element().nullable) &&
           TypeReadCompatible(*existing.element().type, *read.element().type);
  }
  if (existing.id() == TypeId::kMap && read.id() == TypeId::kMap) {
    return NullabilityCompatible(existing.value().nullable, read.value().nullable) &&
           TypeReadCompatible(*existing.key().type, *read.key().type) &&
           TypeReadCompatible(*existing.value().type, *read.value().type);
  }
  if (existing.is_nested() || read.is_nested()) return false;
  return existing.Equals(read);
}

// `existing` is the schema a commit gives the table, `read` the source's read schema: every
// column of `existing` must be in `read` (an added column is a change the source cannot read
// with its schema), with the same name, a compatible nullability and the same type. Partition
// columns (top level only) must be equal.
bool StructReadCompatible(const std::vector<columnar::Field>& existing,
                          const std::vector<columnar::Field>& read,
                          const std::vector<std::string>* new_partitions,
                          const std::vector<std::string>* old_partitions) {
  std::map<std::string, const columnar::Field*> existing_by_name;
  for (const auto& f : existing) existing_by_name[Lower(f.name)] = &f;
  std::set<std::string> read_names;
  for (const auto& f : read) read_names.insert(Lower(f.name));
  for (const auto& [name, field] : existing_by_name) {
    if (read_names.count(name) == 0) return false;
  }
  if (new_partitions && old_partitions && *new_partitions != *old_partitions) return false;
  for (const auto& r : read) {
    auto it = existing_by_name.find(Lower(r.name));
    if (it == existing_by_name.end()) continue;  // a column the change dropped reads as null
    const columnar::Field& e = *it->second;
    if (e.name != r.name || !NullabilityCompatible(e.nullable, r.nullable) ||
        !TypeReadCompatible(*e.type, *r.type)) {
      return false;
    }
  }
  return true;
}

bool UsesColumnMapping(const Metadata& metadata) {
  auto it = metadata.configuration.find("delta.columnMapping.mode");
  return it != metadata.configuration.end() && Lower(it->second) != "none";
}

// physicalName -> logical path of every (nested struct) field of a column-mapped schema.
void CollectPhysicalNames(const std::vector<columnar::Field>& fields, const std::string& prefix,
                          std::map<std::string, std::string>* out) {
  for (const auto& f : fields) {
    std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
    std::string physical = path;
    auto meta = Json::parse(f.metadata, nullptr, /*allow_exceptions=*/false);
    if (meta.is_object()) {
      auto it = meta.find("delta.columnMapping.physicalName");
      if (it != meta.end() && it->is_string()) physical = prefix + "/" + it->get<std::string>();
    }
    (*out)[physical] = path;
    if (f.type->id() == columnar::TypeId::kStruct) {
      CollectPhysicalNames(f.type->children(), path, out);
    }
  }
}

// True when `newer` renames or drops a column of `older` (by physical name).
bool HasColumnMappingSchemaChange(const columnar::Schema& newer, const columnar::Schema& older) {
  std::map<std::string, std::string> new_names, old_names;
  CollectPhysicalNames(newer.fields, "", &new_names);
  CollectPhysicalNames(older.fields, "", &old_names);
  for (const auto& [physical, logical] : old_names) {
    auto it = new_names.find(physical);
    if (it == new_names.end() || it->second != logical) return true;
  }
  return false;
}

std::string SchemaText(const columnar::Schema& schema) { return "STRUCT<" + schema.ToDdl() + ">"; }

}  // namespace

// -----------------------------------------------------------------------------------------------
// DeltaSourceOffset

std::string DeltaSourceOffset::ToJson() const {
  // Serializer: BASE_INDEX goes out as -1 with sourceVersion 1 (readable by older Delta); the
  // schema-tracking indexes need sourceVersion 3.
  const bool needs_v3 = index == kMetadataChangeIndex || index == kPostMetadataChangeIndex;
  const int64_t written_index = index == kBaseIndex ? kBaseIndexV1 : index;
  std::string out = "{\"sourceVersion\":";
  out += std::to_string(needs_v3 ? kSourceVersion3 : kSourceVersion1);
  out += ",\"reservoirId\":";
  out += Json(reservoir_id).dump(-1, ' ', false, Json::error_handler_t::replace);
  out += ",\"reservoirVersion\":" + std::to_string(reservoir_version);
  out += ",\"index\":" + std::to_string(written_index);
  out += ",\"isStartingVersion\":";
  out += is_initial_snapshot ? "true" : "false";
  out += "}";
  return out;
}

Result<DeltaSourceOffset> DeltaSourceOffset::FromJson(std::string_view json) {
  Json j = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidOffsetFormat(json);
  auto field = [&](const char* name) -> const Json& {
    static const Json kNull;
    auto it = j.find(name);
    return it == j.end() ? kNull : *it;
  };
  auto source_version = JsonLong(field("sourceVersion"));
  auto version = JsonLong(field("reservoirVersion"));
  auto index = JsonLong(field("index"));
  auto initial = JsonBool(field("isStartingVersion"));
  const Json& id = field("reservoirId");
  if (!source_version || !version || !index || !initial ||
      !(id.is_null() || id.is_string() || id.is_number())) {
    return InvalidOffsetFormat(json);
  }
  if (*source_version < kSourceVersion1 || *source_version == kSourceVersion2) {
    return Status::Corruption("[DELTA_INVALID_SOURCE_VERSION] sourceVersion(" +
                              std::to_string(*source_version) + ") is invalid");
  }
  if (*source_version > kCurrentSourceVersion) {
    return Status::NotImplemented(
        "[DELTA_INVALID_FORMAT_FROM_SOURCE_VERSION] Unsupported format. Expected version should "
        "be smaller than or equal to " +
        std::to_string(kCurrentSourceVersion) + " but was " + std::to_string(*source_version) +
        ". Please upgrade to newer version of Delta.");
  }
  DeltaSourceOffset offset;
  offset.reservoir_id = id.is_string() ? id.get<std::string>() : id.is_null() ? "" : id.dump();
  offset.reservoir_version = *version;
  // Deserializer: the V1 base index is upgraded to the in-memory BASE_INDEX.
  offset.index =
      (*source_version < kSourceVersion3 && *index == kBaseIndexV1) ? kBaseIndex : *index;
  if (offset.index == kEndIndex) return InvalidOffsetFormat(json);
  // Negative indexes are markers, each with its own meaning; any other one (e.g. -1 in a
  // sourceVersion 3 offset, which Delta never writes) would be read back as another marker.
  if (offset.index < 0 && offset.index != kBaseIndex && offset.index != kMetadataChangeIndex &&
      offset.index != kPostMetadataChangeIndex) {
    return InvalidOffsetFormat(json);
  }
  offset.is_initial_snapshot = *initial;
  return offset;
}

Status ValidateOffsetProgress(const DeltaSourceOffset& previous, const DeltaSourceOffset& current) {
  auto describe = [&]() {
    return " Previous: " + previous.ToJson() + ", Current: " + current.ToJson();
  };
  if (!previous.is_initial_snapshot && current.is_initial_snapshot) {
    return Status::Internal("Found invalid offsets: 'isInitialSnapshot' flipped incorrectly." +
                            describe());
  }
  if (previous.reservoir_version > current.reservoir_version) {
    return Status::Internal("Found invalid offsets: 'reservoirVersion' moved back." + describe());
  }
  if (previous.reservoir_version == current.reservoir_version && previous.index > current.index) {
    return Status::Internal("Found invalid offsets. 'index' moved back." + describe());
  }
  return Status::OK();
}

// -----------------------------------------------------------------------------------------------
// DeltaSourceOptions

Result<DeltaSourceOptions> DeltaSourceOptions::FromMap(
    const std::map<std::string, std::string>& raw) {
  std::map<std::string, std::string> options;
  for (const auto& [k, v] : raw) options[Lower(k)] = v;
  auto get = [&](const char* lower_name) -> const std::string* {
    auto it = options.find(lower_name);
    return it == options.end() ? nullptr : &it->second;
  };
  DeltaSourceOptions out;
  if (const std::string* v = get("maxfilespertrigger")) {
    auto n = ParseJavaLong(*v);
    if (!n || *n <= 0 || *n > INT32_MAX) {
      return IllegalOption("maxFilesPerTrigger", *v, "must be a positive integer");
    }
    out.max_files_per_trigger = static_cast<int32_t>(*n);
  }
  if (const std::string* v = get("maxbytespertrigger")) {
    auto n = ParseByteString(*v);
    if (!n || *n <= 0) {
      return IllegalOption("maxBytesPerTrigger", *v, "must be a size configuration such as '10g'");
    }
    out.max_bytes_per_trigger = *n;
  }
  struct Flag {
    const char* lower;
    const char* name;
    bool* target;
  };
  for (const Flag& f : {Flag{"ignorefiledeletion", "ignoreFileDeletion", &out.ignore_file_deletion},
                        Flag{"ignorechanges", "ignoreChanges", &out.ignore_changes},
                        Flag{"ignoredeletes", "ignoreDeletes", &out.ignore_deletes},
                        Flag{"skipchangecommits", "skipChangeCommits", &out.skip_change_commits},
                        Flag{"failondataloss", "failOnDataLoss", &out.fail_on_data_loss}}) {
    if (const std::string* v = get(f.lower)) {
      WEIR_ASSIGN_OR_RETURN(*f.target, ParseBooleanOption(f.name, *v));
    }
  }
  if (const std::string* v = get("startingversion")) {
    if (*v == "latest") {
      out.starting_version = StartingVersion{true, 0};
    } else {
      auto n = ParseJavaLong(*v);
      if (!n || *n < 0) {
        return IllegalOption("startingVersion", *v, "must be greater than or equal to zero");
      }
      out.starting_version = StartingVersion{false, *n};
    }
  }
  if (const std::string* v = get("startingtimestamp")) out.starting_timestamp = *v;
  if (out.starting_version && out.starting_timestamp) {
    return Status::InvalidArgument(
        "[DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET] Please either provide "
        "'startingVersion' or 'startingTimestamp'");
  }
  return out;
}

// -----------------------------------------------------------------------------------------------
// DeltaSource

// A position of the stream: a file (add set) or a version's base / end sentinel.
struct DeltaSource::Entry {
  int64_t version;
  int64_t index;
  const std::shared_ptr<const AddFile>* add;  // nullptr for sentinels
};

// Delta's AdmissionLimits.admit(IndexedFile): sentinels are always admitted; a file is admitted
// while capacity remains before it is taken (so one oversized file still goes through).
class DeltaSource::Admission {
 public:
  explicit Admission(const DeltaReadLimit& limit)
      : unlimited_(limit.all_available), files_(limit.max_files), bytes_(limit.max_bytes) {}

  bool Admit(const Entry& e) {
    if (unlimited_ || e.add == nullptr) return true;
    const bool has_capacity = files_ > 0 && bytes_ > 0;
    files_ -= 1;
    const int64_t size = std::max<int64_t>((*e.add)->size, 0);
    bytes_ = bytes_ < INT64_MIN + size ? INT64_MIN : bytes_ - size;
    return has_capacity;
  }

 private:
  bool unlimited_;
  int64_t files_;
  int64_t bytes_;
};

Result<std::unique_ptr<DeltaSource>> DeltaSource::Open(fs::FileSystem* fs, std::string table_root,
                                                       DeltaSourceOptions options,
                                                       ScanOptions scan) {
  std::unique_ptr<DeltaSource> source(new DeltaSource());
  source->fs_ = fs;
  source->table_root_ = std::move(table_root);
  source->options_ = std::move(options);
  WEIR_ASSIGN_OR_RETURN(source->snapshot_at_start_, Snapshot::Load(fs, source->table_root_));
  source->latest_seen_version_ = source->snapshot_at_start_->version();
  source->last_listing_ms_ = SteadyNowMs();  // Load listed the log
  WEIR_ASSIGN_OR_RETURN(source->scan_,
                        TableScan::Make(source->snapshot_at_start_, std::move(scan)));
  return source;
}

Result<DeltaSourceOffset> DeltaSource::ParseOffset(std::string_view json) const {
  WEIR_ASSIGN_OR_RETURN(DeltaSourceOffset offset, DeltaSourceOffset::FromJson(json));
  WEIR_RETURN_NOT_OK(CheckTableId(offset));
  return offset;
}

Status DeltaSource::CheckTableId(const DeltaSourceOffset& offset) const {
  if (offset.reservoir_id != table_id()) {
    return Status::InvalidArgument(DifferentTableMessage(table_id(), offset.reservoir_id));
  }
  return Status::OK();
}

DeltaReadLimit DeltaSource::DefaultReadLimit() const {
  constexpr int64_t kDefaultMaxFiles = 1000;  // DeltaOptions.MAX_FILES_PER_TRIGGER_OPTION_DEFAULT
  DeltaReadLimit limit;
  if (options_.max_files_per_trigger) {
    limit.max_files = *options_.max_files_per_trigger;
  } else {
    limit.max_files = options_.max_bytes_per_trigger ? INT32_MAX - 8 : kDefaultMaxFiles;
  }
  limit.max_bytes = options_.max_bytes_per_trigger.value_or(INT64_MAX);
  return limit;
}

Result<const std::vector<std::shared_ptr<const AddFile>>*> DeltaSource::InitialFiles(
    int64_t version) {
  if (initial_files_version_ == version) return &initial_files_;
  std::shared_ptr<const Snapshot> snapshot = snapshot_at_start_;
  if (version != snapshot_at_start_->version()) {
    auto loaded = Snapshot::Load(fs_, table_root_, version);
    if (!loaded.ok()) {
      if (loaded.status().IsNotFound()) return LogFileNotFoundError(loaded.status());
      return loaded.status();
    }
    snapshot = std::move(*loaded);
  }
  initial_files_.clear();
  initial_files_version_ = -1;
  for (const auto& [key, add] : snapshot->files()) initial_files_.push_back(add);
  // DeltaSourceSnapshot: sort("modificationTime", "path"), then zipWithIndex.
  std::sort(initial_files_.begin(), initial_files_.end(),
            [](const std::shared_ptr<const AddFile>& a, const std::shared_ptr<const AddFile>& b) {
              if (a->modification_time != b->modification_time) {
                return a->modification_time < b->modification_time;
              }
              return a->path < b->path;
            });
  initial_files_version_ = version;
  return &initial_files_;
}

Status DeltaSource::CheckSchemaChange(const Metadata& metadata, int64_t version) const {
  const Metadata& at_start = snapshot_at_start_->metadata();
  const bool backfilling = version < snapshot_at_start_->version();
  const Metadata& newer = backfilling ? at_start : metadata;
  const Metadata& older = backfilling ? metadata : at_start;
  if (newer.id != older.id) {
    return Status::InvalidArgument(DifferentTableMessage(newer.id, older.id));
  }
  auto changed = columnar::SchemaFromDeltaJson(metadata.schema_string);
  if (!changed.ok()) {
    return changed.status().WithContext("Delta table " + table_root_ + " version " +
                                        std::to_string(version));
  }
  const columnar::Schema& read_schema = snapshot_at_start_->schema();
  if (UsesColumnMapping(newer) || UsesColumnMapping(older)) {
    const columnar::Schema& newer_schema = backfilling ? read_schema : *changed;
    const columnar::Schema& older_schema = backfilling ? *changed : read_schema;
    if (HasColumnMappingSchemaChange(newer_schema, older_schema)) {
      return Status::InvalidArgument(
          "[DELTA_STREAMING_INCOMPATIBLE_SCHEMA_CHANGE] Streaming read is not supported on tables "
          "with read-incompatible schema changes (e.g. rename or drop or datatype changes). Read "
          "schema: " +
          SchemaText(older_schema) + ". Incompatible data schema: " + SchemaText(newer_schema) +
          ". (Delta table " + table_root_ + " version " + std::to_string(version) + ")");
    }
  }
  if (!StructReadCompatible(changed->fields, read_schema.fields, &newer.partition_columns,
                            &older.partition_columns)) {
    const std::string v = std::to_string(version);
    std::string message = "Detected schema change in version " + v +
                          ": streaming source schema: " + SchemaText(read_schema) +
                          " data file schema: " + SchemaText(*changed) +
                          " Please try restarting the query. If this issue repeats across query "
                          "restarts without making progress, you have made an incompatible "
                          "schema change and need to start your query from scratch using a new "
                          "checkpoint directory.";
    if (options_.starting_version || options_.starting_timestamp) {
      return Status::InvalidArgument(
          "[DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS] " + message +
          " If the issue persists after changing to a new checkpoint directory, you may need to "
          "change the existing 'startingVersion' or 'startingTimestamp' option to start from a "
          "version newer than " +
          v + " with a new checkpoint directory.");
    }
    return Status::InvalidArgument("[DELTA_SCHEMA_CHANGED_WITH_VERSION] " + message);
  }
  return Status::OK();
}

Result<bool> DeltaSource::ValidateCommit(const std::vector<Action>& actions, int64_t version,
                                         const std::optional<DeltaSourceOffset>& end) {
  // A batch ending at the base of this version stops just before it: its content is irrelevant.
  if (end && end->reservoir_version == version && end->index == DeltaSourceOffset::kBaseIndex) {
    return false;
  }
  const bool allow_changes =
      options_.ignore_changes || options_.ignore_file_deletion || options_.skip_change_commits;
  const bool allow_deletes = allow_changes || options_.ignore_deletes;
  bool seen_add = false;
  bool skip = false;
  std::optional<std::string> removed_path;
  std::optional<std::string> operation;
  const Metadata* metadata = nullptr;
  const Protocol* protocol = nullptr;
  for (const Action& action : actions) {
    if (const auto* add = std::get_if<AddFile>(&action)) {
      if (add->data_change) seen_add = true;
    } else if (const auto* remove = std::get_if<RemoveFile>(&action)) {
      if (remove->data_change) {
        skip = options_.skip_change_commits;
        if (!removed_path) removed_path = remove->path;
      }
    } else if (const auto* m = std::get_if<Metadata>(&action)) {
      WEIR_RETURN_NOT_OK(CheckSchemaChange(*m, version));
      metadata = m;
    } else if (const auto* p = std::get_if<Protocol>(&action)) {
      protocol = p;
    } else if (const auto* info = std::get_if<CommitInfo>(&action)) {
      operation = info->operation.value_or("null") + " (" +
                  ScalaMapString(info->operation_parameters) + ")";
    }
  }
  if (protocol) {
    WEIR_RETURN_NOT_OK(CheckReadSupported(
        *protocol, metadata ? *metadata : snapshot_at_start_->metadata(), table_root_));
  }
  if (removed_path) {
    const std::string v = std::to_string(version);
    if (seen_add && !allow_changes) {
      return Status::InvalidArgument(
          "[DELTA_SOURCE_TABLE_IGNORE_CHANGES] Detected a data update (for example " +
          operation.value_or(*removed_path) + ") in the source table at version " + v +
          ". This is currently not supported. If you'd like to ignore updates, set the option "
          "'skipChangeCommits' to 'true'. If you would like the data update to be reflected, "
          "please restart this query with a fresh checkpoint directory. The source table can be "
          "found at path " +
          table_root_ + ".");
    }
    if (!seen_add && !allow_deletes) {
      return Status::InvalidArgument(
          "[DELTA_SOURCE_IGNORE_DELETE] Detected deleted data (for example " + *removed_path +
          ") from streaming source at version " + v +
          ". This is currently not supported. If you'd like to ignore deletes, set the option "
          "'ignoreDeletes' to 'true'. The source table can be found at path " +
          table_root_ + ".");
    }
  }
  return skip;
}

Status DeltaSource::ScanChanges(int64_t from_version, int64_t from_index, bool is_initial_snapshot,
                                const std::optional<DeltaSourceOffset>& end,
                                const std::function<bool(const Entry&)>& visit) {
  const std::optional<DeltaSourceOffset>& bound = end ? end : available_now_end_;
  // Each position after the start, while it is within the bound and `visit` takes it.
  auto emit = [&](int64_t version, int64_t index, const std::shared_ptr<const AddFile>* add) {
    if (!(version > from_version || index > from_index)) return true;
    if (bound && !(version < bound->reservoir_version ||
                   (version == bound->reservoir_version && index <= bound->index))) {
      return false;
    }
    return visit(Entry{version, index, add});
  };
  // A version: its base sentinel, its files, its end sentinel.
  auto emit_version = [&](int64_t version,
                          const std::vector<std::shared_ptr<const AddFile>>& files) {
    if (!emit(version, DeltaSourceOffset::kBaseIndex, nullptr)) return false;
    for (size_t i = 0; i < files.size(); ++i) {
      if (!emit(version, static_cast<int64_t>(i), &files[i])) return false;
    }
    return emit(version, DeltaSourceOffset::kEndIndex, nullptr);
  };

  // Nothing at or after this version can be visited (a batch ending at a version's base holds
  // nothing of it).
  auto beyond_bound = [&](int64_t version) {
    return bound && (version > bound->reservoir_version ||
                     (version == bound->reservoir_version &&
                      bound->index == DeltaSourceOffset::kBaseIndex));
  };
  // A commit's positions; false when the scan stops.
  auto emit_commit = [&](int64_t version, std::vector<Action> actions) -> Result<bool> {
    latest_seen_version_ = std::max(latest_seen_version_, version);
    WEIR_ASSIGN_OR_RETURN(bool skip, ValidateCommit(actions, version, end));
    std::vector<std::shared_ptr<const AddFile>> adds;
    if (!skip) {
      for (Action& action : actions) {
        if (auto* add = std::get_if<AddFile>(&action); add && add->data_change) {
          adds.push_back(std::make_shared<const AddFile>(std::move(*add)));
        }
      }
    }
    return emit_version(version, adds);
  };

  int64_t first_commit = from_version;
  if (is_initial_snapshot) {
    WEIR_ASSIGN_OR_RETURN(const auto* files, InitialFiles(from_version));
    if (!emit_version(from_version, *files)) return Status::OK();
    first_commit = from_version + 1;
  }
  // The commits by name, first_commit, first_commit + 1, ... until one is absent.
  int64_t version = first_commit;
  for (;; ++version) {
    if (beyond_bound(version)) return Status::OK();
    auto actions = ReadCommitActions(fs_, table_root_, version);
    if (!actions.ok()) {
      if (!actions.status().IsNotFound()) return actions.status();
      if (!LogWentPast(version)) return Status::OK();  // the end of the log
      break;
    }
    WEIR_ASSIGN_OR_RETURN(bool more, emit_commit(version, std::move(*actions)));
    if (!more) return Status::OK();
  }
  // The log went past an absent commit: what is left of it from there, listed.
  // DeltaLog.getChangeLogFiles(startVersion, failOnDataLoss): commits must follow each other
  // from the start version on.
  last_listing_ms_ = SteadyNowMs();
  WEIR_ASSIGN_OR_RETURN(std::vector<LogFile> listing,
                        ListLogFilesFrom(fs_, LogDirPath(table_root_), version));
  int64_t last_seen = version - 1;
  for (const LogFile& file : listing) {
    if (file.name.type != LogFileType::kCommit || file.version() < version) continue;
    if (beyond_bound(file.version())) break;
    if (options_.fail_on_data_loss && file.version() > last_seen + 1) {
      return MissingFilesError(last_seen + 1, file.version());
    }
    last_seen = file.version();
    WEIR_ASSIGN_OR_RETURN(std::vector<Action> actions,
                          ReadCommitActions(fs_, table_root_, file.version()));
    WEIR_ASSIGN_OR_RETURN(bool more, emit_commit(file.version(), std::move(actions)));
    if (!more) return Status::OK();
  }
  return Status::OK();
}

bool DeltaSource::LogWentPast(int64_t version) {
  if (version <= latest_seen_version_) return true;
  auto hint = ReadLastCheckpointHint(fs_, LogDirPath(table_root_));
  if (hint && hint->version >= version) return true;
  return SteadyNowMs() - last_listing_ms_ >= idle_listing_interval_ms_;
}

Result<std::optional<int64_t>> DeltaSource::StartingVersion() {
  if (starting_version_resolved_) return starting_version_;
  std::optional<int64_t> version;
  if (options_.starting_version) {
    // The whole log (once, when the stream first starts): the earliest commit is needed too.
    WEIR_ASSIGN_OR_RETURN(std::vector<LogFile> listing, ListLogFiles(fs_, LogDirPath(table_root_)));
    WEIR_ASSIGN_OR_RETURN(LogSegment latest,
                          LogSegmentFromListing(table_root_, std::move(listing), std::nullopt));
    if (options_.starting_version->latest) {
      version = latest.version + 1;
    } else {
      // DeltaHistoryManager.checkVersionExists(mustBeRecreatable = false): the commit file must
      // still exist; the snapshot of the version need not be reconstructible.
      const int64_t wanted = options_.starting_version->version;
      int64_t earliest =
          latest.all_commits.empty() ? latest.version : latest.all_commits.front().version();
      if (wanted < earliest || wanted > latest.version) {
        return Status::NotFound(
            "[DELTA_VERSION_NOT_FOUND] Cannot time travel Delta table to "
            "version " +
            std::to_string(wanted) + ". Available versions: [" + std::to_string(earliest) + ", " +
            std::to_string(latest.version) + "].");
      }
      version = wanted;
    }
  } else if (options_.starting_timestamp) {
    WEIR_ASSIGN_OR_RETURN(version, VersionForTimestamp(*options_.starting_timestamp));
  }
  starting_version_ = version;
  starting_version_resolved_ = true;
  return version;
}

Result<int64_t> DeltaSource::VersionForTimestamp(std::string_view text) {
  auto micros = ParseTimestampMicros(text);
  if (!micros) {
    return Status::InvalidArgument("[DELTA_TIMESTAMP_INVALID] The provided timestamp ('" +
                                   std::string(text) +
                                   "') cannot be converted to a valid timestamp.");
  }
  const int64_t wanted_ms = FloorDiv(*micros, 1000);
  WEIR_ASSIGN_OR_RETURN(std::vector<LogFile> listing, ListLogFiles(fs_, LogDirPath(table_root_)));
  // Commit timestamps: commit file modification times, made strictly increasing with versions
  // (DeltaHistoryManager.monotonizeCommitTimestamps).
  std::vector<std::pair<int64_t, int64_t>> commits;  // (version, timestamp ms)
  for (const LogFile& f : listing) {
    if (f.name.type != LogFileType::kCommit) continue;
    int64_t ts = f.mtime_ms;
    if (!commits.empty() && ts <= commits.back().second) ts = commits.back().second + 1;
    commits.emplace_back(f.version(), ts);
  }
  if (commits.empty()) {
    return Status::NotFound("[DELTA_NO_COMMITS_FOUND] No commits found at " +
                            LogDirPath(table_root_));
  }
  // getActiveCommitAtTime(canReturnLastCommit, canReturnEarliestCommit): the last commit at or
  // before the timestamp, or the earliest one.
  std::pair<int64_t, int64_t> commit = commits.front();
  for (const auto& c : commits) {
    if (c.second <= wanted_ms) commit = c;
  }
  if (commit.second >= wanted_ms) return commit.first;
  if (commit.first + 1 <= commits.back().first) return commit.first + 1;
  return Status::InvalidArgument("[DELTA_TIMESTAMP_GREATER_THAN_COMMIT] The provided timestamp (" +
                                 FormatTimestamp(wanted_ms * 1000, /*java_style=*/true) +
                                 ") is after the latest version available to this table (" +
                                 FormatTimestamp(commit.second * 1000, /*java_style=*/true) +
                                 "). Please use a timestamp before or at " +
                                 FormatTimestamp(commit.second * 1000, /*java_style=*/false) + ".");
}

Status DeltaSource::CheckOnStreamStartOnce(int64_t start_version) {
  if (checked_on_start_) return Status::OK();
  // checkReadIncompatibleSchemaChangeOnStreamStartOnce: the schema at the version the stream
  // resumes from must be readable with the source's schema.
  if (start_version != snapshot_at_start_->version()) {
    // A stream resuming after the snapshot at Open (the usual case: it committed its last batch,
    // then the table grew) reaches the version from that snapshot by name; else it is loaded.
    Result<std::shared_ptr<const Snapshot>> snapshot = Status::NotFound("");
    if (start_version > snapshot_at_start_->version()) {
      snapshot = Snapshot::Update(snapshot_at_start_->WithoutFiles(), start_version);
      if (snapshot.ok() && (*snapshot)->version() != start_version) {
        snapshot = Status::NotFound("");
      }
    }
    if (!snapshot.ok()) snapshot = Snapshot::Load(fs_, table_root_, start_version);
    if (snapshot.ok()) {
      WEIR_RETURN_NOT_OK(CheckSchemaChange((*snapshot)->metadata(), (*snapshot)->version()));
    } else if (UsesColumnMapping(snapshot_at_start_->metadata())) {
      return Status::InvalidArgument(
          "[DELTA_STREAMING_CHECK_COLUMN_MAPPING_NO_SNAPSHOT] Failed to obtain Delta log snapshot "
          "for the start version when checking column mapping schema changes. Please choose a "
          "different start version. (" +
          snapshot.status().message() + ")");
    }
  }
  checked_on_start_ = true;
  return Status::OK();
}

Result<std::optional<DeltaSourceOffset>> DeltaSource::LatestOffsetInternal(
    const std::optional<DeltaSourceOffset>& start, const DeltaReadLimit& limit) {
  Admission admission(limit);
  std::optional<std::pair<int64_t, int64_t>> last;  // (version, index) of the last admitted
  auto visit = [&](const Entry& e) {
    if (!admission.Admit(e)) return false;
    last.emplace(e.version, e.index);
    return true;
  };
  int64_t from_version;
  bool initial;
  if (start) {
    from_version = start->reservoir_version;
    initial = start->is_initial_snapshot;
    WEIR_RETURN_NOT_OK(ScanChanges(from_version, start->index, initial, std::nullopt, visit));
    if (!last) return start;
  } else {
    WEIR_ASSIGN_OR_RETURN(std::optional<int64_t> starting, StartingVersion());
    from_version = starting ? *starting : snapshot_at_start_->version();
    initial = !starting;
    if (from_version < 0) return std::optional<DeltaSourceOffset>();
    WEIR_RETURN_NOT_OK(
        ScanChanges(from_version, DeltaSourceOffset::kBaseIndex, initial, std::nullopt, visit));
    if (!last) return std::optional<DeltaSourceOffset>();
  }
  WEIR_RETURN_NOT_OK(CheckOnStreamStartOnce(from_version));
  // buildOffsetFromIndexedFile: the end of a version becomes the base of the next one.
  DeltaSourceOffset end;
  end.reservoir_id = table_id();
  if (last->second == DeltaSourceOffset::kEndIndex) {
    end.reservoir_version = last->first + 1;
    end.index = DeltaSourceOffset::kBaseIndex;
    end.is_initial_snapshot = false;
  } else {
    end.reservoir_version = last->first;
    end.index = last->second;
    end.is_initial_snapshot = last->first == from_version && initial;
  }
  return std::optional<DeltaSourceOffset>(std::move(end));
}

Result<std::optional<DeltaSourceOffset>> DeltaSource::LatestOffset(
    const std::optional<DeltaSourceOffset>& start, const DeltaReadLimit& limit) {
  if (start) WEIR_RETURN_NOT_OK(CheckTableId(*start));
  if (trigger_available_now_ && !available_now_initialized_) {
    available_now_initialized_ = true;
    WEIR_ASSIGN_OR_RETURN(available_now_end_,
                          LatestOffsetInternal(start, DeltaReadLimit::AllAvailable()));
  }
  WEIR_ASSIGN_OR_RETURN(std::optional<DeltaSourceOffset> end, LatestOffsetInternal(start, limit));
  if (start && end) WEIR_RETURN_NOT_OK(ValidateOffsetProgress(*start, *end));
  return end;
}

Result<std::vector<DeltaSourceFile>> DeltaSource::FilesBetween(
    const std::optional<DeltaSourceOffset>& start, const DeltaSourceOffset& end) {
  WEIR_RETURN_NOT_OK(CheckTableId(end));
  if (start) WEIR_RETURN_NOT_OK(CheckTableId(*start));
  std::vector<DeltaSourceFile> files;
  // extractStartingState.
  int64_t from_version;
  int64_t from_index = DeltaSourceOffset::kBaseIndex;
  bool initial;
  if (start) {
    if (*start == end) return files;
    from_version = start->reservoir_version;
    from_index = start->index;
    initial = start->is_initial_snapshot;
  } else {
    WEIR_ASSIGN_OR_RETURN(std::optional<int64_t> starting, StartingVersion());
    if (starting) {
      from_version = *starting;
      initial = false;
    } else if (end.is_initial_snapshot) {
      from_version = end.reservoir_version;
      initial = true;
    } else {
      if (end.reservoir_version <= 0) {
        return Status::Internal("invalid reservoirVersion in endOffset: " + end.ToJson());
      }
      // The first batch read a snapshot and ended past it: the snapshot of the version before
      // the end keeps the end's index meaningful.
      from_version = end.reservoir_version - 1;
      initial = true;
    }
  }
  WEIR_RETURN_NOT_OK(CheckOnStreamStartOnce(from_version));
  WEIR_RETURN_NOT_OK(ScanChanges(from_version, from_index, initial, end, [&](const Entry& e) {
    if (e.add) files.push_back(DeltaSourceFile{e.version, e.index, *e.add});
    return true;
  }));
  return files;
}

namespace {
Status RefuseDeletionVector(const std::string& table_root, const AddFile& add) {
  if (!add.deletion_vector) return Status::OK();
  return Status::NotImplemented(
      "Delta table " + table_root + ": data file " + add.path +
      " has a deletion vector, which weir does not read in a stream; run REORG TABLE ... APPLY "
      "(PURGE) in Spark or stream with skipChangeCommits=true");
}
}  // namespace

Result<columnar::Batch> DeltaSource::ReadFile(const AddFile& add) const {
  WEIR_RETURN_NOT_OK(RefuseDeletionVector(table_root_, add));
  return scan_->ReadFile(add);
}

Result<std::unique_ptr<TableScan::FileRowGroups>> DeltaSource::OpenFile(const AddFile& add) const {
  WEIR_RETURN_NOT_OK(RefuseDeletionVector(table_root_, add));
  return scan_->OpenRowGroups(add);
}

}  // namespace weir::delta
