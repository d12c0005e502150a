#include "expr/functions.h"

namespace weir::expr {

std::span<const Function> DatetimeFunctions() { return {}; }

}  // namespace weir::expr
