#include "program_study.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <cpptoml.h>
#include <fmt/format.h>

#include "config.hpp"
#include "profile_writer.hpp"
#include "results.hpp"
#include "sirun/needed.hpp"
#include "suites/output_text.hpp"
#include "suites/suite_runs.hpp"

namespace si::harness {

namespace fs = std::filesystem;

ProgramAbi abi_of_libraries(const std::vector<std::string>& needed) {
    for (const std::string& name : needed) {
        if (name.starts_with("libsimpi.so")) return ProgramAbi::simpi;
        if (name == "libmpi.so.12" || name == "libmpich.so.12") return ProgramAbi::mpich;
        if (name.starts_with("libmpi.so.")) return ProgramAbi::openmpi;
    }
    return ProgramAbi::unknown;
}

ProgramAbi program_abi(const std::string& path) {
    try {
        return abi_of_libraries(sirun::needed_libraries(path));
    } catch (const std::exception& error) {
        throw std::invalid_argument(error.what());
    }
}

std::string describe_abi(ProgramAbi abi) {
    switch (abi) {
        case ProgramAbi::simpi:
            return "this runtime (libsimpi.so.0, built by sicc)";
        case ProgramAbi::mpich:
            return "the MPICH ABI (libmpi.so.12 / libmpich.so.12)";
        case ProgramAbi::openmpi:
            return "Open MPI (libmpi.so.40)";
        case ProgramAbi::unknown:
            break;
    }
    return "no MPI library it names itself";
}

bool config_runs(const Config& config, ProgramAbi abi) {
    switch (config.built_against()) {
        case Runtime::simpi:
            return abi == ProgramAbi::simpi;
        case Runtime::mpich:
            return abi == ProgramAbi::mpich;
        case Runtime::openmpi:
            return abi == ProgramAbi::openmpi;
    }
    return false;
}

std::vector<std::string> default_program_configs(ProgramAbi abi) {
    switch (abi) {
        case ProgramAbi::simpi:
            return {"simpi-none", "simpi-thread", "simpi-smart"};
        case ProgramAbi::mpich:
            return {"simpi-none@mpich-abi", "simpi-thread@mpich-abi", "simpi-smart@mpich-abi",
                    "mpich", "mpich-async"};
        case ProgramAbi::openmpi:
            return {"openmpi", "openmpi-async"};
        case ProgramAbi::unknown:
            break;
    }
    return {"simpi-none", "simpi-thread", "simpi-smart"};
}

std::string program_missing_reason(const PlannedRun& run, const LaunchSite& site) {
    if (std::string why = launcher_missing(run, site); !why.empty()) return why;
    if (::access(run.program.c_str(), X_OK) != 0)
        return fmt::format("program {} is not there or not executable", run.program);
    ProgramAbi abi = ProgramAbi::unknown;
    try {
        abi = program_abi(run.program);
    } catch (const std::invalid_argument& error) {
        return error.what();
    }
    if (abi == ProgramAbi::unknown)
        return fmt::format(
            "{} names no MPI library (libsimpi.so.0, libmpi.so.12, libmpich.so.12, "
            "libmpi.so.40) in its dynamic section: a static build, or MPI reached through "
            "another library, cannot be assigned a configuration",
            run.program);
    if (config_runs(run.config, abi)) return "";
    std::string fits;
    for (const auto& name : default_program_configs(abi)) fits += (fits.empty() ? "" : ", ") + name;
    return fmt::format("{} was built against {}, which {} cannot run; configurations that can: {}",
                       fs::path(run.program).filename().string(), describe_abi(abi),
                       run.config.name(), fits);
}

SuiteOutput record_program_output(const PlannedRun& run, double seconds,
                                  const std::string& log_path, const std::string& csv_path) {
    const RowContext context = row_context_of(run);
    SuiteOutput output;
    Row wall = suite_row(context, kProgramSuite);
    wall.metric = "time_wall";
    wall.value = seconds;
    wall.unit = "s";
    output.rows.push_back(wall);
    if (!run.merit.pattern.empty()) {
        std::ifstream in(log_path);
        const std::regex pattern(run.merit.pattern);
        std::optional<std::string> found;
        std::string line;
        std::smatch match;
        while (std::getline(in, line))
            if (std::regex_search(line, match, pattern)) found = match[1].str();
        const auto value = found ? to_number(*found) : std::nullopt;
        if (!found)
            output.failure =
                fmt::format("no line of the output matches the metric /{}/", run.merit.pattern);
        else if (!value)
            output.failure = fmt::format("the metric /{}/ captured '{}', not a number",
                                         run.merit.pattern, *found);
        if (value) {
            Row merit = suite_row(context, kProgramSuite);
            merit.metric = run.merit.higher_is_better ? "rate_merit" : "time_merit";
            merit.value = *value;
            merit.unit = run.merit.unit;
            output.rows.push_back(merit);
        }
    }
    write_rows(csv_path, output.rows,
               {{"suite", std::string(kProgramSuite)},
                {"program", run.program},
                {"parsed_from", log_path}});
    return output;
}

std::string study_name_of_program(const std::string& program) {
    std::string name;
    for (char c : fs::path(program).filename().string()) {
        const auto u = static_cast<unsigned char>(c);
        name += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : c == '-' ? '-' : '_';
    }
    return name.empty() ? "app" : name;
}

std::string program_profile_text(const ProgramRunRequest& request) {
    const std::string name =
        request.name.empty() ? study_name_of_program(request.program) : request.name;
    auto study = cpptoml::make_table();
    study->insert("name", name);
    study->insert("kind", "app");
    study->insert("program", request.program);
    if (!request.args.empty()) study->insert("args", toml_strings(request.args));
    study->insert("ranks",
                  toml_integers(request.ranks.empty() ? std::vector<int>{2} : request.ranks));
    if (!request.configs.empty()) study->insert("configs", toml_strings(request.configs));
    if (!request.helpers.empty()) study->insert("helpers", toml_integers(request.helpers));
    study->insert("rounds", static_cast<std::int64_t>(request.rounds));
    if (request.timeout_s > 0) study->insert("timeout", request.timeout_s);
    if (!request.merit.pattern.empty()) {
        study->insert("metric", request.merit.pattern);
        if (!request.merit.unit.empty()) study->insert("metric_unit", request.merit.unit);
        study->insert("metric_better", request.merit.higher_is_better ? "higher" : "lower");
    }
    if (!request.env.empty()) {
        auto env = cpptoml::make_table();
        for (const auto& [key, value] : request.env) env->insert(key, value);
        study->insert("env", env);
    }
    auto studies = cpptoml::make_table_array();
    studies->push_back(study);
    auto root = cpptoml::make_table();
    root->insert("name", "app-" + name);
    root->insert("description", "written by `sibench app`");
    root->insert("study", studies);
    std::ostringstream text;
    text << "# A profile of one program study, as `sibench app` ran it; "
            "`sibench run --profile` and `sibench sbatch --profile` take it too.\n"
         << *root;
    return text.str();
}

std::string format_background_table(const std::vector<CounterRow>& counters,
                                    const std::vector<std::string>& program_studies) {
    struct Sums {
        std::set<std::string> runs;
        double wakeups = 0, futile = 0, bytes = 0, cpu_us = 0;
    };
    const auto less = [](const std::pair<std::string, std::string>& a,
                         const std::pair<std::string, std::string>& b) {
        if (a.first != b.first) return a.first < b.first;
        return config_name_less(a.second, b.second);
    };
    std::map<std::pair<std::string, std::string>, Sums, decltype(less)> sums(less);
    const auto helper_or_ghost_counter = [](const std::string& counter, std::string_view what) {
        return (counter.starts_with("helper") || counter.starts_with("ghost")) &&
               counter.ends_with(what);
    };
    for (const CounterRow& r : counters) {
        if (std::find(program_studies.begin(), program_studies.end(), r.study) ==
            program_studies.end())
            continue;
        Sums& s = sums[{r.study, r.config}];
        s.runs.insert(r.run);
        const auto value = static_cast<double>(r.value);
        if (r.counter == "wakeups" || r.counter == "pef_signals") s.wakeups += value;
        if (r.counter == "futile_wakeups" || r.counter == "pef_futile_turns" ||
            r.counter == "pef_busy_turns")
            s.futile += value;
        if (r.counter == "rdma_read_bytes_in_background" || r.counter == "direct_write_bytes" ||
            helper_or_ghost_counter(r.counter, "_rdma_read_bytes"))
            s.bytes += value;
        if (helper_or_ghost_counter(r.counter, "_cpu_us")) s.cpu_us += value;
    }
    if (sums.empty()) return "";
    std::string out = fmt::format(
        "Progress in the background (SI_STATS counters per run, summed over ranks, mean over "
        "rounds)\n{:<16} {:<24} {:>5} {:>10} {:>10} {:>12} {:>13}\n",
        "study", "config", "runs", "wakeups", "futile", "bg MiB", "helper cpu s");
    for (const auto& [key, s] : sums) {
        const double runs = static_cast<double>(s.runs.size());
        out += fmt::format("{:<16} {:<24} {:>5} {:>10.0f} {:>10.0f} {:>12.1f} {:>13.3f}\n",
                           key.first, key.second, s.runs.size(), s.wakeups / runs, s.futile / runs,
                           s.bytes / runs / (1 << 20), s.cpu_us / runs / 1e6);
    }
    out +=
        "wakeups: interrupt threads woken (simpi-pef: timer signals); futile: woken for nothing "
        "to advance;\nbg MiB: rendezvous data read by a progress-thread, interrupt-thread or "
        "signal pass or by a ghost\nprocess, or written by its sender into the posted receive "
        "(direct delivery): data that did not\nwait for the receiver's next MPI call; helper "
        "cpu: CPU time of the SmartInterrupts helpers and\nghost processes.\n";
    return out;
}

}  // namespace si::harness
