// The configurations sibench compares: which MPI library a benchmark binary was built
// against and how it progresses messages. One closed list, named here only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace si::harness {

enum class Runtime { simpi, mpich, openmpi };

// simpi, mpich, openmpi.
std::string runtime_name(Runtime runtime);

struct Config {
    Runtime runtime = Runtime::simpi;
    // simpi: SI_PROGRESS (none, thread, smart); mpich: default or async
    // (MPIR_CVAR_ASYNC_PROGRESS); openmpi: default.
    std::string mode = "none";
    // simpi smart: SI_HELPERS (>= 1); 0 everywhere else, as in the benchmarks' CSV.
    int helpers = 0;
    // simpi only: the benchmark's MPICH build, run on this runtime through the
    // MPICH ABI (sirun --abi mpich); its name ends in "@mpich-abi".
    bool mpich_abi = false;

    // simpi-none, simpi-thread, simpi-smart-h2, simpi-none@mpich-abi, mpich,
    // mpich-async, openmpi: the `config` column of results.csv and the legend of
    // every figure.
    [[nodiscard]] std::string name() const;
    // The name a benchmark's CSV gives it (runtime, mode, helpers): name()
    // without "@mpich-abi".
    [[nodiscard]] std::string csv_name() const;
    // The CSV's `runtime` column: simpi, mpich, openmpi.
    [[nodiscard]] std::string runtime_name() const;
    // The library the benchmark was built against: MPICH for @mpich-abi.
    [[nodiscard]] Runtime built_against() const { return mpich_abi ? Runtime::mpich : runtime; }

    bool operator==(const Config&) const = default;
};

inline constexpr std::string_view kMpichAbiSuffix = "@mpich-abi";

// A configuration's name as its benchmark's CSV has it (without "@mpich-abi").
std::string csv_name_of(std::string_view config_name);

// Reads a configuration name. "simpi-smart" without "-hN" comes back with helpers 0:
// a template that expand_helpers turns into one configuration per helper count.
// Throws std::invalid_argument listing the valid names.
Config parse_config(std::string_view name);

// The valid names, for error messages and --help.
std::string valid_config_names();

// `config` itself, or for a simpi-smart template one configuration per helper count.
std::vector<Config> expand_helpers(const Config& config, const std::vector<int>& helpers);

// The configuration that produced a CSV row (its runtime, mode and helpers fields),
// e.g. ("simpi", "smart", 2) -> "simpi-smart-h2", ("mpich", "default", 0) -> "mpich".
std::string config_name_of(std::string_view runtime, std::string_view mode, int helpers);

// Order of legends and table rows: simpi none, thread, smart by helpers, then MPICH,
// MPICH async, Open MPI, then anything else by name.
bool config_name_less(std::string_view a, std::string_view b);

// The baseline every overhead and footprint is measured against.
inline constexpr std::string_view kBaselineConfig = "simpi-none";

}  // namespace si::harness
