// The Intel MPI Benchmarks: IMB-MPI1, and IMB-NBC, IMB-RMA and IMB-EXT for
// benchmarks named with their component ("NBC:Ibcast", "RMA:Unidir_put",
// "EXT:Accumulate"; a plain name is IMB-MPI1's). Its makefiles build next to the
// sources, so the sources are copied into the work directory first. Each run is
// one benchmark (IMB-MPI1 -npmin <ranks> ... PingPong); its tables ("#bytes
// #repetitions t[usec] Mbytes/sec", with -DCHECK a "defects" column) become rows.
#include <algorithm>
#include <array>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "suites/build_steps.hpp"
#include "suites/output_text.hpp"
#include "suites/suite.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

constexpr std::array<const char*, 4> kImbPrograms = {"IMB-MPI1", "IMB-NBC", "IMB-RMA", "IMB-EXT"};

// A benchmark as sibench names it: the program that runs it, the name that
// program knows it by, and what results.csv puts before that name ("RMA:").
struct ImbBenchmark {
    std::string program;
    std::string name;
    std::string prefix;
};

ImbBenchmark imb_benchmark(const std::string& benchmark) {
    const auto colon = benchmark.find(':');
    if (colon == std::string::npos) return {"IMB-MPI1", benchmark, ""};
    return {"IMB-" + benchmark.substr(0, colon), benchmark.substr(colon + 1),
            benchmark.substr(0, colon + 1)};
}

// An IMB column as (metric, unit). IMB's times are per repetition, averaged over
// the repetitions; t_min, t_max and t_avg then take the minimum, maximum and mean
// over the ranks. "defects" counts wrong results (-DCHECK builds).
std::pair<std::string, std::string> imb_metric(const std::string& column) {
    static const std::map<std::string, std::pair<std::string, std::string>> known = {
        {"t[usec]", {"time_mean", "us"}},           {"t_avg[usec]", {"time_mean", "us"}},
        {"t_min[usec]", {"time_min", "us"}},        {"t_max[usec]", {"time_max", "us"}},
        {"Mbytes/sec", {"bandwidth_mean", "MB/s"}}, {"Msg/sec", {"message_rate_mean", "msg/s"}},
        {"defects", {"defects", "count"}},
    };
    if (const auto it = known.find(column); it != known.end()) return it->second;
    // Others: name[unit], e.g. t_ovrl[usec], overlap[%].
    const auto open = column.find('[');
    if (open != std::string::npos && column.back() == ']') {
        std::string unit = column.substr(open + 1, column.size() - open - 2);
        if (unit == "usec") unit = "us";
        return {snake_name(column.substr(0, open)), unit};
    }
    return {snake_name(column), ""};
}

}  // namespace

SuiteOutput parse_imb_output(const std::string& text, const RowContext& context) {
    SuiteOutput output;
    // IMB runs a benchmark at each process count from -npmin up; the last table of
    // a benchmark (the largest count, the whole job with sibench's -npmin) counts.
    // IMB-RMA and IMB-EXT measure a benchmark twice, each table after its own
    // "# Benchmarking" and a "MODE: AGGREGATE" or "MODE: NON-AGGREGATE" line:
    // the mode joins the name ("RMA:Unidir_put.aggregate").
    std::map<std::string, std::vector<Row>> last_table;
    const std::string prefix = imb_benchmark(context.benchmark).prefix;
    std::string benchmark;
    std::vector<std::string> columns;
    double defects = 0;
    for (const auto& line : split_lines(text)) {
        const auto words = split_words(line);
        if (words.empty()) {
            columns.clear();
            continue;
        }
        if (words.front() == "#" && words.size() >= 3 && words[1] == "Benchmarking") {
            benchmark = prefix + words[2];
            last_table[benchmark].clear();
            columns.clear();
            continue;
        }
        if (words.front() == "#" && words.size() == 3 && words[1] == "MODE:" &&
            !benchmark.empty()) {
            std::string mode = snake_name(words[2]);
            last_table.erase(benchmark);
            benchmark = benchmark.substr(0, benchmark.find('.')) + "." + mode;
            last_table[benchmark].clear();
            continue;
        }
        if (benchmark.empty()) continue;
        if (words.front() == "#bytes" || words.front() == "#repetitions") {
            columns = words;
            continue;
        }
        if (columns.empty() || words.front().starts_with("#")) continue;
        if (words.size() != columns.size()) {
            // "16 time-out.; Time limit ... is over": IMB gave up on that size.
            if (to_number(words.front()) && line.find("time-out") != std::string::npos)
                output.notes.push_back(fmt::format(
                    "IMB {}: stopped at {} bytes, its time limit per size was over (IMB's "
                    "-time option)",
                    benchmark, words.front()));
            continue;
        }
        std::vector<double> values;
        for (const auto& word : words)
            if (const auto number = to_number(word)) values.push_back(*number);
        if (values.size() != words.size()) continue;
        std::uint64_t size = 0;
        long repetitions = 0;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            if (columns[i] == "#bytes") size = static_cast<std::uint64_t>(values[i]);
            if (columns[i] == "#repetitions") repetitions = static_cast<long>(values[i]);
        }
        for (std::size_t i = 0; i < columns.size(); ++i) {
            if (columns[i] == "#bytes" || columns[i] == "#repetitions") continue;
            const auto [metric, unit] = imb_metric(columns[i]);
            Row row = suite_row(context, "imb");
            row.benchmark = benchmark;
            row.msg_size = size;
            row.metric = metric;
            row.value = values[i];
            row.unit = unit;
            row.iterations = repetitions;
            if (metric == "defects") defects += values[i];
            last_table[benchmark].push_back(std::move(row));
        }
    }
    for (auto& [name, rows] : last_table)
        output.rows.insert(output.rows.end(), rows.begin(), rows.end());
    if (defects > 0)
        output.notes.push_back(fmt::format("IMB {}: {:g} defects (wrong results found by -DCHECK)",
                                           context.benchmark, defects));
    if (output.rows.empty()) output.failure = "no IMB result table in the output";
    return output;
}

namespace {

class ImbDriver final : public SuiteDriver {
  public:
    std::string check_benchmark(const std::string& benchmark) const override {
        const ImbBenchmark parts = imb_benchmark(benchmark);
        const bool plain =
            !parts.name.empty() && std::all_of(parts.name.begin(), parts.name.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
            });
        const bool known = std::find(kImbPrograms.begin(), kImbPrograms.end(), parts.program) !=
                           kImbPrograms.end();
        return plain && known ? ""
                              : "IMB benchmarks are named as IMB-MPI1 lists them (PingPong, "
                                "Allreduce), or with their component: NBC:Ibcast, RMA:Unidir_put, "
                                "EXT:Window";
    }

    std::string target_of(const std::string&, const std::string& benchmark, int) const override {
        return imb_benchmark(benchmark).program;
    }

    // Each component asked for (all four when none is) with its own make and log:
    // one that does not build leaves the others.
    std::vector<BuiltTarget> build(const BuildRequest& request) const override {
        const Toolchain& tools = request.toolchain;
        std::vector<std::string> targets = request.targets;
        if (targets.empty()) targets.assign(kImbPrograms.begin(), kImbPrograms.end());
        std::sort(targets.begin(), targets.end());
        targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
        if (tools.cc.empty()) return skip_targets(targets, tools.cc_missing + " not found");
        if (tools.cxx.empty()) return skip_targets(targets, tools.cxx_missing + " not found");
        const fs::path work(request.work_dir);
        const fs::path tree = work / "src";
        copy_source_tree(request.source, tree.string());
        // IMB calls MPI's C interface only, and builds with -Werror: Open MPI's C++
        // bindings, which its mpicxx would pull in, warn under GCC 12.
        std::string cppflags = "-DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX";
        if (request.check) cppflags += " -DCHECK";
        std::vector<BuiltTarget> built;
        for (const std::string& target : targets) {
            const std::string log = (work / fmt::format("make-{}.log", target)).string();
            fs::remove(log);
            const std::vector<std::string> make = {
                "make",           make_jobs(),        target,
                "CC=" + tools.cc, "CXX=" + tools.cxx, "CPPFLAGS=" + cppflags};
            run_build_step(make, {}, tree.string(), log);
            const fs::path binary = tree / target;
            if (fs::exists(binary))
                built.push_back({target, "built", binary.string(), "", log});
            else
                built.push_back({target, "failed", "", build_failure(log, ""), log});
        }
        return built;
    }

    std::vector<std::string> program(const std::string& binary, const std::string& benchmark,
                                     int ranks,
                                     const std::vector<std::string>& args) const override {
        std::vector<std::string> argv = {binary};
        // Collectives at the job's size only (IMB would also run 2, 4, ... ranks).
        if (std::find(args.begin(), args.end(), "-npmin") == args.end())
            argv.insert(argv.end(), {"-npmin", std::to_string(ranks)});
        argv.insert(argv.end(), args.begin(), args.end());
        argv.push_back(imb_benchmark(benchmark).name);
        return argv;
    }

    SuiteOutput parse(const std::string& output, const RowContext& context) const override {
        return parse_imb_output(output, context);
    }
};

}  // namespace

const SuiteDriver& imb_driver() {
    static const ImbDriver driver;
    return driver;
}

}  // namespace si::harness
