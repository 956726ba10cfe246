#include "config.hpp"

#include <array>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "units.hpp"

namespace si::harness {

namespace {

// This runtime's progression modes (README, SI_PROGRESS); ghost-dup and
// ghost-tag are ghost with seed 003's matching strategies (SI_GHOST_MATCHING).
constexpr std::array<std::string_view, 8> kSimpiModes = {
    "none", "thread", "interrupt", "pef", "smart", "ghost", "ghost-dup", "ghost-tag"};

}  // namespace

std::string Config::name() const {
    return mpich_abi ? csv_name() + std::string(kMpichAbiSuffix) : csv_name();
}

std::string Config::csv_name() const {
    switch (runtime) {
        case Runtime::simpi:
            return mode == "smart" ? fmt::format("simpi-smart-h{}", helpers)
                                   : fmt::format("simpi-{}", mode);
        case Runtime::mpich:
            return mode == "default" ? "mpich" : fmt::format("mpich-{}", mode);
        case Runtime::openmpi:
            return mode == "default" ? "openmpi" : fmt::format("openmpi-{}", mode);
    }
    return "unknown";
}

std::string runtime_name(Runtime runtime) {
    switch (runtime) {
        case Runtime::simpi:
            return "simpi";
        case Runtime::mpich:
            return "mpich";
        case Runtime::openmpi:
            return "openmpi";
    }
    return "unknown";
}

std::string Config::runtime_name() const { return harness::runtime_name(runtime); }

std::string valid_config_names() {
    return "simpi-none, simpi-thread, simpi-interrupt, simpi-pef, simpi-smart (one per helper "
           "count), simpi-smart-hN, simpi-ghost, simpi-ghost-dup, simpi-ghost-tag (each also with "
           "@mpich-abi: the MPICH build through the MPICH ABI), mpich, mpich-async, openmpi, "
           "openmpi-async";
}

Config parse_config(std::string_view name) {
    const auto invalid = [&] {
        return std::invalid_argument(
            fmt::format("unknown configuration '{}' (valid: {})", name, valid_config_names()));
    };
    if (name == "mpich" || name == "mpich-default") return {Runtime::mpich, "default", 0};
    if (name == "mpich-async") return {Runtime::mpich, "async", 0};
    if (name == "openmpi" || name == "openmpi-default") return {Runtime::openmpi, "default", 0};
    if (name == "openmpi-async") return {Runtime::openmpi, "async", 0};
    if (!name.starts_with("simpi-")) throw invalid();
    if (name.ends_with(kMpichAbiSuffix)) {
        Config config = parse_config(name.substr(0, name.size() - kMpichAbiSuffix.size()));
        config.mpich_abi = true;
        return config;
    }
    std::string_view rest = name.substr(6);
    int helpers = 0;
    if (rest.starts_with("smart-h")) {
        try {
            helpers = static_cast<int>(parse_count(rest.substr(7), "helpers"));
        } catch (const std::invalid_argument&) {
            throw invalid();
        }
        if (helpers < 1 || helpers > 64)
            throw std::invalid_argument(
                fmt::format("configuration '{}': helpers must be 1..64 (SI_HELPERS)", name));
        return {Runtime::simpi, "smart", helpers};
    }
    for (auto mode : kSimpiModes)
        if (rest == mode) return {Runtime::simpi, std::string(mode), 0};
    throw invalid();
}

std::string csv_name_of(std::string_view config_name) {
    if (config_name.ends_with(kMpichAbiSuffix)) config_name.remove_suffix(kMpichAbiSuffix.size());
    return std::string(config_name);
}

std::vector<Config> expand_helpers(const Config& config, const std::vector<int>& helpers) {
    if (config.runtime != Runtime::simpi || config.mode != "smart" || config.helpers != 0)
        return {config};
    std::vector<Config> expanded;
    for (int count : helpers)
        expanded.push_back({Runtime::simpi, "smart", count, config.mpich_abi});
    return expanded;
}

std::string config_name_of(std::string_view runtime, std::string_view mode, int helpers) {
    if (runtime == "simpi") {
        if (mode == "smart") return fmt::format("simpi-smart-h{}", helpers);
        return fmt::format("simpi-{}", mode);
    }
    if (mode == "default") return std::string(runtime);
    return fmt::format("{}-{}", runtime, mode);
}

bool config_name_less(std::string_view a, std::string_view b) {
    // (group, helpers, through the ABI, name): known configurations in the order of
    // the comparison, each mode's run through the MPICH ABI right after its own.
    const auto key = [](std::string_view full) {
        const bool abi = full.ends_with(kMpichAbiSuffix);
        const std::string_view name =
            abi ? full.substr(0, full.size() - kMpichAbiSuffix.size()) : full;
        int group = 9;
        int helpers = 0;
        if (name == "simpi-none")
            group = 0;
        else if (name == "simpi-thread")
            group = 1;
        else if (name == "simpi-interrupt")
            group = 2;
        else if (name == "simpi-pef")
            group = 3;
        else if (name.starts_with("simpi-smart-h")) {
            group = 4;
            try {
                helpers = static_cast<int>(parse_count(name.substr(13), "helpers"));
            } catch (const std::invalid_argument&) {
                helpers = 0;
            }
        } else if (name.starts_with("simpi-"))
            group = 5;
        else if (name == "mpich")
            group = 6;
        else if (name == "mpich-async")
            group = 7;
        else if (name.starts_with("openmpi"))
            group = 8;
        return std::tuple(group, helpers, abi, full);
    };
    return key(a) < key(b);
}

}  // namespace si::harness
