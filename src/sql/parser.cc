#include "sql/parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace weir::sql {

namespace {

constexpr int kMaxDepth = 200;
// Subqueries in FROM nest at most this deep (they count towards kMaxDepth too).
constexpr int kMaxQueryDepth = 32;
constexpr int64_t kMicrosPerSecond = 1000000;

// Words that end an expression or a select item: never taken as a bare alias.
bool IsClauseKeyword(const Token& t) {
  static constexpr std::string_view kWords[] = {
      "FROM",  "WHERE", "WATERMARK", "AS",     "GROUP",    "ORDER",  "HAVING", "LIMIT",
      "UNION", "JOIN",  "INNER",     "LEFT",   "RIGHT",    "FULL",   "CROSS",  "ON",
      "AND",   "OR",    "NOT",       "IS",     "IN",       "BETWEEN", "LIKE",  "ILIKE",
      "RLIKE", "REGEXP", "WINDOW",   "DELAY",  "CLUSTER",  "DISTRIBUTE", "SORT", "LATERAL",
      "EXCEPT", "INTERSECT", "QUALIFY", "SELECT", "ESCAPE", "DIV", "TABLESAMPLE", "NATURAL",
      "ANTI",  "SEMI",  "OUTER",     "USING",  "DROP",   "QUARANTINE"};
  if (t.kind != TokenKind::kIdentifier || t.quoted) return false;
  for (std::string_view w : kWords) {
    if (t.IsKeyword(w)) return true;
  }
  return false;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  return out;
}

ExprPtr MakeExpr(Location location, auto node) {
  auto e = std::make_unique<Expr>();
  e->location = location;
  e->node = std::move(node);
  return e;
}

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens)
      : text_(text), tokens_(std::move(tokens)) {}

  Result<std::vector<Statement>> ParseStatements() {
    std::vector<Statement> statements;
    while (true) {
      while (Peek().IsOperator(";")) Advance();
      if (AtEnd()) break;
      WEIR_ASSIGN_OR_RETURN(Statement s, ParseStatement());
      statements.push_back(std::move(s));
      if (AtEnd()) break;
      if (!Peek().IsOperator(";")) return Expected("';' or the end of the statement");
    }
    return statements;
  }

  Result<Query> ParseWholeQuery() {
    if (!Peek().IsKeyword("SELECT")) return Expected("SELECT");
    WEIR_ASSIGN_OR_RETURN(Query q, ParseQueryBody());
    while (Peek().IsOperator(";")) Advance();
    if (!AtEnd()) return Expected("the end of the query");
    return q;
  }

  Result<ExprPtr> ParseWholeExpression() {
    if (AtEnd()) return Expected("an expression");
    WEIR_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
    if (!AtEnd()) return Expected("the end of the expression");
    return e;
  }

 private:
  // ------------------------------------------------------------ token helpers
  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }

  bool AcceptKeyword(std::string_view word) {
    if (!Peek().IsKeyword(word)) return false;
    Advance();
    return true;
  }
  bool AcceptOperator(std::string_view op) {
    if (!Peek().IsOperator(op)) return false;
    Advance();
    return true;
  }

  std::string Near(const Token& t) const {
    if (t.kind == TokenKind::kEnd) return "at the end of the statement";
    std::string_view shown = text_.substr(t.offset, std::min<size_t>(t.length, 40));
    std::string out = "near '";
    for (char c : shown) out.push_back(c == '\n' ? ' ' : c);
    if (t.length > 40) out += "...";
    out += "'";
    if (t.IsOperator("$")) out += " (a ${variable} that no --set or SET statement defined?)";
    return out;
  }

  Status ErrorAt(const Token& t, std::string_view message) const {
    return Status::InvalidArgument(t.location.ToString() + ": " + std::string(message));
  }
  Status Expected(std::string_view what) const {
    return ErrorAt(Peek(), "expected " + std::string(what) + " " + Near(Peek()));
  }
  Status ExpectKeyword(std::string_view word) {
    if (AcceptKeyword(word)) return Status::OK();
    return Expected(word);
  }
  Status ExpectOperator(std::string_view op) {
    if (AcceptOperator(op)) return Status::OK();
    return Expected("'" + std::string(op) + "'");
  }

  Result<std::string> ExpectIdentifier(std::string_view what) {
    if (Peek().kind != TokenKind::kIdentifier) return Expected(what);
    return Advance().text;
  }

  Result<QualifiedName> ParseQualifiedName(std::string_view what) {
    QualifiedName name;
    name.location = Peek().location;
    WEIR_ASSIGN_OR_RETURN(std::string first, ExpectIdentifier(what));
    name.parts.push_back(std::move(first));
    while (Peek().IsOperator(".") && Peek(1).kind == TokenKind::kIdentifier) {
      Advance();
      name.parts.push_back(Advance().text);
    }
    return name;
  }

  // Dotted name for named arguments and table properties: a.b.c or `a.b`.
  Result<std::string> ParseDottedName(std::string_view what) {
    WEIR_ASSIGN_OR_RETURN(QualifiedName n, ParseQualifiedName(what));
    std::string out;
    for (size_t i = 0; i < n.parts.size(); ++i) {
      if (i > 0) out.push_back('.');
      out += n.parts[i];
    }
    return out;
  }

  // After a star: Databricks' `EXCEPT (name, ...)`, each name a column or a dotted path to a
  // field (`a`, `t.a`, `s.x`).
  Status ParseStarExcept(Star* star) {
    if (!Peek().IsKeyword("EXCEPT") || !Peek(1).IsOperator("(")) return Status::OK();
    Advance();
    Advance();
    if (Peek().IsKeyword("SELECT") && !Peek().quoted) {
      return ErrorAt(Peek(), "EXCEPT of two queries is not supported in a weir streaming query " +
                                 Near(Peek()));
    }
    while (true) {
      if (Peek().kind != TokenKind::kIdentifier) return Expected("a column name in EXCEPT (...)");
      WEIR_ASSIGN_OR_RETURN(QualifiedName name, ParseQualifiedName("a column name"));
      star->except.push_back(std::move(name.parts));
      if (AcceptOperator(")")) break;
      WEIR_RETURN_NOT_OK(ExpectOperator(","));
    }
    return Status::OK();
  }

  // ------------------------------------------------------------ statements
  Result<Statement> ParseStatement() {
    const Token& first = Peek();
    if (first.IsKeyword("CREATE")) return ParseCreate();
    if (first.IsKeyword("SET")) return ParseSet();
    if (first.IsKeyword("USE")) return ParseUse();
    if (first.IsKeyword("ALTER")) return ParseAlter();
    if (first.IsKeyword("SELECT")) {
      SelectStatement s;
      s.location = first.location;
      WEIR_ASSIGN_OR_RETURN(s.query, ParseQueryBody());
      return Statement(std::move(s));
    }
    return Expected("CREATE, ALTER, SET, USE or SELECT");
  }

  Result<Statement> ParseAlter() {
    AlterTableStatement a;
    a.location = Advance().location;  // ALTER
    WEIR_RETURN_NOT_OK(ExpectKeyword("TABLE"));
    WEIR_ASSIGN_OR_RETURN(a.name, ParseQualifiedName("a table name"));
    if (AcceptKeyword("SET")) {
      WEIR_RETURN_NOT_OK(ExpectKeyword("TBLPROPERTIES"));
      WEIR_RETURN_NOT_OK(ParseTableProperties(&a.set));
    } else if (AcceptKeyword("UNSET")) {
      WEIR_RETURN_NOT_OK(ExpectKeyword("TBLPROPERTIES"));
      if (AcceptKeyword("IF")) {
        WEIR_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
        a.if_exists = true;
      }
      WEIR_RETURN_NOT_OK(ExpectOperator("("));
      while (true) {
        std::string key;
        if (Peek().kind == TokenKind::kString) {
          key = Advance().text;
        } else {
          WEIR_ASSIGN_OR_RETURN(key, ParseDottedName("a property name"));
        }
        a.unset.push_back(std::move(key));
        if (AcceptOperator(")")) break;
        WEIR_RETURN_NOT_OK(ExpectOperator(","));
      }
    } else {
      return Expected("SET TBLPROPERTIES or UNSET TBLPROPERTIES (weir alters table properties "
                      "only)");
    }
    return Statement(std::move(a));
  }

  Result<Statement> ParseCreate() {
    CreateStreamingTable c;
    c.location = Peek().location;
    Advance();  // CREATE
    if (AcceptKeyword("OR")) WEIR_RETURN_NOT_OK(ExpectKeyword("REFRESH"));
    if (Peek().IsKeyword("MATERIALIZED") || Peek().IsKeyword("VIEW") ||
        Peek().IsKeyword("TEMPORARY") || Peek().IsKeyword("LIVE")) {
      if (!(Peek().IsKeyword("LIVE") && Peek(1).IsKeyword("TABLE"))) {
        return ErrorAt(Peek(), "only CREATE [OR REFRESH] STREAMING TABLE is supported " + Near(Peek()));
      }
    }
    if (!AcceptKeyword("STREAMING")) {
      return ErrorAt(Peek(), "expected STREAMING TABLE " + Near(Peek()) +
                                 " (weir pipelines define streaming tables)");
    }
    AcceptKeyword("LIVE");  // the older CREATE STREAMING LIVE TABLE spelling
    WEIR_RETURN_NOT_OK(ExpectKeyword("TABLE"));
    if (Peek().IsKeyword("IF")) {
      Advance();
      WEIR_RETURN_NOT_OK(ExpectKeyword("NOT"));
      WEIR_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
    }
    WEIR_ASSIGN_OR_RETURN(c.name, ParseQualifiedName("a table name"));
    if (AcceptOperator("(")) {
      while (true) {
        if (Peek().IsKeyword("CONSTRAINT")) {
          WEIR_ASSIGN_OR_RETURN(Expectation e, ParseExpectation());
          c.expectations.push_back(std::move(e));
        } else {
          WEIR_ASSIGN_OR_RETURN(columnar::Field f, ParseColumnDefinition());
          c.columns.push_back(std::move(f));
        }
        if (AcceptOperator(")")) break;
        WEIR_RETURN_NOT_OK(ExpectOperator(","));
      }
    }
    bool seen_partition = false, seen_comment = false, seen_properties = false;
    while (!Peek().IsKeyword("AS")) {
      const Token& t = Peek();
      if (t.IsKeyword("PARTITIONED") && !seen_partition) {
        Advance();
        WEIR_RETURN_NOT_OK(ExpectKeyword("BY"));
        WEIR_RETURN_NOT_OK(ExpectOperator("("));
        while (true) {
          WEIR_ASSIGN_OR_RETURN(std::string col, ExpectIdentifier("a partition column name"));
          c.partition_by.push_back(std::move(col));
          if (AcceptOperator(")")) break;
          WEIR_RETURN_NOT_OK(ExpectOperator(","));
        }
        seen_partition = true;
      } else if (t.IsKeyword("COMMENT") && !seen_comment) {
        Advance();
        if (Peek().kind != TokenKind::kString) return Expected("a string after COMMENT");
        c.comment = Advance().text;
        seen_comment = true;
      } else if (t.IsKeyword("TBLPROPERTIES") && !seen_properties) {
        Advance();
        WEIR_RETURN_NOT_OK(ParseTableProperties(&c.table_properties));
        seen_properties = true;
      } else if (t.IsKeyword("MERGE") && !c.merge) {
        Advance();
        WEIR_RETURN_NOT_OK(ExpectKeyword("ON"));
        WEIR_RETURN_NOT_OK(ExpectOperator("("));
        MergeClause merge;
        while (true) {
          WEIR_ASSIGN_OR_RETURN(std::string col, ExpectIdentifier("a MERGE key column name"));
          merge.keys.push_back(std::move(col));
          if (AcceptOperator(")")) break;
          WEIR_RETURN_NOT_OK(ExpectOperator(","));
        }
        if (AcceptKeyword("AND")) {
          WEIR_ASSIGN_OR_RETURN(merge.target_condition, ParseExpr());
        }
        if (AcceptKeyword("WHEN")) {
          WEIR_RETURN_NOT_OK(ExpectKeyword("MATCHED"));
          if (Peek().IsKeyword("AND")) {
            return ErrorAt(Peek(), "WHEN MATCHED AND <condition> is not supported by weir yet; "
                                   "use WHEN MATCHED THEN UPDATE SET * " + Near(Peek()));
          }
          WEIR_RETURN_NOT_OK(ExpectKeyword("THEN"));
          WEIR_RETURN_NOT_OK(ExpectKeyword("UPDATE"));
          WEIR_RETURN_NOT_OK(ExpectKeyword("SET"));
          WEIR_RETURN_NOT_OK(ExpectOperator("*"));
          merge.when_matched_update = true;
        }
        c.merge = std::move(merge);
      } else if (t.IsKeyword("CLUSTER") || t.IsKeyword("LOCATION") || t.IsKeyword("SCHEDULE") ||
                 t.IsKeyword("ROW") || t.IsKeyword("MASK")) {
        return ErrorAt(t, "the " + Upper(t.text) + " clause is not supported by weir " + Near(t));
      } else {
        return Expected("PARTITIONED BY, COMMENT, TBLPROPERTIES, MERGE ON or AS");
      }
    }
    Advance();  // AS
    if (!Peek().IsKeyword("SELECT")) return Expected("SELECT");
    WEIR_ASSIGN_OR_RETURN(c.query, ParseQueryBody());
    return Statement(std::move(c));
  }

  Result<Expectation> ParseExpectation() {
    Expectation e;
    e.location = Peek().location;
    Advance();  // CONSTRAINT
    WEIR_ASSIGN_OR_RETURN(e.name, ExpectIdentifier("a constraint name"));
    WEIR_RETURN_NOT_OK(ExpectKeyword("EXPECT"));
    WEIR_ASSIGN_OR_RETURN(e.condition, ParseExpr());
    if (AcceptKeyword("ON")) {
      WEIR_RETURN_NOT_OK(ExpectKeyword("VIOLATION"));
      if (AcceptKeyword("DROP")) {
        WEIR_RETURN_NOT_OK(ExpectKeyword("ROW"));
        e.action = ViolationAction::kDropRow;
      } else if (AcceptKeyword("FAIL")) {
        WEIR_RETURN_NOT_OK(ExpectKeyword("UPDATE"));
        e.action = ViolationAction::kFailUpdate;
      } else if (AcceptKeyword("QUARANTINE")) {
        e.action = ViolationAction::kQuarantine;
      } else {
        return Expected("DROP ROW, FAIL UPDATE or QUARANTINE");
      }
    }
    return e;
  }

  Result<columnar::Field> ParseColumnDefinition() {
    columnar::Field f;
    WEIR_ASSIGN_OR_RETURN(f.name, ExpectIdentifier("a column definition or CONSTRAINT"));
    WEIR_ASSIGN_OR_RETURN(f.type, ParseType());
    while (true) {
      if (Peek().IsKeyword("NOT") && Peek(1).IsKeyword("NULL")) {
        Advance();
        Advance();
        f.nullable = false;
      } else if (Peek().IsKeyword("COMMENT")) {
        Advance();
        if (Peek().kind != TokenKind::kString) return Expected("a string after COMMENT");
        std::string comment = Advance().text;
        std::string json = "{\"comment\":\"";
        for (char ch : comment) {
          if (ch == '"' || ch == '\\') json.push_back('\\');
          if (static_cast<unsigned char>(ch) < 0x20) {
            json += ' ';
            continue;
          }
          json.push_back(ch);
        }
        json += "\"}";
        f.metadata = json;
      } else {
        break;
      }
    }
    return f;
  }

  Status ParseTableProperties(std::map<std::string, std::string>* properties) {
    WEIR_RETURN_NOT_OK(ExpectOperator("("));
    while (true) {
      std::string key;
      if (Peek().kind == TokenKind::kString) {
        key = Advance().text;
      } else {
        WEIR_ASSIGN_OR_RETURN(key, ParseDottedName("a property name"));
      }
      AcceptOperator("=");
      const Token& v = Peek();
      std::string value;
      if (v.kind == TokenKind::kString) {
        value = v.text;
      } else if (v.kind == TokenKind::kNumber) {
        value = v.text;
      } else if (v.IsOperator("-") && Peek(1).kind == TokenKind::kNumber) {
        Advance();
        value = "-" + Peek().text;
      } else if (v.IsKeyword("TRUE") || v.IsKeyword("FALSE")) {
        value = Lower(v.text);
      } else {
        return Expected("a property value (a string, number or boolean)");
      }
      Advance();
      (*properties)[key] = value;
      if (AcceptOperator(")")) break;
      WEIR_RETURN_NOT_OK(ExpectOperator(","));
    }
    return Status::OK();
  }

  Result<Statement> ParseSet() {
    SetStatement s;
    s.location = Peek().location;
    Advance();  // SET
    const Token& key_start = Peek();
    if (key_start.kind == TokenKind::kEnd || key_start.IsOperator(";")) {
      return Expected("a key after SET (SET key = value)");
    }
    if (key_start.kind == TokenKind::kString) {
      s.key = Advance().text;
    } else {
      size_t begin = key_start.offset;
      size_t end = begin;
      while (!AtEnd() && !Peek().IsOperator("=") && !Peek().IsOperator(";")) {
        end = Peek().offset + Peek().length;
        Advance();
      }
      s.key = std::string(text_.substr(begin, end - begin));
    }
    if (!Peek().IsOperator("=")) return Expected("'=' (SET key = value)");
    Advance();
    if (Peek().kind == TokenKind::kString &&
        (Peek(1).IsOperator(";") || Peek(1).kind == TokenKind::kEnd)) {
      s.value = Advance().text;
    } else {
      size_t begin = Peek().offset;
      size_t end = begin;
      while (!AtEnd() && !Peek().IsOperator(";")) {
        end = Peek().offset + Peek().length;
        Advance();
      }
      s.value = std::string(text_.substr(begin, end - begin));
    }
    return Statement(std::move(s));
  }

  Result<Statement> ParseUse() {
    UseStatement u;
    u.location = Peek().location;
    Advance();  // USE
    if (AcceptKeyword("CATALOG")) {
      u.kind = UseStatement::Kind::kCatalog;
    } else if (AcceptKeyword("SCHEMA") || AcceptKeyword("DATABASE")) {
      u.kind = UseStatement::Kind::kSchema;
    }
    WEIR_ASSIGN_OR_RETURN(u.name, ParseQualifiedName("a catalog or schema name"));
    size_t max_parts = u.kind == UseStatement::Kind::kCatalog ? 1 : 2;
    if (u.name.parts.size() > max_parts) {
      return Status::InvalidArgument(u.name.location.ToString() + ": " + u.name.ToString() +
                                     " has too many name parts for USE");
    }
    return Statement(std::move(u));
  }

  // ------------------------------------------------------------ queries
  Result<Query> ParseQueryBody() {
    Query q;
    q.location = Peek().location;
    Advance();  // SELECT
    if (Peek().IsKeyword("DISTINCT")) {
      return ErrorAt(Peek(), "SELECT DISTINCT is not supported in a streaming query " + Near(Peek()));
    }
    AcceptKeyword("ALL");
    while (true) {
      WEIR_ASSIGN_OR_RETURN(SelectItem item, ParseSelectItem());
      q.select_list.push_back(std::move(item));
      if (!AcceptOperator(",")) break;
    }
    if (AcceptKeyword("FROM")) {
      WEIR_ASSIGN_OR_RETURN(FromClause from, ParseFrom());
      q.from = std::move(from);
    }
    if (AcceptKeyword("WHERE")) {
      WEIR_ASSIGN_OR_RETURN(q.where, ParseExpr());
    }
    if (Peek().IsKeyword("DROP")) {
      Deduplication d;
      d.location = Peek().location;
      Advance();
      WEIR_RETURN_NOT_OK(ExpectKeyword("DUPLICATES"));
      if (AcceptKeyword("WITHIN")) {
        WEIR_RETURN_NOT_OK(ExpectKeyword("WATERMARK"));
        d.within_watermark = true;
      }
      WEIR_RETURN_NOT_OK(ExpectOperator("("));
      while (true) {
        WEIR_ASSIGN_OR_RETURN(std::string column, ExpectIdentifier("a column name"));
        d.columns.push_back(std::move(column));
        if (!AcceptOperator(",")) break;
      }
      WEIR_RETURN_NOT_OK(ExpectOperator(")"));
      q.drop_duplicates = std::move(d);
    }
    if (AcceptKeyword("QUARANTINE")) {
      WEIR_RETURN_NOT_OK(ExpectKeyword("INTO"));
      WEIR_ASSIGN_OR_RETURN(QualifiedName name, ParseQualifiedName("a quarantine table name"));
      q.quarantine_table = std::move(name);
    }
    const Token& t = Peek();
    for (std::string_view unsupported : {"GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "JOIN",
                                         "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "WINDOW",
                                         "EXCEPT", "INTERSECT", "QUALIFY", "SORT", "CLUSTER",
                                         "DISTRIBUTE", "LATERAL", "NATURAL"}) {
      if (t.IsKeyword(unsupported)) {
        return ErrorAt(t, Upper(t.text) + " is not supported in a weir streaming query " + Near(t));
      }
    }
    if (t.IsOperator(",") && q.from.has_value()) {
      return ErrorAt(t, "joins are not supported in a weir streaming query " + Near(t));
    }
    return q;
  }

  Result<SelectItem> ParseSelectItem() {
    SelectItem item;
    item.location = Peek().location;
    if (Peek().IsOperator("*")) {
      Advance();
      Star star;
      WEIR_RETURN_NOT_OK(ParseStarExcept(&star));
      item.expr = MakeExpr(item.location, std::move(star));
      return item;
    }
    WEIR_ASSIGN_OR_RETURN(item.expr, ParseExpr());
    if (AcceptKeyword("AS")) {
      if (Peek().kind == TokenKind::kIdentifier) {
        item.alias = Advance().text;
      } else if (Peek().kind == TokenKind::kString) {
        item.alias = Advance().text;
      } else {
        return Expected("an alias after AS");
      }
    } else if (Peek().kind == TokenKind::kIdentifier && !IsClauseKeyword(Peek())) {
      item.alias = Advance().text;
    }
    return item;
  }

  Result<FromClause> ParseFrom() {
    FromClause from;
    from.location = Peek().location;
    int parens = 0;
    if (Peek().IsOperator("(") && Peek(1).IsKeyword("SELECT")) {
      // A subquery: its own innermost FROM reads the stream.
      Advance();
      if (++depth_ > kMaxQueryDepth) {
        return ErrorAt(Peek(), "subqueries nest deeper than " + std::to_string(kMaxQueryDepth) +
                                   " levels");
      }
      auto inner = ParseQueryBody();
      --depth_;
      if (!inner.ok()) return inner.status();
      if (inner->drop_duplicates) {
        return Status::InvalidArgument(inner->drop_duplicates->location.ToString() +
                                       ": DROP DUPLICATES goes after the outermost query, not "
                                       "inside a subquery");
      }
      if (inner->quarantine_table) {
        return Status::InvalidArgument(inner->quarantine_table->location.ToString() +
                                       ": QUARANTINE INTO goes after the outermost query, not "
                                       "inside a subquery");
      }
      WEIR_RETURN_NOT_OK(ExpectOperator(")"));
      from.kind = FromClause::Kind::kSubquery;
      from.subquery = std::make_shared<const Query>(std::move(*inner));
      return ParseFromItemSuffix(std::move(from));
    }
    if (Peek().IsKeyword("STREAM") && Peek(1).IsOperator("(") && Peek(2).IsKeyword("SELECT")) {
      return ErrorAt(Peek(), "STREAM reads a table or read_kafka(...); a subquery reads the stream "
                             "inside: FROM (SELECT ... FROM STREAM(table)) " + Near(Peek()));
    }
    if (Peek().IsKeyword("STREAM") &&
        (Peek(1).IsOperator("(") || Peek(1).kind == TokenKind::kIdentifier)) {
      Advance();
      from.streaming = true;
      if (AcceptOperator("(")) parens = 1;
    }
    if (Peek().IsKeyword("read_kafka") && Peek(1).IsOperator("(")) {
      from.kind = FromClause::Kind::kReadKafka;
      Advance();
      Advance();
      if (!AcceptOperator(")")) {
        while (true) {
          NamedArgument arg;
          arg.location = Peek().location;
          if (Peek().kind != TokenKind::kIdentifier || !(Peek(1).IsOperator("=>") || Peek(1).IsOperator("."))) {
            return ErrorAt(Peek(), "read_kafka takes named arguments (name => value): expected a "
                                   "name " + Near(Peek()));
          }
          WEIR_ASSIGN_OR_RETURN(arg.name, ParseDottedName("an option name"));
          WEIR_RETURN_NOT_OK(ExpectOperator("=>"));
          WEIR_ASSIGN_OR_RETURN(arg.value, ParseExpr());
          from.kafka_arguments.push_back(std::move(arg));
          if (AcceptOperator(")")) break;
          WEIR_RETURN_NOT_OK(ExpectOperator(","));
        }
      }
    } else if (Peek().kind == TokenKind::kIdentifier && !IsClauseKeyword(Peek())) {
      from.kind = FromClause::Kind::kTable;
      WEIR_ASSIGN_OR_RETURN(from.table, ParseQualifiedName("a table name"));
      if (Peek().IsOperator("(")) {
        return ErrorAt(Peek(), "table-valued function " + from.table.ToString() +
                                   " is not supported; weir reads read_kafka(...) or a table " +
                                   Near(Peek()));
      }
    } else {
      return Expected("read_kafka(...) or a table name");
    }
    if (parens > 0) WEIR_RETURN_NOT_OK(ExpectOperator(")"));
    if (from.kind == FromClause::Kind::kTable && Peek().IsKeyword("WITH") && Peek(1).IsOperator("(")) {
      Advance();
      WEIR_RETURN_NOT_OK(ParseTableProperties(&from.table_options));
    }
    return ParseFromItemSuffix(std::move(from));
  }

  // A FROM item's [WATERMARK ...] [[AS] alias].
  Result<FromClause> ParseFromItemSuffix(FromClause from) {
    if (Peek().IsKeyword("WATERMARK")) {
      WEIR_ASSIGN_OR_RETURN(Watermark w, ParseWatermark());
      from.watermark = std::move(w);
    }
    if (AcceptKeyword("AS")) {
      WEIR_ASSIGN_OR_RETURN(from.alias, ExpectIdentifier("an alias"));
    } else if (Peek().kind == TokenKind::kIdentifier && !IsClauseKeyword(Peek())) {
      from.alias = Advance().text;
    }
    if (!from.watermark.has_value() && Peek().IsKeyword("WATERMARK")) {
      return ErrorAt(Peek(), "the WATERMARK clause goes before the table alias " + Near(Peek()));
    }
    return from;
  }

  Result<Watermark> ParseWatermark() {
    Watermark w;
    w.location = Peek().location;
    Advance();  // WATERMARK
    WEIR_ASSIGN_OR_RETURN(w.event_time, ParseExpr());
    if (AcceptKeyword("AS")) {
      WEIR_ASSIGN_OR_RETURN(w.column_name, ExpectIdentifier("a column name"));
    } else if (const ColumnRef* ref = w.event_time->As<ColumnRef>()) {
      w.column_name = ref->parts.back();
    } else {
      return ErrorAt(Peek(), "a WATERMARK expression that is not a column needs AS name " +
                                 Near(Peek()));
    }
    WEIR_RETURN_NOT_OK(ExpectKeyword("DELAY"));
    WEIR_RETURN_NOT_OK(ExpectKeyword("OF"));
    if (!Peek().IsKeyword("INTERVAL")) return Expected("INTERVAL after DELAY OF");
    size_t begin = Peek().offset;
    const Token& interval_token = Peek();
    Advance();
    WEIR_ASSIGN_OR_RETURN(Interval delay, ParseIntervalBody(interval_token));
    w.delay = delay;
    const Token& last = tokens_[pos_ - 1];
    w.delay_text = std::string(text_.substr(begin, last.offset + last.length - begin));
    if (delay.months != 0 || delay.ApproximateMicros() <= 0) {
      return ErrorAt(interval_token,
                     "the watermark delay must be a positive interval less than a month");
    }
    return w;
  }

  // ------------------------------------------------------------ expressions
  Result<ExprPtr> ParseExpr() {
    if (++depth_ > kMaxDepth) {
      return ErrorAt(Peek(), "expression nests deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    auto result = ParseOr();
    --depth_;
    return result;
  }

  Result<ExprPtr> ParseOr() {
    WEIR_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
    while (Peek().IsKeyword("OR")) {
      Location loc = Advance().location;
      WEIR_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
      left = MakeExpr(loc, Binary{BinaryOp::kOr, std::move(left), std::move(right)});
    }
    return left;
  }

  Result<ExprPtr> ParseAnd() {
    WEIR_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
    while (Peek().IsKeyword("AND")) {
      Location loc = Advance().location;
      WEIR_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
      left = MakeExpr(loc, Binary{BinaryOp::kAnd, std::move(left), std::move(right)});
    }
    return left;
  }

  Result<ExprPtr> ParseNot() {
    if (Peek().IsKeyword("NOT") || Peek().IsOperator("!")) {
      Location loc = Advance().location;
      if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "expression nests too deeply");
      auto operand = ParseNot();
      --depth_;
      if (!operand.ok()) return operand.status();
      return MakeExpr(loc, Unary{UnaryOp::kNot, std::move(*operand)});
    }
    return ParsePredicate();
  }

  Result<ExprPtr> ParsePredicate() {
    WEIR_ASSIGN_OR_RETURN(ExprPtr left, ParseComparison());
    while (true) {
      const Token& t = Peek();
      Location loc = t.location;
      bool negated = false;
      size_t save = pos_;
      if (t.IsKeyword("NOT")) {
        const Token& n = Peek(1);
        if (n.IsKeyword("IN") || n.IsKeyword("BETWEEN") || n.IsKeyword("LIKE") ||
            n.IsKeyword("ILIKE") || n.IsKeyword("RLIKE") || n.IsKeyword("REGEXP")) {
          Advance();
          negated = true;
        } else {
          return left;
        }
      }
      const Token& k = Peek();
      if (k.IsKeyword("IN")) {
        Advance();
        WEIR_RETURN_NOT_OK(ExpectOperator("("));
        if (Peek().IsKeyword("SELECT")) {
          return ErrorAt(Peek(), "subqueries are not supported " + Near(Peek()));
        }
        InList in;
        in.operand = std::move(left);
        in.negated = negated;
        while (true) {
          WEIR_ASSIGN_OR_RETURN(ExprPtr item, ParseExpr());
          in.list.push_back(std::move(item));
          if (AcceptOperator(")")) break;
          WEIR_RETURN_NOT_OK(ExpectOperator(","));
        }
        left = MakeExpr(loc, std::move(in));
      } else if (k.IsKeyword("BETWEEN")) {
        Advance();
        Between b;
        b.operand = std::move(left);
        b.negated = negated;
        WEIR_ASSIGN_OR_RETURN(b.low, ParseComparison());
        WEIR_RETURN_NOT_OK(ExpectKeyword("AND"));
        WEIR_ASSIGN_OR_RETURN(b.high, ParseComparison());
        left = MakeExpr(loc, std::move(b));
      } else if (k.IsKeyword("LIKE") || k.IsKeyword("ILIKE") || k.IsKeyword("RLIKE") ||
                 k.IsKeyword("REGEXP")) {
        Like like;
        like.kind = k.IsKeyword("LIKE")    ? Like::Kind::kLike
                    : k.IsKeyword("ILIKE") ? Like::Kind::kILike
                                           : Like::Kind::kRLike;
        Advance();
        like.operand = std::move(left);
        like.negated = negated;
        WEIR_ASSIGN_OR_RETURN(like.pattern, ParseComparison());
        if (like.kind != Like::Kind::kRLike && AcceptKeyword("ESCAPE")) {
          if (Peek().kind != TokenKind::kString || Peek().text.size() != 1) {
            return Expected("a one-character string after ESCAPE");
          }
          like.escape = Advance().text;
        }
        left = MakeExpr(loc, std::move(like));
      } else if (k.IsKeyword("IS")) {
        Advance();
        IsPredicate is;
        is.negated = AcceptKeyword("NOT");
        if (AcceptKeyword("NULL")) {
          is.kind = IsPredicate::Kind::kNull;
        } else if (AcceptKeyword("TRUE")) {
          is.kind = IsPredicate::Kind::kTrue;
        } else if (AcceptKeyword("FALSE")) {
          is.kind = IsPredicate::Kind::kFalse;
        } else if (AcceptKeyword("DISTINCT")) {
          WEIR_RETURN_NOT_OK(ExpectKeyword("FROM"));
          is.kind = IsPredicate::Kind::kDistinctFrom;
          WEIR_ASSIGN_OR_RETURN(is.other, ParseComparison());
        } else {
          return Expected("NULL, TRUE, FALSE or DISTINCT FROM after IS");
        }
        is.operand = std::move(left);
        left = MakeExpr(loc, std::move(is));
      } else {
        pos_ = save;
        return left;
      }
    }
  }

  Result<ExprPtr> ParseComparison() {
    WEIR_ASSIGN_OR_RETURN(ExprPtr left, ParseBitOr());
    while (true) {
      const Token& t = Peek();
      BinaryOp op;
      if (t.IsOperator("=") || t.IsOperator("==")) {
        op = BinaryOp::kEqual;
      } else if (t.IsOperator("<=>")) {
        op = BinaryOp::kNullSafeEqual;
      } else if (t.IsOperator("<>") || t.IsOperator("!=")) {
        op = BinaryOp::kNotEqual;
      } else if (t.IsOperator("<")) {
        op = BinaryOp::kLess;
      } else if (t.IsOperator("<=")) {
        op = BinaryOp::kLessEqual;
      } else if (t.IsOperator(">")) {
        op = BinaryOp::kGreater;
      } else if (t.IsOperator(">=")) {
        op = BinaryOp::kGreaterEqual;
      } else {
        return left;
      }
      Location loc = Advance().location;
      WEIR_ASSIGN_OR_RETURN(ExprPtr right, ParseBitOr());
      left = MakeExpr(loc, Binary{op, std::move(left), std::move(right)});
    }
  }

  // One left-associative binary level: `next` parses operands, `match` maps a token to an op.
  template <typename Next, typename Match>
  Result<ExprPtr> ParseLeftAssociative(Next next, Match match) {
    WEIR_ASSIGN_OR_RETURN(ExprPtr left, (this->*next)());
    while (true) {
      std::optional<BinaryOp> op = match(Peek());
      if (!op) return left;
      Location loc = Advance().location;
      WEIR_ASSIGN_OR_RETURN(ExprPtr right, (this->*next)());
      left = MakeExpr(loc, Binary{*op, std::move(left), std::move(right)});
    }
  }

  Result<ExprPtr> ParseBitOr() {
    return ParseLeftAssociative(&Parser::ParseBitXor, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.IsOperator("|")) return BinaryOp::kBitOr;
      return std::nullopt;
    });
  }
  Result<ExprPtr> ParseBitXor() {
    return ParseLeftAssociative(&Parser::ParseBitAnd, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.IsOperator("^")) return BinaryOp::kBitXor;
      return std::nullopt;
    });
  }
  Result<ExprPtr> ParseBitAnd() {
    return ParseLeftAssociative(&Parser::ParseAdditive, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.IsOperator("&")) return BinaryOp::kBitAnd;
      return std::nullopt;
    });
  }
  Result<ExprPtr> ParseAdditive() {
    return ParseLeftAssociative(&Parser::ParseMultiplicative,
                                [](const Token& t) -> std::optional<BinaryOp> {
                                  if (t.IsOperator("+")) return BinaryOp::kAdd;
                                  if (t.IsOperator("-")) return BinaryOp::kSubtract;
                                  if (t.IsOperator("||")) return BinaryOp::kConcat;
                                  return std::nullopt;
                                });
  }
  Result<ExprPtr> ParseMultiplicative() {
    return ParseLeftAssociative(&Parser::ParseUnary, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.IsOperator("*")) return BinaryOp::kMultiply;
      if (t.IsOperator("/")) return BinaryOp::kDivide;
      if (t.IsOperator("%")) return BinaryOp::kModulo;
      if (t.IsKeyword("DIV")) return BinaryOp::kIntegerDivide;
      return std::nullopt;
    });
  }

  Result<ExprPtr> ParseUnary() {
    const Token& t = Peek();
    if (t.IsOperator("-") || t.IsOperator("+") || t.IsOperator("~")) {
      Location loc = t.location;
      bool minus = t.IsOperator("-");
      Advance();
      if (minus && Peek().kind == TokenKind::kNumber) {
        // Spark folds the sign into the literal: -2147483648 is an INT.
        return ParsePostfix(/*negative_number=*/true, loc);
      }
      if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "expression nests too deeply");
      auto operand = ParseUnary();
      --depth_;
      if (!operand.ok()) return operand.status();
      UnaryOp op = minus ? UnaryOp::kNegate : t.IsOperator("+") ? UnaryOp::kPlus : UnaryOp::kBitNot;
      return MakeExpr(loc, Unary{op, std::move(*operand)});
    }
    return ParsePostfix(/*negative_number=*/false, t.location);
  }

  // A primary expression (or, after a unary minus, a negative number) and its postfix operators.
  Result<ExprPtr> ParsePostfix(bool negative_number, Location start) {
    ExprPtr e;
    if (negative_number) {
      WEIR_ASSIGN_OR_RETURN(e, ParseNumber(/*negative=*/true, start));
    } else {
      WEIR_ASSIGN_OR_RETURN(e, ParsePrimary());
    }
    while (true) {
      if (e->Is<Star>()) return e;  // nothing applies to a star (its EXCEPT is parsed with it)
      const Token& t = Peek();
      if (t.IsOperator("::")) {
        Location loc = Advance().location;
        WEIR_ASSIGN_OR_RETURN(columnar::TypePtr type, ParseType());
        e = MakeExpr(loc, Cast{std::move(e), std::move(type), false});
      } else if (t.IsOperator("[")) {
        Location loc = Advance().location;
        WEIR_ASSIGN_OR_RETURN(ExprPtr index, ParseExpr());
        WEIR_RETURN_NOT_OK(ExpectOperator("]"));
        e = MakeExpr(loc, Subscript{std::move(e), std::move(index)});
      } else if (t.IsOperator(".") && Peek(1).IsOperator("*")) {
        // expr.* (from_json(...).*): the struct's fields; nothing may follow but EXCEPT (...).
        Advance();
        Advance();
        Star star;
        if (auto* ref = std::get_if<ColumnRef>(&e->node)) {
          star.qualifier = std::move(ref->parts);
        } else {
          star.operand = std::move(e);
        }
        WEIR_RETURN_NOT_OK(ParseStarExcept(&star));
        return MakeExpr(start, std::move(star));
      } else if (t.IsOperator(".") && Peek(1).kind == TokenKind::kIdentifier) {
        Location loc = Advance().location;
        std::string field = Advance().text;
        if (auto* ref = std::get_if<ColumnRef>(&e->node)) {
          ref->parts.push_back(std::move(field));
        } else {
          e = MakeExpr(loc, FieldAccess{std::move(e), std::move(field)});
        }
      } else if (t.IsOperator(":")) {
        Location loc = Advance().location;
        WEIR_ASSIGN_OR_RETURN(std::string path, ParseJsonPath());
        e = MakeExpr(loc, JsonPath{std::move(e), std::move(path)});
      } else {
        return e;
      }
    }
  }

  // The path after `:`: key or `key` or ['key'], then .key / [n] / ['key'] / [*] segments.
  Result<std::string> ParseJsonPath() {
    std::string path = "$";
    bool first = true;
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kIdentifier && first) {
        path += "." + Advance().text;
      } else if (t.IsOperator("[")) {
        Advance();
        if (Peek().kind == TokenKind::kString) {
          path += "['" + Advance().text + "']";
        } else if (Peek().kind == TokenKind::kNumber && !Peek().has_point &&
                   !Peek().has_exponent && Peek().suffix.empty()) {
          path += "[" + Advance().text + "]";
        } else if (Peek().IsOperator("*")) {
          Advance();
          path += "[*]";
        } else {
          return Expected("a key string, an index or * in a JSON path");
        }
        WEIR_RETURN_NOT_OK(ExpectOperator("]"));
      } else if (!first && t.IsOperator(".") && Peek(1).kind == TokenKind::kIdentifier) {
        Advance();
        path += "." + Advance().text;
      } else if (first) {
        return Expected("a JSON path after ':'");
      } else {
        return path;
      }
      first = false;
    }
  }

  // A type after AS or ::, handed to the columnar DDL type parser.
  Result<columnar::TypePtr> ParseType() {
    const Token& start = Peek();
    if (start.kind != TokenKind::kIdentifier) return Expected("a type name");
    Advance();
    bool nested = start.IsKeyword("ARRAY") || start.IsKeyword("MAP") || start.IsKeyword("STRUCT");
    if (nested && Peek().IsOperator("<")) {
      int depth = 0;
      while (true) {
        const Token& t = Peek();
        if (t.kind == TokenKind::kEnd) return ErrorAt(start, "unterminated type " + Near(start));
        if (t.IsOperator("<")) ++depth;
        if (t.IsOperator(">")) --depth;
        if (t.IsOperator("<>")) {  // ARRAY<> is not a type; let the DDL parser say so
          Advance();
          if (depth == 0) break;
          continue;
        }
        Advance();
        if (depth == 0) break;
      }
    } else if (Peek().IsOperator("(")) {
      int depth = 0;
      while (true) {
        const Token& t = Peek();
        if (t.kind == TokenKind::kEnd) return ErrorAt(start, "unterminated type " + Near(start));
        if (t.IsOperator("(")) ++depth;
        if (t.IsOperator(")")) --depth;
        Advance();
        if (depth == 0) break;
      }
    }
    const Token& last = tokens_[pos_ - 1];
    std::string_view type_text = text_.substr(start.offset, last.offset + last.length - start.offset);
    auto type = columnar::ParseDdlType(type_text);
    if (!type.ok()) {
      return ErrorAt(start, "invalid type '" + std::string(type_text) + "' (" +
                                type.status().message() + ")");
    }
    return type;
  }

  Result<ExprPtr> ParseNumber(bool negative, Location location) {
    const Token& t = Advance();
    Literal lit;
    std::string digits = (negative ? "-" : "") + t.text;
    lit.text = digits;
    auto error = [&](std::string_view why) {
      return ErrorAt(t, "invalid number '" + digits + t.suffix + "': " + std::string(why));
    };
    const std::string& suffix = t.suffix;
    bool floating = suffix == "D" || suffix == "F" || (suffix.empty() && t.has_exponent);
    if (floating) {
      double v = 0;
      std::string_view d = t.text;
      auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
      if (ec != std::errc() || ptr != d.data() + d.size() || !std::isfinite(v)) {
        return error("out of range for DOUBLE");
      }
      lit.kind = Literal::Kind::kDouble;
      lit.double_value = negative ? -v : v;
      if (suffix == "F") {
        if (std::fabs(v) > std::numeric_limits<float>::max()) return error("out of range for FLOAT");
        lit.double_value = static_cast<float>(lit.double_value);
        lit.type = columnar::DataType::Float();
      } else {
        lit.type = columnar::DataType::Double();
      }
      return MakeExpr(location, std::move(lit));
    }
    if (suffix == "BD" || t.has_point || t.has_exponent) {
      // A decimal literal: precision = significant digits, scale = fraction digits (Spark's
      // BigDecimal typing; "0.001" is DECIMAL(3,3)).
      std::string_view d = t.text;
      size_t point = d.find('.');
      std::string int_part(point == std::string_view::npos ? d : d.substr(0, point));
      std::string frac_part(point == std::string_view::npos ? "" : d.substr(point + 1));
      if (d.find_first_of("eE") != std::string_view::npos) {
        return error("exponents are not supported in BD literals");
      }
      std::string all = int_part + frac_part;
      size_t first_nonzero = all.find_first_not_of('0');
      std::string significant = first_nonzero == std::string::npos ? "0" : all.substr(first_nonzero);
      int scale = static_cast<int>(frac_part.size());
      int precision = std::max(static_cast<int>(significant.size()), scale);
      if (precision == 0) precision = 1;
      if (precision > 38) return error("more than 38 digits");
      columnar::Int128 unscaled = 0;
      for (char c : significant) unscaled = unscaled * 10 + (c - '0');
      lit.kind = Literal::Kind::kDecimal;
      lit.decimal_unscaled = negative ? -unscaled : unscaled;
      lit.type = columnar::DataType::Decimal(precision, scale);
      return MakeExpr(location, std::move(lit));
    }
    // Integers: INT when it fits, else BIGINT, else DECIMAL(p,0) (Spark's typing of 1, 3000000000,
    // 10000000000000000000); suffixes L, S, Y force BIGINT, SMALLINT, TINYINT.
    std::string_view d = t.text;
    size_t nonzero = d.find_first_not_of('0');
    std::string_view significant = nonzero == std::string_view::npos ? "0" : d.substr(nonzero);
    if (significant.size() > 38) return error("more than 38 digits");
    columnar::Int128 value = 0;
    for (char c : significant) value = value * 10 + (c - '0');
    if (negative) value = -value;
    auto fits = [&](int64_t lo, int64_t hi) { return value >= lo && value <= hi; };
    lit.kind = Literal::Kind::kInteger;
    if (suffix == "L") {
      if (!fits(INT64_MIN, INT64_MAX)) return error("out of range for BIGINT");
      lit.type = columnar::DataType::Int64();
    } else if (suffix == "S") {
      if (!fits(INT16_MIN, INT16_MAX)) return error("out of range for SMALLINT");
      lit.type = columnar::DataType::Int16();
    } else if (suffix == "Y") {
      if (!fits(INT8_MIN, INT8_MAX)) return error("out of range for TINYINT");
      lit.type = columnar::DataType::Int8();
    } else if (fits(INT32_MIN, INT32_MAX)) {
      lit.type = columnar::DataType::Int32();
    } else if (fits(INT64_MIN, INT64_MAX)) {
      lit.type = columnar::DataType::Int64();
    } else {
      lit.kind = Literal::Kind::kDecimal;
      lit.decimal_unscaled = value;
      lit.type = columnar::DataType::Decimal(static_cast<int>(significant.size()), 0);
      return MakeExpr(location, std::move(lit));
    }
    lit.integer_value = static_cast<int64_t>(value);
    return MakeExpr(location, std::move(lit));
  }

  static std::optional<Interval> UnitInterval(std::string_view unit, double value, bool* ok) {
    std::string u = Upper(unit);
    if (u.size() > 1 && u.back() == 'S') u.pop_back();
    Interval iv;
    *ok = true;
    auto whole = [&](double v) { return v == std::trunc(v); };
    if (u == "YEAR") {
      if (!whole(value)) return std::nullopt;
      iv.months = static_cast<int32_t>(value * 12);
    } else if (u == "MONTH") {
      if (!whole(value)) return std::nullopt;
      iv.months = static_cast<int32_t>(value);
    } else if (u == "WEEK") {
      iv.micros = static_cast<int64_t>(std::llround(value * 7 * 86400 * kMicrosPerSecond));
    } else if (u == "DAY") {
      if (whole(value)) {
        iv.days = static_cast<int32_t>(value);
      } else {
        iv.micros = static_cast<int64_t>(std::llround(value * 86400 * kMicrosPerSecond));
      }
    } else if (u == "HOUR") {
      iv.micros = static_cast<int64_t>(std::llround(value * 3600 * kMicrosPerSecond));
    } else if (u == "MINUTE") {
      iv.micros = static_cast<int64_t>(std::llround(value * 60 * kMicrosPerSecond));
    } else if (u == "SECOND") {
      iv.micros = static_cast<int64_t>(std::llround(value * kMicrosPerSecond));
    } else if (u == "MILLISECOND") {
      iv.micros = static_cast<int64_t>(std::llround(value * 1000));
    } else if (u == "MICROSECOND") {
      iv.micros = static_cast<int64_t>(std::llround(value));
    } else {
      *ok = false;
      return std::nullopt;
    }
    return iv;
  }

  static bool IsIntervalUnit(const Token& t) {
    if (t.kind != TokenKind::kIdentifier || t.quoted) return false;
    bool ok = false;
    UnitInterval(t.text, 0, &ok);
    return ok;
  }

  static std::optional<double> ParseIntervalNumber(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    bool negative = false;
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
      negative = s.front() == '-';
      s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    double v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
    if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v) || v > 1e12) {
      return std::nullopt;
    }
    return negative ? -v : v;
  }

  static void AddInterval(Interval* total, const Interval& part) {
    total->months += part.months;
    total->days += part.days;
    total->micros += part.micros;
  }

  // After INTERVAL: `'n' unit`, `n unit`, `'n unit [n unit ...]'`, or several `n unit` pairs.
  Result<Interval> ParseIntervalBody(const Token& interval_token) {
    Interval total;
    int parts = 0;
    while (true) {
      const Token& t = Peek();
      bool negative = false;
      std::optional<double> value;
      if (t.IsOperator("-") && Peek(1).kind == TokenKind::kNumber) {
        negative = true;
        Advance();
      }
      const Token& v = Peek();
      if (v.kind == TokenKind::kNumber && v.suffix.empty() && !v.has_exponent) {
        value = ParseIntervalNumber(v.text);
        Advance();
      } else if (v.kind == TokenKind::kString && !negative) {
        if (!IsIntervalUnit(Peek(1))) {
          // '1 day 2 hours': units inside the string.
          Advance();
          WEIR_ASSIGN_OR_RETURN(Interval inner, ParseIntervalString(v));
          AddInterval(&total, inner);
          ++parts;
          continue;
        }
        value = ParseIntervalNumber(v.text);
        if (!value) return ErrorAt(v, "invalid interval value " + Near(v));
        Advance();
      } else {
        break;
      }
      if (!value) return ErrorAt(v, "invalid interval value " + Near(v));
      if (negative) *value = -*value;
      const Token& unit = Peek();
      if (!IsIntervalUnit(unit)) return Expected("an interval unit (SECOND, MINUTE, HOUR, DAY, ...)");
      bool ok = false;
      std::optional<Interval> part = UnitInterval(unit.text, *value, &ok);
      if (!part) return ErrorAt(unit, "a fractional value needs a unit of a week or less");
      Advance();
      AddInterval(&total, *part);
      ++parts;
    }
    if (parts == 0) return ErrorAt(interval_token, "expected an interval value after INTERVAL " + Near(Peek()));
    return total;
  }

  Result<Interval> ParseIntervalString(const Token& token) {
    Interval total;
    std::string_view s = token.text;
    size_t pos = 0;
    auto skip = [&] {
      while (pos < s.size() && s[pos] == ' ') ++pos;
    };
    skip();
    if (s.size() >= 8 && Upper(s.substr(0, 8)) == "INTERVAL") {
      pos = 8;
      skip();
    }
    int parts = 0;
    while (pos < s.size()) {
      size_t start = pos;
      while (pos < s.size() && s[pos] != ' ') ++pos;
      std::optional<double> value = ParseIntervalNumber(s.substr(start, pos - start));
      skip();
      size_t unit_start = pos;
      while (pos < s.size() && s[pos] != ' ') ++pos;
      std::string_view unit = s.substr(unit_start, pos - unit_start);
      bool ok = false;
      std::optional<Interval> part = value ? UnitInterval(unit, *value, &ok) : std::nullopt;
      if (!part) {
        return ErrorAt(token, "invalid interval string " + QuoteString(token.text) +
                                  " (expected 'n unit', e.g. '30 minutes')");
      }
      AddInterval(&total, *part);
      ++parts;
      skip();
    }
    if (parts == 0) return ErrorAt(token, "empty interval string");
    return total;
  }

  Result<ExprPtr> ParsePrimary() {
    if (++depth_ > kMaxDepth) return ErrorAt(Peek(), "expression nests too deeply");
    auto result = ParsePrimaryInner();
    --depth_;
    return result;
  }

  Result<ExprPtr> ParsePrimaryInner() {
    const Token& t = Peek();
    Location loc = t.location;
    switch (t.kind) {
      case TokenKind::kNumber:
        return ParseNumber(false, loc);
      case TokenKind::kString: {
        Literal lit;
        lit.kind = Literal::Kind::kString;
        lit.text = Advance().text;
        while (Peek().kind == TokenKind::kString) lit.text += Advance().text;  // 'a' 'b' = 'ab'
        return MakeExpr(loc, std::move(lit));
      }
      case TokenKind::kBinaryString: {
        Literal lit;
        lit.kind = Literal::Kind::kBinary;
        lit.text = Advance().text;
        return MakeExpr(loc, std::move(lit));
      }
      case TokenKind::kEnd:
        return Expected("an expression");
      case TokenKind::kOperator:
        if (t.IsOperator("(")) {
          Advance();
          if (Peek().IsKeyword("SELECT")) {
            return ErrorAt(Peek(), "subqueries are not supported " + Near(Peek()));
          }
          // (a, b) -> body
          if (Peek().kind == TokenKind::kIdentifier && (Peek(1).IsOperator(",") || (Peek(1).IsOperator(")") && Peek(2).IsOperator("->")))) {
            size_t save = pos_;
            Lambda lambda;
            bool is_lambda = true;
            while (true) {
              if (Peek().kind != TokenKind::kIdentifier) {
                is_lambda = false;
                break;
              }
              lambda.params.push_back(Advance().text);
              if (AcceptOperator(")")) break;
              if (!AcceptOperator(",")) {
                is_lambda = false;
                break;
              }
            }
            if (is_lambda && AcceptOperator("->")) {
              WEIR_ASSIGN_OR_RETURN(lambda.body, ParseExpr());
              return MakeExpr(loc, std::move(lambda));
            }
            pos_ = save;
          }
          WEIR_ASSIGN_OR_RETURN(ExprPtr inner, ParseExpr());
          if (Peek().IsOperator(",")) {
            return ErrorAt(Peek(), "row values (a, b) are not supported " + Near(Peek()));
          }
          WEIR_RETURN_NOT_OK(ExpectOperator(")"));
          return inner;
        }
        if (t.IsOperator("*")) {
          return ErrorAt(t, "'*' is allowed only as a select item or in count(*) " + Near(t));
        }
        return Expected("an expression");
      case TokenKind::kIdentifier:
        break;
    }
    // Identifiers: keywords that start expressions, then functions and columns.
    if (!t.quoted) {
      if (t.IsKeyword("NULL")) {
        Advance();
        return MakeExpr(loc, Literal{});
      }
      if (t.IsKeyword("TRUE") || t.IsKeyword("FALSE")) {
        Literal lit;
        lit.kind = Literal::Kind::kBoolean;
        lit.boolean_value = t.IsKeyword("TRUE");
        Advance();
        return MakeExpr(loc, std::move(lit));
      }
      if (t.IsKeyword("CASE")) return ParseCase();
      if ((t.IsKeyword("CAST") || t.IsKeyword("TRY_CAST")) && Peek(1).IsOperator("(")) {
        bool try_cast = t.IsKeyword("TRY_CAST");
        Advance();
        Advance();
        WEIR_ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
        WEIR_RETURN_NOT_OK(ExpectKeyword("AS"));
        WEIR_ASSIGN_OR_RETURN(columnar::TypePtr type, ParseType());
        WEIR_RETURN_NOT_OK(ExpectOperator(")"));
        return MakeExpr(loc, Cast{std::move(operand), std::move(type), try_cast});
      }
      if (t.IsKeyword("INTERVAL") &&
          (Peek(1).kind == TokenKind::kString || Peek(1).kind == TokenKind::kNumber ||
           (Peek(1).IsOperator("-") && Peek(2).kind == TokenKind::kNumber))) {
        const Token& interval_token = Advance();
        WEIR_ASSIGN_OR_RETURN(Interval iv, ParseIntervalBody(interval_token));
        Literal lit;
        lit.kind = Literal::Kind::kInterval;
        lit.interval = iv;
        return MakeExpr(loc, std::move(lit));
      }
      if (Peek(1).kind == TokenKind::kString) {
        Literal lit;
        if (t.IsKeyword("DATE")) {
          lit.kind = Literal::Kind::kDate;
        } else if (t.IsKeyword("TIMESTAMP") || t.IsKeyword("TIMESTAMP_LTZ")) {
          lit.kind = Literal::Kind::kTimestamp;
        } else if (t.IsKeyword("TIMESTAMP_NTZ")) {
          lit.kind = Literal::Kind::kTimestampNtz;
        }
        if (lit.kind != Literal::Kind::kNull) {
          Advance();
          lit.text = Advance().text;
          return MakeExpr(loc, std::move(lit));
        }
      }
      if ((t.IsKeyword("CURRENT_TIMESTAMP") || t.IsKeyword("CURRENT_DATE")) &&
          !Peek(1).IsOperator("(")) {
        FunctionCall call;
        call.name = Lower(Advance().text);
        return MakeExpr(loc, std::move(call));
      }
      if (IsClauseKeyword(t) && !Peek(1).IsOperator("(")) {
        return Expected("an expression");
      }
      if (Peek(1).IsOperator("(") && IsKeywordCall()) return ParseKeywordCall(loc);
    }
    // x -> body
    if (Peek(1).IsOperator("->")) {
      Lambda lambda;
      lambda.params.push_back(Advance().text);
      Advance();
      WEIR_ASSIGN_OR_RETURN(lambda.body, ParseExpr());
      return MakeExpr(loc, std::move(lambda));
    }
    // A dotted name: a column (a.b.c), a qualified star (e.*) or a function (db.fn(...)).
    std::vector<std::string> parts{Advance().text};
    while (Peek().IsOperator(".")) {
      if (Peek(1).kind == TokenKind::kIdentifier) {
        Advance();
        parts.push_back(Advance().text);
      } else if (Peek(1).IsOperator("*")) {
        Advance();
        Advance();
        Star star;
        star.qualifier = std::move(parts);
        WEIR_RETURN_NOT_OK(ParseStarExcept(&star));
        return MakeExpr(loc, std::move(star));
      } else {
        break;
      }
    }
    if (Peek().IsOperator("(")) return ParseFunctionCall(loc, parts);
    return MakeExpr(loc, ColumnRef{std::move(parts)});
  }

  // Whether the call at the current token is one of Spark's calls with keyword syntax (see
  // ParseKeywordCall): its name, then the keyword that tells it from the ordinary call (trim(s),
  // substring(s, 2)) at the top level of its parentheses. A token scan, so that no argument is
  // parsed twice (a retry per nesting level would be exponential).
  bool IsKeywordCall() const {
    const Token& name = Peek();
    std::string_view keyword;
    if (name.IsKeyword("TRIM") || name.IsKeyword("EXTRACT") || name.IsKeyword("SUBSTRING") ||
        name.IsKeyword("SUBSTR")) {
      keyword = "FROM";
    } else if (name.IsKeyword("POSITION")) {
      keyword = "IN";
    } else if (name.IsKeyword("OVERLAY")) {
      keyword = "PLACING";
    } else {
      return false;
    }
    // TRIM(BOTH ...: the keyword syntax even without FROM (which ParseKeywordCall then asks for).
    const Token& first = Peek(2);
    if (name.IsKeyword("TRIM") &&
        (first.IsKeyword("BOTH") || first.IsKeyword("LEADING") || first.IsKeyword("TRAILING")) &&
        !Peek(3).IsOperator(")") && !Peek(3).IsOperator(",")) {
      return true;
    }
    int depth = 0;
    for (size_t i = pos_ + 1; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.kind == TokenKind::kEnd) return false;
      if (t.IsOperator("(") || t.IsOperator("[")) {
        ++depth;
      } else if (t.IsOperator(")") || t.IsOperator("]")) {
        if (--depth == 0) return false;
      } else if (depth == 1 && t.IsKeyword(keyword)) {
        return true;
      }
    }
    return false;
  }

  // Spark's calls with keyword syntax, read as ordinary calls (operands are value expressions,
  // as in Spark's grammar):
  //   TRIM([BOTH | LEADING | TRAILING] [chars] FROM s)  trim / ltrim / rtrim([chars,] s)
  //   POSITION(sub IN s)                                 locate(sub, s)
  //   OVERLAY(s PLACING r FROM pos [FOR len])            overlay(s, r, pos[, len])
  //   SUBSTRING(s FROM pos [FOR len]), SUBSTR(...)       substring(s, pos[, len])
  //   EXTRACT(field FROM x)                              the field's function (ParseExtract)
  Result<ExprPtr> ParseKeywordCall(Location loc) {
    std::string name = Upper(Advance().text);
    Advance();  // (
    if (name == "EXTRACT") return ParseExtract(loc);
    FunctionCall call;
    auto operand = [&]() -> Status {
      WEIR_ASSIGN_OR_RETURN(ExprPtr e, ParseComparison());
      call.args.push_back(std::move(e));
      call.arg_names.emplace_back();
      return Status::OK();
    };
    if (name == "TRIM") {
      call.name = "trim";
      bool option_follows = !Peek(1).IsOperator(")") && !Peek(1).IsOperator(",");
      if (option_follows && AcceptKeyword("LEADING")) {
        call.name = "ltrim";
      } else if (option_follows && AcceptKeyword("TRAILING")) {
        call.name = "rtrim";
      } else if (option_follows) {
        AcceptKeyword("BOTH");
      }
      if (!Peek().IsKeyword("FROM")) WEIR_RETURN_NOT_OK(operand());  // the characters
      WEIR_RETURN_NOT_OK(ExpectKeyword("FROM"));
      WEIR_RETURN_NOT_OK(operand());
    } else if (name == "POSITION") {
      call.name = "locate";
      WEIR_RETURN_NOT_OK(operand());
      WEIR_RETURN_NOT_OK(ExpectKeyword("IN"));
      WEIR_RETURN_NOT_OK(operand());
    } else {
      call.name = name == "OVERLAY" ? "overlay" : "substring";
      WEIR_RETURN_NOT_OK(operand());
      if (name == "OVERLAY") {
        WEIR_RETURN_NOT_OK(ExpectKeyword("PLACING"));
        WEIR_RETURN_NOT_OK(operand());
      }
      WEIR_RETURN_NOT_OK(ExpectKeyword("FROM"));
      WEIR_RETURN_NOT_OK(operand());
      if (AcceptKeyword("FOR")) WEIR_RETURN_NOT_OK(operand());
    }
    WEIR_RETURN_NOT_OK(ExpectOperator(")"));
    return MakeExpr(loc, std::move(call));
  }

  // EXTRACT(field FROM x), after "EXTRACT(": the function Spark's DatePart.parseExtractField
  // picks for the field (YEAR -> year(x), DOW -> dayofweek(x), ...). SECOND has its fraction, as
  // Spark's SecondWithFraction: CAST(CAST(pmod(unix_micros(CAST(x AS TIMESTAMP)), 60000000L) AS
  // DECIMAL(8,0)) * 0.000001 AS DECIMAL(8,6)).
  Result<ExprPtr> ParseExtract(Location loc) {
    const Token& field = Peek();
    if (field.kind != TokenKind::kIdentifier) {
      return Expected("a field name (YEAR, MONTH, DAY, ...)");
    }
    Advance();
    WEIR_RETURN_NOT_OK(ExpectKeyword("FROM"));
    WEIR_ASSIGN_OR_RETURN(ExprPtr source, ParseComparison());
    WEIR_RETURN_NOT_OK(ExpectOperator(")"));
    auto call = [&](std::string function, ExprPtr arg) {
      FunctionCall c;
      c.name = std::move(function);
      c.args.push_back(std::move(arg));
      c.arg_names.emplace_back();
      return MakeExpr(loc, std::move(c));
    };
    std::string field_name = Upper(field.text);
    auto is = [&](std::initializer_list<std::string_view> names) {
      return std::find(names.begin(), names.end(), field_name) != names.end();
    };
    if (is({"YEAR", "Y", "YEARS", "YR", "YRS"})) return call("year", std::move(source));
    if (is({"QUARTER", "QTR"})) return call("quarter", std::move(source));
    if (is({"MONTH", "MON", "MONS", "MONTHS"})) return call("month", std::move(source));
    if (is({"WEEK", "W", "WEEKS"})) return call("weekofyear", std::move(source));
    if (is({"DAY", "D", "DAYS"})) return call("day", std::move(source));
    if (is({"DAYOFWEEK", "DOW"})) return call("dayofweek", std::move(source));
    if (is({"DOY"})) return call("dayofyear", std::move(source));
    if (is({"HOUR", "H", "HOURS", "HR", "HRS"})) return call("hour", std::move(source));
    if (is({"MINUTE", "M", "MIN", "MINS", "MINUTES"})) return call("minute", std::move(source));
    if (is({"DAYOFWEEK_ISO", "DOW_ISO"})) {
      Literal one;
      one.kind = Literal::Kind::kInteger;
      one.type = columnar::DataType::Int32();
      one.integer_value = 1;
      one.text = "1";
      return MakeExpr(loc, Binary{BinaryOp::kAdd, call("weekday", std::move(source)),
                                  MakeExpr(loc, std::move(one))});
    }
    if (is({"SECOND", "S", "SEC", "SECONDS", "SECS"})) {
      ExprPtr micros = call("unix_micros", MakeExpr(loc, Cast{std::move(source),
                                                              columnar::DataType::Timestamp()}));
      Literal minute;
      minute.kind = Literal::Kind::kInteger;
      minute.type = columnar::DataType::Int64();
      minute.integer_value = 60000000;
      minute.text = "60000000";
      FunctionCall pmod;
      pmod.name = "pmod";
      pmod.args.push_back(std::move(micros));
      pmod.args.push_back(MakeExpr(loc, std::move(minute)));
      pmod.arg_names.resize(2);
      ExprPtr whole = MakeExpr(loc, Cast{MakeExpr(loc, std::move(pmod)),
                                         columnar::DataType::Decimal(8, 0)});
      Literal micro;
      micro.kind = Literal::Kind::kDecimal;
      micro.type = columnar::DataType::Decimal(6, 6);
      micro.decimal_unscaled = 1;
      micro.text = "0.000001";
      ExprPtr seconds = MakeExpr(
          loc, Binary{BinaryOp::kMultiply, std::move(whole), MakeExpr(loc, std::move(micro))});
      return MakeExpr(loc, Cast{std::move(seconds), columnar::DataType::Decimal(8, 6)});
    }
    if (is({"YEAROFWEEK"})) {
      return ErrorAt(field, "EXTRACT(YEAROFWEEK FROM ...) is not supported by weir yet");
    }
    return ErrorAt(field, "cannot extract " + field.text +
                              " (INVALID_EXTRACT_FIELD); the fields are YEAR, QUARTER, MONTH, "
                              "WEEK, DAY, DAYOFWEEK, DAYOFWEEK_ISO, DOY, HOUR, MINUTE and SECOND");
  }

  Result<ExprPtr> ParseFunctionCall(Location loc, const std::vector<std::string>& parts) {
    Advance();  // (
    FunctionCall call;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) call.name.push_back('.');
      call.name += Lower(parts[i]);
    }
    if (AcceptOperator(")")) return MakeExpr(loc, std::move(call));
    if (Peek().IsOperator("*") && Peek(1).IsOperator(")")) {
      Advance();
      Advance();
      call.star = true;
      return MakeExpr(loc, std::move(call));
    }
    if (AcceptKeyword("DISTINCT")) call.distinct = true;
    while (true) {
      std::string name;
      if (Peek().kind == TokenKind::kIdentifier && Peek(1).IsOperator("=>")) {
        name = Advance().text;
        Advance();
      } else if (!call.arg_names.empty() && !call.arg_names.back().empty()) {
        return ErrorAt(Peek(), "a positional argument cannot follow a named argument " + Near(Peek()));
      }
      WEIR_ASSIGN_OR_RETURN(ExprPtr arg, ParseExpr());
      call.args.push_back(std::move(arg));
      call.arg_names.push_back(std::move(name));
      if (AcceptOperator(")")) break;
      WEIR_RETURN_NOT_OK(ExpectOperator(","));
    }
    return MakeExpr(loc, std::move(call));
  }

  Result<ExprPtr> ParseCase() {
    Location loc = Advance().location;  // CASE
    Case c;
    if (!Peek().IsKeyword("WHEN")) {
      WEIR_ASSIGN_OR_RETURN(c.operand, ParseExpr());
    }
    while (AcceptKeyword("WHEN")) {
      WEIR_ASSIGN_OR_RETURN(ExprPtr when, ParseExpr());
      WEIR_RETURN_NOT_OK(ExpectKeyword("THEN"));
      WEIR_ASSIGN_OR_RETURN(ExprPtr then, ParseExpr());
      c.whens.push_back(std::move(when));
      c.thens.push_back(std::move(then));
    }
    if (c.whens.empty()) return Expected("WHEN");
    if (AcceptKeyword("ELSE")) {
      WEIR_ASSIGN_OR_RETURN(c.else_result, ParseExpr());
    }
    WEIR_RETURN_NOT_OK(ExpectKeyword("END"));
    return MakeExpr(loc, std::move(c));
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<std::vector<Statement>> ParseStatements(std::string_view text, const SourceMap* map) {
  WEIR_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, map));
  return Parser(text, std::move(tokens)).ParseStatements();
}

Result<Query> ParseQuery(std::string_view text) {
  WEIR_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  return Parser(text, std::move(tokens)).ParseWholeQuery();
}

Result<ExprPtr> ParseExpression(std::string_view text) {
  WEIR_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  return Parser(text, std::move(tokens)).ParseWholeExpression();
}

}  // namespace weir::sql
