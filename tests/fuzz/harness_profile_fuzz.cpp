// Profiles as a user (or a mistyped file) may give sibench: every input
// either parses or throws an exception that names the problem; none may
// crash it or make it read out of bounds.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const si::harness::Profile profile = si::harness::parse_profile_text(text, "fuzz.toml");
        (void)si::harness::expand_matrix(profile);
    } catch (const std::exception&) {
    }
    return 0;
}
