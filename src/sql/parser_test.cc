#include "sql/parser.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::sql {
namespace {

// The Event Hubs tutorial's bronze table in Lakeflow SQL (read_kafka with named arguments).
constexpr std::string_view kSeedBronze = R"(CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT
  CAST(key AS STRING)   AS partition_key,
  CAST(value AS STRING) AS raw_value,
  partition             AS eh_partition,
  offset                AS eh_offset,
  timestamp             AS enqueued_time
FROM STREAM read_kafka(
  bootstrapServers  => 'contoso-orders.servicebus.windows.net:9093',
  subscribe         => 'orders',
  serviceCredential => 'eh-orders-reader'
);)";

std::string Sql(std::string_view expression) {
  auto r = ParseExpression(expression);
  EXPECT_TRUE(r.ok()) << expression << ": " << r.status().ToString();
  return r.ok() ? ToSql(**r) : "<error>";
}

std::string ErrorOf(std::string_view text) {
  auto r = ParseStatements(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(ParserTest, SeedBronzeTable) {
  ASSERT_OK_AND_ASSIGN(std::vector<Statement> statements, ParseStatements(kSeedBronze));
  ASSERT_EQ(statements.size(), 1u);
  const auto& c = std::get<CreateStreamingTable>(statements[0]);
  EXPECT_EQ(c.name.ToString(), "sales.bronze.orders_raw");
  EXPECT_EQ(c.location.ToString(), "line 1, column 1");
  const Query& q = c.query;
  ASSERT_EQ(q.select_list.size(), 5u);
  EXPECT_EQ(ToSql(*q.select_list[0].expr), "CAST(key AS STRING)");
  EXPECT_EQ(q.select_list[0].alias, "partition_key");
  EXPECT_EQ(ToSql(*q.select_list[2].expr), "partition");
  EXPECT_EQ(q.select_list[2].alias, "eh_partition");
  EXPECT_EQ(q.select_list[4].alias, "enqueued_time");
  EXPECT_EQ(q.select_list[4].location.ToString(), "line 7, column 3");
  ASSERT_TRUE(q.from.has_value());
  EXPECT_EQ(q.from->kind, FromClause::Kind::kReadKafka);
  EXPECT_TRUE(q.from->streaming);
  ASSERT_EQ(q.from->kafka_arguments.size(), 3u);
  EXPECT_EQ(q.from->kafka_arguments[0].name, "bootstrapServers");
  EXPECT_EQ(ToSql(*q.from->kafka_arguments[0].value),
            "'contoso-orders.servicebus.windows.net:9093'");
  EXPECT_EQ(q.from->kafka_arguments[2].name, "serviceCredential");
  EXPECT_EQ(q.where, nullptr);
}

TEST(ParserTest, MergeClause) {
  ASSERT_OK_AND_ASSIGN(std::vector<Statement> statements, ParseStatements(
      "CREATE OR REFRESH STREAMING TABLE t PARTITIONED BY (p) MERGE ON (p, o) "
      "WHEN MATCHED THEN UPDATE SET * AS SELECT partition AS p, offset AS o "
      "FROM STREAM read_kafka(subscribe => 'x')"));
  const auto& c = std::get<CreateStreamingTable>(statements[0]);
  ASSERT_TRUE(c.merge.has_value());
  EXPECT_EQ(c.merge->keys, (std::vector<std::string>{"p", "o"}));
  EXPECT_TRUE(c.merge->when_matched_update);
  EXPECT_EQ(c.partition_by, std::vector<std::string>{"p"});

  ASSERT_OK_AND_ASSIGN(statements, ParseStatements(
      "CREATE STREAMING TABLE t MERGE ON (k) AS SELECT value AS k FROM STREAM read_kafka(subscribe => 'x')"));
  const auto& insert_only = std::get<CreateStreamingTable>(statements[0]);
  ASSERT_TRUE(insert_only.merge.has_value());
  EXPECT_FALSE(insert_only.merge->when_matched_update);

  EXPECT_NE(ErrorOf("CREATE STREAMING TABLE t MERGE ON (k) WHEN MATCHED AND k > 1 THEN UPDATE SET * "
                    "AS SELECT value AS k FROM STREAM read_kafka(subscribe => 'x')")
                .find("not supported"),
            std::string::npos);
  EXPECT_NE(ErrorOf("CREATE STREAMING TABLE t MERGE ON () AS SELECT 1 AS k FROM STREAM read_kafka(subscribe => 'x')")
                .find("MERGE key column"),
            std::string::npos);
}

TEST(ParserTest, SparkSemanticsDltExample) {
  // spark-semantics.md section 8, plus expectations, partitioning, properties and a watermark.
  constexpr std::string_view kText = R"(
CREATE OR REFRESH STREAMING TABLE sales.silver.orders (
  CONSTRAINT valid_id EXPECT (event_id IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT positive EXPECT (amount > 0),
  CONSTRAINT has_time EXPECT (event_time IS NOT NULL) ON VIOLATION FAIL UPDATE
)
PARTITIONED BY (event_date)
COMMENT 'parsed orders'
TBLPROPERTIES ('quality' = 'silver', delta.appendOnly = true, 'pipelines.reset.allowed' = false)
AS SELECT e.*, to_date(e.event_time) AS event_date
FROM STREAM(LIVE.orders_parsed) WATERMARK event_time DELAY OF INTERVAL 30 MINUTES AS src
WHERE e.event_id IS NOT NULL;
SET pipelines.trigger.interval = 10 seconds;
USE CATALOG sales;
)";
  ASSERT_OK_AND_ASSIGN(std::vector<Statement> statements, ParseStatements(kText));
  ASSERT_EQ(statements.size(), 3u);
  const auto& c = std::get<CreateStreamingTable>(statements[0]);
  ASSERT_EQ(c.expectations.size(), 3u);
  EXPECT_EQ(c.expectations[0].name, "valid_id");
  EXPECT_EQ(ToSql(*c.expectations[0].condition), "(event_id IS NOT NULL)");
  EXPECT_EQ(c.expectations[0].action, ViolationAction::kDropRow);
  EXPECT_EQ(c.expectations[1].action, ViolationAction::kWarn);
  EXPECT_EQ(c.expectations[2].action, ViolationAction::kFailUpdate);
  EXPECT_EQ(c.partition_by, std::vector<std::string>{"event_date"});
  EXPECT_EQ(c.comment, "parsed orders");
  EXPECT_EQ(c.table_properties.at("quality"), "silver");
  EXPECT_EQ(c.table_properties.at("delta.appendOnly"), "true");
  EXPECT_EQ(c.table_properties.at("pipelines.reset.allowed"), "false");
  const Query& q = c.query;
  ASSERT_EQ(q.select_list.size(), 2u);
  const Star* star = q.select_list[0].expr->As<Star>();
  ASSERT_NE(star, nullptr);
  EXPECT_EQ(star->qualifier, std::vector<std::string>{"e"});
  EXPECT_EQ(ToSql(*q.select_list[1].expr), "to_date(e.event_time)");
  EXPECT_EQ(q.from->kind, FromClause::Kind::kTable);
  EXPECT_EQ(q.from->table.ToString(), "LIVE.orders_parsed");
  EXPECT_EQ(q.from->alias, "src");
  ASSERT_TRUE(q.from->watermark.has_value());
  EXPECT_EQ(q.from->watermark->column_name, "event_time");
  EXPECT_EQ(q.from->watermark->delay.micros, 30LL * 60 * 1000000);
  EXPECT_EQ(q.from->watermark->delay_text, "INTERVAL 30 MINUTES");
  EXPECT_EQ(ToSql(*q.where), "(e.event_id IS NOT NULL)");
  const auto& set = std::get<SetStatement>(statements[1]);
  EXPECT_EQ(set.key, "pipelines.trigger.interval");
  EXPECT_EQ(set.value, "10 seconds");
  const auto& use = std::get<UseStatement>(statements[2]);
  EXPECT_EQ(use.kind, UseStatement::Kind::kCatalog);
  EXPECT_EQ(use.name.ToString(), "sales");
}

TEST(ParserTest, FromForms) {
  for (std::string_view text : {"SELECT * FROM STREAM(a.b)", "SELECT * FROM STREAM a.b",
                                "SELECT * FROM a.b"}) {
    ASSERT_OK_AND_ASSIGN(Query q, ParseQuery(text));
    EXPECT_EQ(q.from->table.ToString(), "a.b") << text;
    EXPECT_EQ(q.from->streaming, text.find("STREAM") != std::string_view::npos) << text;
  }
  ASSERT_OK_AND_ASSIGN(Query q, ParseQuery(
      "SELECT value FROM STREAM read_kafka(`kafka.sasl.mechanism` => 'PLAIN', "
      "kafka.security.protocol => 'SASL_SSL', maxOffsetsPerTrigger => 1000) k"));
  EXPECT_EQ(q.from->kafka_arguments[0].name, "kafka.sasl.mechanism");
  EXPECT_EQ(q.from->kafka_arguments[1].name, "kafka.security.protocol");
  EXPECT_EQ(ToSql(*q.from->kafka_arguments[2].value), "1000");
  EXPECT_EQ(q.from->alias, "k");
  ASSERT_OK_AND_ASSIGN(q, ParseQuery(
      "SELECT * FROM STREAM src WATERMARK to_timestamp(ts) AS event_time DELAY OF INTERVAL '10' "
      "SECONDS"));
  EXPECT_EQ(q.from->watermark->column_name, "event_time");
  EXPECT_EQ(q.from->watermark->delay.micros, 10 * 1000000);
  ASSERT_OK_AND_ASSIGN(q, ParseQuery("SELECT 1 + 1"));
  EXPECT_FALSE(q.from.has_value());
}

// Star forms: `*`, `q.*`, `expr.*`, each with Databricks' EXCEPT (...).
TEST(ParserTest, StarForms) {
  ASSERT_OK_AND_ASSIGN(Query q, ParseQuery("SELECT * EXCEPT (a, `b c`, s.x), t.* EXCEPT (t.a), "
                                           "e.f.*, from_json(v, 'a INT').* EXCEPT (a), (s).* "
                                           "FROM t"));
  ASSERT_EQ(q.select_list.size(), 5u);
  const Star* all = q.select_list[0].expr->As<Star>();
  ASSERT_NE(all, nullptr);
  EXPECT_TRUE(all->qualifier.empty());
  EXPECT_EQ(all->operand, nullptr);
  ASSERT_EQ(all->except.size(), 3u);
  EXPECT_EQ(all->except[1], std::vector<std::string>{"b c"});
  EXPECT_EQ(all->except[2], (std::vector<std::string>{"s", "x"}));
  EXPECT_EQ(q.select_list[0].location.ToString(), "line 1, column 8");
  const Star* table = q.select_list[1].expr->As<Star>();
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->qualifier, std::vector<std::string>{"t"});
  EXPECT_EQ(table->except[0], (std::vector<std::string>{"t", "a"}));
  const Star* field = q.select_list[2].expr->As<Star>();
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->qualifier, (std::vector<std::string>{"e", "f"}));
  EXPECT_TRUE(field->except.empty());
  const Star* call = q.select_list[3].expr->As<Star>();
  ASSERT_NE(call, nullptr);
  ASSERT_NE(call->operand, nullptr);
  EXPECT_EQ(ToSql(*call->operand), "from_json(v, 'a INT')");
  EXPECT_EQ(q.select_list[3].expr->location.ToString(), "line 1, column 59");
  // (s) is the column s: the same as s.*.
  EXPECT_EQ(q.select_list[4].expr->As<Star>()->qualifier, std::vector<std::string>{"s"});

  EXPECT_EQ(ToSql(*q.select_list[0].expr), "* EXCEPT (a, `b c`, s.x)");
  EXPECT_EQ(ToSql(*q.select_list[3].expr), "from_json(v, 'a INT').* EXCEPT (a)");
  EXPECT_EQ(ToSql(*Clone(*q.select_list[3].expr)), "from_json(v, 'a INT').* EXCEPT (a)");
  std::vector<std::string> children;
  ForEachChild(*q.select_list[3].expr, [&](const Expr& c) { children.push_back(ToSql(c)); });
  EXPECT_EQ(children, std::vector<std::string>{"from_json(v, 'a INT')"});
  // EXCEPT of a query is still a set operation, which weir does not run.
  EXPECT_EQ(ErrorOf("SELECT * EXCEPT (SELECT 1) FROM t"),
            "line 1, column 18: EXCEPT of two queries is not supported in a weir streaming query "
            "near 'SELECT'");
  EXPECT_EQ(ErrorOf("SELECT a FROM t EXCEPT SELECT b FROM u"),
            "line 1, column 17: EXCEPT is not supported in a weir streaming query near 'EXCEPT'");
  EXPECT_EQ(ErrorOf("SELECT * EXCEPT (a,) FROM t"),
            "line 1, column 20: expected a column name in EXCEPT (...) near ')'");
  EXPECT_EQ(ErrorOf("SELECT e.*.a FROM t"),
            "line 1, column 11: expected ';' or the end of the statement near '.'");
}

// A subquery in FROM; the stream is read by the innermost query.
TEST(ParserTest, SubqueryInFrom) {
  ASSERT_OK_AND_ASSIGN(
      Query q, ParseQuery("SELECT partition_key, e.*, eh_offset FROM (SELECT partition_key, "
                          "from_json(raw_value, 'a INT') AS e, eh_offset FROM STREAM(bronze) "
                          "WHERE eh_offset > 0) WATERMARK ts DELAY OF INTERVAL 1 MINUTE AS sub "
                          "WHERE e.a IS NOT NULL"));
  ASSERT_TRUE(q.from.has_value());
  EXPECT_EQ(q.from->kind, FromClause::Kind::kSubquery);
  EXPECT_EQ(q.from->location.ToString(), "line 1, column 43");
  // WATERMARK, then the alias, as for a table.
  EXPECT_EQ(q.from->alias, "sub");
  ASSERT_TRUE(q.from->watermark.has_value());
  EXPECT_EQ(q.from->watermark->column_name, "ts");
  ASSERT_NE(q.where, nullptr);
  const Query& inner = *q.from->subquery;
  EXPECT_EQ(inner.select_list.size(), 3u);
  ASSERT_NE(inner.where, nullptr);
  const FromClause* source = SourceFrom(q);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source, &*inner.from);
  EXPECT_EQ(source->kind, FromClause::Kind::kTable);
  EXPECT_TRUE(source->streaming);
  EXPECT_EQ(source->table.ToString(), "bronze");

  ASSERT_OK_AND_ASSIGN(Query nested,
                       ParseQuery("SELECT x FROM (SELECT x FROM (SELECT a AS x FROM STREAM t))"));
  EXPECT_EQ(SourceFrom(nested)->table.ToString(), "t");
  ASSERT_OK_AND_ASSIGN(Query no_from, ParseQuery("SELECT x FROM (SELECT 1 AS x)"));
  EXPECT_EQ(SourceFrom(no_from), nullptr);

  EXPECT_EQ(ErrorOf("SELECT * FROM STREAM(SELECT a FROM t)"),
            "line 1, column 15: STREAM reads a table or read_kafka(...); a subquery reads the "
            "stream inside: FROM (SELECT ... FROM STREAM(table)) near 'STREAM'");
  EXPECT_EQ(ErrorOf("SELECT * FROM (SELECT a FROM STREAM t DROP DUPLICATES (a))"),
            "line 1, column 39: DROP DUPLICATES goes after the outermost query, not inside a "
            "subquery");
  EXPECT_EQ(ErrorOf("SELECT * FROM (SELECT a FROM STREAM t QUARANTINE INTO q)"),
            "line 1, column 55: QUARANTINE INTO goes after the outermost query, not inside a "
            "subquery");
  EXPECT_EQ(ErrorOf("SELECT * FROM (SELECT a FROM t"),
            "line 1, column 31: expected ')' at the end of the statement");
  std::string deep = "SELECT a FROM STREAM t";
  for (int i = 0; i < 40; ++i) deep = "SELECT a FROM (" + deep + ")";
  EXPECT_NE(ErrorOf(deep).find("subqueries nest deeper than 32 levels"), std::string::npos);
}

TEST(ParserTest, PrecedenceFollowsSpark) {
  EXPECT_EQ(Sql("a OR b AND NOT c = d"), "(a OR (b AND (NOT (c = d))))");
  EXPECT_EQ(Sql("1 + 2 * 3 - 4 / 5 % 6"), "((1 + (2 * 3)) - ((4 / 5) % 6))");
  EXPECT_EQ(Sql("-a * b"), "((- a) * b)");
  EXPECT_EQ(Sql("-x::int"), "(- CAST(x AS INT))");
  EXPECT_EQ(Sql("a || b + c"), "((a || b) + c)");  // || shares + and -'s level, as in Spark
  EXPECT_EQ(Sql("a = 1 IS NULL"), "((a = 1) IS NULL)");
  EXPECT_EQ(Sql("a + 1 BETWEEN 1 AND 3 AND b"), "(((a + 1) BETWEEN 1 AND 3) AND b)");
  EXPECT_EQ(Sql("a NOT IN (1, 2) OR b NOT LIKE 'x%'"),
            "((a NOT IN (1, 2)) OR (b NOT LIKE 'x%'))");
  EXPECT_EQ(Sql("a & b | c ^ d"), "((a & b) | (c ^ d))");
  EXPECT_EQ(Sql("a <=> b != c"), "((a <=> b) != c)");
  EXPECT_EQ(Sql("x DIV 2"), "(x DIV 2)");
}

TEST(ParserTest, Literals) {
  EXPECT_EQ(Sql("1"), "1");
  EXPECT_EQ(Sql("3000000000"), "3000000000L");  // too big for INT: BIGINT
  EXPECT_EQ(Sql("-2147483648"), "-2147483648");
  EXPECT_EQ(Sql("10000000000000000000"), "10000000000000000000BD");  // DECIMAL(20,0)
  EXPECT_EQ(Sql("7L + 1S + 1Y"), "((7L + 1S) + 1Y)");
  EXPECT_EQ(Sql("1.50"), "1.50");
  EXPECT_EQ(Sql("1e3"), "1000.0D");
  EXPECT_EQ(Sql("2.5F"), "2.5F");
  EXPECT_EQ(Sql("'a' 'b'"), "'ab'");
  EXPECT_EQ(Sql("X'CAFE'"), "X'CAFE'");
  EXPECT_EQ(Sql("NULL"), "NULL");
  EXPECT_EQ(Sql("TRUE AND false"), "(true AND false)");
  EXPECT_EQ(Sql("DATE '2026-06-08'"), "DATE '2026-06-08'");
  EXPECT_EQ(Sql("timestamp '2026-06-08 09:00:00'"), "TIMESTAMP '2026-06-08 09:00:00'");
  EXPECT_EQ(Sql("TIMESTAMP_NTZ '2026-06-08'"), "TIMESTAMP_NTZ '2026-06-08'");
  EXPECT_EQ(Sql("INTERVAL '30' MINUTE"), "INTERVAL 30 MINUTES");
  EXPECT_EQ(Sql("INTERVAL 1 DAY 2 HOURS"), "INTERVAL 1 DAYS 2 HOURS");
  EXPECT_EQ(Sql("INTERVAL '1 day 90 seconds'"), "INTERVAL 1 DAYS 90 SECONDS");
  EXPECT_EQ(Sql("INTERVAL '1.5' SECONDS"), "INTERVAL 1500000 MICROSECONDS");

  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseExpression("0.001"));
  const Literal* lit = e->As<Literal>();
  ASSERT_NE(lit, nullptr);
  EXPECT_EQ(lit->type->precision(), 3);
  EXPECT_EQ(lit->type->scale(), 3);
  EXPECT_EQ(lit->decimal_unscaled, 1);
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("123.45"));
  EXPECT_EQ(e->As<Literal>()->type->ToDdl(), "DECIMAL(5,2)");
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("42"));
  EXPECT_EQ(e->As<Literal>()->type->id(), columnar::TypeId::kInt32);
  EXPECT_EQ(e->As<Literal>()->integer_value, 42);
}

TEST(ParserTest, FunctionsCastsCaseAndPaths) {
  EXPECT_EQ(Sql("current_timestamp()"), "current_timestamp()");
  EXPECT_EQ(Sql("current_timestamp"), "current_timestamp()");
  EXPECT_EQ(Sql("from_json(raw_value, 'a INT', map('mode', 'PERMISSIVE'))"),
            "from_json(raw_value, 'a INT', map('mode', 'PERMISSIVE'))");
  EXPECT_EQ(Sql("read_files(path => '/x', format => 'json')"),
            "read_files(path => '/x', format => 'json')");
  EXPECT_EQ(Sql("COUNT(*) + count(DISTINCT a)"), "(count(*) + count(DISTINCT a))");
  EXPECT_EQ(Sql("CAST(amount AS DECIMAL(18, 2))"), "CAST(amount AS DECIMAL(18,2))");
  EXPECT_EQ(Sql("try_cast(x AS map<string, array<int>>)"), "TRY_CAST(x AS MAP<STRING, ARRAY<INT>>)");
  EXPECT_EQ(Sql("x::struct<a: int, b: string>.a"), "CAST(x AS STRUCT<a: INT, b: STRING>).a");
  EXPECT_EQ(Sql("x::bigint > 5"), "(CAST(x AS BIGINT) > 5)");
  EXPECT_EQ(Sql("CASE WHEN a > 1 THEN 'big' WHEN a IS NULL THEN NULL ELSE 'small' END"),
            "CASE WHEN (a > 1) THEN 'big' WHEN (a IS NULL) THEN NULL ELSE 'small' END");
  EXPECT_EQ(Sql("CASE status WHEN 'paid' THEN 1 END"), "CASE status WHEN 'paid' THEN 1 END");
  EXPECT_EQ(Sql("raw:event_id"), "raw:event_id");
  EXPECT_EQ(Sql("raw:items[0].price::double"), "CAST(raw:items[0].price AS DOUBLE)");
  EXPECT_EQ(Sql("raw:['odd key']"), "raw:['odd key']");
  EXPECT_EQ(Sql("tags[0] = m['k']"), "(tags[0] = m['k'])");
  EXPECT_EQ(Sql("a IS NOT DISTINCT FROM b"), "(a IS NOT DISTINCT FROM b)");
  EXPECT_EQ(Sql("a IS TRUE"), "(a IS TRUE)");
  EXPECT_EQ(Sql("s RLIKE '^[0-9]+$'"), "(s RLIKE '^[0-9]+$')");
  EXPECT_EQ(Sql("s ILIKE 'a!%' ESCAPE '!'"), "(s ILIKE 'a!%' ESCAPE '!')");
  EXPECT_EQ(Sql("transform(xs, x -> x + 1)"), "transform(xs, x -> (x + 1))");
  EXPECT_EQ(Sql("zip_with(a, b, (x, y) -> x * y)"), "zip_with(a, b, (x, y) -> (x * y))");
  EXPECT_EQ(Sql("`weird name`.`x.y`"), "`weird name`.`x.y`");

  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseExpression("raw:a.b[2]"));
  EXPECT_EQ(e->As<JsonPath>()->path, "$.a.b[2]");
}

TEST(ParserTest, KeywordCallSyntaxBecomesCalls) {
  // TRIM: trim(trimStr, str) is Spark's 2-argument function form.
  EXPECT_EQ(Sql("TRIM(BOTH 'x' FROM s)"), "trim('x', s)");
  EXPECT_EQ(Sql("trim(leading 'ab' FROM a || b)"), "ltrim('ab', (a || b))");
  EXPECT_EQ(Sql("TRIM(TRAILING FROM s)"), "rtrim(s)");
  EXPECT_EQ(Sql("TRIM('x' FROM s)"), "trim('x', s)");
  EXPECT_EQ(Sql("TRIM(FROM s)"), "trim(s)");
  EXPECT_EQ(Sql("TRIM(BOTH FROM s)"), "trim(s)");
  // Ordinary calls stay ordinary, also with a column named like an option.
  EXPECT_EQ(Sql("trim(s)"), "trim(s)");
  EXPECT_EQ(Sql("trim('x', s)"), "trim('x', s)");
  EXPECT_EQ(Sql("trim(both)"), "trim(both)");
  EXPECT_EQ(Sql("trim(leading, s)"), "trim(leading, s)");
  EXPECT_EQ(Sql("POSITION('a' IN s)"), "locate('a', s)");
  EXPECT_EQ(Sql("position(a + 1 IN concat(s, 'x'))"), "locate((a + 1), concat(s, 'x'))");
  EXPECT_EQ(Sql("position('a', s, 2)"), "position('a', s, 2)");
  EXPECT_EQ(Sql("OVERLAY(s PLACING 'x' FROM 2)"), "overlay(s, 'x', 2)");
  EXPECT_EQ(Sql("OVERLAY(s PLACING 'x' FROM 2 FOR n + 1)"), "overlay(s, 'x', 2, (n + 1))");
  EXPECT_EQ(Sql("SUBSTRING(s FROM 2)"), "substring(s, 2)");
  EXPECT_EQ(Sql("substr(s FROM 2 FOR 3)"), "substring(s, 2, 3)");
  EXPECT_EQ(Sql("substring(s, 2, 3)"), "substring(s, 2, 3)");
  // The keyword inside a nested call belongs to that call.
  EXPECT_EQ(Sql("trim(substring(s FROM 2), 'x')"), "trim(substring(s, 2), 'x')");
  EXPECT_EQ(Sql("TRIM(BOTH 'x' FROM TRIM(LEADING FROM POSITION('a' IN s)))"),
            "trim('x', ltrim(locate('a', s)))");
  // EXTRACT: Spark's DatePart.parseExtractField.
  EXPECT_EQ(Sql("EXTRACT(YEAR FROM ts)"), "year(ts)");
  EXPECT_EQ(Sql("extract(yrs from ts)"), "year(ts)");
  EXPECT_EQ(Sql("EXTRACT(QTR FROM d)"), "quarter(d)");
  EXPECT_EQ(Sql("EXTRACT(MONTHS FROM d)"), "month(d)");
  EXPECT_EQ(Sql("EXTRACT(W FROM d)"), "weekofyear(d)");
  EXPECT_EQ(Sql("EXTRACT(D FROM d)"), "day(d)");
  EXPECT_EQ(Sql("EXTRACT(DOW FROM d)"), "dayofweek(d)");
  EXPECT_EQ(Sql("EXTRACT(DAYOFWEEK_ISO FROM d)"), "(weekday(d) + 1)");
  EXPECT_EQ(Sql("EXTRACT(DOY FROM d)"), "dayofyear(d)");
  EXPECT_EQ(Sql("EXTRACT(HOUR FROM ts)"), "hour(ts)");
  EXPECT_EQ(Sql("EXTRACT(M FROM ts)"), "minute(ts)");
  EXPECT_EQ(Sql("EXTRACT(`second` FROM ts + INTERVAL 1 HOUR)"),
            "CAST((CAST(pmod(unix_micros(CAST((ts + INTERVAL 1 HOURS) AS TIMESTAMP)), 60000000L) "
            "AS DECIMAL(8,0)) * 0.000001) AS DECIMAL(8,6))");

  EXPECT_EQ(ErrorOf("SELECT EXTRACT(FORTNIGHT FROM ts)"),
            "line 1, column 16: cannot extract FORTNIGHT (INVALID_EXTRACT_FIELD); the fields are "
            "YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFWEEK, DAYOFWEEK_ISO, DOY, HOUR, MINUTE and "
            "SECOND");
  EXPECT_EQ(ErrorOf("SELECT EXTRACT(YEAROFWEEK FROM ts)"),
            "line 1, column 16: EXTRACT(YEAROFWEEK FROM ...) is not supported by weir yet");
  EXPECT_EQ(ErrorOf("SELECT EXTRACT('year' FROM ts)"),
            "line 1, column 16: expected a field name (YEAR, MONTH, DAY, ...) near ''year''");
  EXPECT_EQ(ErrorOf("SELECT TRIM(BOTH 'x' s)"), "line 1, column 22: expected FROM near 's'");
  EXPECT_EQ(ErrorOf("SELECT OVERLAY(s PLACING 'x' 2)"),
            "line 1, column 30: expected FROM near '2'");
  EXPECT_EQ(ErrorOf("SELECT POSITION('a' IN s, 2)"), "line 1, column 25: expected ')' near ','");

  // Nested keyword calls parse in linear passes, not one retry per level.
  std::string nested;
  for (int i = 0; i < 60; ++i) nested += "trim(position('a' IN ";
  nested += "s";
  for (int i = 0; i < 60; ++i) nested += "))";
  ASSERT_OK(ParseExpression(nested).status());
}

TEST(ParserTest, ToSqlReparsesToTheSameText) {
  for (std::string_view text :
       {"CAST(key AS STRING)", "((a + 1) * (- b))", "CASE WHEN (x > 1) THEN 'a' ELSE 'b' END",
        "(x NOT IN (1, 2, 3))", "(y NOT BETWEEN 1.5 AND 2.5D)", "coalesce(a, b, 'z')",
        "TIMESTAMP '2026-06-08T09:00:00Z'", "(s LIKE 'a\\\\%')", "f(a => 1, b => 'x')",
        "INTERVAL 2 MONTHS 3 DAYS 4 SECONDS", "`a b`.c", "`t`.* EXCEPT (t.a, s.`x y`)", "from_json(v, 'a INT').*", "(a + b).* EXCEPT (c)"}) {
    std::string once = Sql(text);
    EXPECT_EQ(Sql(once), once) << text;
  }
}

TEST(ParserTest, DefaultColumnNamesFollowSpark) {
  auto name = [](std::string_view text) {
    auto e = ParseExpression(text);
    return e.ok() ? DefaultColumnName(**e) : "<error>";
  };
  EXPECT_EQ(name("e.event_id"), "event_id");
  EXPECT_EQ(name("CAST(key AS STRING)"), "CAST(key AS STRING)");
  EXPECT_EQ(name("'abc'"), "abc");
  EXPECT_EQ(name("a + 1L"), "(a + 1)");
  EXPECT_EQ(name("current_timestamp()"), "current_timestamp()");
}

TEST(ParserTest, CloneIsDeep) {
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseExpression("CASE WHEN a IN (1, 2) THEN f(x => b[0]) END"));
  ExprPtr copy = Clone(*e);
  EXPECT_EQ(ToSql(*copy), ToSql(*e));
  EXPECT_NE(copy.get(), e.get());
}

TEST(ParserTest, ErrorsPointAtLineAndColumn) {
  EXPECT_EQ(ErrorOf("CREATE OR REFRESH STREAMING TABLE t AS\nSELECT a,\n  FROM STREAM x"),
            "line 3, column 3: expected an expression near 'FROM'");
  EXPECT_EQ(ErrorOf("SELECT CAST(a AS STRNG) FROM t"),
            "line 1, column 18: invalid type 'STRNG' (schema DDL: expected a type name (STRING, "
            "BIGINT, INT, DECIMAL(p,s), TIMESTAMP, ARRAY<..>, ...), not 'STRNG' at position 1 in "
            "'STRNG')");
  EXPECT_EQ(ErrorOf("SELECT (a + 1 FROM t"), "line 1, column 15: expected ')' near 'FROM'");
  EXPECT_EQ(ErrorOf("SELECT a FROM t GROUP BY a"),
            "line 1, column 17: GROUP is not supported in a weir streaming query near 'GROUP'");
  EXPECT_EQ(ErrorOf("SELECT * FROM STREAM read_kafka('x')"),
            "line 1, column 33: read_kafka takes named arguments (name => value): expected a name "
            "near ''x''");
  EXPECT_EQ(ErrorOf("CREATE TABLE t AS SELECT 1"),
            "line 1, column 8: expected STREAMING TABLE near 'TABLE' (weir pipelines define "
            "streaming tables)");
  EXPECT_EQ(ErrorOf("CREATE STREAMING TABLE t (CONSTRAINT c EXPECT (a > 0) ON VIOLATION DELETE) AS "
                    "SELECT 1"),
            "line 1, column 68: expected DROP ROW, FAIL UPDATE or QUARANTINE near 'DELETE'");
  EXPECT_EQ(ErrorOf("SELECT a b c FROM t"),
            "line 1, column 12: expected ';' or the end of the statement near 'c'");
  EXPECT_EQ(ErrorOf("SELECT 1; SELECT f(a => 1, 2)"),
            "line 1, column 28: a positional argument cannot follow a named argument near '2'");
  EXPECT_EQ(ErrorOf("SELECT 99999999999999999999999999999999999999999"),
            "line 1, column 8: invalid number '99999999999999999999999999999999999999999': more "
            "than 38 digits");
  EXPECT_EQ(ErrorOf("SELECT a FROM t WATERMARK ts DELAY OF INTERVAL 2 MONTHS"),
            "line 1, column 39: the watermark delay must be a positive interval less than a month");
  EXPECT_EQ(ErrorOf("SELECT ${x}"),
            "line 1, column 8: expected an expression near '$' (a ${variable} that no --set or "
            "SET statement defined?)");
  EXPECT_EQ(ErrorOf("SELECT 1 +"), "line 1, column 11: expected an expression at the end of the "
                                   "statement");
}

TEST(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(10000, '(');
  auto r = ParseExpression(deep);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  std::string minus;
  for (int i = 0; i < 5000; ++i) minus += "- ";
  ASSERT_STATUS_CODE(kInvalidArgument, ParseExpression(minus + "a"));
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  ASSERT_STATUS_CODE(kInvalidArgument, ParseExpression(nots + "a"));
}

}  // namespace
}  // namespace weir::sql
