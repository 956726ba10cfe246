// Everything a micro-benchmark needs from the harness library.
#pragma once

#include "common/buffer.hpp"   // IWYU pragma: export
#include "common/options.hpp"  // IWYU pragma: export
#include "common/session.hpp"  // IWYU pragma: export
#include "common/stats.hpp"    // IWYU pragma: export
#include "common/timing.hpp"   // IWYU pragma: export
