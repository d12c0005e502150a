#include "delta/merge.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "columnar/json_lines.h"
#include "columnar/text_format.h"
#include "delta/partition_value.h"
#include "delta/scan.h"

namespace weir::delta {

using columnar::Batch;
using columnar::Column;
using columnar::Int128;
using columnar::TypeId;
using Json = nlohmann::json;

namespace {

// At most this many distinct source values of a key column are kept as an IN set for pruning
// (beyond it only the key's min/max prune).
constexpr size_t kMaxKeyValueSet = 64;

int FindField(const columnar::Schema& schema, const std::string& name) {
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (schema.fields[i].name == name) return i;
  }
  return schema.FieldIndex(name);
}

bool IsComparable(TypeId id) {
  return id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap;
}

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Orders two non-null values of columns of the same primitive type (floating NaN sorts last, as
// in Spark).
int CompareValues(const Column& a, int64_t i, const Column& b, int64_t j) {
  switch (a.type_id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8: return Cmp(a.Value<int8_t>(i), b.Value<int8_t>(j));
    case TypeId::kInt16: return Cmp(a.Value<int16_t>(i), b.Value<int16_t>(j));
    case TypeId::kInt32:
    case TypeId::kDate: return Cmp(a.Value<int32_t>(i), b.Value<int32_t>(j));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: return Cmp(a.Value<int64_t>(i), b.Value<int64_t>(j));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double x = a.type_id() == TypeId::kFloat ? a.Value<float>(i) : a.Value<double>(i);
      double y = a.type_id() == TypeId::kFloat ? b.Value<float>(j) : b.Value<double>(j);
      if (std::isnan(x) || std::isnan(y)) return Cmp(std::isnan(x), std::isnan(y));
      return Cmp(x, y);
    }
    case TypeId::kDecimal: return Cmp(a.Value<Int128>(i), b.Value<Int128>(j));
    case TypeId::kString:
    case TypeId::kBinary: {
      int c = a.StringAt(i).compare(b.StringAt(j));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: return 0;
  }
}

// Appends the bytes identifying a value for key equality; false for null. -0.0 equals 0.0 and
// every NaN equals every NaN (Spark's equality on normalized floating values).
bool AppendKeyBytes(const Column& c, int64_t row, std::string* out) {
  if (c.IsNull(row)) return false;
  switch (c.type_id()) {
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double v = c.type_id() == TypeId::kFloat ? c.Value<float>(row) : c.Value<double>(row);
      if (v == 0) v = 0;
      if (std::isnan(v)) v = std::nan("");
      char bytes[sizeof(double)];
      std::memcpy(bytes, &v, sizeof(v));
      out->append(bytes, sizeof(bytes));
      return true;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view s = c.StringAt(row);
      uint64_t n = s.size();
      char bytes[sizeof(n)];
      std::memcpy(bytes, &n, sizeof(n));
      out->append(bytes, sizeof(bytes));
      out->append(s);
      return true;
    }
    default: {
      int width = c.type()->byte_width();
      out->append(reinterpret_cast<const char*>(c.values<uint8_t>()) + row * width, width);
      return true;
    }
  }
}

// The key of row `row` over `fields`; false when a key column is null (such rows never match).
// With `nulls_equal`, nulls are encoded too (deduplication treats them as equal, like Spark's
// dropDuplicates) and the result is always true.
bool RowKey(const Batch& batch, const std::vector<int>& fields, int64_t row, bool nulls_equal,
            std::string* key) {
  key->clear();
  for (int f : fields) {
    // A marker byte before each value keeps the encoding unambiguous: 1 = a value follows.
    key->push_back('\1');
    if (!AppendKeyBytes(batch.columns[f], row, key)) {
      if (!nulls_equal) return false;
      key->back() = '\0';
    }
  }
  return true;
}

// Appends the typed value of `text` (a condition value or a statistic) to `out`. Strings are
// taken verbatim (the empty string is a value here, not null).
Status AppendConditionValue(const std::string& text, const std::string& column, Column* out) {
  if (out->type_id() == TypeId::kString) {
    out->AppendString(text);
    return Status::OK();
  }
  if (text.empty()) {
    return Status::InvalidArgument("an empty value is not a valid " + out->type()->ToDdl() +
                                   " for column '" + column + "'");
  }
  Status st = AppendPartitionValue(text, column, out);
  if (!st.ok()) {
    return Status::InvalidArgument("merge condition value '" + text + "' is not a valid " +
                                   out->type()->ToDdl() + " for column '" + column + "'");
  }
  return Status::OK();
}

std::string SqlLiteral(const std::optional<std::string>& v) {
  if (!v) return "NULL";
  std::string out = "'";
  for (char c : *v) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// One column's admissible values, typed: the parsed form of a ColumnCondition, or the range and
// value set of a source key column.
struct Bound {
  int field = -1;
  std::string name;      // as in the table schema
  bool partition = false;
  columnar::TypePtr type;
  std::optional<Column> min, max;  // one value each when set
  std::optional<Column> in;        // the non-null values of an IN set
  bool in_null = false;            // NULL is admitted (only with an IN set)

  bool Admits(const Column& c, int64_t row) const {
    if (c.IsNull(row)) return in && in_null;
    if (min && CompareValues(c, row, *min, 0) < 0) return false;
    if (max && CompareValues(c, row, *max, 0) > 0) return false;
    if (in) {
      for (int64_t k = 0; k < in->size(); ++k) {
        if (CompareValues(c, row, *in, k) == 0) return true;
      }
      return false;
    }
    return true;
  }
  // Whether a non-null value within [lo, hi] (from statistics; either may be absent) may be
  // admitted.
  bool Overlaps(const std::optional<Column>& lo, const std::optional<Column>& hi) const {
    if (max && lo && CompareValues(*lo, 0, *max, 0) > 0) return false;
    if (min && hi && CompareValues(*hi, 0, *min, 0) < 0) return false;
    if (in) {
      for (int64_t k = 0; k < in->size(); ++k) {
        if (lo && CompareValues(*in, k, *lo, 0) < 0) continue;
        if (hi && CompareValues(*in, k, *hi, 0) > 0) continue;
        if (min && CompareValues(*in, k, *min, 0) < 0) continue;
        if (max && CompareValues(*in, k, *max, 0) > 0) continue;
        return true;
      }
      return false;
    }
    return true;
  }
};

// The typed form of a statistic (JSON number or string) for a column, or nullopt when it cannot
// be used (unparseable, or a decimal beyond double precision).
std::optional<Column> StatValue(const Json& v, const Bound& bound, bool is_max) {
  Column c(bound.type);
  std::string text;
  if (v.is_string()) {
    text = v.get<std::string>();
  } else if (v.is_number_integer()) {
    text = v.dump();
  } else if (v.is_number_float()) {
    // JSON numbers arrive as doubles: exact enough only for decimals of up to 15 digits.
    if (bound.type->id() == TypeId::kDecimal && bound.type->precision() > 15) return std::nullopt;
    text = v.dump();
  } else {
    return std::nullopt;
  }
  if (!AppendConditionValue(text, bound.name, &c).ok()) return std::nullopt;
  // Timestamp statistics are truncated to milliseconds: widen by one ms on either side.
  if (c.type_id() == TypeId::kTimestamp || c.type_id() == TypeId::kTimestampNtz) {
    c.mutable_values<int64_t>()[0] += is_max ? 1000 : -1000;
  }
  return c;
}

const Json* StatsField(const Json& stats, const char* kind, const std::string& name) {
  auto it = stats.find(kind);
  if (it == stats.end() || !it->is_object()) return nullptr;
  auto f = it->find(name);
  if (f == it->end()) {
    for (auto k = it->begin(); k != it->end(); ++k) {
      if (columnar::EqualsIgnoreAsciiCase(k.key(), name)) return &*k;
    }
    return nullptr;
  }
  return &*f;
}

}  // namespace

std::string ColumnCondition::ToSql() const {
  std::vector<std::string> parts;
  if (min && max && *min == *max) {
    parts.push_back(column + " = " + SqlLiteral(min));
  } else {
    if (min) parts.push_back(column + " >= " + SqlLiteral(min));
    if (max) parts.push_back(column + " <= " + SqlLiteral(max));
  }
  if (in) {
    std::string list;
    for (const auto& v : *in) list += (list.empty() ? "" : ", ") + SqlLiteral(v);
    parts.push_back(column + " IN (" + list + ")");
  }
  if (parts.empty()) parts.push_back(column + " IS NOT NULL");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " AND ") + p;
  return out;
}

namespace {

// What the merge reads of the target: rows satisfying the prune bounds whose keys lie within the
// source's key bounds. Shared with the transaction's read predicate (immutable once built).
class MergeReadFilter {
 public:
  bool nothing = false;        // no source row can match (every one has a null key)
  std::vector<Bound> prune;    // row and file level
  std::vector<Bound> keys;     // file level only (rows are matched by key equality)

  bool RowSatisfiesPrune(const Batch& batch, int64_t row) const {
    for (const Bound& b : prune) {
      if (!b.Admits(batch.columns[b.field], row)) return false;
    }
    return true;
  }

  bool MayMatchFile(const AddFile& add) const {
    if (nothing) return false;
    std::optional<Json> stats;
    bool stats_parsed = false;
    for (const auto* list : {&prune, &keys}) {
      for (const Bound& b : *list) {
        if (b.partition) {
          const std::optional<std::string>* value = nullptr;
          for (const auto& [k, v] : add.partition_values) {
            if (columnar::EqualsIgnoreAsciiCase(k, b.name)) value = &v;
          }
          if (value == nullptr) continue;  // unknown: may match
          Column c(b.type);
          if (!AppendPartitionValue(*value, b.name, &c).ok()) continue;
          if (!b.Admits(c, 0)) return false;
          continue;
        }
        if (!stats_parsed) {
          stats_parsed = true;
          if (add.stats) {
            Json j = Json::parse(*add.stats, nullptr, false);
            if (j.is_object()) stats = std::move(j);
          }
        }
        if (!stats) return true;  // no statistics: the file may hold anything
        auto records = stats->find("numRecords");
        const Json* nulls = StatsField(*stats, "nullCount", b.name);
        if (records != stats->end() && records->is_number_integer() && nulls &&
            nulls->is_number_integer() && *nulls == *records) {
          if (!(b.in && b.in_null)) return false;  // every value is null
          continue;
        }
        if (b.in && b.in_null) continue;  // a null may match, whatever the range
        std::optional<Column> lo, hi;
        if (const Json* v = StatsField(*stats, "minValues", b.name)) lo = StatValue(*v, b, false);
        if (const Json* v = StatsField(*stats, "maxValues", b.name)) hi = StatValue(*v, b, true);
        if (!b.Overlaps(lo, hi)) return false;
      }
    }
    return true;
  }

  std::string Describe() const {
    if (nothing) return "no target row";
    std::string out;
    for (const auto* list : {&keys, &prune}) {
      for (const Bound& b : *list) {
        std::string part;
        auto text = [&](const Column& c, int64_t row) {
          std::string s;
          columnar::AppendTextValue(c, row, &s);
          return "'" + s + "'";
        };
        if (b.min) part += b.name + " >= " + text(*b.min, 0);
        if (b.max) part += (part.empty() ? "" : " AND ") + b.name + " <= " + text(*b.max, 0);
        if (b.in) {
          std::string list = b.in_null ? "NULL" : "";
          for (int64_t k = 0; k < b.in->size(); ++k) {
            list += (list.empty() ? "" : ", ") + text(*b.in, k);
          }
          part += (part.empty() ? "" : " AND ") + b.name + " IN (" + list + ")";
        }
        if (!part.empty()) out += (out.empty() ? "" : " AND ") + part;
      }
    }
    return out.empty() ? "every target row" : out;
  }
};

bool IsPartitionColumn(const Snapshot& snapshot, const std::string& name) {
  for (const std::string& p : snapshot.partition_columns()) {
    if (columnar::EqualsIgnoreAsciiCase(p, name)) return true;
  }
  return false;
}

Result<Bound> ConditionBound(const Snapshot& snapshot, const ColumnCondition& condition) {
  const columnar::Schema& schema = snapshot.schema();
  Bound b;
  b.field = FindField(schema, condition.column);
  if (b.field < 0) {
    return Status::InvalidArgument("merge condition column '" + condition.column +
                                   "' is not a column of Delta table " + snapshot.table_root() +
                                   " (" + schema.ToDdl() + ")");
  }
  b.name = schema.fields[b.field].name;
  b.type = schema.fields[b.field].type;
  if (!IsComparable(b.type->id())) {
    return Status::InvalidArgument("merge condition column '" + b.name + "' has the type " +
                                   b.type->ToDdl() + "; only primitive columns can be compared");
  }
  b.partition = IsPartitionColumn(snapshot, b.name);
  if (condition.min) {
    b.min.emplace(b.type);
    WEIR_RETURN_NOT_OK(AppendConditionValue(*condition.min, b.name, &*b.min));
  }
  if (condition.max) {
    b.max.emplace(b.type);
    WEIR_RETURN_NOT_OK(AppendConditionValue(*condition.max, b.name, &*b.max));
  }
  if (condition.in) {
    b.in.emplace(b.type);
    for (const auto& v : *condition.in) {
      if (!v) {
        b.in_null = true;
        continue;
      }
      WEIR_RETURN_NOT_OK(AppendConditionValue(*v, b.name, &*b.in));
    }
  }
  return b;
}

std::string JsonText(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace

PreparedMerge::~PreparedMerge() = default;  // an uncommitted transaction deletes its files

Result<std::unique_ptr<PreparedMerge>> PreparedMerge::Prepare(std::shared_ptr<const Snapshot> target,
                                                              const Batch& source_in,
                                                              MergeOptions options) {
  WEIR_RETURN_NOT_OK(target->CheckHasFiles("MERGE"));
  std::unique_ptr<PreparedMerge> merge(new PreparedMerge());
  MergeMetrics& metrics = merge->result_.metrics;
  const Snapshot& snapshot = *target;
  const columnar::Schema& schema = snapshot.schema();
  const std::string& root = snapshot.table_root();
  WEIR_RETURN_NOT_OK(snapshot.CheckWritable());
  metrics.num_source_rows = source_in.num_rows();
  metrics.num_target_files_before_skipping = snapshot.num_files();
  merge->transaction_ = std::make_unique<Transaction>(target);
  Transaction& txn = *merge->transaction_;

  if (options.txn) {
    auto done = snapshot.TxnVersion(options.txn->app_id);
    if (done && *done >= options.txn->version) {
      merge->result_.already_committed = true;
      merge->result_.commit.version = snapshot.version();
      merge->result_.commit.already_committed = true;
      merge->result_.commit.snapshot = target;
      return merge;
    }
    WEIR_RETURN_NOT_OK(txn.SetTxn(options.txn->app_id, options.txn->version));
    merge->has_txn_ = true;
  }

  // Keys.
  if (options.keys.empty()) {
    return Status::InvalidArgument("a merge into Delta table " + root + " needs at least one key column");
  }
  std::vector<int> key_fields;
  for (const std::string& k : options.keys) {
    int f = FindField(schema, k);
    if (f < 0) {
      return Status::InvalidArgument("merge key '" + k + "' is not a column of Delta table " + root +
                                     " (" + schema.ToDdl() + ")");
    }
    if (!IsComparable(schema.fields[f].type->id())) {
      return Status::InvalidArgument("merge key '" + k + "' has the type " +
                                     schema.fields[f].type->ToDdl() + "; keys must be primitive");
    }
    key_fields.push_back(f);
  }

  // The source, as columns of the table in table order.
  for (const auto& f : source_in.schema.fields) {
    if (FindField(schema, f.name) < 0) {
      return Status::InvalidArgument("merge source column '" + f.name +
                                     "' is not a column of Delta table " + root + " (" +
                                     schema.ToDdl() + ")");
    }
  }
  Batch source_all(schema);
  for (int i = 0; i < schema.num_fields(); ++i) {
    int s = FindField(source_in.schema, schema.fields[i].name);
    if (s < 0) {
      return Status::InvalidArgument("the merge source has no column '" + schema.fields[i].name +
                                     "' of Delta table " + root + "; give every column");
    }
    if (!source_in.schema.fields[s].type->EqualsIgnoringNullability(*schema.fields[i].type)) {
      return Status::InvalidArgument("merge source column '" + schema.fields[i].name + "' is " +
                                     source_in.schema.fields[s].type->ToDdl() + "; Delta table " +
                                     root + " has " + schema.fields[i].type->ToDdl());
    }
    source_all.columns[i] = source_in.columns[s];
  }

  // Deduplicate on the keys: the last occurrence wins (nulls equal, like dropDuplicates).
  std::unordered_map<std::string, int64_t> last;
  std::string key;
  for (int64_t r = 0; r < source_all.num_rows(); ++r) {
    RowKey(source_all, key_fields, r, /*nulls_equal=*/true, &key);
    last[key] = r;
  }
  Batch source(schema);
  for (int64_t r = 0; r < source_all.num_rows(); ++r) {
    RowKey(source_all, key_fields, r, /*nulls_equal=*/true, &key);
    if (last[key] != r) continue;
    for (int i = 0; i < schema.num_fields(); ++i) source.columns[i].AppendFrom(source_all.columns[i], r);
  }
  metrics.num_source_duplicates = source_all.num_rows() - source.num_rows();
  // Source rows that can match (no null key), by key.
  std::unordered_map<std::string, int64_t> by_key;
  for (int64_t r = 0; r < source.num_rows(); ++r) {
    if (RowKey(source, key_fields, r, /*nulls_equal=*/false, &key)) by_key.emplace(key, r);
  }

  // What the merge reads: the prune conditions and the source's key bounds.
  auto filter = std::make_shared<MergeReadFilter>();
  for (const ColumnCondition& c : options.prune) {
    WEIR_ASSIGN_OR_RETURN(Bound b, ConditionBound(snapshot, c));
    filter->prune.push_back(std::move(b));
  }
  filter->nothing = by_key.empty();
  if (options.prune_by_source_keys && !by_key.empty()) {
    for (int f : key_fields) {
      const Column& c = source.columns[f];
      Bound b;
      b.field = f;
      b.name = schema.fields[f].name;
      b.type = schema.fields[f].type;
      b.partition = IsPartitionColumn(snapshot, b.name);
      int64_t lo = -1, hi = -1;
      Column distinct(b.type);
      bool too_many = false;
      for (const auto& [k, r] : by_key) {
        if (lo < 0 || CompareValues(c, r, c, lo) < 0) lo = r;
        if (hi < 0 || CompareValues(c, r, c, hi) > 0) hi = r;
        if (too_many) continue;
        bool seen = false;
        for (int64_t d = 0; d < distinct.size() && !seen; ++d) seen = CompareValues(c, r, distinct, d) == 0;
        if (!seen) {
          if (static_cast<size_t>(distinct.size()) >= kMaxKeyValueSet) {
            too_many = true;
          } else {
            distinct.AppendFrom(c, r);
          }
        }
      }
      b.min.emplace(b.type);
      b.min->AppendFrom(c, lo);
      b.max.emplace(b.type);
      b.max->AppendFrom(c, hi);
      if (!too_many) b.in = std::move(distinct);
      filter->keys.push_back(std::move(b));
    }
  }

  // Candidate files, read in full; matches found by key.
  std::vector<std::shared_ptr<const AddFile>> candidates;
  for (const auto& [k, add] : snapshot.files()) {
    if (filter->MayMatchFile(*add)) candidates.push_back(add);
  }
  metrics.num_target_files_scanned = static_cast<int64_t>(candidates.size());
  txn.AddReadPredicate(ReadPredicate{filter->Describe(), [filter](const AddFile& add) {
                                       return filter->MayMatchFile(add);
                                     }});

  auto writer = [&]() -> Result<DataFileWriter*> {
    if (!merge->writer_) {
      WEIR_ASSIGN_OR_RETURN(merge->writer_, txn.NewDataFileWriter(options.writer));
    }
    return merge->writer_;
  };
  std::vector<bool> matched(source.num_rows(), false);
  std::unique_ptr<TableScan> scan;
  if (!candidates.empty()) {
    WEIR_ASSIGN_OR_RETURN(scan, TableScan::Make(target));
  }
  const int64_t now = NowMillis();
  for (const auto& add : candidates) {
    txn.MarkFileRead(*add);
    WEIR_ASSIGN_OR_RETURN(Batch rows, scan->ReadFile(*add));
    std::vector<int64_t> update(rows.num_rows(), -1);
    int64_t updated = 0;
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      if (!filter->RowSatisfiesPrune(rows, r)) continue;
      if (!RowKey(rows, key_fields, r, /*nulls_equal=*/false, &key)) continue;
      auto it = by_key.find(key);
      if (it == by_key.end()) continue;
      int64_t s = it->second;
      matched[s] = true;
      if (options.when_matched_update &&
          (!options.matched_condition || options.matched_condition(rows, r, source, s))) {
        update[r] = s;
        ++updated;
      } else {
        ++metrics.num_target_rows_matched_not_updated;
      }
    }
    if (updated == 0) continue;
    // Copy-on-write: the file is replaced by its rows with the updated ones from the source.
    Batch out(rows.schema);
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      const Batch& from = update[r] >= 0 ? source : rows;
      int64_t row = update[r] >= 0 ? update[r] : r;
      for (int i = 0; i < schema.num_fields(); ++i) out.columns[i].AppendFrom(from.columns[i], row);
    }
    WEIR_ASSIGN_OR_RETURN(DataFileWriter * w, writer());
    WEIR_RETURN_NOT_OK(w->Write(out));
    txn.RemoveFile(MakeRemove(*add, now, /*data_change=*/true));
    metrics.num_target_rows_updated += updated;
    metrics.num_target_rows_copied += rows.num_rows() - updated;
    ++metrics.num_target_files_removed;
    metrics.num_target_bytes_removed += add->size;
  }

  // WHEN NOT MATCHED THEN INSERT *.
  Batch inserts(schema);
  for (int64_t r = 0; r < source.num_rows(); ++r) {
    if (matched[r]) continue;
    for (int i = 0; i < schema.num_fields(); ++i) inserts.columns[i].AppendFrom(source.columns[i], r);
  }
  metrics.num_target_rows_inserted = inserts.num_rows();
  if (inserts.num_rows() > 0) {
    WEIR_ASSIGN_OR_RETURN(DataFileWriter * w, writer());
    WEIR_RETURN_NOT_OK(w->Write(inserts));
  }
  WEIR_RETURN_NOT_OK(txn.FinishDataFiles());
  metrics.num_target_files_added = static_cast<int64_t>(txn.adds().size());
  for (const AddFile& a : txn.adds()) metrics.num_target_bytes_added += a.size;
  merge->has_changes_ = !txn.adds().empty() || !txn.removes().empty();

  // commitInfo: operation MERGE, its predicates and metrics, as Delta writes them.
  std::string predicate;
  for (int f : key_fields) {
    const std::string& n = schema.fields[f].name;
    predicate += (predicate.empty() ? "" : " AND ") + ("t." + n + " = s." + n);
  }
  for (ColumnCondition c : options.prune) {
    c.column = "t." + c.column;
    predicate += " AND " + c.ToSql();
  }
  Json matched_predicates = Json::array();
  if (options.when_matched_update) {
    Json m = {{"actionType", "update"}};
    if (options.matched_condition) {
      m["predicate"] = options.matched_condition_sql.empty() ? "<condition>"
                                                             : options.matched_condition_sql;
    }
    matched_predicates.push_back(m);
  }
  Json not_matched = Json::array({Json{{"actionType", "insert"}}});
  txn.SetOperation("MERGE", {{"predicate", JsonText(Json::array({"(" + predicate + ")"}))},
                             {"matchedPredicates", JsonText(matched_predicates)},
                             {"notMatchedPredicates", JsonText(not_matched)},
                             {"notMatchedBySourcePredicates", "[]"}});
  auto n = [](int64_t v) { return std::to_string(v); };
  txn.SetOperationMetrics(
      {{"numSourceRows", n(metrics.num_source_rows)},
       {"numSourceRowsDeduplicated", n(metrics.num_source_duplicates)},
       {"numTargetRowsInserted", n(metrics.num_target_rows_inserted)},
       {"numTargetRowsUpdated", n(metrics.num_target_rows_updated)},
       {"numTargetRowsMatchedUpdated", n(metrics.num_target_rows_updated)},
       {"numTargetRowsDeleted", "0"},
       {"numTargetRowsCopied", n(metrics.num_target_rows_copied)},
       {"numOutputRows", n(metrics.num_target_rows_inserted + metrics.num_target_rows_updated +
                           metrics.num_target_rows_copied)},
       {"numTargetFilesBeforeSkipping", n(metrics.num_target_files_before_skipping)},
       {"numTargetFilesAfterSkipping", n(metrics.num_target_files_scanned)},
       {"numTargetFilesAdded", n(metrics.num_target_files_added)},
       {"numTargetFilesRemoved", n(metrics.num_target_files_removed)},
       {"numTargetBytesAdded", n(metrics.num_target_bytes_added)},
       {"numTargetBytesRemoved", n(metrics.num_target_bytes_removed)}});
  txn.SetCommitterOptions(options.committer);
  return merge;
}

Result<MergeResult> PreparedMerge::Commit() {
  if (finished_) return Status::InvalidArgument("a PreparedMerge can be committed only once");
  finished_ = true;
  if (result_.already_committed) return result_;
  if (!has_changes_ && !has_txn_) {  // nothing to record: the table stays as it is
    result_.commit.version = transaction_->read_version();
    result_.commit.snapshot = transaction_->read_snapshot();
    return result_;
  }
  WEIR_ASSIGN_OR_RETURN(result_.commit, transaction_->Commit());  // the files' rule applied
  if (result_.commit.already_committed) {
    result_.already_committed = true;
  } else {
    result_.committed = true;
  }
  return result_;
}

Result<MergeResult> MergeInto(std::shared_ptr<const Snapshot> target, const Batch& source,
                              MergeOptions options) {
  WEIR_ASSIGN_OR_RETURN(auto merge, PreparedMerge::Prepare(std::move(target), source, std::move(options)));
  return merge->Commit();
}

}  // namespace weir::delta
