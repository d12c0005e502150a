// Row output for `cat`/`scan` commands: JSON lines, CSV or an aligned text table, in weir's JSON
// conventions (columnar/json_lines.h). Streams batch by batch; `table` buffers up to its row limit.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"

namespace weir::cli {

class RowPrinter {
 public:
  // format: "jsonl", "csv" or "table". InvalidArgument for anything else.
  static Result<RowPrinter> Make(const std::string& format, FILE* out);
  // Prints up to `limit` rows in total across calls (limit < 0: no limit). Returns false once the
  // limit is reached.
  bool Print(const columnar::Batch& batch, int64_t limit);
  void Finish();  // the table format prints here
  int64_t rows_printed() const { return rows_; }

 private:
  std::string format_;
  FILE* out_ = stdout;
  int64_t rows_ = 0;
  bool header_done_ = false;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> table_;
};

}  // namespace weir::cli
