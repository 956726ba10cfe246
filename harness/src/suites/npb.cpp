// The NAS Parallel Benchmarks, MPI versions 3.3 and 3.4: the source tree is copied
// into the work directory (NPB builds in place), config/make.def is written for the
// library's wrappers, and each benchmark and class is made on its own
// (`make sp CLASS=S`, plus NPROCS=<ranks> for 3.3, which compiles the process count
// in). A run's result block ("Time in seconds", "Mop/s total", "Verification")
// becomes rows; a failed verification is a failed run.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "process.hpp"
#include "suites/build_steps.hpp"
#include "suites/output_text.hpp"
#include "suites/suite.hpp"

namespace si::harness {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "sp.S" -> ("sp", "S").
std::pair<std::string, std::string> split_benchmark(const std::string& benchmark) {
    const auto dot = benchmark.find('.');
    return {benchmark.substr(0, dot), dot == std::string::npos ? "" : benchmark.substr(dot + 1)};
}

// NPB 3.3 compiles the process count into each binary (bin/sp.S.4); 3.4 does not
// (bin/sp.S.x). Its make.common says which.
bool process_count_compiled_in(const std::string& source) {
    std::ifstream in(fs::path(source) / "sys" / "make.common");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str().find("NPROCS") != std::string::npos;
}

// The major version of GNU Fortran behind a wrapper, or 0 for another compiler.
int gfortran_major(const std::string& fc) {
    if (fc.empty() || capture_output({fc, "--version"}).find("GNU Fortran") == std::string::npos)
        return 0;
    // -dumpversion: "12" (or "9.4.0" from older releases).
    const std::string version = capture_output({fc, "-dumpversion"});
    const auto major = to_number(version.substr(0, version.find('.')));
    return major ? static_cast<int>(*major) : 0;
}

}  // namespace

std::string npb_make_def(const Toolchain& tools, int gfortran_major) {
    // gfortran 10 made two things NPB does errors: mismatched actual arguments (one
    // buffer passed to MPI as several types) and X'...' hexadecimal constants (3.3's
    // randi8.f). These flags make them warnings again.
    std::string fflags = "-O2";
    if (gfortran_major >= 10) fflags += " -fallow-argument-mismatch -fallow-invalid-boz";
    const std::string fc = tools.fc.empty() ? tools.fc_missing : tools.fc;
    std::string text =
        fmt::format("# Written by sibench for {} (harness/README.md, \"Third-party suites\").\n",
                    tools.library);
    // NPB 3.3 calls the Fortran wrapper MPIF77, 3.4 MPIFC.
    text += fmt::format("MPIFC = {0}\nMPIF77 = {0}\nFLINK = {0}\n", fc);
    text += fmt::format("FMPI_LIB =\nFMPI_INC =\nFFLAGS = {0}\nFLINKFLAGS = {0}\n", fflags);
    text +=
        fmt::format("MPICC = {0}\nCLINK = {0}\n", tools.cc.empty() ? tools.cc_missing : tools.cc);
    text += "CMPI_LIB =\nCMPI_INC =\nCFLAGS = -O2\nCLINKFLAGS = -O2\n";
    // setparams, a host tool, is built with the plain compiler.
    text += "CC = cc -g\nBINDIR = ../bin\nCONVERTFLAG = -DFORTRAN_REC_SIZE=1\nRAND = randi8\n";
    return text;
}

SuiteOutput parse_npb_output(const std::string& text, const RowContext& context) {
    SuiteOutput output;
    bool completed = false;
    std::map<std::string, std::string> fields;
    for (const auto& line : split_lines(text)) {
        if (line.find("Benchmark Completed") != std::string::npos) {
            completed = true;
            continue;
        }
        const auto equals = line.find('=');
        if (!completed || equals == std::string::npos) continue;
        fields.emplace(trim(line.substr(0, equals)), trim(line.substr(equals + 1)));
    }
    if (!completed) {
        output.failure = "no NPB result block (\"Benchmark Completed\") in the output";
        return output;
    }
    const auto [name, wanted_class] = split_benchmark(context.benchmark);
    if (fields["Class"] != wanted_class)
        output.notes.push_back(
            fmt::format("{}: NPB says class {}", context.benchmark, fields["Class"]));
    const long iterations = static_cast<long>(to_number(fields["Iterations"]).value_or(0));
    // NPB's time is the slowest process's, hence time_max like apps/nas-sp's.
    const std::vector<std::tuple<std::string, std::string, std::string>> metrics = {
        {"Time in seconds", "time_max", "s"},
        {"Mop/s total", "mops_total", "Mop/s"},
        {"Mop/s/process", "mops_per_process", "Mop/s"},
    };
    for (const auto& [field, metric, unit] : metrics) {
        const auto value = to_number(fields[field]);
        if (!value) {
            output.notes.push_back(fmt::format("{}: '{}' is '{}', not a number", context.benchmark,
                                               field, fields[field]));
            continue;
        }
        Row row = suite_row(context, "npb");
        row.metric = metric;
        row.value = *value;
        row.unit = unit;
        row.iterations = iterations;
        output.rows.push_back(std::move(row));
    }
    const std::string verification = fields["Verification"];
    if (verification != "SUCCESSFUL")
        output.failure =
            fmt::format("NPB verification {}", verification.empty() ? "missing" : verification);
    return output;
}

namespace {

class NpbDriver final : public SuiteDriver {
  public:
    std::string check_benchmark(const std::string& benchmark) const override {
        static const std::regex valid("(bt|cg|ep|ft|is|lu|mg|sp)\\.[SWABCDEF]");
        if (std::regex_match(benchmark, valid)) return "";
        return "NPB benchmarks are named <benchmark>.<class>: bt, cg, ep, ft, is, lu, mg or sp, "
               "class S, W, A..F (sp.S, cg.W)";
    }

    std::string target_of(const std::string& source, const std::string& benchmark,
                          int ranks) const override {
        return process_count_compiled_in(source) ? fmt::format("{}.{}", benchmark, ranks)
                                                 : benchmark + ".x";
    }

    std::vector<BuiltTarget> build(const BuildRequest& request) const override {
        const Toolchain& tools = request.toolchain;
        const fs::path work(request.work_dir);
        const fs::path tree = work / "src";
        copy_source_tree(request.source, tree.string());
        // Rewritten only when it changes: every object depends on it.
        const fs::path make_def = tree / "config" / "make.def";
        const std::string def = npb_make_def(tools, gfortran_major(tools.fc));
        std::ifstream old_def(make_def);
        std::ostringstream old_text;
        old_text << old_def.rdbuf();
        if (old_text.str() != def) std::ofstream(make_def, std::ios::trunc) << def;

        // The linker writes into bin/, which not every unpacked tree has.
        fs::create_directories(tree / "bin");
        std::vector<BuiltTarget> report;
        for (const auto& target : request.targets) {
            // target: sp.S.4 or sp.S.x
            const auto [name, rest] = split_benchmark(target);
            const std::string klass = rest.substr(0, rest.find('.'));
            const std::string nprocs = rest.substr(rest.find('.') + 1);
            const bool in_c = name == "is";
            const std::string& compiler = in_c ? tools.cc : tools.fc;
            if (compiler.empty()) {
                report.push_back({target, "skipped", "",
                                  (in_c ? tools.cc_missing : tools.fc_missing) + " not found", ""});
                continue;
            }
            const fs::path binary = tree / "bin" / target;
            const std::string log = (work / ("make-" + target + ".log")).string();
            // NPB's makefiles relink every time and recompile when the class changes;
            // a binary newer than make.def is what that would make again.
            const bool current =
                fs::exists(binary) && fs::last_write_time(binary) >= fs::last_write_time(make_def);
            if (!current) {
                fs::remove(log);
                std::vector<std::string> make = {"make", name, "CLASS=" + klass};
                if (nprocs != "x") make.push_back("NPROCS=" + nprocs);
                run_build_step(make, {}, tree.string(), log);
            }
            if (fs::exists(binary))
                report.push_back({target, "built", binary.string(), "", log});
            else
                report.push_back({target, "failed", "", build_failure(log, ""), log});
        }
        return report;
    }

    std::vector<std::string> program(const std::string& binary, const std::string&, int,
                                     const std::vector<std::string>& args) const override {
        std::vector<std::string> argv = {binary};
        argv.insert(argv.end(), args.begin(), args.end());
        return argv;
    }

    SuiteOutput parse(const std::string& output, const RowContext& context) const override {
        return parse_npb_output(output, context);
    }
};

}  // namespace

const SuiteDriver& npb_driver() {
    static const NpbDriver driver;
    return driver;
}

}  // namespace si::harness
