// Runs the SQL logic tests in tests/sql/*.test (found through $WEIR_SOURCE_DIR, which ctest sets,
// or relative to this source file). The format follows DuckDB's sqllogictest files:
//
//   # comment
//   table t(a INT, b STRING)        an input table (Spark DDL columns); the lines after it, up to
//   {"a": 1, "b": "x"}              a blank line, are its rows as JSON objects (dates and
//   {"a": null, "b": "y"}           timestamps as strings, decimals as strings or numbers)
//
//   query TT                        a SELECT over a table (or without FROM: one row); one letter
//   SELECT CAST(a AS STRING), b     per column (T text, I integer, R real, B boolean, D date/time)
//   FROM t                          only the count is checked
//   ----
//   1	x                            expected rows: values separated by tabs, as CAST(v AS STRING)
//   NULL	y                        prints them; NULL for NULL, (empty) for ''
//
//   statement ok                    a pipeline (CREATE/SET/USE) that must parse, or a SELECT that
//   <sql>                           must bind and evaluate
//
//   statement error                 must fail; the line after ---- is a substring of the message
//   <sql>
//   ----
//   line 1, column 8: expected
//
//   var name=value                  defines ${name} for later pipeline statements
//   env NAME=value                  a fake environment variable for secret() lookups
//   ansi on|off                     spark.sql.ansi.enabled for later queries (row errors fail them)
//   set name=value                  a Spark setting for later queries, e.g.
//                                   set spark.sql.mapKeyDedupPolicy=LAST_WIN (EvalSettings)
//
// The batch timestamp (current_timestamp()) is 2026-06-08 09:00:00 UTC.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/testing.h"
#include "columnar/text_format.h"
#include "expr/cast.h"
#include "expr/projection.h"
#include "expr/spark_text.h"
#include "sql/parser.h"
#include "sql/pipeline.h"

namespace weir::expr {
namespace {

namespace fs = std::filesystem;
using columnar::Column;
using columnar::TypeId;

constexpr int64_t kBatchTimestamp = 1780909200LL * 1000000;  // 2026-06-08 09:00:00 UTC

fs::path TestDirectory() {
  if (const char* root = std::getenv("WEIR_SOURCE_DIR")) return fs::path(root) / "tests" / "sql";
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "tests" / "sql";
}

std::vector<std::string> TestFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(TestDirectory(), ec)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Status AppendJson(Column* column, const nlohmann::json& v) {
  if (v.is_null()) {
    column->AppendNull();
    return Status::OK();
  }
  const columnar::DataType& type = *column->type();
  auto bad = [&] {
    return Status::InvalidArgument("JSON value " + v.dump() + " does not fit " + type.ToDdl());
  };
  switch (type.id()) {
    case TypeId::kBoolean:
      if (!v.is_boolean()) return bad();
      column->Append<uint8_t>(v.get<bool>() ? 1 : 0);
      return Status::OK();
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      if (!v.is_number_integer()) return bad();
      int64_t x = v.get<int64_t>();
      if (type.id() == TypeId::kInt8) column->Append<int8_t>(static_cast<int8_t>(x));
      if (type.id() == TypeId::kInt16) column->Append<int16_t>(static_cast<int16_t>(x));
      if (type.id() == TypeId::kInt32) column->Append<int32_t>(static_cast<int32_t>(x));
      if (type.id() == TypeId::kInt64) column->Append<int64_t>(x);
      return Status::OK();
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d;
      if (v.is_number()) {
        d = v.get<double>();
      } else if (v.is_string()) {
        auto parsed = ParseSparkDouble(v.get<std::string>());
        if (!parsed) return bad();
        d = *parsed;
      } else {
        return bad();
      }
      if (type.id() == TypeId::kFloat) {
        column->Append<float>(static_cast<float>(d));
      } else {
        column->Append<double>(d);
      }
      return Status::OK();
    }
    case TypeId::kDecimal: {
      std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      auto d = columnar::ParseDecimal(text, type.precision(), type.scale());
      if (!d) return bad();
      column->Append<columnar::Int128>(*d);
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
      if (!v.is_string()) return bad();
      column->AppendString(v.get<std::string>());
      return Status::OK();
    case TypeId::kDate: {
      auto d = v.is_string() ? ParseSparkDate(v.get<std::string>()) : std::nullopt;
      if (!d) return bad();
      column->Append<int32_t>(*d);
      return Status::OK();
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      auto t = v.is_string() ? ParseSparkTimestamp(v.get<std::string>()) : std::nullopt;
      if (!t) return bad();
      column->Append<int64_t>(*t);
      return Status::OK();
    }
    case TypeId::kStruct: {
      if (!v.is_object()) return bad();
      for (int i = 0; i < column->num_children(); ++i) {
        const std::string& name = type.children()[i].name;
        WEIR_RETURN_NOT_OK(AppendJson(&column->mutable_child(i),
                                      v.contains(name) ? v[name] : nlohmann::json()));
      }
      column->AppendStructEntry();
      return Status::OK();
    }
    case TypeId::kList: {
      if (!v.is_array()) return bad();
      for (const auto& item : v) WEIR_RETURN_NOT_OK(AppendJson(&column->mutable_child(0), item));
      column->AppendListEntry();
      return Status::OK();
    }
    case TypeId::kMap: {
      if (!v.is_object()) return bad();
      for (const auto& [key, value] : v.items()) {
        WEIR_RETURN_NOT_OK(AppendJson(&column->mutable_child(0), nlohmann::json(key)));
        WEIR_RETURN_NOT_OK(AppendJson(&column->mutable_child(1), value));
      }
      column->AppendListEntry();
      return Status::OK();
    }
  }
  return bad();
}

std::string Render(const Column& c, int64_t row) {
  if (c.IsNull(row)) return "NULL";
  std::string out;
  AppendCastString(c, row, &out);
  return out.empty() ? "(empty)" : out;
}

struct Table {
  std::string name;
  columnar::Batch batch;
};

class LogicTestRunner {
 public:
  explicit LogicTestRunner(std::string file) : file_(std::move(file)) {}

  void Run() {
    std::ifstream in(TestDirectory() / file_);
    ASSERT_TRUE(in.good()) << "cannot read " << (TestDirectory() / file_);
    std::string line;
    while (std::getline(in, line)) lines_.push_back(line);
    records_ = 0;
    while (pos_ < lines_.size()) {
      std::string l = lines_[pos_];
      if (l.empty() || l[0] == '#') {
        ++pos_;
        continue;
      }
      size_t start_line = pos_ + 1;
      std::string where = file_ + ":" + std::to_string(start_line);
      if (l.rfind("table ", 0) == 0) {
        ReadTable(where);
      } else if (l.rfind("query", 0) == 0) {
        RunQuery(where);
      } else if (l == "statement ok") {
        RunStatement(where, /*expect_error=*/false);
      } else if (l == "statement error") {
        RunStatement(where, /*expect_error=*/true);
      } else if (l.rfind("var ", 0) == 0 || l.rfind("env ", 0) == 0) {
        size_t eq = l.find('=');
        ASSERT_NE(eq, std::string::npos) << where << ": expected name=value";
        std::string name = l.substr(4, eq - 4), value = l.substr(eq + 1);
        (l[0] == 'v' ? vars_ : env_)[name] = value;
        ++pos_;
      } else if (l == "ansi on" || l == "ansi off") {
        settings_["spark.sql.ansi.enabled"] = l == "ansi on" ? "true" : "false";
        ++pos_;
      } else if (l.rfind("set ", 0) == 0) {
        size_t eq = l.find('=');
        ASSERT_NE(eq, std::string::npos) << where << ": expected set name=value";
        settings_[l.substr(4, eq - 4)] = l.substr(eq + 1);
        ++pos_;
      } else {
        FAIL() << where << ": unknown record '" << l << "'";
      }
      ++records_;
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(records_, 0) << file_ << " has no records";
  }

 private:
  // Lines from pos_ up to a blank line or "----" (not included).
  std::vector<std::string> Block() {
    std::vector<std::string> out;
    while (pos_ < lines_.size() && !lines_[pos_].empty() && lines_[pos_] != "----") {
      out.push_back(lines_[pos_++]);
    }
    return out;
  }

  static std::string Join(const std::vector<std::string>& lines) {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) out += "\n";
      out += lines[i];
    }
    return out;
  }

  void ReadTable(const std::string& where) {
    std::string header = lines_[pos_++].substr(6);
    size_t open = header.find('('), close = header.rfind(')');
    ASSERT_TRUE(open != std::string::npos && close != std::string::npos) << where;
    Table t;
    t.name = header.substr(0, open);
    ASSERT_OK_AND_ASSIGN(columnar::Schema schema,
                         columnar::ParseDdlSchema(header.substr(open + 1, close - open - 1)));
    t.batch = columnar::Batch(schema);
    for (const std::string& row : Block()) {
      nlohmann::json j = nlohmann::json::parse(row, nullptr, false);
      ASSERT_TRUE(j.is_object()) << where << ": row is not a JSON object: " << row;
      for (int i = 0; i < schema.num_fields(); ++i) {
        const std::string& name = schema.fields[i].name;
        ASSERT_OK(AppendJson(&t.batch.columns[i], j.contains(name) ? j[name] : nlohmann::json()));
      }
    }
    t.batch.num_rows_without_columns = t.batch.columns.empty() ? 0 : t.batch.columns[0].size();
    tables_[t.name] = std::move(t);
  }

  // Evaluates a SELECT; the batch result or the first error (bind, evaluation or row error).
  Result<columnar::Batch> Select(const std::string& text) {
    WEIR_ASSIGN_OR_RETURN(sql::Query q, sql::ParseQuery(text));
    columnar::Batch one_row;
    one_row.num_rows_without_columns = 1;
    const columnar::Batch* input = &one_row;
    // The innermost FROM item (FROM (SELECT ... FROM t) reads t).
    if (const sql::FromClause* from = sql::SourceFrom(q)) {
      auto it = tables_.find(from->table.ToString());
      if (from->kind != sql::FromClause::Kind::kTable || it == tables_.end()) {
        return Status::InvalidArgument("unknown table " + from->table.ToString());
      }
      input = &it->second.batch;
    }
    WEIR_ASSIGN_OR_RETURN(BoundQuery bound, BindQuery(q, input->schema));
    WEIR_ASSIGN_OR_RETURN(Projection projection, Projection::Make(std::move(bound.columns)));
    EvalContext context;
    context.Apply(EvalSettings::FromConf(settings_));
    context.StartBatch(input->num_rows(), kBatchTimestamp);
    columnar::Batch filtered;
    if (bound.where) {
      Filter filter(bound.where);
      WEIR_ASSIGN_OR_RETURN(filtered, filter.Apply(*input, context));
      input = &filtered;
      if (context.row_errors.count() > 0) return Status::InvalidArgument(std::string(context.row_errors.first_message()));
      context.StartBatch(input->num_rows(), kBatchTimestamp);
    }
    WEIR_ASSIGN_OR_RETURN(columnar::Batch out, projection.Evaluate(*input, context));
    if (context.row_errors.count() > 0) {
      return Status::InvalidArgument(std::string(context.row_errors.first_message()));
    }
    return out;
  }

  Status Execute(const std::string& text) {
    WEIR_ASSIGN_OR_RETURN(std::vector<sql::Token> tokens, sql::Tokenize(text));
    if (!tokens.empty() && tokens[0].IsKeyword("SELECT")) return Select(text).status();
    std::map<std::string, std::string> env = env_;
    sql::SecretResolver secrets([env](const std::string& name) -> std::optional<std::string> {
      auto it = env.find(name);
      if (it == env.end()) return std::nullopt;
      return it->second;
    });
    return sql::ParsePipeline(text, vars_, secrets).status();
  }

  void RunStatement(const std::string& where, bool expect_error) {
    ++pos_;
    std::string text = Join(Block());
    std::string expected;
    if (pos_ < lines_.size() && lines_[pos_] == "----") {
      ++pos_;
      expected = Join(Block());
    }
    Status st = Execute(text);
    if (!expect_error) {
      EXPECT_TRUE(st.ok()) << where << ": " << st.ToString() << "\n" << text;
      return;
    }
    EXPECT_FALSE(st.ok()) << where << ": expected an error\n" << text;
    if (!st.ok()) {
      EXPECT_NE(st.message().find(expected), std::string::npos)
          << where << ": error message\n  " << st.message() << "\ndoes not contain\n  " << expected;
    }
  }

  void RunQuery(const std::string& where) {
    std::string header = lines_[pos_++];
    size_t columns = header.size() > 6 ? header.substr(6).size() : 0;
    std::string text = Join(Block());
    ASSERT_TRUE(pos_ < lines_.size() && lines_[pos_] == "----") << where << ": query needs ----";
    ++pos_;
    std::vector<std::string> expected = Block();
    auto result = Select(text);
    ASSERT_TRUE(result.ok()) << where << ": " << result.status().ToString() << "\n" << text;
    const columnar::Batch& b = *result;
    EXPECT_EQ(static_cast<size_t>(b.schema.num_fields()), columns)
        << where << ": the header names " << columns << " columns";
    std::vector<std::string> actual;
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < b.columns.size(); ++c) {
        if (c > 0) row += "\t";
        row += Render(b.columns[c], r);
      }
      actual.push_back(row);
    }
    EXPECT_EQ(Join(actual), Join(expected)) << where << "\n" << text;
  }

  std::string file_;
  std::vector<std::string> lines_;
  size_t pos_ = 0;
  int records_ = 0;
  std::map<std::string, Table> tables_;
  sql::Variables vars_;
  std::map<std::string, std::string> env_;
  // Spark settings for later queries (`ansi on|off`, `set name=value`).
  std::map<std::string, std::string> settings_;
};

class SqlLogicTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicTest, Passes) { LogicTestRunner(GetParam()).Run(); }

TEST(SqlLogicTestFiles, Exist) { EXPECT_GE(TestFiles().size(), 3u) << TestDirectory(); }

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 5);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Files, SqlLogicTest, ::testing::ValuesIn(TestFiles()), TestName);

}  // namespace
}  // namespace weir::expr
