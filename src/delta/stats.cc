#include "delta/stats.h"

#include <charconv>
#include <climits>
#include <cmath>
#include <functional>

#include "columnar/text_format.h"

namespace weir::delta {

using columnar::Column;
using columnar::DataType;
using columnar::TypeId;

namespace {

int ParquetLeafCount(const DataType& type) {
  if (!type.is_nested()) return 1;
  int n = 0;
  for (const auto& c : type.children()) n += ParquetLeafCount(*c.type);
  return n;
}

template <typename T>
bool AppendFloat(T v, std::string* out) {
  if (!std::isfinite(v)) return false;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string_view s(buf, res.ptr - buf);
  out->append(s);
  if (s.find_first_of(".eE") == std::string_view::npos) out->append(".0");
  return true;
}

// Appends the min (row 0) or max (row 1) of a leaf as a JSON value; false when the type gets no
// min/max statistic.
bool AppendStatValue(const Column& c, int row, bool is_max, std::string* out) {
  switch (c.type_id()) {
    case TypeId::kInt8: out->append(std::to_string(c.Value<int8_t>(row))); return true;
    case TypeId::kInt16: out->append(std::to_string(c.Value<int16_t>(row))); return true;
    case TypeId::kInt32: out->append(std::to_string(c.Value<int32_t>(row))); return true;
    case TypeId::kInt64: out->append(std::to_string(c.Value<int64_t>(row))); return true;
    case TypeId::kFloat: return AppendFloat(c.Value<float>(row), out);
    case TypeId::kDouble: return AppendFloat(c.Value<double>(row), out);
    case TypeId::kDecimal:
      columnar::AppendDecimal(c.Value<columnar::Int128>(row), c.type()->scale(), out);
      return true;
    case TypeId::kDate:
      out->push_back('"');
      columnar::AppendDate(c.Value<int32_t>(row), out);
      out->push_back('"');
      return true;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      std::string ts = columnar::FormatTimestampMillis(c.Value<int64_t>(row));
      if (c.type_id() == TypeId::kTimestampNtz) ts.pop_back();  // no zone
      out->push_back('"');
      out->append(ts);
      out->push_back('"');
      return true;
    }
    case TypeId::kString: {
      std::string_view s = c.StringAt(row);
      if (!is_max) {
        columnar::AppendJsonString(TruncateStatsMin(s, kStatsStringPrefixLength), out);
        return true;
      }
      auto max = TruncateStatsMax(s, kStatsStringPrefixLength);
      if (!max) return false;
      columnar::AppendJsonString(*max, out);
      return true;
    }
    default:
      return false;  // boolean, binary: null counts only (as Spark)
  }
}

// Byte offsets where each UTF-8 character starts.
std::vector<size_t> CharStarts(std::string_view s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  return starts;
}

// Decodes the character at s[begin, end); -1 when malformed.
int32_t DecodeChar(std::string_view s) {
  unsigned char c = static_cast<unsigned char>(s[0]);
  int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
  if (n < 0 || static_cast<int>(s.size()) != n + 1) return -1;
  int32_t cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k <= n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[k]) & 0x3F);
  return cp;
}


}  // namespace

std::string TruncateStatsMin(std::string_view s, int max_chars) {
  std::vector<size_t> starts = CharStarts(s);
  if (static_cast<int>(starts.size()) <= max_chars) return std::string(s);
  return std::string(s.substr(0, starts[max_chars]));
}

std::optional<std::string> TruncateStatsMax(std::string_view s, int max_chars) {
  std::vector<size_t> starts = CharStarts(s);
  if (static_cast<int>(starts.size()) <= max_chars) return std::string(s);
  // Increment the last character of the prefix; drop characters that cannot be incremented.
  for (int keep = max_chars; keep > 0; --keep) {
    size_t begin = starts[keep - 1];
    size_t end = starts[keep];
    int32_t cp = DecodeChar(s.substr(begin, end - begin));
    if (cp < 0) continue;
    int32_t next = cp + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next > 0x10FFFF) continue;
    std::string out(s.substr(0, begin));
    columnar::AppendUtf8(static_cast<uint32_t>(next), &out);
    return out;
  }
  return std::nullopt;
}

StatsCollector::StatsCollector(const columnar::Schema& schema, int num_indexed_cols)
    : schema_(schema) {
  int leaf = 0;
  int indexed_left = num_indexed_cols < 0 ? INT_MAX : num_indexed_cols;
  nodes_.resize(schema_.fields.size());
  for (size_t i = 0; i < schema_.fields.size(); ++i) {
    Build(schema_.fields[i], &nodes_[i], &leaf, &indexed_left);
  }
}

void StatsCollector::Build(const columnar::Field& field, Node* node, int* leaf, int* indexed_left) {
  node->field = &field;
  node->first_leaf = *leaf;
  if (field.type->id() == TypeId::kStruct) {
    const auto& children = field.type->children();
    node->children.resize(children.size());
    for (size_t i = 0; i < children.size(); ++i) {
      Build(children[i], &node->children[i], leaf, indexed_left);
      node->indexed = node->indexed || node->children[i].indexed;
    }
    return;
  }
  *leaf += ParquetLeafCount(*field.type);
  node->indexed = *indexed_left > 0;
  if (node->indexed) --*indexed_left;
}

void StatsCollector::Count(Node* node, const Column& column, const std::vector<uint8_t>* parent_null) {
  if (!node->indexed) return;
  std::vector<uint8_t> nulls;
  const std::vector<uint8_t>* child_parent = nullptr;
  if (parent_null == nullptr) {
    node->null_count += column.null_count();
    if (!node->children.empty() && column.null_count() > 0) {
      nulls.resize(column.size());
      for (int64_t i = 0; i < column.size(); ++i) nulls[i] = column.IsNull(i);
      child_parent = &nulls;
    }
  } else {
    nulls.resize(column.size());
    for (int64_t i = 0; i < column.size(); ++i) {
      nulls[i] = (*parent_null)[i] || column.IsNull(i);
      node->null_count += nulls[i];
    }
    child_parent = &nulls;
  }
  for (size_t i = 0; i < node->children.size(); ++i) {
    Count(&node->children[i], column.child(static_cast<int>(i)), child_parent);
  }
}

void StatsCollector::Update(const columnar::Batch& batch) {
  for (size_t i = 0; i < nodes_.size() && i < batch.columns.size(); ++i) {
    Count(&nodes_[i], batch.columns[i], nullptr);
  }
}

namespace {

enum class StatKind { kMin, kMax, kNullCount };

}  // namespace

std::string StatsCollector::ToJson(int64_t num_records,
                                   const std::vector<parquet::LeafStats>& leaf_stats) const {
  // Appends `"name":value` members of one of the three objects; returns whether any was written.
  std::function<bool(const std::vector<Node>&, StatKind, std::string*)> members =
      [&](const std::vector<Node>& nodes, StatKind kind, std::string* out) {
        bool any = false;
        for (const Node& n : nodes) {
          if (!n.indexed) continue;
          std::string value;
          if (!n.children.empty()) {
            std::string inner;
            if (!members(n.children, kind, &inner)) continue;
            value = "{" + inner + "}";
          } else if (kind == StatKind::kNullCount) {
            value = std::to_string(n.null_count);
          } else {
            if (n.field->type->is_nested()) continue;  // lists and maps: null counts only
            if (n.first_leaf >= static_cast<int>(leaf_stats.size())) continue;
            const parquet::LeafStats& ls = leaf_stats[n.first_leaf];
            if (!ls.has_min_max || ls.min_max.size() < 2) continue;
            if (!AppendStatValue(ls.min_max, kind == StatKind::kMax ? 1 : 0, kind == StatKind::kMax,
                                 &value)) {
              continue;
            }
          }
          if (any) out->push_back(',');
          columnar::AppendJsonString(n.field->name, out);
          out->push_back(':');
          out->append(value);
          any = true;
        }
        return any;
      };
  std::string out = "{\"numRecords\":" + std::to_string(num_records);
  std::string min, max, nulls;
  bool has_min = members(nodes_, StatKind::kMin, &min);
  bool has_max = members(nodes_, StatKind::kMax, &max);
  bool has_nulls = members(nodes_, StatKind::kNullCount, &nulls);
  if (has_min) out += ",\"minValues\":{" + min + "}";
  if (has_max) out += ",\"maxValues\":{" + max + "}";
  if (has_nulls) out += ",\"nullCount\":{" + nulls + "}";
  out += "}";
  return out;
}

}  // namespace weir::delta
