// A named counter a progression mode reports (SI_STATS).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace si::progress {

using Counter = std::pair<std::string, std::uint64_t>;

}  // namespace si::progress
