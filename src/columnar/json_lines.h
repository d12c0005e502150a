// Rows as JSON, in weir's conventions (shared by `weir parquet cat`, `weir table scan`, `weir kafka
// read`): numbers as JSON numbers except int64 beyond +-2^53 as strings; decimals as strings with
// exactly `scale` fraction digits; float/double NaN and infinities as "NaN", "Infinity",
// "-Infinity"; timestamps as ISO-8601 UTC with 6 fraction digits and Z; dates "YYYY-MM-DD"; binary
// as base64; structs as objects; lists as arrays; maps as objects with keys in their text form.
#pragma once

#include <string>

#include "columnar/column.h"

namespace weir::columnar {

void AppendJsonValue(const Column& column, int64_t row, std::string* out);
// {"name": value, ...} for one row, without a trailing newline.
void AppendJsonRow(const Batch& batch, int64_t row, std::string* out);
// The value's text form without JSON quoting (for CSV cells, table output, map keys).
void AppendTextValue(const Column& column, int64_t row, std::string* out);

}  // namespace weir::columnar
