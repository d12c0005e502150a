// Logic tests of whole streaming-table definitions (tests/sql/flows/*.test), in the spirit of
// DuckDB's sqllogictest: a definition is parsed, made into a flow and bound against a source
// schema, and given source rows go through its SELECT, WHERE, expectations and quarantine. Also
// runs every ```sql block of docs/sql-extensions.md, so the documentation cannot drift from the
// parser and binder.
//
// File syntax (blank lines separate records):
//   source kafka                 the rows are Spark's Kafka source rows (key, value, topic, ...)
//   source DDL                   the rows have this schema (a table read with FROM STREAM(t))
//   rows                         then JSON lines of source rows (weir's JSON conventions)
//   flow ok                      then a pipeline; its LAST streaming table is the one tested;
//   ----                         optional: the expected output rows as JSON lines, in order;
//                                `quarantined N` checks N rows went to the quarantine table
//   flow error                   then a pipeline whose flow must fail to parse, make or bind;
//   ----                         the line after is a substring of the error message
// Lines starting with # are comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing.h"
#include "delta/testing.h"
#include "stream/kafka_rows.h"
#include "stream/sql_flow.h"

namespace weir::stream {
namespace {

namespace stdfs = std::filesystem;
constexpr int64_t kBatchTimestampMs = 1780909200000;  // 2026-06-08 09:00:00 UTC

std::string SourceDir() {
  const char* dir = std::getenv("WEIR_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

// Runs the last streaming table of `text` over `rows` of `schema`: its output rows as JSON, the
// number of quarantined rows, or the error.
struct FlowRun {
  std::vector<std::string> rows;
  int64_t quarantined = 0;
};

// The schema a FROM STREAM(t) flow of the block reads when t is defined in the same text: the
// output of t's flow over `base` (recursively); else `base`.
Result<FlowRun> RunFlow(const std::string& text, const columnar::Schema& source,
                        const std::vector<std::string>& rows) {
  WEIR_ASSIGN_OR_RETURN(sql::Pipeline pipeline,
                        sql::ParsePipeline(text, {{"bootstrap", "localhost:9092"}},
                                           sql::SecretResolver()));
  if (pipeline.tables.empty()) return Status::InvalidArgument("the text defines no streaming table");
  // Each table's output schema, for the flows that read it.
  std::map<std::string, columnar::Schema> outputs;
  std::shared_ptr<Transform> last;
  for (const auto& table : pipeline.tables) {
    WEIR_ASSIGN_OR_RETURN(FlowSpec spec, MakeFlow(table, {"/lake"}, pipeline.settings));
    columnar::Schema input = source;
    if (spec.kafka) {
      input = KafkaSourceSchema(spec.kafka->include_headers);
    } else if (spec.delta) {
      auto it = outputs.find(spec.delta->name);
      if (it != outputs.end()) input = it->second;
    }
    if (!spec.make_transform) {
      outputs[spec.name] = input;
      last = nullptr;
      continue;
    }
    WEIR_ASSIGN_OR_RETURN(last, spec.make_transform(input));
    outputs[spec.name] = last->output_schema();
    if (&table == &pipeline.tables.back()) {
      FlowRun run;
      if (rows.empty()) return run;
      WEIR_ASSIGN_OR_RETURN(columnar::Batch batch, delta::testing::BatchFromJson(input, rows));
      WEIR_ASSIGN_OR_RETURN(TransformResult out, last->Apply(batch, kBatchTimestampMs));
      run.rows = delta::testing::JsonRows(out.rows);
      run.quarantined = out.quarantined.num_rows();
      return run;
    }
  }
  return FlowRun{};
}

class FlowFile {
 public:
  explicit FlowFile(const std::string& path) : path_(path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) lines_.push_back(line);
  }

  void Run() {
    columnar::Schema source = KafkaSourceSchema(false);
    std::vector<std::string> rows;
    size_t i = 0;
    auto block = [&](size_t* at) {  // lines up to a blank line or ----
      std::vector<std::string> out;
      while (*at < lines_.size() && !lines_[*at].empty() && lines_[*at] != "----") {
        out.push_back(lines_[(*at)++]);
      }
      return out;
    };
    while (i < lines_.size()) {
      const std::string& l = lines_[i];
      const std::string where = path_ + ":" + std::to_string(i + 1);
      if (l.empty() || l[0] == '#') {
        ++i;
      } else if (l == "source kafka") {
        source = KafkaSourceSchema(false);
        ++i;
      } else if (l.rfind("source ", 0) == 0) {
        auto parsed = columnar::ParseDdlSchema(l.substr(7));
        ASSERT_TRUE(parsed.ok()) << where << ": " << parsed.status().ToString();
        source = *parsed;
        ++i;
      } else if (l == "rows") {
        ++i;
        rows = block(&i);
      } else if (l == "flow ok" || l == "flow error") {
        const bool ok = l == "flow ok";
        ++i;
        std::vector<std::string> text_lines = block(&i);
        std::string text;
        for (const std::string& t : text_lines) text += t + "\n";
        std::vector<std::string> expected;
        if (i < lines_.size() && lines_[i] == "----") {
          ++i;
          expected = block(&i);
        }
        ++records_;
        Result<FlowRun> run = RunFlow(text, source, rows);
        if (!ok) {
          ASSERT_FALSE(run.ok()) << where << ": the flow should fail";
          ASSERT_FALSE(expected.empty()) << where << ": flow error needs ---- and a message";
          EXPECT_NE(run.status().ToString().find(expected[0]), std::string::npos)
              << where << ": the error\n  " << run.status().ToString() << "\ndoes not contain\n  "
              << expected[0];
          continue;
        }
        ASSERT_TRUE(run.ok()) << where << ": " << run.status().ToString();
        std::vector<std::string> want_rows;
        for (const std::string& e : expected) {
          if (e.rfind("quarantined ", 0) == 0) {
            EXPECT_EQ(run->quarantined, std::stoll(e.substr(12))) << where;
          } else {
            want_rows.push_back(e);
          }
        }
        if (!expected.empty()) {
          EXPECT_EQ(run->rows, want_rows) << where;
        }
      } else {
        FAIL() << where << ": unknown record '" << l << "'";
      }
    }
  }
  int records() const { return records_; }

 private:
  std::string path_;
  std::vector<std::string> lines_;
  int records_ = 0;
};

TEST(FlowLogicTest, EveryFile) {
  const std::string dir = SourceDir() + "/tests/sql/flows";
  std::vector<std::string> files;
  for (const auto& entry : stdfs::directory_iterator(dir)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no tests in " << dir;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    FlowFile file(f);
    file.Run();
    EXPECT_GT(file.records(), 0) << f;
  }
}

// Every ```sql block of docs/sql-extensions.md parses, makes its flows and binds them: tables read
// with FROM STREAM(t) not defined in the block read the bronze table of examples/orders.sql.
TEST(FlowLogicTest, DocumentedExamplesRun) {
  const std::string doc = SourceDir() + "/docs/sql-extensions.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << doc;
  std::string line, block;
  bool inside = false;
  int line_number = 0, start = 0, blocks = 0;
  const columnar::Schema bronze =
      columnar::ParseDdlSchema("partition_key STRING, raw_value STRING, eh_partition INT, "
                               "eh_offset BIGINT, enqueued_time TIMESTAMP, ingested_at TIMESTAMP")
          .ValueOrDie();
  while (std::getline(in, line)) {
    ++line_number;
    if (!inside && line == "```sql") {
      inside = true;
      block.clear();
      start = line_number;
    } else if (inside && line == "```") {
      inside = false;
      ++blocks;
      Result<FlowRun> run = RunFlow(block, bronze, {});
      EXPECT_TRUE(run.ok()) << doc << ":" << start << ": " << run.status().ToString() << "\n" << block;
    } else if (inside) {
      block += line + "\n";
    }
  }
  EXPECT_GE(blocks, 3) << doc;
}

}  // namespace
}  // namespace weir::stream
