#include "cli/row_filter.h"

#include <chrono>

#include "sql/parser.h"

namespace weir::cli {

Result<RowFilter> RowFilter::Make(const std::string& where, const columnar::Schema& schema) {
  auto parsed = sql::ParseExpression(where);
  if (!parsed.ok()) return parsed.status().WithContext("--where");
  auto filter = expr::Filter::Make(**parsed, schema);
  if (!filter.ok()) return filter.status().WithContext("--where");
  RowFilter out(std::move(*filter));
  out.now_micros_ = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  return out;
}

Result<columnar::Batch> RowFilter::Apply(const columnar::Batch& batch) {
  context_.StartBatch(batch.num_rows(), now_micros_);
  return filter_.Apply(batch, context_);
}

Result<columnar::Batch> SelectColumns(const columnar::Batch& batch, const std::vector<std::string>& names) {
  columnar::Batch out;
  for (const auto& name : names) {
    int i = batch.schema.FieldIndex(name);
    if (i < 0) return Status::NotFound("no column '" + name + "' (columns: " + batch.schema.ToDdl() + ")");
    out.schema.fields.push_back(batch.schema.fields[i]);
    out.columns.push_back(batch.columns[i]);
  }
  out.num_rows_without_columns = batch.num_rows();
  return out;
}

}  // namespace weir::cli
