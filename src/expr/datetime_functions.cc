// Date and time functions (Spark 3.5 / 4.0 non-ANSI, session time zone UTC): parsing and
// formatting with Spark's datetime patterns (expr/datetime_format.h), epoch conversions, field
// extraction, truncation, calendar arithmetic, and the internal calls the binder makes for
// `x +/- INTERVAL ...`.
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "columnar/text_format.h"
#include "expr/cast.h"
#include "expr/datetime_format.h"
#include "expr/functions.h"
#include "expr/kernel.h"
#include "expr/spark_text.h"
#include "expr/type_rules.h"

namespace weir::expr {

namespace {

constexpr int64_t kMicrosPerMilli = 1000;
constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;
constexpr std::string_view kDefaultPattern = "yyyy-MM-dd HH:mm:ss";

// ------------------------------------------------------------------ calendar helpers

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int32_t DayOf(int64_t micros) { return static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay)); }

bool IsLeap(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int64_t year, int64_t month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

struct Ymd {
  int64_t year;
  int64_t month;
  int64_t day;
};

Ymd ToYmd(int64_t days) {
  Ymd out;
  unsigned m, d;
  columnar::CivilFromDays(days, &out.year, &m, &d);
  out.month = m;
  out.day = d;
  return out;
}

int32_t FromYmd(int64_t year, int64_t month, int64_t day) {
  return columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
}

// 1 = Monday ... 7 = Sunday (java.time.DayOfWeek).
int64_t IsoDayOfWeek(int64_t days) {
  int64_t d = (days + 3) % 7;
  if (d < 0) d += 7;
  return d + 1;
}

// LocalDate.plusMonths: the day is clamped to the target month's length.
int32_t AddMonths(int64_t days, int64_t months) {
  Ymd ymd = ToYmd(days);
  int64_t total = ymd.year * 12 + (ymd.month - 1) + months;
  int64_t year = FloorDiv(total, 12);
  int64_t month = total - year * 12 + 1;
  int64_t day = std::min<int64_t>(ymd.day, DaysInMonth(year, month));
  return FromYmd(year, month, day);
}

// ISO-8601 week of the week-based year (IsoFields.WEEK_OF_WEEK_BASED_YEAR).
int64_t IsoWeekOfYear(int64_t days) {
  Ymd ymd = ToYmd(days);
  int64_t day_of_year = days - FromYmd(ymd.year, 1, 1) + 1;
  auto weeks_in_year = [](int64_t year) {
    int64_t jan1 = IsoDayOfWeek(FromYmd(year, 1, 1));
    return (jan1 == 4 || (jan1 == 3 && IsLeap(year))) ? 53 : 52;
  };
  int64_t week = (day_of_year - IsoDayOfWeek(days) + 10) / 7;
  if (week < 1) return weeks_in_year(ymd.year - 1);
  if (week > weeks_in_year(ymd.year)) return 1;
  return week;
}

// Two's complement arithmetic, as Java's long (no UB on overflow).
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// ------------------------------------------------------------------ type rules

// What an argument is implicitly cast to (Spark's ImplicitCastInputTypes, non-ANSI).
enum class Arg : uint8_t {
  kDate,       // DATE; TIMESTAMP, TIMESTAMP_NTZ and STRING are cast
  kTimestamp,  // TIMESTAMP; DATE, TIMESTAMP_NTZ and STRING are cast
  kInt,        // INT; numbers and STRING are cast
  kLong,       // BIGINT; numbers and STRING are cast
  kString,     // STRING; atomic values are cast
  kNumber,     // any number kept as is; STRING becomes DOUBLE
  kDateTimeText,  // STRING, DATE, TIMESTAMP[_NTZ] kept; other atomic values become STRING
  kBoolean,    // BOOLEAN
  kSeconds,    // DECIMAL(16,6) (make_timestamp's seconds)
};

std::string TypeText(const BoundExprPtr& e) {
  return (e->IsNullLiteral() && e->kind == BoundExpr::Kind::kLiteral &&
          e->type->id() == TypeId::kString)
             ? std::string("VOID")
             : e->type->ToDdl();
}

Result<BoundExprPtr> Coerce(std::string_view function, size_t index, BoundExprPtr a, Arg want) {
  TypeId id = a->type->id();
  bool null = a->IsNullLiteral();
  bool numeric = IsNumericType(id);
  bool datetime = id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
  auto fail = [&](std::string_view wanted) -> Status {
    return Status::InvalidArgument(std::string(function) + "() argument " +
                                   std::to_string(index + 1) + " must be " + std::string(wanted) +
                                   ", but " + a->sql + " is " + TypeText(a));
  };
  switch (want) {
    case Arg::kDate:
      if (null || datetime || id == TypeId::kString) return CastTo(std::move(a), DataType::Date());
      return fail("a DATE");
    case Arg::kTimestamp:
      if (null || datetime || id == TypeId::kString) {
        return CastTo(std::move(a), DataType::Timestamp());
      }
      return fail("a TIMESTAMP");
    case Arg::kInt:
      if (null || numeric || id == TypeId::kString) return CastTo(std::move(a), DataType::Int32());
      return fail("an INT");
    case Arg::kLong:
      if (null || numeric || id == TypeId::kString) return CastTo(std::move(a), DataType::Int64());
      return fail("a BIGINT");
    case Arg::kString:
      if (null || !a->type->is_nested()) return CastTo(std::move(a), DataType::String());
      return fail("a STRING");
    case Arg::kNumber:
      if (null) return CastTo(std::move(a), DataType::Int64());
      if (numeric) return a;
      if (id == TypeId::kString) return CastTo(std::move(a), DataType::Double());
      return fail("a number");
    case Arg::kDateTimeText:
      if (datetime || (id == TypeId::kString && !null)) return a;
      if (null || !a->type->is_nested()) return CastTo(std::move(a), DataType::String());
      return fail("a STRING, DATE or TIMESTAMP");
    case Arg::kBoolean:
      if (null || id == TypeId::kBoolean || id == TypeId::kString) {
        return CastTo(std::move(a), DataType::Boolean());
      }
      return fail("a BOOLEAN");
    case Arg::kSeconds:
      if (null || numeric || id == TypeId::kString) {
        return CastTo(std::move(a), DataType::Decimal(16, 6));
      }
      return fail("a number of seconds");
  }
  return Status::Internal("unknown argument kind");
}

TypePtr TypeOf(TypeId id) {
  switch (id) {
    case TypeId::kBoolean: return DataType::Boolean();
    case TypeId::kInt32: return DataType::Int32();
    case TypeId::kInt64: return DataType::Int64();
    case TypeId::kDouble: return DataType::Double();
    case TypeId::kDate: return DataType::Date();
    case TypeId::kTimestamp: return DataType::Timestamp();
    default: return DataType::String();
  }
}

// Casts each argument as kArgs says (optional trailing arguments may be absent) and returns
// kResult.
template <const char* kName, TypeId kResult, Arg... kArgs>
Result<TypePtr> SignatureRule(std::vector<BoundExprPtr>& args) {
  static constexpr Arg kWanted[] = {kArgs...};
  for (size_t i = 0; i < args.size() && i < sizeof...(kArgs); ++i) {
    WEIR_ASSIGN_OR_RETURN(args[i], Coerce(kName, i, std::move(args[i]), kWanted[i]));
  }
  return TypeOf(kResult);
}

// A constant pattern argument is checked when binding, so a bad pattern fails the query up
// front (Spark fails it when the expression is first evaluated).
Status CheckPatternLiteral(std::string_view function, const BoundExprPtr& pattern,
                           DateTimePattern::Use use) {
  if (pattern->kind != BoundExpr::Kind::kLiteral || pattern->IsNullLiteral()) return Status::OK();
  std::string_view text = pattern->literal->StringAt(0);
  auto compiled = DateTimePattern::Compile(text, use);
  if (!compiled.ok()) {
    return Status::InvalidArgument(std::string(function) + "(): invalid datetime pattern '" +
                                   std::string(text) + "': " + compiled.status().message() +
                                   "; see https://spark.apache.org/docs/latest/"
                                   "sql-ref-datetime-pattern.html");
  }
  return Status::OK();
}

// to_timestamp / try_to_timestamp / to_date / unix_timestamp / to_unix_timestamp: without a
// pattern the first three are CASTs (TRY_CAST for try_to_timestamp).
template <const char* kName, TypeId kResult, bool kCastWithoutPattern, bool kTry>
Result<TypePtr> ParseRule(std::vector<BoundExprPtr>& args) {
  if (args.size() == 1 && kCastWithoutPattern) {
    TypeId id = args[0]->type->id();
    if (args[0]->type->is_nested() || id == TypeId::kBinary || id == TypeId::kBoolean) {
      return Status::InvalidArgument(std::string(kName) + "() argument 1 must be a STRING, DATE "
                                     "or TIMESTAMP, but " + args[0]->sql + " is " +
                                     TypeText(args[0]));
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr cast, CastTo(args[0], TypeOf(kResult)));
    if (kTry && cast->kind == BoundExpr::Kind::kCast) {
      auto copy = std::make_shared<BoundExpr>(*cast);
      copy->try_cast = true;
      cast = copy;
    }
    args[0] = std::move(cast);
    return TypeOf(kResult);
  }
  if (!args.empty()) {
    WEIR_ASSIGN_OR_RETURN(args[0], Coerce(kName, 0, std::move(args[0]), Arg::kDateTimeText));
  }
  if (args.size() > 1) {
    WEIR_ASSIGN_OR_RETURN(args[1], Coerce(kName, 1, std::move(args[1]), Arg::kString));
    WEIR_RETURN_NOT_OK(CheckPatternLiteral(kName, args[1], DateTimePattern::Use::kParse));
  }
  return TypeOf(kResult);
}

template <const char* kName, Arg kFirst>
Result<TypePtr> FormatRule(std::vector<BoundExprPtr>& args) {
  WEIR_ASSIGN_OR_RETURN(args[0], Coerce(kName, 0, std::move(args[0]), kFirst));
  if (args.size() > 1) {
    WEIR_ASSIGN_OR_RETURN(args[1], Coerce(kName, 1, std::move(args[1]), Arg::kString));
    WEIR_RETURN_NOT_OK(CheckPatternLiteral(kName, args[1], DateTimePattern::Use::kFormat));
  }
  return DataType::String();
}

// "TIMESTAMP + INTERVAL"(ts, months, micros): the result keeps TIMESTAMP or TIMESTAMP_NTZ.
Result<TypePtr> TimestampIntervalRule(std::vector<BoundExprPtr>& args) {
  TypeId id = args[0]->type->id();
  if (id != TypeId::kTimestamp && id != TypeId::kTimestampNtz) {
    return Status::Internal("TIMESTAMP + INTERVAL on " + args[0]->type->ToDdl());
  }
  return args[0]->type;
}

Result<TypePtr> DateIntervalRule(std::vector<BoundExprPtr>& args) {
  if (args[0]->type->id() != TypeId::kDate) {
    return Status::Internal("DATE + INTERVAL on " + args[0]->type->ToDdl());
  }
  return DataType::Date();
}

constexpr char kToTimestamp[] = "to_timestamp";
constexpr char kTryToTimestamp[] = "try_to_timestamp";
constexpr char kToDate[] = "to_date";
constexpr char kUnixTimestamp[] = "unix_timestamp";
constexpr char kToUnixTimestamp[] = "to_unix_timestamp";
constexpr char kFromUnixtime[] = "from_unixtime";
constexpr char kDateFormat[] = "date_format";
constexpr char kUnixMillis[] = "unix_millis";
constexpr char kUnixMicros[] = "unix_micros";
constexpr char kUnixSeconds[] = "unix_seconds";
constexpr char kUnixDate[] = "unix_date";
constexpr char kDateFromUnixDate[] = "date_from_unix_date";
constexpr char kTimestampMillis[] = "timestamp_millis";
constexpr char kTimestampMicros[] = "timestamp_micros";
constexpr char kTimestampSeconds[] = "timestamp_seconds";
constexpr char kDateTrunc[] = "date_trunc";
constexpr char kTrunc[] = "trunc";
constexpr char kYear[] = "year";
constexpr char kMonth[] = "month";
constexpr char kDay[] = "day";
constexpr char kDayOfMonth[] = "dayofmonth";
constexpr char kDayOfWeek[] = "dayofweek";
constexpr char kWeekday[] = "weekday";
constexpr char kDayOfYear[] = "dayofyear";
constexpr char kWeekOfYear[] = "weekofyear";
constexpr char kQuarter[] = "quarter";
constexpr char kHour[] = "hour";
constexpr char kMinute[] = "minute";
constexpr char kSecond[] = "second";
constexpr char kDateAdd[] = "date_add";
constexpr char kDateSub[] = "date_sub";
constexpr char kDateDiff[] = "datediff";
constexpr char kAddMonths[] = "add_months";
constexpr char kMonthsBetween[] = "months_between";
constexpr char kLastDay[] = "last_day";
constexpr char kMakeDate[] = "make_date";
constexpr char kMakeTimestamp[] = "make_timestamp";

// ------------------------------------------------------------------ kernels

// op(value, &out) returns false for NULL.
template <typename In, typename Out, typename Op>
Vector UnaryKernel(const KernelInput& in, Op op) {
  Reader<In> a(in.args[0]);
  FixedOut<Out> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i) || !op(a[i], &out.values[i])) out.SetNull(i);
  }
  return out.Finish(AllConstant(in));
}

// The compiled pattern for each row of argument `k` (compiled once when it is constant, or
// when it repeats). nullptr for a NULL pattern, or an invalid one (then `error` is set).
class PatternArg {
 public:
  PatternArg(const KernelInput& in, size_t k, DateTimePattern::Use use)
      : in_(in), k_(k), use_(use) {}

  const DateTimePattern* At(int64_t i, std::string* error) {
    std::string_view text = kDefaultPattern;
    if (k_ < in_.args.size()) {
      if (in_.args[k_].IsNull(i)) return nullptr;
      text = StringArg(in_, k_, i);
    }
    if (!compiled_ || text != text_) {
      text_.assign(text);
      auto p = DateTimePattern::Compile(text, use_);
      compiled_ = true;
      if (p.ok()) {
        pattern_.emplace(std::move(*p));
        error_.clear();
      } else {
        pattern_.reset();
        error_ = "invalid datetime pattern '" + text_ + "': " + std::string(p.status().message());
      }
    }
    if (!pattern_) *error = error_;
    return pattern_ ? &*pattern_ : nullptr;
  }

  std::string_view text() const { return text_; }

 private:
  const KernelInput& in_;
  size_t k_;
  DateTimePattern::Use use_;
  bool compiled_ = false;
  std::string text_;
  std::optional<DateTimePattern> pattern_;
  std::string error_;
};

enum class ParseTarget { kTimestamp, kDate, kSeconds };

// to_timestamp(x, fmt), try_to_timestamp, to_date(x, fmt), unix_timestamp(x[, fmt]),
// to_unix_timestamp: STRING input is parsed with the pattern; DATE and TIMESTAMP input is
// converted (the pattern is not used). Unparseable text is NULL; under ANSI (not try_) the row
// is marked.
template <ParseTarget kTarget, bool kTry>
Result<Vector> ParseKernel(const KernelInput& in) {
  if (in.args.empty()) {  // unix_timestamp(): the batch's current time
    FixedOut<int64_t> out(in.call.type, 1);
    out.values[0] = FloorDiv(in.context.current_timestamp_micros, kMicrosPerSecond);
    return out.Finish(true);
  }
  TypeId input = in.call.children[0]->type->id();
  bool same_type = (kTarget == ParseTarget::kTimestamp && input == TypeId::kTimestamp) ||
                   (kTarget == ParseTarget::kDate && input == TypeId::kDate);
  if (same_type && in.args.size() == 1) return std::move(in.args[0]);
  using Out = std::conditional_t<kTarget == ParseTarget::kDate, int32_t, int64_t>;
  FixedOut<Out> out(in.call.type, in.num_rows);
  auto store = [&](int64_t i, int64_t micros) {
    switch (kTarget) {
      case ParseTarget::kTimestamp: out.values[i] = static_cast<Out>(micros); break;
      case ParseTarget::kDate: out.values[i] = static_cast<Out>(DayOf(micros)); break;
      case ParseTarget::kSeconds: out.values[i] = static_cast<Out>(micros / kMicrosPerSecond); break;
    }
  };
  const Vector& value = in.args[0];
  if (input != TypeId::kString) {
    for (int64_t i = 0; i < in.num_rows; ++i) {
      if (value.IsNull(i)) {
        out.SetNull(i);
        continue;
      }
      int64_t row = value.Row(i);
      int64_t micros = input == TypeId::kDate
                           ? static_cast<int64_t>(value.column().Value<int32_t>(row)) * kMicrosPerDay
                           : value.column().Value<int64_t>(row);
      store(i, micros);
    }
    return out.Finish(AllConstant(in));
  }
  PatternArg patterns(in, 1, DateTimePattern::Use::kParse);
  std::string error;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (value.IsNull(i)) {
      out.SetNull(i);
      continue;
    }
    const DateTimePattern* pattern = patterns.At(i, &error);
    if (pattern == nullptr) {
      out.SetNull(i);
      if (!error.empty()) in.context.row_errors.Mark(AllConstant(in) ? -1 : i, error);
      continue;
    }
    std::string_view text = StringArg(in, 0, i);
    std::optional<int64_t> micros = pattern->Parse(text);
    if (!micros) {
      out.SetNull(i);
      if (!kTry && in.context.ansi) {
        in.context.row_errors.Mark(AllConstant(in) ? -1 : i,
                                   "cannot parse '" + std::string(text) +
                                       "' as a timestamp with the pattern '" +
                                       std::string(patterns.text()) +
                                       "'; use try_to_timestamp to get NULL instead");
      }
      continue;
    }
    store(i, *micros);
  }
  return out.Finish(AllConstant(in));
}

// date_format(ts, fmt) and from_unixtime(seconds[, fmt]).
template <bool kSeconds>
Result<Vector> FormatKernel(const KernelInput& in) {
  PatternArg patterns(in, 1, DateTimePattern::Use::kFormat);
  std::string error;
  const Vector& value = in.args[0];
  Column out(in.call.type);
  std::vector<std::string_view>& strings = out.string_buffer();
  strings.assign(static_cast<size_t>(in.num_rows), std::string_view());
  std::vector<uint8_t>& validity = out.validity_buffer();
  std::string scratch;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    const DateTimePattern* pattern = nullptr;
    if (!value.IsNull(i)) pattern = patterns.At(i, &error);
    if (pattern == nullptr) {
      if (validity.empty()) validity.assign(static_cast<size_t>(in.num_rows), 1);
      validity[i] = 0;
      if (!error.empty()) in.context.row_errors.Mark(AllConstant(in) ? -1 : i, error);
      continue;
    }
    int64_t v = value.column().Value<int64_t>(value.Row(i));
    scratch.clear();
    pattern->Format(kSeconds ? WrapMul(v, kMicrosPerSecond) : v, &scratch);
    strings[i] = out.arena().Copy(scratch);
  }
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), AllConstant(in));
}

template <int64_t kDivisor>
Result<Vector> EpochKernel(const KernelInput& in) {  // unix_micros / unix_millis / unix_seconds
  return UnaryKernel<int64_t, int64_t>(in, [](int64_t micros, int64_t* r) {
    *r = FloorDiv(micros, kDivisor);
    return true;
  });
}

Result<Vector> UnixDateKernel(const KernelInput& in) {
  return UnaryKernel<int32_t, int32_t>(in, [](int32_t d, int32_t* r) {
    *r = d;
    return true;
  });
}

template <int64_t kMultiplier>
Result<Vector> FromEpochKernel(const KernelInput& in) {  // timestamp_millis / timestamp_micros
  return UnaryKernel<int64_t, int64_t>(in, [](int64_t v, int64_t* r) {
    return !__builtin_mul_overflow(v, kMultiplier, r);  // Spark raises on overflow
  });
}

Result<Vector> TimestampSecondsKernel(const KernelInput& in) {
  const DataType& type = *in.call.children[0]->type;
  return DispatchValue(type.id(), [&]<typename T>() -> Result<Vector> {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string_view>) {
      return Status::Internal("timestamp_seconds of " + type.ToDdl());
    } else {
      int scale = type.scale();
      return UnaryKernel<T, int64_t>(in, [&](T v, int64_t* r) {
        if constexpr (std::is_floating_point_v<T>) {
          double d = static_cast<double>(v);
          if (std::isnan(d) || std::isinf(d)) return false;
          double micros = d * kMicrosPerSecond;
          // Java's (long) conversion saturates.
          if (micros >= 9.2233720368547758e18) {
            *r = std::numeric_limits<int64_t>::max();
          } else if (micros <= -9.2233720368547758e18) {
            *r = std::numeric_limits<int64_t>::min();
          } else {
            *r = static_cast<int64_t>(micros);
          }
          return true;
        } else if constexpr (std::is_same_v<T, Int128>) {
          // (seconds * 10^6).longValueExact(): NULL (Spark: an error) when a fraction remains.
          Int128 micros = v;
          if (scale <= 6) {
            for (int k = scale; k < 6; ++k) micros *= 10;
          } else {
            Int128 d = 1;
            for (int k = 6; k < scale; ++k) d *= 10;
            if (micros % d != 0) return false;
            micros /= d;
          }
          if (micros > std::numeric_limits<int64_t>::max() ||
              micros < std::numeric_limits<int64_t>::min()) {
            return false;
          }
          *r = static_cast<int64_t>(micros);
          return true;
        } else {
          return !__builtin_mul_overflow(static_cast<int64_t>(v), kMicrosPerSecond, r);
        }
      });
    }
  });
}

// Truncation levels (DateTimeUtils.parseTruncLevel).
enum class TruncLevel : int8_t {
  kInvalid,
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kQuarter,
  kYear,
};

TruncLevel ParseTruncLevel(std::string_view s) {
  std::string u(s);
  for (char& c : u) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  if (u == "MICROSECOND") return TruncLevel::kMicrosecond;
  if (u == "MILLISECOND") return TruncLevel::kMillisecond;
  if (u == "SECOND") return TruncLevel::kSecond;
  if (u == "MINUTE") return TruncLevel::kMinute;
  if (u == "HOUR") return TruncLevel::kHour;
  if (u == "DAY" || u == "DD") return TruncLevel::kDay;
  if (u == "WEEK") return TruncLevel::kWeek;
  if (u == "MON" || u == "MONTH" || u == "MM") return TruncLevel::kMonth;
  if (u == "QUARTER") return TruncLevel::kQuarter;
  if (u == "YEAR" || u == "YYYY" || u == "YY") return TruncLevel::kYear;
  return TruncLevel::kInvalid;
}

// The first day of the week / month / quarter / year holding `days`.
int32_t TruncDays(int64_t days, TruncLevel level) {
  if (level == TruncLevel::kWeek) return static_cast<int32_t>(days - (IsoDayOfWeek(days) - 1));
  Ymd ymd = ToYmd(days);
  switch (level) {
    case TruncLevel::kMonth: return FromYmd(ymd.year, ymd.month, 1);
    case TruncLevel::kQuarter: return FromYmd(ymd.year, (ymd.month - 1) / 3 * 3 + 1, 1);
    default: return FromYmd(ymd.year, 1, 1);
  }
}

// date_trunc(unit, ts) -> TIMESTAMP; trunc(date, unit) -> DATE (units of a week or more).
template <bool kDate>
Result<Vector> TruncKernel(const KernelInput& in) {
  const Vector& value = in.args[kDate ? 0 : 1];
  const Vector& unit = in.args[kDate ? 1 : 0];
  size_t unit_index = kDate ? 1 : 0;
  using T = std::conditional_t<kDate, int32_t, int64_t>;
  FixedOut<T> out(in.call.type, in.num_rows);
  std::optional<TruncLevel> constant_level;
  if (unit.constant() && !unit.IsNull(0)) constant_level = ParseTruncLevel(StringArg(in, unit_index, 0));
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (value.IsNull(i) || unit.IsNull(i)) {
      out.SetNull(i);
      continue;
    }
    TruncLevel level = constant_level ? *constant_level : ParseTruncLevel(StringArg(in, unit_index, i));
    T v = value.column().Value<T>(value.Row(i));
    if (kDate) {
      if (level < TruncLevel::kWeek) {
        out.SetNull(i);
        continue;
      }
      out.values[i] = static_cast<T>(TruncDays(v, level));
      continue;
    }
    int64_t micros = v;
    switch (level) {
      case TruncLevel::kInvalid: out.SetNull(i); continue;
      case TruncLevel::kMicrosecond: break;
      case TruncLevel::kMillisecond: micros = FloorDiv(micros, kMicrosPerMilli) * kMicrosPerMilli; break;
      case TruncLevel::kSecond: micros = FloorDiv(micros, kMicrosPerSecond) * kMicrosPerSecond; break;
      case TruncLevel::kMinute: micros = FloorDiv(micros, 60 * kMicrosPerSecond) * 60 * kMicrosPerSecond; break;
      case TruncLevel::kHour: micros = FloorDiv(micros, 3600 * kMicrosPerSecond) * 3600 * kMicrosPerSecond; break;
      case TruncLevel::kDay: micros = FloorDiv(micros, kMicrosPerDay) * kMicrosPerDay; break;
      default: micros = static_cast<int64_t>(TruncDays(DayOf(micros), level)) * kMicrosPerDay;
    }
    out.values[i] = static_cast<T>(micros);
  }
  return out.Finish(AllConstant(in));
}

enum class DatePart { kYear, kMonth, kDay, kDayOfWeek, kWeekday, kDayOfYear, kWeekOfYear, kQuarter };

template <DatePart kPart>
Result<Vector> DatePartKernel(const KernelInput& in) {
  return UnaryKernel<int32_t, int32_t>(in, [](int32_t days, int32_t* r) {
    if constexpr (kPart == DatePart::kDayOfWeek) {
      *r = static_cast<int32_t>(IsoDayOfWeek(days) % 7 + 1);  // 1 = Sunday
    } else if constexpr (kPart == DatePart::kWeekday) {
      *r = static_cast<int32_t>(IsoDayOfWeek(days) - 1);  // 0 = Monday
    } else if constexpr (kPart == DatePart::kWeekOfYear) {
      *r = static_cast<int32_t>(IsoWeekOfYear(days));
    } else {
      Ymd ymd = ToYmd(days);
      switch (kPart) {
        case DatePart::kYear: *r = static_cast<int32_t>(ymd.year); break;
        case DatePart::kMonth: *r = static_cast<int32_t>(ymd.month); break;
        case DatePart::kDay: *r = static_cast<int32_t>(ymd.day); break;
        case DatePart::kDayOfYear:
          *r = static_cast<int32_t>(days - FromYmd(ymd.year, 1, 1) + 1);
          break;
        default: *r = static_cast<int32_t>((ymd.month - 1) / 3 + 1); break;
      }
    }
    return true;
  });
}

template <int64_t kUnitMicros, int64_t kModulo>
Result<Vector> TimePartKernel(const KernelInput& in) {  // hour / minute / second
  return UnaryKernel<int64_t, int32_t>(in, [](int64_t micros, int32_t* r) {
    int64_t units = FloorDiv(micros, kUnitMicros) % kModulo;
    if (units < 0) units += kModulo;
    *r = static_cast<int32_t>(units);
    return true;
  });
}

template <int kSign>
Result<Vector> DateAddKernel(const KernelInput& in) {  // date_add / date_sub
  return BinaryKernel<int32_t, int32_t>(in, [](int32_t d, int32_t n, int32_t* r) {
    int64_t v = static_cast<int64_t>(d) + kSign * static_cast<int64_t>(n);
    if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min()) {
      return false;  // Spark raises on overflow
    }
    *r = static_cast<int32_t>(v);
    return true;
  });
}

Result<Vector> DateDiffKernel(const KernelInput& in) {
  return BinaryKernel<int32_t, int32_t>(in, [](int32_t end, int32_t start, int32_t* r) {
    *r = static_cast<int32_t>(static_cast<int64_t>(end) - start);
    return true;
  });
}

Result<Vector> AddMonthsKernel(const KernelInput& in) {
  return BinaryKernel<int32_t, int32_t>(in, [](int32_t d, int32_t months, int32_t* r) {
    *r = AddMonths(d, months);
    return true;
  });
}

Result<Vector> LastDayKernel(const KernelInput& in) {
  return UnaryKernel<int32_t, int32_t>(in, [](int32_t d, int32_t* r) {
    Ymd ymd = ToYmd(d);
    *r = FromYmd(ymd.year, ymd.month, DaysInMonth(ymd.year, ymd.month));
    return true;
  });
}

// DateTimeUtils.monthsBetween: whole months when the days of month match (or both are the
// last day), else the difference over 31-day months, rounded to 8 digits unless roundOff=false.
Result<Vector> MonthsBetweenKernel(const KernelInput& in) {
  Reader<int64_t> a(in.args[0]), b(in.args[1]);
  bool has_round = in.args.size() > 2;
  FixedOut<double> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i) || b.IsNull(i) || (has_round && in.args[2].IsNull(i))) {
      out.SetNull(i);
      continue;
    }
    bool round_off = !has_round || in.args[2].column().Value<uint8_t>(in.args[2].Row(i)) != 0;
    int64_t t1 = a[i], t2 = b[i];
    int64_t d1 = DayOf(t1), d2 = DayOf(t2);
    Ymd y1 = ToYmd(d1), y2 = ToYmd(d2);
    double month_diff = static_cast<double>((y1.year - y2.year) * 12 + y1.month - y2.month);
    bool last1 = y1.day == DaysInMonth(y1.year, y1.month);
    bool last2 = y2.day == DaysInMonth(y2.year, y2.month);
    if (y1.day == y2.day || (last1 && last2)) {
      out.values[i] = month_diff;
      continue;
    }
    int64_t seconds1 = (t1 - d1 * kMicrosPerDay) / kMicrosPerSecond;
    int64_t seconds2 = (t2 - d2 * kMicrosPerDay) / kMicrosPerSecond;
    int64_t seconds_diff = (y1.day - y2.day) * 86400 + seconds1 - seconds2;
    double diff = month_diff + static_cast<double>(seconds_diff) / (31.0 * 86400);
    out.values[i] = round_off ? static_cast<double>(static_cast<int64_t>(std::floor(diff * 1e8 + 0.5))) / 1e8
                              : diff;
  }
  return out.Finish(AllConstant(in));
}

bool ValidDate(int64_t year, int64_t month, int64_t day) {
  return year >= -290000 && year <= 290000 && month >= 1 && month <= 12 && day >= 1 &&
         day <= DaysInMonth(year, month);
}

Result<Vector> MakeDateKernel(const KernelInput& in) {
  Reader<int32_t> y(in.args[0]), m(in.args[1]), d(in.args[2]);
  FixedOut<int32_t> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (y.IsNull(i) || m.IsNull(i) || d.IsNull(i)) {
      out.SetNull(i);
      continue;
    }
    if (!ValidDate(y[i], m[i], d[i])) {
      out.SetNull(i);
      if (in.context.ansi) {
        in.context.row_errors.Mark(AllConstant(in) ? -1 : i,
                                   "make_date: invalid date " + std::to_string(y[i]) + "-" +
                                       std::to_string(m[i]) + "-" + std::to_string(d[i]));
      }
      continue;
    }
    out.values[i] = FromYmd(y[i], m[i], d[i]);
  }
  return out.Finish(AllConstant(in));
}

// make_timestamp(year, month, day, hour, min, sec[, timezone]): sec may carry microseconds;
// 60 (with no fraction) is the next minute. Time zones are fixed offsets or UTC/GMT names.
Result<Vector> MakeTimestampKernel(const KernelInput& in) {
  Reader<int32_t> year(in.args[0]), month(in.args[1]), day(in.args[2]), hour(in.args[3]),
      minute(in.args[4]);
  Reader<Int128> sec(in.args[5]);
  bool has_zone = in.args.size() > 6;
  FixedOut<int64_t> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool any_null = false;
    for (const Vector& v : in.args) any_null |= v.IsNull(i);
    if (any_null) {
      out.SetNull(i);
      continue;
    }
    Int128 unscaled = sec[i];  // DECIMAL(16,6)
    int64_t whole = static_cast<int64_t>(unscaled >= 0 ? unscaled / 1000000
                                                       : -((-unscaled + 999999) / 1000000));
    int64_t fraction = static_cast<int64_t>(unscaled - static_cast<Int128>(whole) * 1000000);
    int64_t extra_minute = 0;
    if (whole == 60 && fraction == 0) {
      whole = 0;
      extra_minute = 1;
    }
    bool valid = ValidDate(year[i], month[i], day[i]) && hour[i] >= 0 && hour[i] <= 23 &&
                 minute[i] >= 0 && minute[i] <= 59 && whole >= 0 && whole <= 59;
    int64_t offset_micros = 0;
    if (valid && has_zone) {
      std::string probe = "1970-01-01 00:00:00 ";
      probe.append(StringArg(in, 6, i));
      std::optional<int64_t> t = ParseSparkTimestamp(probe);
      if (t) {
        offset_micros = -*t;
      } else {
        valid = false;
      }
    }
    if (!valid) {
      out.SetNull(i);
      if (in.context.ansi) {
        in.context.row_errors.Mark(AllConstant(in) ? -1 : i, "make_timestamp: invalid date, time "
                                                               "or time zone");
      }
      continue;
    }
    int64_t days = FromYmd(year[i], month[i], day[i]);
    int64_t seconds = days * 86400 + hour[i] * 3600 + (minute[i] + extra_minute) * 60 + whole;
    out.values[i] = seconds * kMicrosPerSecond + fraction - offset_micros;
  }
  return out.Finish(AllConstant(in));
}

// ts + INTERVAL: months first (LocalDateTime.plusMonths, day clamped), then microseconds.
Result<Vector> TimestampIntervalKernel(const KernelInput& in) {
  int32_t months = in.args[1].column().Value<int32_t>(0);
  int64_t micros = in.args[2].column().Value<int64_t>(0);
  return UnaryKernel<int64_t, int64_t>(in, [months, micros](int64_t ts, int64_t* r) {
    if (months != 0) {
      int64_t days = FloorDiv(ts, kMicrosPerDay);
      int64_t time_of_day = ts - days * kMicrosPerDay;
      ts = static_cast<int64_t>(AddMonths(days, months)) * kMicrosPerDay + time_of_day;
    }
    *r = WrapAdd(ts, micros);
    return true;
  });
}

Result<Vector> DateIntervalKernel(const KernelInput& in) {
  int32_t months = in.args[1].column().Value<int32_t>(0);
  int32_t days = in.args[2].column().Value<int32_t>(0);
  return UnaryKernel<int32_t, int32_t>(in, [months, days](int32_t d, int32_t* r) {
    int64_t v = months != 0 ? AddMonths(d, months) : d;
    *r = static_cast<int32_t>(v + days);
    return true;
  });
}

// ------------------------------------------------------------------ the table

using K = TypeId;

constexpr Function kFunctions[] = {
    // Parsing (NULL when the text does not match; ANSI marks the row).
    {"to_timestamp", 1, 2, &ParseRule<kToTimestamp, K::kTimestamp, true, false>,
     &ParseKernel<ParseTarget::kTimestamp, false>, true},
    {"try_to_timestamp", 1, 2, &ParseRule<kTryToTimestamp, K::kTimestamp, true, true>,
     &ParseKernel<ParseTarget::kTimestamp, true>, true},
    {"to_date", 1, 2, &ParseRule<kToDate, K::kDate, true, false>,
     &ParseKernel<ParseTarget::kDate, false>, true},
    {"unix_timestamp", 0, 2, &ParseRule<kUnixTimestamp, K::kInt64, false, false>,
     &ParseKernel<ParseTarget::kSeconds, false>, true},
    {"to_unix_timestamp", 1, 2, &ParseRule<kToUnixTimestamp, K::kInt64, false, false>,
     &ParseKernel<ParseTarget::kSeconds, false>, true},
    // Formatting.
    {"date_format", 2, 2, &FormatRule<kDateFormat, Arg::kTimestamp>, &FormatKernel<false>, false},
    {"from_unixtime", 1, 2, &FormatRule<kFromUnixtime, Arg::kLong>, &FormatKernel<true>, false},
    // Epoch conversions.
    {"unix_micros", 1, 1, &SignatureRule<kUnixMicros, K::kInt64, Arg::kTimestamp>,
     &EpochKernel<1>, false},
    {"unix_millis", 1, 1, &SignatureRule<kUnixMillis, K::kInt64, Arg::kTimestamp>,
     &EpochKernel<kMicrosPerMilli>, false},
    {"unix_seconds", 1, 1, &SignatureRule<kUnixSeconds, K::kInt64, Arg::kTimestamp>,
     &EpochKernel<kMicrosPerSecond>, false},
    {"unix_date", 1, 1, &SignatureRule<kUnixDate, K::kInt32, Arg::kDate>, &UnixDateKernel, false},
    {"date_from_unix_date", 1, 1, &SignatureRule<kDateFromUnixDate, K::kDate, Arg::kInt>,
     &UnixDateKernel, false},
    {"timestamp_micros", 1, 1, &SignatureRule<kTimestampMicros, K::kTimestamp, Arg::kLong>,
     &FromEpochKernel<1>, true},
    {"timestamp_millis", 1, 1, &SignatureRule<kTimestampMillis, K::kTimestamp, Arg::kLong>,
     &FromEpochKernel<kMicrosPerMilli>, true},
    {"timestamp_seconds", 1, 1, &SignatureRule<kTimestampSeconds, K::kTimestamp, Arg::kNumber>,
     &TimestampSecondsKernel, true},
    // Truncation.
    {"date_trunc", 2, 2, &SignatureRule<kDateTrunc, K::kTimestamp, Arg::kString, Arg::kTimestamp>,
     &TruncKernel<false>, true},
    {"trunc", 2, 2, &SignatureRule<kTrunc, K::kDate, Arg::kDate, Arg::kString>,
     &TruncKernel<true>, true},
    // Fields.
    {"year", 1, 1, &SignatureRule<kYear, K::kInt32, Arg::kDate>, &DatePartKernel<DatePart::kYear>,
     false},
    {"month", 1, 1, &SignatureRule<kMonth, K::kInt32, Arg::kDate>,
     &DatePartKernel<DatePart::kMonth>, false},
    {"day", 1, 1, &SignatureRule<kDay, K::kInt32, Arg::kDate>, &DatePartKernel<DatePart::kDay>,
     false},
    {"dayofmonth", 1, 1, &SignatureRule<kDayOfMonth, K::kInt32, Arg::kDate>,
     &DatePartKernel<DatePart::kDay>, false},
    {"dayofweek", 1, 1, &SignatureRule<kDayOfWeek, K::kInt32, Arg::kDate>,
     &DatePartKernel<DatePart::kDayOfWeek>, false},
    {"weekday", 1, 1, &SignatureRule<kWeekday, K::kInt32, Arg::kDate>,
     &DatePartKernel<DatePart::kWeekday>, false},
    {"dayofyear", 1, 1, &SignatureRule<kDayOfYear, K::kInt32, Arg::kDate>,
     &DatePartKernel<DatePart::kDayOfYear>, false},
    {"weekofyear", 1, 1, &SignatureRule<kWeekOfYear, K::kInt32, Arg::kDate>,
     &DatePartKernel<DatePart::kWeekOfYear>, false},
    {"quarter", 1, 1, &SignatureRule<kQuarter, K::kInt32, Arg::kDate>,
     &DatePartKernel<DatePart::kQuarter>, false},
    {"hour", 1, 1, &SignatureRule<kHour, K::kInt32, Arg::kTimestamp>,
     &TimePartKernel<3600 * kMicrosPerSecond, 24>, false},
    {"minute", 1, 1, &SignatureRule<kMinute, K::kInt32, Arg::kTimestamp>,
     &TimePartKernel<60 * kMicrosPerSecond, 60>, false},
    {"second", 1, 1, &SignatureRule<kSecond, K::kInt32, Arg::kTimestamp>,
     &TimePartKernel<kMicrosPerSecond, 60>, false},
    // Calendar arithmetic.
    {"date_add", 2, 2, &SignatureRule<kDateAdd, K::kDate, Arg::kDate, Arg::kInt>,
     &DateAddKernel<1>, true},
    {"date_sub", 2, 2, &SignatureRule<kDateSub, K::kDate, Arg::kDate, Arg::kInt>,
     &DateAddKernel<-1>, true},
    {"datediff", 2, 2, &SignatureRule<kDateDiff, K::kInt32, Arg::kDate, Arg::kDate>,
     &DateDiffKernel, false},
    {"add_months", 2, 2, &SignatureRule<kAddMonths, K::kDate, Arg::kDate, Arg::kInt>,
     &AddMonthsKernel, false},
    {"months_between", 2, 3,
     &SignatureRule<kMonthsBetween, K::kDouble, Arg::kTimestamp, Arg::kTimestamp, Arg::kBoolean>,
     &MonthsBetweenKernel, false},
    {"last_day", 1, 1, &SignatureRule<kLastDay, K::kDate, Arg::kDate>, &LastDayKernel, false},
    {"make_date", 3, 3, &SignatureRule<kMakeDate, K::kDate, Arg::kInt, Arg::kInt, Arg::kInt>,
     &MakeDateKernel, true},
    {"make_timestamp", 6, 7,
     &SignatureRule<kMakeTimestamp, K::kTimestamp, Arg::kInt, Arg::kInt, Arg::kInt, Arg::kInt,
                    Arg::kInt, Arg::kSeconds, Arg::kString>,
     &MakeTimestampKernel, true},
    // `x +/- INTERVAL ...` (internal; see BindIntervalArithmetic in binder.cc).
    {"TIMESTAMP + INTERVAL", 3, 3, &TimestampIntervalRule, &TimestampIntervalKernel, false},
    {"DATE + INTERVAL", 3, 3, &DateIntervalRule, &DateIntervalKernel, false},
};

}  // namespace

std::span<const Function> DatetimeFunctions() { return kFunctions; }

}  // namespace weir::expr
