#include "suites/suite.hpp"

#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "process.hpp"

namespace si::harness {

SuiteKind parse_suite_kind(std::string_view name) {
    if (name == "osu") return SuiteKind::osu;
    if (name == "imb") return SuiteKind::imb;
    if (name == "npb") return SuiteKind::npb;
    throw std::invalid_argument(fmt::format("unknown suite '{}' (valid: {})", name, kSuiteNames));
}

std::string suite_kind_name(SuiteKind kind) {
    switch (kind) {
        case SuiteKind::osu:
            return "osu";
        case SuiteKind::imb:
            return "imb";
        case SuiteKind::npb:
            return "npb";
    }
    return "unknown";
}

bool is_third_party_suite(std::string_view suite) {
    return suite == "osu" || suite == "imb" || suite == "npb";
}

Toolchain find_toolchain(Runtime runtime, const std::string& bin_dir) {
    Toolchain toolchain;
    toolchain.runtime = runtime;
    // One wrapper: its path, or "" and what was looked for.
    const auto in_build = [&](const char* name, std::string& path, std::string& missing) {
        const std::string candidate = (std::filesystem::path(bin_dir) / name).string();
        if (std::filesystem::exists(candidate))
            path = candidate;
        else
            missing = candidate;
    };
    const auto in_path = [](const std::string& name, std::string& path, std::string& missing) {
        path = find_program(name);
        if (path.empty()) missing = name + " (not in PATH)";
    };
    switch (runtime) {
        case Runtime::simpi:
            toolchain.library = "simpi";
            in_build("sicc", toolchain.cc, toolchain.cc_missing);
            in_build("sicxx", toolchain.cxx, toolchain.cxx_missing);
            in_build("sifort", toolchain.fc, toolchain.fc_missing);
            break;
        case Runtime::mpich:
        case Runtime::openmpi: {
            const std::string suffix = runtime == Runtime::mpich ? ".mpich" : ".openmpi";
            toolchain.library = runtime == Runtime::mpich ? "mpich" : "openmpi";
            in_path("mpicc" + suffix, toolchain.cc, toolchain.cc_missing);
            in_path("mpicxx" + suffix, toolchain.cxx, toolchain.cxx_missing);
            in_path("mpif90" + suffix, toolchain.fc, toolchain.fc_missing);
            break;
        }
    }
    return toolchain;
}

const SuiteDriver& suite_driver(SuiteKind kind) {
    switch (kind) {
        case SuiteKind::osu:
            return osu_driver();
        case SuiteKind::imb:
            return imb_driver();
        case SuiteKind::npb:
            return npb_driver();
    }
    throw std::logic_error("unknown suite");
}

}  // namespace si::harness
