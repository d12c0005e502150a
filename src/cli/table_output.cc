#include "cli/table_output.h"

#include <algorithm>

#include "columnar/json_lines.h"

namespace weir::cli {

namespace {

std::string CsvCell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Result<RowPrinter> RowPrinter::Make(const std::string& format, FILE* out) {
  if (format != "jsonl" && format != "csv" && format != "table") {
    return Status::InvalidArgument("--format must be jsonl, csv or table, not '" + format + "'");
  }
  RowPrinter p;
  p.format_ = format;
  p.out_ = out;
  return p;
}

bool RowPrinter::Print(const columnar::Batch& batch, int64_t limit) {
  std::string line;
  if (!header_done_) {
    header_done_ = true;
    for (const auto& f : batch.schema.fields) header_.push_back(f.name);
    if (format_ == "csv") {
      for (size_t i = 0; i < header_.size(); ++i) line += (i ? "," : "") + CsvCell(header_[i]);
      line += "\n";
      std::fputs(line.c_str(), out_);
    }
  }
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    if (limit >= 0 && rows_ >= limit) return false;
    ++rows_;
    line.clear();
    if (format_ == "jsonl") {
      columnar::AppendJsonRow(batch, r, &line);
      line += '\n';
      std::fwrite(line.data(), 1, line.size(), out_);
      continue;
    }
    std::vector<std::string> cells;
    for (const auto& column : batch.columns) {
      std::string cell;
      if (column.IsNull(r)) {
        cell = format_ == "table" ? "NULL" : "";
      } else {
        columnar::AppendTextValue(column, r, &cell);
      }
      cells.push_back(std::move(cell));
    }
    if (format_ == "csv") {
      for (size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + CsvCell(cells[i]);
      line += '\n';
      std::fwrite(line.data(), 1, line.size(), out_);
    } else {
      table_.push_back(std::move(cells));
    }
  }
  return limit < 0 || rows_ < limit;
}

void RowPrinter::Finish() {
  if (format_ != "table") return;
  constexpr size_t kMaxWidth = 40;
  std::vector<size_t> widths;
  for (const auto& h : header_) widths.push_back(std::min(h.size(), kMaxWidth));
  for (const auto& row : table_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], std::min(row[i].size(), kMaxWidth));
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      std::string cell = cells[i];
      for (char& c : cell) if (c == '\n' || c == '\t') c = ' ';
      if (cell.size() > kMaxWidth) cell = cell.substr(0, kMaxWidth - 3) + "...";
      cell.resize(widths[i], ' ');
      line += (i ? " | " : "") + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::fprintf(out_, "%s\n", line.c_str());
  };
  print_row(header_);
  std::string rule;
  for (size_t i = 0; i < widths.size(); ++i) rule += (i ? "-+-" : "") + std::string(widths[i], '-');
  std::fprintf(out_, "%s\n", rule.c_str());
  for (const auto& row : table_) print_row(row);
  std::fprintf(out_, "(%lld rows)\n", static_cast<long long>(rows_));
}

}  // namespace weir::cli
