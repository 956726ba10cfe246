#include "profile.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <cpptoml.h>
#include <fmt/format.h>

#include "profile_reader.hpp"
#include "suites/suite.hpp"
#include "units.hpp"

#ifndef SI_HARNESS_PROFILE_DIR
#define SI_HARNESS_PROFILE_DIR "harness/profiles"
#endif

namespace si::harness {

namespace {

using namespace profile_reading;

// The keys of a suite study: which suite, its benchmarks, where its sources are.
void read_suite(const Reader& reader, const TablePtr& table, Study& study) {
    for (const char* key : {"benchmark", "scaling", "max_ranks", "trace"})
        if (table->contains(key))
            reader.fail(key, "a suite study (with `suite`) names its `benchmarks` instead");
    study.suite = reader.string(table, "suite").value_or("");
    SuiteKind kind{};
    try {
        kind = parse_suite_kind(study.suite);
    } catch (const std::invalid_argument& error) {
        reader.fail("suite", error.what());
    }
    study.benchmarks = reader.strings(table, "benchmarks").value_or(std::vector<std::string>{});
    if (study.benchmarks.empty())
        reader.fail("benchmarks", "missing (the suite's benchmarks, e.g. [\"osu_latency\"])");
    for (const auto& benchmark : study.benchmarks)
        if (const std::string why = suite_driver(kind).check_benchmark(benchmark); !why.empty())
            reader.fail("benchmarks", fmt::format("'{}': {}", benchmark, why));
    study.source = reader.string(table, "source").value_or("");
    study.check = reader.boolean(table, "check").value_or(false);
    if (study.check && kind != SuiteKind::imb)
        reader.fail("check", "only IMB has a checking build (-DCHECK)");
    if (!table->contains("ranks"))
        reader.fail("ranks", "missing (a suite study's job sizes, e.g. [2])");
}

Study make_study(const Reader& reader, const TablePtr& table, const Settings& defaults) {
    const std::string kind = reader.string(table, "kind").value_or("mpi");
    // A program study has keys of its own (program, metric).
    if (kind == "app") return make_program_study(reader, table, defaults);
    reader.check_keys(table,
                      {"name",     "benchmark", "scaling",    "max_ranks", "ranks",    "configs",
                       "helpers",  "pairs",     "sizes",      "min_size",  "max_size", "iterations",
                       "warmup",   "timeout",   "args",       "env",       "trace",    "rounds",
                       "launcher", "suite",     "benchmarks", "source",    "check",    "kind"});
    if (kind == "gbench") return make_gbench_study(reader, table, defaults);
    if (kind != "mpi")
        reader.fail("kind",
                    "mpi (the default), gbench (a Google Benchmark program) or app (any MPI "
                    "program)");
    Study study;
    const bool suite = table->contains("suite");
    if (suite) {
        read_suite(reader, table, study);
    } else {
        for (const char* key : {"benchmarks", "source", "check"})
            if (table->contains(key))
                reader.fail(key, "only a suite study (with `suite`) takes it");
        const auto benchmark = reader.string(table, "benchmark");
        if (!benchmark || benchmark->empty())
            reader.fail("benchmark", "missing (the binary's name, e.g. \"overlap\")");
        study.benchmark = *benchmark;
    }
    study.name = reader.string(table, "name").value_or(suite ? study.suite : study.benchmark);
    check_names(reader, study);
    study.scaling = reader.boolean(table, "scaling").value_or(false);
    study.trace = reader.boolean(table, "trace").value_or(false);
    study.launcher = reader.string(table, "launcher").value_or("sirun");
    if (study.launcher != "sirun" && study.launcher != "hydra")
        reader.fail("launcher", "sirun or hydra (how this runtime's runs start)");
    study.max_ranks = static_cast<int>(reader.integer(table, "max_ranks", 1, 1 << 24).value_or(0));
    study.rounds = static_cast<int>(reader.integer(table, "rounds", 1, 1000).value_or(1));

    Settings own = read_settings(reader, table);
    const auto names = pick<std::vector<std::string>>(
        own.configs, defaults.configs,
        {"simpi-none", "simpi-thread", "simpi-smart", "mpich", "mpich-async"});
    study.configs = read_configs(reader, names);
    study.helpers = pick<std::vector<int>>(own.helpers, defaults.helpers, {1});
    study.ranks = reader.integers(table, "ranks", 1, 1 << 24).value_or(std::vector<int>{});
    std::sort(study.ranks.begin(), study.ranks.end());
    study.ranks.erase(std::unique(study.ranks.begin(), study.ranks.end()), study.ranks.end());
    const bool application = !study.ranks.empty();
    if (application) {
        // An application has its own problem sizes and step counts; a micro-benchmark
        // option such as --sizes or --iterations would change what it computes.
        for (const char* key : {"pairs", "sizes", "min_size", "max_size", "iterations", "warmup"})
            if (table->contains(key))
                reader.fail(key,
                            "a study with `ranks` (an application) takes its options from `args`");
        study.pairs.clear();
    } else {
        study.pairs = pick<std::vector<int>>(own.pairs, defaults.pairs, {1});
        std::sort(study.pairs.begin(), study.pairs.end());
        study.pairs.erase(std::unique(study.pairs.begin(), study.pairs.end()), study.pairs.end());
    }
    // An application takes no benchmark options from the defaults; a
    // micro-benchmark's own sizes or sweep replaces the defaults' as a whole.
    if (!application) {
        const bool own_sweep = own.sizes || own.min_size || own.max_size;
        const Settings& sweep = own_sweep ? own : defaults;
        study.sizes = sweep.sizes.value_or(std::vector<std::uint64_t>{});
        study.min_size = sweep.min_size.value_or(0);
        study.max_size = sweep.max_size.value_or(0);
        study.iterations = static_cast<int>(pick<long>(own.iterations, defaults.iterations, -1));
        study.warmup = static_cast<int>(pick<long>(own.warmup, defaults.warmup, -1));
    }
    study.timeout_s = pick<double>(own.timeout_s, defaults.timeout_s, 600.0);
    // args and env add up: the defaults' first, then the study's. A suite's options
    // are its own: the defaults' (sibench's benchmarks') would not parse.
    if (defaults.args && !suite) study.args = *defaults.args;
    if (own.args) study.args.insert(study.args.end(), own.args->begin(), own.args->end());
    if (defaults.env) study.env = *defaults.env;
    if (own.env) study.env.insert(study.env.end(), own.env->begin(), own.env->end());
    return study;
}

PlotSpec make_plots(const Reader& reader, const TablePtr& table) {
    reader.check_keys(
        table, {"overlap", "latency", "progression", "scalability", "memory", "pingpong",
                "latency_threads", "dtype", "progression_sizes", "scalability_sizes", "summary_sizes",
                "pingpong_sizes"});
    PlotSpec plots;
    plots.overlap = reader.string(table, "overlap").value_or(plots.overlap);
    plots.latency = reader.string(table, "latency").value_or(plots.latency);
    plots.progression = reader.string(table, "progression").value_or(plots.progression);
    plots.scalability = reader.string(table, "scalability").value_or(plots.scalability);
    plots.memory = reader.string(table, "memory").value_or(plots.memory);
    plots.pingpong = reader.string(table, "pingpong").value_or(plots.pingpong);
    plots.latency_threads =
        reader.string(table, "latency_threads").value_or(plots.latency_threads);
    plots.dtype = reader.string(table, "dtype").value_or(plots.dtype);
    plots.progression_sizes =
        reader.sizes(table, "progression_sizes").value_or(plots.progression_sizes);
    plots.scalability_sizes =
        reader.sizes(table, "scalability_sizes").value_or(plots.scalability_sizes);
    plots.summary_sizes = reader.sizes(table, "summary_sizes").value_or(plots.summary_sizes);
    plots.pingpong_sizes = reader.sizes(table, "pingpong_sizes").value_or(plots.pingpong_sizes);
    return plots;
}

}  // namespace

Profile parse_profile_text(const std::string& text, const std::string& origin) {
    TablePtr root;
    try {
        std::istringstream stream(text);
        cpptoml::parser parser(stream);
        root = parser.parse();
    } catch (const cpptoml::parse_exception& error) {
        throw ProfileError(fmt::format("{}: {}", origin, error.what()));
    }
    const Reader top(origin, "top level");
    top.check_keys(root, {"name", "description", "defaults", "study", "plots"});
    Profile profile;
    profile.name = top.string(root, "name").value_or(std::filesystem::path(origin).stem().string());
    profile.description = top.string(root, "description").value_or("");

    Settings defaults;
    if (root->contains("defaults")) {
        auto table = root->get_table("defaults");
        if (!table) top.fail("defaults", "expected a table [defaults]");
        const Reader reader(origin, "[defaults]");
        reader.check_keys(table, kSettingKeys);
        defaults = read_settings(reader, table);
    }
    if (root->contains("study")) {
        auto studies = root->get_table_array("study");
        if (!studies) top.fail("study", "expected [[study]] tables");
        std::set<std::string> seen;
        for (const auto& table : *studies) {
            const Reader reader(origin, fmt::format("[[study]] #{}", profile.studies.size() + 1));
            Study study = make_study(reader, table, defaults);
            if (!seen.insert(study.name).second)
                reader.fail("name", fmt::format("study '{}' appears twice", study.name));
            profile.studies.push_back(std::move(study));
        }
    }
    if (profile.studies.empty()) top.fail("", "no [[study]] in the profile");
    if (root->contains("plots")) {
        auto table = root->get_table("plots");
        if (!table) top.fail("plots", "expected a table [plots]");
        profile.plots = make_plots(Reader(origin, "[plots]"), table);
    }
    return profile;
}

Profile parse_profile_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ProfileError(fmt::format("cannot read profile {}", path));
    std::ostringstream text;
    text << in.rdbuf();
    return parse_profile_text(text.str(), path);
}

std::string default_profile_dir() {
    return SI_HARNESS_PROFILE_DIR;
}

std::string find_profile(std::string_view name_or_path, const std::string& profile_dir) {
    namespace fs = std::filesystem;
    const std::string given(name_or_path);
    if (given.find('/') != std::string::npos || given.ends_with(".toml")) {
        if (!fs::is_regular_file(given))
            throw ProfileError(fmt::format("--profile: no file {}", given));
        return given;
    }
    const fs::path candidate = fs::path(profile_dir) / (given + ".toml");
    if (fs::is_regular_file(candidate)) return candidate.string();
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(profile_dir, ec))
        if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    std::string list;
    for (const auto& name : names) list += fmt::format("{}{}", list.empty() ? "" : ", ", name);
    throw ProfileError(
        fmt::format("--profile: no profile '{}' in {} (valid: {}, or a path to a .toml file)",
                    given, profile_dir, list.empty() ? "none found" : list));
}

std::vector<std::string> benchmark_args(const Study& study) {
    std::vector<std::string> args;
    if (!study.sizes.empty()) {
        std::string list;
        for (auto size : study.sizes)
            list += fmt::format("{}{}", list.empty() ? "" : ",", format_size(size));
        args.insert(args.end(), {"--sizes", list});
    } else {
        if (study.min_size != 0)
            args.insert(args.end(), {"--min-size", format_size(study.min_size)});
        if (study.max_size != 0)
            args.insert(args.end(), {"--max-size", format_size(study.max_size)});
    }
    if (study.iterations >= 0)
        args.insert(args.end(), {"--iterations", std::to_string(study.iterations)});
    if (study.warmup >= 0) args.insert(args.end(), {"--warmup", std::to_string(study.warmup)});
    args.insert(args.end(), study.args.begin(), study.args.end());
    return args;
}

namespace {

// By name; `simpi-smart` also selects every helper count (simpi-smart-hN), and no
// other prefix selects anything (`mpich` is not `mpich-async`).
bool config_selected(const Config& config, const std::vector<std::string>& wanted) {
    if (wanted.empty()) return true;
    // "simpi-smart" takes every -hN; "simpi-smart@mpich-abi" every -hN@mpich-abi.
    const std::string name = config.csv_name();
    return std::any_of(wanted.begin(), wanted.end(), [&](const std::string& wanted_name) {
        if (wanted_name.ends_with(kMpichAbiSuffix) != config.mpich_abi) return false;
        const std::string w = csv_name_of(wanted_name);
        if (name == w) return true;
        const std::string helpers = w + "-h";
        return name.starts_with(helpers) && name.size() > helpers.size() &&
               std::all_of(name.begin() + static_cast<std::ptrdiff_t>(helpers.size()), name.end(),
                           [](char c) { return c >= '0' && c <= '9'; });
    });
}

}  // namespace

std::vector<PlannedRun> expand_matrix(const Profile& profile, const MatrixFilter& filter) {
    for (const auto& wanted : filter.studies) {
        const bool known = std::any_of(profile.studies.begin(), profile.studies.end(),
                                       [&](const Study& s) { return s.name == wanted; });
        if (!known) {
            std::string names;
            for (const auto& s : profile.studies)
                names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
            throw ProfileError(fmt::format("--only: profile '{}' has no study '{}' (valid: {})",
                                           profile.name, wanted, names));
        }
    }
    for (const auto& wanted : filter.configs) {
        try {
            parse_config(wanted);
        } catch (const std::invalid_argument& error) {
            throw ProfileError(fmt::format("--configs: {}", error.what()));
        }
    }
    std::vector<PlannedRun> runs;
    for (const auto& study : profile.studies) {
        if (!filter.studies.empty() && std::find(filter.studies.begin(), filter.studies.end(),
                                                 study.name) == filter.studies.end())
            continue;
        const auto& helpers = filter.helpers ? *filter.helpers : study.helpers;
        std::vector<Config> configs;
        for (const auto& listed : study.configs)
            for (const auto& config : expand_helpers(listed, helpers))
                if (config_selected(config, filter.configs) &&
                    std::find(configs.begin(), configs.end(), config) == configs.end())
                    configs.push_back(config);
        const auto args = benchmark_args(study);
        // pairs == 0: an application job of job_ranks ranks.
        const auto add_run = [&](const Config& config, int pairs, int job_ranks, int round,
                                 const std::string& benchmark) {
            PlannedRun run;
            if (!study.suite.empty())
                run.id = fmt::format("{}.{}.{}.r{}", study.name, benchmark, config.name(),
                                     job_ranks);
            else if (pairs > 0)
                run.id = fmt::format("{}.{}.p{}", study.name, config.name(), pairs);
            else
                run.id = fmt::format("{}.{}.r{}", study.name, config.name(), job_ranks);
            if (round > 0) run.id += fmt::format(".round{}", round);
            run.round = round;
            run.study = study.name;
            run.benchmark = benchmark;
            run.suite = study.suite;
            run.suite_source = study.source;
            run.suite_check = study.check;
            run.kind = study.kind;
            run.program = study.program;
            run.merit = study.merit;
            run.config = config;
            run.pairs = pairs;
            run.job_ranks = job_ranks;
            run.args = args;
            run.env = study.env;
            run.timeout_s = study.timeout_s;
            run.scaling = study.scaling;
            run.trace = study.trace && config.runtime == Runtime::simpi;
            run.max_ranks = study.max_ranks;
            run.launcher = study.launcher;
            if (run.max_ranks > 0 && run.ranks() > run.max_ranks) return;
            // SI_HELPERS is capped at a node's rank count (pairs ranks per simulated
            // node; an application's whole job on one host); more would rerun a smaller
            // count under a wrong label.
            const int node_ranks = pairs > 0 ? pairs : job_ranks;
            if (filter.cap_helpers_at_pairs && config.mode == "smart" &&
                config.helpers > node_ranks)
                return;
            runs.push_back(std::move(run));
        };
        // Rounds interleave the configurations, so that a machine that slows down
        // for a while slows every configuration of a round alike. Round 0: the only
        // one, whose run ids carry no round.
        const int rounds = filter.rounds.value_or(study.rounds);
        const int first_round = rounds > 1 ? 1 : 0;
        const int last_round = rounds > 1 ? rounds : 0;
        const auto add_rounds = [&](int pairs, int job_ranks, const std::string& benchmark) {
            for (int round = first_round; round <= last_round; ++round)
                for (const auto& config : configs)
                    add_run(config, pairs, job_ranks, round, benchmark);
        };
        const auto benchmarks =
            study.suite.empty() ? std::vector<std::string>{study.benchmark} : study.benchmarks;
        for (const auto& benchmark : benchmarks)
            for (int job_ranks : study.ranks) add_rounds(0, job_ranks, benchmark);
        for (int pairs : study.pairs) add_rounds(pairs, 0, study.benchmark);
    }
    return runs;
}

}  // namespace si::harness
