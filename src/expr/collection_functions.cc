#include "expr/functions.h"

namespace weir::expr {

std::span<const Function> CollectionFunctions() { return {}; }

}  // namespace weir::expr
