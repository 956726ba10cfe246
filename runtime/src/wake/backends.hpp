// The wake-up backends, chosen with SI_WAKE:
//   futex  FUTEX_WAIT/FUTEX_WAKE on the word itself, which lives in the node
//          region shared by ranks and helpers; needs no privileges.
#pragma once

#include <memory>

#include "base/config.hpp"
#include "wake/wake_word.hpp"

namespace si::wake {

std::unique_ptr<Backend> make_backend(config::WakeBackend choice);

}  // namespace si::wake
