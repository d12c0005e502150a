// Spark's datetime patterns ("yyyy-MM-dd HH:mm:ss.SSS", docs/sql-ref-datetime-pattern.md), as
// Spark 3.x builds them on java.time.DateTimeFormatter with the CORRECTED parser policy: strict
// resolution, case-insensitive text, 'y' read as the proleptic year, variable-length fractions
// when parsing, adjacent-value parsing ("yyyyMMdd"), optional sections '[...]'. A pattern is
// compiled once (Compile rejects what Spark rejects, with its reason) and then parses text to
// microseconds since the epoch or formats microseconds, in UTC (weir's session time zone);
// offsets in parsed text are honoured. Compiled patterns are immutable and thread-safe; Parse and
// Format do not allocate (Format appends to the caller's string).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace weir::expr {

class DateTimePattern {
 public:
  enum class Use : uint8_t { kParse, kFormat };

  // InvalidArgument with Spark's reason ("Unknown pattern letter: T", "Illegal pattern
  // character: E", "Too many pattern letters: M", ...) for a pattern Spark refuses. A few
  // letters Spark formats (week fields Y w W F e, zone names 'v') are refused here too.
  static Result<DateTimePattern> Compile(std::string_view pattern, Use use);

  // Microseconds since the epoch, or nullopt where Spark's parser fails (the function returns
  // NULL). Zone names other than UTC/GMT/UT/Z (e.g. 'America/New_York', 'PST') do not parse.
  // REQUIRES: compiled with Use::kParse.
  std::optional<int64_t> Parse(std::string_view text) const;

  // Appends `micros` (UTC) as the pattern prints it. REQUIRES: compiled with Use::kFormat.
  void Format(int64_t micros, std::string* out) const;

  // One compiled pattern element; exposed only so the .cc can name it.
  struct Element {
    enum class Kind : uint8_t {
      kLiteral,          // text (matched case-insensitively)
      kNumber,           // field, min_width..max_width digits, sign style
      kReducedYear,      // 'yy': two digits, base 2000
      kFraction,         // 'S': min_width..max_width digits of the second's fraction
      kText,             // field as text: month / day-of-week / am-pm / era / quarter names
      kOffset,           // X, x, Z(1-3, 5): +HH[:]MM[[:]ss]; `text` is the zero-offset text
      kLocalizedOffset,  // O, ZZZZ: GMT[+h[:mm]]
      kZoneId,           // VV
      kZoneName,         // z
      kOptionalStart,    // '['; `end` indexes the matching kOptionalEnd
      kOptionalEnd,      // ']'
    };
    enum class Sign : uint8_t { kNormal, kNotNegative, kExceedsPad };
    Kind kind = Kind::kLiteral;
    uint8_t field = 0;  // the .cc's Field enum
    uint8_t count = 0;  // pattern letters
    int8_t min_width = 0;
    int8_t max_width = 0;
    Sign sign = Sign::kNormal;
    int8_t subsequent_width = 0;  // adjacent fixed-width fields that follow (parsing)
    uint8_t offset_type = 0;      // kOffset: which +HH.. layout
    int32_t end = 0;              // kOptionalStart
    std::string text;             // kLiteral; kOffset: text for a zero offset
  };

 private:
  std::vector<Element> elements_;
  bool has_era_ = false;
};

}  // namespace weir::expr
