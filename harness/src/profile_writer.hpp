// Profiles sibench writes itself (`sibench suite run`, `sibench app`): TOML arrays
// for cpptoml, so that the text reads back through the profile parser.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cpptoml.h>

namespace si::harness {

inline std::shared_ptr<cpptoml::array> toml_strings(const std::vector<std::string>& values) {
    auto array = cpptoml::make_array();
    for (const auto& value : values) array->push_back(value);
    return array;
}

inline std::shared_ptr<cpptoml::array> toml_integers(const std::vector<int>& values) {
    auto array = cpptoml::make_array();
    for (int value : values) array->push_back(static_cast<std::int64_t>(value));
    return array;
}

}  // namespace si::harness
