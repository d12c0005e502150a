#include "expr/functions.h"

namespace weir::expr {

std::span<const Function> JsonFunctions() { return {}; }

}  // namespace weir::expr
