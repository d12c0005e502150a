#include "avro/capture.h"

#include <charconv>
#include <vector>

#include "columnar/text_format.h"

namespace weir::avro {

using columnar::Column;
using columnar::DataType;
using columnar::Field;
using columnar::TypeId;

namespace {

bool AllDigits(std::string_view s, size_t min_len, size_t max_len) {
  if (s.size() < min_len || s.size() > max_len) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int64_t ToInt(std::string_view s) {
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

}  // namespace

Result<CapturePath> ParseCapturePath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (i > start) parts.push_back(path.substr(start, i - start));
      start = i + 1;
    }
  }
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        "'" + std::string(path) +
        "' is not a Capture file path {Namespace}/{EventHub}/{PartitionId}/"
        "{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}.avro (Capture's default layout): " +
        why);
  };
  if (parts.size() < 9) return bad("fewer than 9 path segments");
  const size_t n = parts.size();
  std::string_view second = parts[n - 1];
  if (second.size() < 5 || second.substr(second.size() - 5) != ".avro")
    return bad("the file name is not {Second}.avro");
  second.remove_suffix(5);
  const std::string_view time_parts[] = {parts[n - 6], parts[n - 5], parts[n - 4],
                                         parts[n - 3], parts[n - 2], second};
  const size_t widths[][2] = {{4, 4}, {1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}};
  for (int i = 0; i < 6; ++i) {
    if (!AllDigits(time_parts[i], widths[i][0], widths[i][1])) {
      return bad("'" + std::string(time_parts[i]) + "' is not a number for the date and time");
    }
  }
  if (!AllDigits(parts[n - 7], 1, 9))
    return bad("the partition id '" + std::string(parts[n - 7]) + "' is not a number");
  CapturePath out;
  out.partition = static_cast<int32_t>(ToInt(parts[n - 7]));
  out.event_hub = std::string(parts[n - 8]);
  out.namespace_name = std::string(parts[n - 9]);
  return out;
}

std::optional<int64_t> ParseCaptureTime(std::string_view text) {
  // M/d/yyyy h:mm:ss a
  size_t pos = 0;
  auto number = [&](size_t min_len, size_t max_len, int64_t* v) {
    size_t start = pos;
    while (pos < text.size() && pos - start < max_len && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    if (pos - start < min_len) return false;
    *v = ToInt(text.substr(start, pos - start));
    return true;
  };
  auto literal = [&](char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  int64_t month, day, year, hour, minute, second;
  if (number(1, 2, &month) && literal('/') && number(1, 2, &day) && literal('/') &&
      number(4, 4, &year) && literal(' ') && number(1, 2, &hour) && literal(':') &&
      number(2, 2, &minute) && literal(':') && number(2, 2, &second) && literal(' ') &&
      pos + 2 == text.size()) {
    const char a = static_cast<char>(text[pos] | 0x20), m = static_cast<char>(text[pos + 1] | 0x20);
    if ((a != 'a' && a != 'p') || m != 'm') return std::nullopt;
    if (month < 1 || month > 12 || hour < 1 || hour > 12 || minute > 59 || second > 59 || day < 1)
      return std::nullopt;
    static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > kDays[month - 1] || (month == 2 && day == 29 && !leap)) return std::nullopt;
    const int64_t hour24 = (hour % 12) + (a == 'p' ? 12 : 0);
    const int64_t days =
        columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    return ((days * 24 + hour24) * 60 + minute) * 60 * 1000000 + second * 1000000;
  }
  return columnar::ParseTimestamp(text);
}

columnar::Schema CaptureKafkaSchema() {
  columnar::Schema schema;
  auto header = DataType::Struct(
      {Field{"key", DataType::String(), true}, Field{"value", DataType::Binary(), true}});
  schema.fields = {
      Field{"key", DataType::Binary(), true},
      Field{"value", DataType::Binary(), true},
      Field{"topic", DataType::String(), true},
      Field{"partition", DataType::Int32(), true},
      Field{"offset", DataType::Int64(), true},
      Field{"timestamp", DataType::Timestamp(), true},
      Field{"timestampType", DataType::Int32(), true},
      Field{"headers", DataType::List(header), true},
  };
  return schema;
}

namespace {

// A property value as header bytes; false for null.
bool ValueBytes(const Column& c, int64_t i, std::string* out) {
  if (c.IsNull(i)) return false;
  char buf[64];
  switch (c.type_id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      *out = std::string(c.StringAt(i));
      return true;
    case TypeId::kInt32:
      *out = std::to_string(c.Value<int32_t>(i));
      return true;
    case TypeId::kInt64:
      *out = std::to_string(c.Value<int64_t>(i));
      return true;
    case TypeId::kBoolean:
      *out = c.Value<uint8_t>(i) ? "true" : "false";
      return true;
    case TypeId::kDouble: {
      auto r = std::to_chars(buf, buf + sizeof(buf), c.Value<double>(i));
      *out = std::string(buf, r.ptr);
      return true;
    }
    case TypeId::kFloat: {
      auto r = std::to_chars(buf, buf + sizeof(buf), c.Value<float>(i));
      *out = std::string(buf, r.ptr);
      return true;
    }
    case TypeId::kStruct:  // a union's members: the one set
      for (int m = 0; m < c.num_children(); ++m) {
        if (ValueBytes(c.child(m), i, out)) return true;
      }
      return false;
    default:
      return false;
  }
}

Result<int> FindField(const columnar::Batch& events, std::string_view name, bool required,
                      std::initializer_list<TypeId> types) {
  int f = events.schema.FieldIndex(name);
  if (f < 0) {
    if (!required) return -1;
    return Status::InvalidArgument("not a Capture file: no field " + std::string(name) +
                                   " (fields: " + events.schema.ToDdl() + ")");
  }
  const TypeId t = events.schema.fields[f].type->id();
  for (TypeId ok : types) {
    if (t == ok) return f;
  }
  return Status::InvalidArgument("not a Capture file: field " + std::string(name) + " is " +
                                 events.schema.fields[f].type->ToDdl());
}

}  // namespace

Status AppendCaptureEvents(const columnar::Batch& events, const CapturePath& from,
                           columnar::Batch* out) {
  WEIR_ASSIGN_OR_RETURN(
      int seq_f, FindField(events, "SequenceNumber", true, {TypeId::kInt64, TypeId::kInt32}));
  WEIR_ASSIGN_OR_RETURN(int time_f, FindField(events, "EnqueuedTimeUtc", true, {TypeId::kString}));
  WEIR_ASSIGN_OR_RETURN(int body_f,
                        FindField(events, "Body", true, {TypeId::kBinary, TypeId::kString}));
  WEIR_ASSIGN_OR_RETURN(int sys_f, FindField(events, "SystemProperties", false, {TypeId::kMap}));
  WEIR_ASSIGN_OR_RETURN(int props_f, FindField(events, "Properties", false, {TypeId::kMap}));
  const Column& seq = events.columns[seq_f];
  const Column& time = events.columns[time_f];
  const Column& body = events.columns[body_f];
  Column& key = out->columns[0];
  Column& value = out->columns[1];
  Column& topic = out->columns[2];
  Column& partition = out->columns[3];
  Column& offset = out->columns[4];
  Column& timestamp = out->columns[5];
  Column& timestamp_type = out->columns[6];
  Column& headers = out->columns[7];
  std::string bytes;
  for (int64_t i = 0; i < events.num_rows(); ++i) {
    const int64_t sequence =
        seq.type_id() == TypeId::kInt64 ? seq.Value<int64_t>(i) : seq.Value<int32_t>(i);
    // key: x-opt-partition-key
    bool has_key = false;
    if (sys_f >= 0 && !events.columns[sys_f].IsNull(i)) {
      const Column& m = events.columns[sys_f];
      for (int32_t e = m.offsets()[i]; e < m.offsets()[i + 1]; ++e) {
        if (m.child(0).StringAt(e) == "x-opt-partition-key" && ValueBytes(m.child(1), e, &bytes)) {
          key.AppendString(bytes);
          has_key = true;
          break;
        }
      }
    }
    if (!has_key) key.AppendNull();
    if (body.IsNull(i))
      value.AppendNull();
    else
      value.AppendString(body.StringAt(i));
    topic.AppendString(from.event_hub);
    partition.Append<int32_t>(from.partition);
    offset.Append<int64_t>(sequence);
    std::optional<int64_t> micros;
    if (!time.IsNull(i)) micros = ParseCaptureTime(time.StringAt(i));
    if (!micros) {
      return Status::InvalidArgument("event SequenceNumber " + std::to_string(sequence) +
                                     ": EnqueuedTimeUtc '" +
                                     std::string(time.IsNull(i) ? "null" : time.StringAt(i)) +
                                     "' is not M/d/yyyy h:mm:ss AM/PM nor ISO-8601");
    }
    timestamp.Append<int64_t>(*micros);
    timestamp_type.Append<int32_t>(1);
    // headers: Properties
    const Column* props =
        props_f >= 0 && !events.columns[props_f].IsNull(i) ? &events.columns[props_f] : nullptr;
    if (props == nullptr || props->offsets()[i] == props->offsets()[i + 1]) {
      headers.AppendNull();
      continue;
    }
    Column& entry = headers.mutable_child(0);
    for (int32_t e = props->offsets()[i]; e < props->offsets()[i + 1]; ++e) {
      entry.mutable_child(0).AppendString(props->child(0).StringAt(e));
      if (ValueBytes(props->child(1), e, &bytes))
        entry.mutable_child(1).AppendString(bytes);
      else
        entry.mutable_child(1).AppendNull();
      entry.AppendStructEntry();
    }
    headers.AppendListEntry();
  }
  return Status::OK();
}

}  // namespace weir::avro
