// Errors raised at set-up and tear-down. Hot paths return status values instead
// (see p2p/status.hpp); exceptions never cross the C API boundary.
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace si {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws si::Error with a formatted message.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
    throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// "what failed: strerror(errno)" for a failed system call.
std::string errno_message(std::string_view what, int err);

}  // namespace si
