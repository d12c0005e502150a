// libFuzzer target for the JSON functions over untrusted payloads: the input is split at '\n'
// into the rows of one batch (so rows are parsed one after another into the same columns, as
// from a Kafka batch); each row is also a get_json_object path for the next row. Every row goes
// through from_json with a nested schema of every type (and a corrupt-record column, and again
// in FAILFAST mode), with ARRAY and MAP schemas, through get_json_object with fixed and
// fuzzed paths, and through Databricks' raw:path. Each result is printed (CAST to STRING), which
// walks the built columns: a crash, sanitizer report, hang or malformed column is a bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "columnar/types.h"
#include "expr/binder.h"
#include "expr/cast.h"
#include "expr/evaluator.h"
#include "expr/functions.h"
#include "sql/parser.h"

namespace weir::fuzz {
namespace {

constexpr const char* kExpressions[] = {
    "from_json(raw, 'b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, f FLOAT, "
    "d DOUBLE, dec DECIMAL(18,2), big DECIMAL(38,10), s STRING, bin BINARY, dt DATE, "
    "ts TIMESTAMP, ntz TIMESTAMP_NTZ, arr ARRAY<INT>, m MAP<STRING, ARRAY<DOUBLE>>, "
    "st STRUCT<x: STRING, y: ARRAY<STRUCT<z: INT, w: MAP<STRING, STRING>>>>, "
    "_corrupt_record STRING')",
    "from_json(raw, 'ARRAY<STRUCT<a: INT, b: STRING>>')",
    "from_json(raw, 'MAP<STRING, STRUCT<a: DECIMAL(10,2)>>')",
    "from_json(raw, 'ARRAY<ARRAY<STRING>>')",
    "get_json_object(raw, '$.a.b[0]')",
    "get_json_object(raw, '$.a[*].b')",
    "get_json_object(raw, '$[*][*]')",
    "get_json_object(raw, '$')",
    "get_json_object(raw, path)",
    "raw:a.B[*].c",
    "raw:['a'][0]",
};

struct Bound {
  columnar::Schema schema;
  std::vector<expr::BoundExprPtr> exprs;
};

const Bound& Expressions() {
  static const Bound* bound = [] {
    auto* b = new Bound;
    b->schema = *columnar::ParseDdlSchema("raw STRING, path STRING");
    expr::Binder binder(b->schema);
    for (const char* text : kExpressions) {
      auto parsed = sql::ParseExpression(text);
      if (!parsed.ok()) __builtin_trap();
      auto e = binder.Bind(**parsed);
      if (!e.ok()) __builtin_trap();
      b->exprs.push_back(*e);
    }
    // The first from_json again, in FAILFAST mode (options as map() evaluates them).
    columnar::Column options(
        columnar::DataType::Map(columnar::DataType::String(), columnar::DataType::String()));
    options.mutable_child(0).AppendString("mode");
    options.mutable_child(1).AppendString("FAILFAST");
    options.AppendListEntry();
    std::vector<expr::BoundExprPtr> args = b->exprs[0]->children;
    args.push_back(expr::MakeLiteral(std::move(options), "map('mode', 'FAILFAST')"));
    auto type = b->exprs[0]->function->type_rule(args);
    if (!type.ok()) __builtin_trap();
    auto failfast = std::make_shared<expr::BoundExpr>(*b->exprs[0]);
    failfast->children = std::move(args);
    failfast->type = *type;
    b->exprs.push_back(failfast);
    return b;
  }();
  return *bound;
}

}  // namespace
}  // namespace weir::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace weir;
  const fuzz::Bound& bound = fuzz::Expressions();
  auto bytes = std::make_shared<std::string>(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> rows;
  std::string_view all(*bytes);
  while (rows.size() < 64) {
    size_t newline = all.find('\n');
    rows.push_back(all.substr(0, newline));
    if (newline == std::string_view::npos) break;
    all.remove_prefix(newline + 1);
  }
  columnar::Batch batch(bound.schema);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] == "null") {
      batch.columns[0].AppendNull();
    } else {
      batch.columns[0].AppendStringView(rows[i]);
    }
    batch.columns[1].AppendStringView(rows[(i + rows.size() - 1) % rows.size()]);
  }
  batch.columns[0].AddBufferOwner(bytes);
  batch.columns[1].AddBufferOwner(bytes);
  std::string text;
  for (const expr::BoundExprPtr& e : bound.exprs) {
    expr::EvalContext context;
    context.StartBatch(batch.num_rows(), 0);
    auto column = expr::Evaluate(*e, batch, context);
    if (!column.ok()) __builtin_trap();  // bad data is never a Status error
    if (column->size() != batch.num_rows()) __builtin_trap();
    for (int64_t row = 0; row < column->size(); ++row) {
      text.clear();
      if (!column->IsNull(row)) expr::AppendCastString(*column, row, &text);
      (void)context.malformed.Reason(row);
    }
  }
  return 0;
}
