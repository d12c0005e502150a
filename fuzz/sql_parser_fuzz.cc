// libFuzzer target for the pipeline SQL front end: the input bytes are a pipeline file. It is
// substituted, lexed, parsed and resolved (sql::ParsePipeline, with one --set variable and a fake
// secret), then every expression is printed back (ToSql) and re-parsed. Every input must give a
// Pipeline or a clean Status; a crash, sanitizer report, hang or unbounded recursion is a bug.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sql/ast.h"
#include "sql/parser.h"
#include "sql/pipeline.h"

namespace weir::fuzz {
namespace {

void CheckRoundTrip(const sql::Expr& e) {
  std::string text = sql::ToSql(e);
  auto again = sql::ParseExpression(text);
  if (!again.ok()) return;  // e.g. a lambda outside a call; printing must still not crash
  (void)sql::ToSql(**again);
}

void Visit(const sql::Query& q) {
  for (const sql::SelectItem& item : q.select_list) CheckRoundTrip(*item.expr);
  if (q.where) CheckRoundTrip(*q.where);
  if (q.from && q.from->watermark) CheckRoundTrip(*q.from->watermark->event_time);
}

}  // namespace
}  // namespace weir::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace weir;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  sql::SecretResolver secrets([](const std::string& name) -> std::optional<std::string> {
    if (name == "WEIR_SECRET_EH_CONN") return std::string("Endpoint=sb://fuzz/;Key=k");
    return std::nullopt;
  });
  auto pipeline = sql::ParsePipeline(text, {{"topic", "orders"}}, secrets);
  if (pipeline.ok()) {
    for (const sql::StreamingTableDefinition& t : pipeline->tables) {
      fuzz::Visit(t.query());
      for (const sql::Expectation& e : t.statement.expectations) fuzz::CheckRoundTrip(*e.condition);
    }
  }
  auto statements = sql::ParseStatements(text);
  if (statements.ok()) {
    for (const sql::Statement& s : *statements) {
      if (const auto* select = std::get_if<sql::SelectStatement>(&s)) fuzz::Visit(select->query);
    }
  }
  return 0;
}
