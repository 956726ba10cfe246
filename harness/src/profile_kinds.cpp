#include "profile_reader.hpp"

#include <filesystem>
#include <regex>

#include "process.hpp"
#include "program_study.hpp"

namespace si::harness::profile_reading {

Settings read_settings(const Reader& reader, const TablePtr& table) {
    Settings s;
    s.configs = reader.strings(table, "configs");
    s.helpers = reader.integers(table, "helpers", 1, 64);
    s.pairs = reader.integers(table, "pairs", 1, 1 << 20);
    s.sizes = reader.sizes(table, "sizes");
    s.min_size = reader.single_size(table, "min_size");
    s.max_size = reader.single_size(table, "max_size");
    s.iterations = reader.integer(table, "iterations", 1, 1 << 30);
    s.warmup = reader.integer(table, "warmup", 0, 1 << 30);
    s.timeout_s = reader.number(table, "timeout");
    s.args = reader.strings(table, "args");
    s.env = reader.env(table, "env");
    if (s.sizes && (s.min_size || s.max_size))
        reader.fail("sizes", "give either sizes or min_size/max_size, not both");
    return s;
}

std::vector<Config> read_configs(const Reader& reader, const std::vector<std::string>& names) {
    std::vector<Config> configs;
    for (const auto& name : names) {
        try {
            const Config config = parse_config(name);
            if (std::find(configs.begin(), configs.end(), config) == configs.end())
                configs.push_back(config);
        } catch (const std::invalid_argument& error) {
            reader.fail("configs", error.what());
        }
    }
    if (configs.empty()) reader.fail("configs", "lists no configuration");
    return configs;
}

// Names become file names and plot titles. A suite study's benchmarks are the
// suite's own names, not files of ours.
void check_names(const Reader& reader, const Study& study) {
    const auto safe = [](const std::string& word) {
        return !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") ==
                                    std::string::npos;
    };
    if (!safe(study.name)) reader.fail("name", "use lower-case letters, digits, '-' and '_'");
    if (study.suite.empty() && study.kind != "app" && !safe(study.benchmark))
        reader.fail("benchmark", "use lower-case letters, digits, '-' and '_'");
}

// A Google Benchmark study: one run of its program, which is no MPI job and sweeps
// nothing sibench knows of; only simpi-none describes it (the runtime's code
// outside any progression mode).
Study make_gbench_study(const Reader& reader, const TablePtr& table, const Settings& defaults) {
    for (const char* key : {"scaling", "max_ranks", "ranks", "helpers", "pairs", "sizes",
                            "min_size", "max_size", "iterations", "warmup", "trace", "rounds",
                            "launcher", "suite", "benchmarks", "source", "check"})
        if (table->contains(key))
            reader.fail(key,
                        "a Google Benchmark study (kind = \"gbench\") takes its options "
                        "from `args` (--benchmark_repetitions=5 ...)");
    Study study;
    study.kind = "gbench";
    const auto benchmark = reader.string(table, "benchmark");
    if (!benchmark || benchmark->empty())
        reader.fail("benchmark", "missing (the program's name, e.g. \"runtime_costs\")");
    study.benchmark = *benchmark;
    study.name = reader.string(table, "name").value_or(study.benchmark);
    check_names(reader, study);
    const auto configs = reader.strings(table, "configs")
                             .value_or(std::vector<std::string>{std::string(kBaselineConfig)});
    for (const auto& name : configs)
        if (name != kBaselineConfig)
            reader.fail("configs", "a Google Benchmark study runs as simpi-none only");
    study.configs = {parse_config(kBaselineConfig)};
    study.pairs.clear();
    study.ranks = {1};
    study.timeout_s = reader.number(table, "timeout").value_or(defaults.timeout_s.value_or(600.0));
    study.args = reader.strings(table, "args").value_or(std::vector<std::string>{});
    if (defaults.env) study.env = *defaults.env;
    if (auto own = reader.env(table, "env"))
        study.env.insert(study.env.end(), own->begin(), own->end());
    return study;
}

Study make_program_study(const Reader& reader, const TablePtr& table, const Settings& defaults) {
    reader.check_keys(table,
                      {"name", "kind", "program", "args", "ranks", "configs", "helpers", "rounds",
                       "timeout", "env", "launcher", "metric", "metric_unit", "metric_better"});
    Study study;
    study.kind = "app";
    const auto program = reader.string(table, "program");
    if (!program || program->empty())
        reader.fail("program", "missing (the MPI program to run, a path or a name in PATH)");
    // A bare name is looked up in PATH, as a shell would; a path is made absolute, so
    // that runs.csv and an sbatch script say which file ran.
    if (program->find('/') == std::string::npos) {
        study.program = find_program(*program);
        if (study.program.empty())
            reader.fail("program", fmt::format("'{}' is not in PATH; give its path", *program));
    } else {
        study.program = std::filesystem::absolute(*program).lexically_normal().string();
    }
    study.benchmark = std::filesystem::path(study.program).filename().string();
    study.name = reader.string(table, "name").value_or(study_name_of_program(study.program));
    check_names(reader, study);
    study.args = reader.strings(table, "args").value_or(std::vector<std::string>{});
    study.ranks = reader.integers(table, "ranks", 1, 1 << 24).value_or(std::vector<int>{2});
    std::sort(study.ranks.begin(), study.ranks.end());
    study.ranks.erase(std::unique(study.ranks.begin(), study.ranks.end()), study.ranks.end());
    study.pairs.clear();
    // Without a list, the configurations that can run this build. A program that
    // is not here yet (a profile written for a cluster) gets this runtime's.
    std::optional<std::vector<std::string>> names = reader.strings(table, "configs");
    if (!names) names = defaults.configs;
    if (!names) {
        ProgramAbi abi = ProgramAbi::unknown;
        try {
            abi = program_abi(study.program);
        } catch (const std::invalid_argument&) {
        }
        names = default_program_configs(abi);
    }
    study.configs = read_configs(reader, *names);
    study.helpers =
        pick<std::vector<int>>(reader.integers(table, "helpers", 1, 64), defaults.helpers, {1});
    study.rounds = static_cast<int>(reader.integer(table, "rounds", 1, 1000).value_or(3));
    study.timeout_s = pick<double>(reader.number(table, "timeout"), defaults.timeout_s, 600.0);
    study.launcher = reader.string(table, "launcher").value_or("sirun");
    if (study.launcher != "sirun" && study.launcher != "hydra")
        reader.fail("launcher", "sirun or hydra (how this runtime's runs start)");
    if (defaults.env) study.env = *defaults.env;
    if (auto own = reader.env(table, "env"))
        study.env.insert(study.env.end(), own->begin(), own->end());

    study.merit.pattern = reader.string(table, "metric").value_or("");
    study.merit.unit = reader.string(table, "metric_unit").value_or("");
    const std::string better = reader.string(table, "metric_better").value_or("higher");
    if (better != "higher" && better != "lower")
        reader.fail("metric_better", "higher or lower (which way the figure of merit improves)");
    study.merit.higher_is_better = better == "higher";
    if (study.merit.pattern.empty()) {
        for (const char* key : {"metric_unit", "metric_better"})
            if (table->contains(key)) reader.fail(key, "only with `metric` (the pattern)");
    } else {
        try {
            if (std::regex(study.merit.pattern).mark_count() < 1)
                reader.fail("metric",
                            "needs a capture group around the number, e.g. "
                            "\"Mop/s total += +([0-9.]+)\"");
        } catch (const std::regex_error& error) {
            reader.fail("metric", fmt::format("not a regular expression: {}", error.what()));
        }
    }
    return study;
}

}  // namespace si::harness::profile_reading
