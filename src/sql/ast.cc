#include "sql/ast.h"

#include <charconv>
#include <cmath>

#include "columnar/text_format.h"

namespace weir::sql {

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

void AppendDouble(double v, std::string* out) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, ptr);
  std::string_view s(buf, ptr - buf);
  if (s.find_first_of(".e") == std::string_view::npos && s.find("inf") == std::string_view::npos &&
      s.find("nan") == std::string_view::npos) {
    out->append(".0");
  }
}

void AppendUnit(int64_t value, std::string_view unit, std::string* out) {
  out->push_back(' ');
  out->append(std::to_string(value));
  out->push_back(' ');
  out->append(unit);
}

std::string IntervalSql(const Interval& iv) {
  std::string out = "INTERVAL";
  if (iv.months != 0) AppendUnit(iv.months, "MONTHS", &out);
  if (iv.days != 0) AppendUnit(iv.days, "DAYS", &out);
  if (iv.micros != 0 || (iv.months == 0 && iv.days == 0)) {
    int64_t m = iv.micros;
    if (m % (3600 * kMicrosPerSecond) == 0 && m != 0) {
      AppendUnit(m / (3600 * kMicrosPerSecond), "HOURS", &out);
    } else if (m % (60 * kMicrosPerSecond) == 0 && m != 0) {
      AppendUnit(m / (60 * kMicrosPerSecond), "MINUTES", &out);
    } else if (m % kMicrosPerSecond == 0) {
      AppendUnit(m / kMicrosPerSecond, "SECONDS", &out);
    } else {
      AppendUnit(m, "MICROSECONDS", &out);
    }
  }
  return out;
}

std::string_view BinaryOpSql(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return "OR";
    case BinaryOp::kAnd: return "AND";
    case BinaryOp::kEqual: return "=";
    case BinaryOp::kNullSafeEqual: return "<=>";
    case BinaryOp::kNotEqual: return "!=";
    case BinaryOp::kLess: return "<";
    case BinaryOp::kLessEqual: return "<=";
    case BinaryOp::kGreater: return ">";
    case BinaryOp::kGreaterEqual: return ">=";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSubtract: return "-";
    case BinaryOp::kMultiply: return "*";
    case BinaryOp::kDivide: return "/";
    case BinaryOp::kModulo: return "%";
    case BinaryOp::kIntegerDivide: return "DIV";
    case BinaryOp::kConcat: return "||";
    case BinaryOp::kBitAnd: return "&";
    case BinaryOp::kBitOr: return "|";
    case BinaryOp::kBitXor: return "^";
  }
  return "?";
}

std::string JoinName(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.push_back('.');
    out += QuoteIdentifier(parts[i]);
  }
  return out;
}

// Prints SQL. `pretty` is Spark's usePrettyExpression for generated column names: literals
// without quotes or type suffixes.
class Printer {
 public:
  explicit Printer(bool pretty) : pretty_(pretty) {}

  void Print(const Expr& e) {
    std::visit([this](const auto& node) { this->Visit(node); }, e.node);
  }
  std::string Take() { return std::move(out_); }

 private:
  void Visit(const ColumnRef& n) { out_ += JoinName(n.parts); }
  void Visit(const Star& n) {
    if (n.operand) {
      Print(*n.operand);
      out_ += ".";
    } else if (!n.qualifier.empty()) {
      out_ += JoinName(n.qualifier) + ".";
    }
    out_ += "*";
    if (!n.except.empty()) {
      out_ += " EXCEPT (";
      for (size_t i = 0; i < n.except.size(); ++i) {
        if (i > 0) out_ += ", ";
        out_ += JoinName(n.except[i]);
      }
      out_ += ")";
    }
  }
  void Visit(const Literal& n) {
    using K = Literal::Kind;
    switch (n.kind) {
      case K::kNull: out_ += "NULL"; break;
      case K::kBoolean: out_ += n.boolean_value ? "true" : "false"; break;
      case K::kInteger:
        out_ += std::to_string(n.integer_value);
        if (!pretty_) {
          switch (n.type->id()) {
            case columnar::TypeId::kInt64: out_ += "L"; break;
            case columnar::TypeId::kInt16: out_ += "S"; break;
            case columnar::TypeId::kInt8: out_ += "Y"; break;
            default: break;
          }
        }
        break;
      case K::kDecimal:
        columnar::AppendDecimal(n.decimal_unscaled, n.type->scale(), &out_);
        if (!pretty_ && n.type->scale() == 0) out_ += "BD";
        break;
      case K::kDouble:
        if (n.type->id() == columnar::TypeId::kFloat) {
          char buf[64];
          auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(n.double_value));
          out_.append(buf, ptr);
          if (!pretty_) out_ += "F";
        } else {
          AppendDouble(n.double_value, &out_);
          if (!pretty_) out_ += "D";
        }
        break;
      case K::kString:
        out_ += pretty_ ? n.text : QuoteString(n.text);
        break;
      case K::kBinary: {
        static constexpr char kHex[] = "0123456789ABCDEF";
        out_ += "X'";
        for (unsigned char c : n.text) {
          out_.push_back(kHex[c >> 4]);
          out_.push_back(kHex[c & 15]);
        }
        out_ += "'";
        break;
      }
      case K::kDate: out_ += "DATE " + QuoteString(n.text); break;
      case K::kTimestamp: out_ += "TIMESTAMP " + QuoteString(n.text); break;
      case K::kTimestampNtz: out_ += "TIMESTAMP_NTZ " + QuoteString(n.text); break;
      case K::kInterval: out_ += IntervalSql(n.interval); break;
    }
  }
  void Visit(const Unary& n) {
    switch (n.op) {
      case UnaryOp::kNegate: out_ += "(- "; break;
      case UnaryOp::kPlus: out_ += "(+ "; break;
      case UnaryOp::kNot: out_ += "(NOT "; break;
      case UnaryOp::kBitNot: out_ += "(~ "; break;
    }
    Print(*n.operand);
    out_ += ")";
  }
  void Visit(const Binary& n) {
    out_ += "(";
    Print(*n.left);
    out_ += " ";
    out_ += BinaryOpSql(n.op);
    out_ += " ";
    Print(*n.right);
    out_ += ")";
  }
  void Visit(const FunctionCall& n) {
    out_ += n.name + "(";
    if (n.star) out_ += "*";
    if (n.distinct) out_ += "DISTINCT ";
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (i > 0) out_ += ", ";
      if (!n.arg_names[i].empty()) out_ += QuoteIdentifier(n.arg_names[i]) + " => ";
      Print(*n.args[i]);
    }
    out_ += ")";
  }
  void Visit(const Cast& n) {
    out_ += n.try_cast ? "TRY_CAST(" : "CAST(";
    Print(*n.operand);
    out_ += " AS " + n.type->ToDdl() + ")";
  }
  void Visit(const Case& n) {
    out_ += "CASE";
    if (n.operand) {
      out_ += " ";
      Print(*n.operand);
    }
    for (size_t i = 0; i < n.whens.size(); ++i) {
      out_ += " WHEN ";
      Print(*n.whens[i]);
      out_ += " THEN ";
      Print(*n.thens[i]);
    }
    if (n.else_result) {
      out_ += " ELSE ";
      Print(*n.else_result);
    }
    out_ += " END";
  }
  void Visit(const InList& n) {
    out_ += "(";
    Print(*n.operand);
    out_ += n.negated ? " NOT IN (" : " IN (";
    for (size_t i = 0; i < n.list.size(); ++i) {
      if (i > 0) out_ += ", ";
      Print(*n.list[i]);
    }
    out_ += "))";
  }
  void Visit(const Between& n) {
    out_ += "(";
    Print(*n.operand);
    out_ += n.negated ? " NOT BETWEEN " : " BETWEEN ";
    Print(*n.low);
    out_ += " AND ";
    Print(*n.high);
    out_ += ")";
  }
  void Visit(const IsPredicate& n) {
    out_ += "(";
    Print(*n.operand);
    out_ += n.negated ? " IS NOT " : " IS ";
    switch (n.kind) {
      case IsPredicate::Kind::kNull: out_ += "NULL"; break;
      case IsPredicate::Kind::kTrue: out_ += "TRUE"; break;
      case IsPredicate::Kind::kFalse: out_ += "FALSE"; break;
      case IsPredicate::Kind::kDistinctFrom:
        out_ += "DISTINCT FROM ";
        Print(*n.other);
        break;
    }
    out_ += ")";
  }
  void Visit(const Like& n) {
    out_ += "(";
    Print(*n.operand);
    if (n.negated) out_ += " NOT";
    switch (n.kind) {
      case Like::Kind::kLike: out_ += " LIKE "; break;
      case Like::Kind::kILike: out_ += " ILIKE "; break;
      case Like::Kind::kRLike: out_ += " RLIKE "; break;
    }
    Print(*n.pattern);
    if (n.kind != Like::Kind::kRLike && n.escape != "\\") out_ += " ESCAPE " + QuoteString(n.escape);
    out_ += ")";
  }
  void Visit(const FieldAccess& n) {
    Print(*n.operand);
    out_ += '.';
    out_ += QuoteIdentifier(n.field);
  }
  void Visit(const Subscript& n) {
    Print(*n.operand);
    out_ += "[";
    Print(*n.index);
    out_ += "]";
  }
  void Visit(const JsonPath& n) {
    Print(*n.operand);
    out_ += ":";
    std::string_view p = n.path;
    if (!p.empty() && p[0] == '$') p.remove_prefix(1);
    if (!p.empty() && p[0] == '.') p.remove_prefix(1);
    out_ += p;
  }
  void Visit(const Lambda& n) {
    if (n.params.size() == 1) {
      out_ += QuoteIdentifier(n.params[0]);
    } else {
      out_ += "(";
      for (size_t i = 0; i < n.params.size(); ++i) {
        if (i > 0) out_ += ", ";
        out_ += QuoteIdentifier(n.params[i]);
      }
      out_ += ")";
    }
    out_ += " -> ";
    Print(*n.body);
  }

  bool pretty_;
  std::string out_;
};

ExprPtr CloneOrNull(const ExprPtr& e) { return e ? Clone(*e) : nullptr; }

std::vector<ExprPtr> CloneAll(const std::vector<ExprPtr>& v) {
  std::vector<ExprPtr> out;
  out.reserve(v.size());
  for (const ExprPtr& e : v) out.push_back(Clone(*e));
  return out;
}

}  // namespace

int64_t Interval::ApproximateMicros() const {
  return static_cast<int64_t>(months) * 30 * kMicrosPerDay + static_cast<int64_t>(days) * kMicrosPerDay +
         micros;
}

std::string ToSql(const Expr& expr) {
  Printer p(/*pretty=*/false);
  p.Print(expr);
  return p.Take();
}

std::string DefaultColumnName(const Expr& expr) {
  if (const auto* ref = expr.As<ColumnRef>()) return ref->parts.back();
  if (const auto* field = expr.As<FieldAccess>()) return field->field;
  Printer p(/*pretty=*/true);
  p.Print(expr);
  return p.Take();
}

ExprPtr Clone(const Expr& expr) {
  auto out = std::make_unique<Expr>();
  out->location = expr.location;
  out->node = std::visit(
      [](const auto& n) -> decltype(Expr::node) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ColumnRef> || std::is_same_v<T, Literal>) {
          return n;
        } else if constexpr (std::is_same_v<T, Star>) {
          return Star{n.qualifier, CloneOrNull(n.operand), n.except};
        } else if constexpr (std::is_same_v<T, Unary>) {
          return Unary{n.op, Clone(*n.operand)};
        } else if constexpr (std::is_same_v<T, Binary>) {
          return Binary{n.op, Clone(*n.left), Clone(*n.right)};
        } else if constexpr (std::is_same_v<T, FunctionCall>) {
          return FunctionCall{n.name, CloneAll(n.args), n.arg_names, n.distinct, n.star};
        } else if constexpr (std::is_same_v<T, Cast>) {
          return Cast{Clone(*n.operand), n.type, n.try_cast};
        } else if constexpr (std::is_same_v<T, Case>) {
          return Case{CloneOrNull(n.operand), CloneAll(n.whens), CloneAll(n.thens),
                      CloneOrNull(n.else_result)};
        } else if constexpr (std::is_same_v<T, InList>) {
          return InList{Clone(*n.operand), CloneAll(n.list), n.negated};
        } else if constexpr (std::is_same_v<T, Between>) {
          return Between{Clone(*n.operand), Clone(*n.low), Clone(*n.high), n.negated};
        } else if constexpr (std::is_same_v<T, IsPredicate>) {
          return IsPredicate{n.kind, Clone(*n.operand), CloneOrNull(n.other), n.negated};
        } else if constexpr (std::is_same_v<T, Like>) {
          return Like{n.kind, Clone(*n.operand), Clone(*n.pattern), n.escape, n.negated};
        } else if constexpr (std::is_same_v<T, FieldAccess>) {
          return FieldAccess{Clone(*n.operand), n.field};
        } else if constexpr (std::is_same_v<T, Subscript>) {
          return Subscript{Clone(*n.operand), Clone(*n.index)};
        } else if constexpr (std::is_same_v<T, JsonPath>) {
          return JsonPath{Clone(*n.operand), n.path};
        } else {
          static_assert(std::is_same_v<T, Lambda>);
          return Lambda{n.params, Clone(*n.body)};
        }
      },
      expr.node);
  return out;
}

void ForEachChild(const Expr& expr, const std::function<void(const Expr&)>& visit) {
  auto one = [&](const ExprPtr& e) {
    if (e) visit(*e);
  };
  auto all = [&](const std::vector<ExprPtr>& v) {
    for (const ExprPtr& e : v) one(e);
  };
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Unary>) {
          one(n.operand);
        } else if constexpr (std::is_same_v<T, Binary>) {
          one(n.left);
          one(n.right);
        } else if constexpr (std::is_same_v<T, FunctionCall>) {
          all(n.args);
        } else if constexpr (std::is_same_v<T, Cast> || std::is_same_v<T, FieldAccess> ||
                             std::is_same_v<T, JsonPath> || std::is_same_v<T, Star>) {
          one(n.operand);
        } else if constexpr (std::is_same_v<T, Case>) {
          one(n.operand);
          for (size_t i = 0; i < n.whens.size(); ++i) {
            one(n.whens[i]);
            one(n.thens[i]);
          }
          one(n.else_result);
        } else if constexpr (std::is_same_v<T, InList>) {
          one(n.operand);
          all(n.list);
        } else if constexpr (std::is_same_v<T, Between>) {
          one(n.operand);
          one(n.low);
          one(n.high);
        } else if constexpr (std::is_same_v<T, IsPredicate>) {
          one(n.operand);
          one(n.other);
        } else if constexpr (std::is_same_v<T, Like>) {
          one(n.operand);
          one(n.pattern);
        } else if constexpr (std::is_same_v<T, Subscript>) {
          one(n.operand);
          one(n.index);
        } else if constexpr (std::is_same_v<T, Lambda>) {
          one(n.body);
        }
      },
      expr.node);
}

std::string QualifiedName::ToString() const { return JoinName(parts); }

const FromClause* SourceFrom(const Query& query) {
  const Query* q = &query;
  while (q->from && q->from->kind == FromClause::Kind::kSubquery) q = q->from->subquery.get();
  return q->from ? &*q->from : nullptr;
}

std::string_view ViolationActionName(ViolationAction action) {
  switch (action) {
    case ViolationAction::kWarn: return "warn";
    case ViolationAction::kDropRow: return "drop";
    case ViolationAction::kFailUpdate: return "fail";
    case ViolationAction::kQuarantine: return "quarantine";
  }
  return "warn";
}

}  // namespace weir::sql
