// Partition values (PROTOCOL.md "Partition Value Serialization") and partition directory names.
// Text forms written: integers in decimal; float/double as Java prints them ("1.0", "1.0E10",
// "NaN"); decimals with exactly `scale` fraction digits; booleans "true"/"false"; dates
// "YYYY-MM-DD"; timestamps as ISO-8601 UTC "YYYY-MM-DDTHH:MM:SS.ffffffZ" (the form the protocol
// recommends); timestamp_ntz "YYYY-MM-DD HH:MM:SS[.ffffff]"; strings and binary as their bytes.
// Null, and the empty string (which the protocol reads as null), are written as a JSON null.
// Parsing accepts every form the protocol allows. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "columnar/column.h"

namespace weir::delta {

// Spark's directory name for a null partition value.
inline constexpr std::string_view kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

// True for the types a partition column may have: every primitive type (not struct/list/map).
bool IsPartitionableType(const columnar::DataType& type);

// The text of row `row` of `column`, or nullopt for null (and for the empty string).
// InvalidArgument for binary values that are not valid UTF-8 (they cannot live in the JSON log).
Result<std::optional<std::string>> SerializePartitionValue(const columnar::Column& column,
                                                           int64_t row);

// Appends the typed value of `text` to `out` (nullopt or "" appends a null). InvalidArgument
// naming `column_name` when the text is not a value of out's type. A TIMESTAMP written without a
// zone ("2021-09-08 11:11:11", Spark's form in its session time zone) is taken as local time at
// `zoneless_utc_offset_seconds` east of UTC (0: UTC, the zone Databricks and weir write in).
Status AppendPartitionValue(const std::optional<std::string>& text, std::string_view column_name,
                            columnar::Column* out, int64_t zoneless_utc_offset_seconds = 0);

// Hive's escaping of a directory name component: control bytes and " # % ' * / : = ? \ { [ ] ^
// DEL become %XX (upper-case hex), as Spark writes partition directories.
std::string EscapePartitionPathComponent(std::string_view s);

// Java's Double.toString / Float.toString forms.
std::string FormatJavaDouble(double v);
std::string FormatJavaFloat(float v);

}  // namespace weir::delta
