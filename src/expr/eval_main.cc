// weir_expr_eval: evaluates SQL expressions over rows given as JSON lines and prints the results as
// JSON lines (weir's conventions, columnar/json_lines.h), for tests that compare weir's expression
// results with another engine's (tests/expr_duckdb_test.sh).
//   weir_expr_eval --schema 'a INT, s STRING' --data rows.jsonl --expr 'a + 1' [--expr ...]
//                  [--types-out FILE]
// Each output row is {"c0": <first expression>, "c1": ...}; --types-out writes each output
// column's type, one "c0<TAB>DECIMAL(12,2)" line per column. Input values: JSON numbers, booleans
// and strings; decimals as numbers or strings, dates "YYYY-MM-DD", timestamps ISO-8601 (UTC unless
// an offset is given), binary as base64; missing fields are NULL. Errors go to stderr with exit
// status 1 (2 for a usage error).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "columnar/json_lines.h"
#include "columnar/text_format.h"
#include "columnar/types.h"
#include "expr/projection.h"
#include "sql/parser.h"

namespace weir::expr {
namespace {

using columnar::Column;
using columnar::TypeId;

struct Options {
  std::string schema;
  std::string data;
  std::vector<std::string> expressions;
  std::string types_out;  // "" when not asked for
};

constexpr char kUsage[] =
    "usage: weir_expr_eval --schema 'a INT, s STRING' --data rows.jsonl --expr EXPR "
    "[--expr EXPR ...] [--types-out FILE]\n";

Status AppendJsonValue(const nlohmann::json& v, Column* column) {
  if (v.is_null()) {
    column->AppendNull();
    return Status::OK();
  }
  const columnar::DataType& type = *column->type();
  auto bad = [&] {
    return Status::InvalidArgument("JSON value " + v.dump() + " does not fit " + type.ToDdl());
  };
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  switch (type.id()) {
    case TypeId::kBoolean:
      if (!v.is_boolean()) return bad();
      column->Append<uint8_t>(v.get<bool>() ? 1 : 0);
      return Status::OK();
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int64_t x = 0;
      if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) {
        return bad();
      } else if (v.is_number_integer()) {
        x = v.get<int64_t>();
      } else if (v.is_string()) {
        size_t used = 0;
        try {
          x = std::stoll(text, &used);
        } catch (...) {
          return bad();
        }
        if (used != text.size()) return bad();
      } else {
        return bad();
      }
      int bits = type.byte_width() * 8;
      if (bits < 64 && (x < -(int64_t{1} << (bits - 1)) || x >= (int64_t{1} << (bits - 1)))) {
        return bad();
      }
      if (type.id() == TypeId::kInt8) column->Append<int8_t>(static_cast<int8_t>(x));
      if (type.id() == TypeId::kInt16) column->Append<int16_t>(static_cast<int16_t>(x));
      if (type.id() == TypeId::kInt32) column->Append<int32_t>(static_cast<int32_t>(x));
      if (type.id() == TypeId::kInt64) column->Append<int64_t>(x);
      return Status::OK();
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      if (!v.is_number()) return bad();
      double d = v.get<double>();
      if (type.id() == TypeId::kFloat) {
        column->Append<float>(static_cast<float>(d));
      } else {
        column->Append<double>(d);
      }
      return Status::OK();
    }
    case TypeId::kDecimal: {
      auto d = columnar::ParseDecimal(text, type.precision(), type.scale());
      if (!d) return bad();
      column->Append<columnar::Int128>(*d);
      return Status::OK();
    }
    case TypeId::kString:
      if (!v.is_string()) return bad();
      column->AppendString(text);
      return Status::OK();
    case TypeId::kBinary: {
      auto bytes = v.is_string() ? columnar::DecodeBase64(text) : std::nullopt;
      if (!bytes) return bad();
      column->AppendString(*bytes);
      return Status::OK();
    }
    case TypeId::kDate: {
      auto d = v.is_string() ? columnar::ParseDate(text) : std::nullopt;
      if (!d) return bad();
      column->Append<int32_t>(*d);
      return Status::OK();
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      auto t = v.is_string() ? columnar::ParseTimestamp(text) : std::nullopt;
      if (!t) return bad();
      column->Append<int64_t>(*t);
      return Status::OK();
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      break;
  }
  return Status::NotImplemented("weir_expr_eval reads only scalar columns, not " + type.ToDdl());
}

Result<columnar::Batch> ReadRows(const columnar::Schema& schema, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot open the data file " + path);
  columnar::Batch batch(schema);
  std::string line;
  int64_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = [&] { return path + ":" + std::to_string(line_number) + ": "; };
    nlohmann::json row = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!row.is_object()) return Status::InvalidArgument(where() + "not a JSON object");
    for (int i = 0; i < schema.num_fields(); ++i) {
      auto it = row.find(schema.fields[i].name);
      Status st = AppendJsonValue(it == row.end() ? nlohmann::json() : *it, &batch.columns[i]);
      if (!st.ok()) return Status::InvalidArgument(where() + st.message());
    }
  }
  return batch;
}

Status Run(const Options& options) {
  WEIR_ASSIGN_OR_RETURN(columnar::Schema schema, columnar::ParseDdlSchema(options.schema));
  WEIR_ASSIGN_OR_RETURN(columnar::Batch input, ReadRows(schema, options.data));
  std::string query = "SELECT ";
  for (size_t i = 0; i < options.expressions.size(); ++i) {
    if (i > 0) query += ",\n  ";
    query += "(" + options.expressions[i] + ") AS c" + std::to_string(i);
  }
  query += "\nFROM t";
  WEIR_ASSIGN_OR_RETURN(sql::Query parsed, sql::ParseQuery(query));
  WEIR_ASSIGN_OR_RETURN(Projection projection, Projection::Make(parsed.select_list, schema));
  if (!options.types_out.empty()) {
    std::ofstream types(options.types_out);
    for (const columnar::Field& field : projection.output_schema().fields) {
      types << field.name << '\t' << field.type->ToDdl() << '\n';
    }
    if (!types.flush()) return Status::IOError("cannot write the types file " + options.types_out);
  }
  EvalContext context;
  context.StartBatch(input.num_rows(), 0);
  WEIR_ASSIGN_OR_RETURN(columnar::Batch output, projection.Evaluate(input, context));
  std::string out;
  for (int64_t r = 0; r < output.num_rows(); ++r) {
    out.clear();
    columnar::AppendJsonRow(output, r, &out);
    out += '\n';
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return Status::OK();
}

}  // namespace
}  // namespace weir::expr

int main(int argc, char** argv) {
  weir::expr::Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "weir_expr_eval: %s needs a value\n%s", flag.c_str(), weir::expr::kUsage);
      return 2;
    }
    std::string value = argv[++i];
    if (flag == "--schema") {
      options.schema = value;
    } else if (flag == "--data") {
      options.data = value;
    } else if (flag == "--expr") {
      options.expressions.push_back(value);
    } else if (flag == "--types-out") {
      options.types_out = value;
    } else {
      std::fprintf(stderr, "weir_expr_eval: unknown flag %s\n%s", flag.c_str(), weir::expr::kUsage);
      return 2;
    }
  }
  if (options.schema.empty() || options.data.empty() || options.expressions.empty()) {
    std::fprintf(stderr, "%s", weir::expr::kUsage);
    return 2;
  }
  weir::Status st = weir::expr::Run(options);
  if (!st.ok()) {
    std::fprintf(stderr, "weir_expr_eval: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
