#include "expr/functions.h"

namespace weir::expr {

std::span<const Function> StringFunctions() { return {}; }

}  // namespace weir::expr
