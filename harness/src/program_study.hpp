// Application studies of any MPI program (kind = "app", `sibench app`): which MPI
// library the binary was linked against and so which configurations can run it,
// its command line, and its rows (the wall time from launch to exit, and a figure
// of merit read from its output). The results are shown with the other
// applications' (apps.hpp); the runtime's counters per run in the table here.
#pragma once

#include <string>
#include <vector>

#include "counters.hpp"
#include "launch.hpp"
#include "profile.hpp"
#include "suites/suite.hpp"

namespace si::harness {

// What a CSV row of a program study says in its `suite` column.
inline constexpr std::string_view kProgramSuite = "app";

// The MPI a binary names in its dynamic section: this runtime (libsimpi.so.0),
// the MPICH ABI (libmpi.so.12, libmpich.so.12: MPICH, MVAPICH, Intel MPI), Open
// MPI (libmpi.so.40), or none of them.
enum class ProgramAbi { simpi, mpich, openmpi, unknown };

// From the DT_NEEDED entries of a binary, and from the binary itself (throws
// std::invalid_argument when the file cannot be read).
ProgramAbi abi_of_libraries(const std::vector<std::string>& needed);
ProgramAbi program_abi(const std::string& path);
std::string describe_abi(ProgramAbi abi);

// Whether `config` runs a binary of that ABI: this runtime's modes run its own
// builds, and MPICH builds through the MPICH ABI (names ending in @mpich-abi);
// MPICH and Open MPI run their own.
bool config_runs(const Config& config, ProgramAbi abi);

// The configurations `sibench app` compares by default for a binary of that ABI:
// none, thread and smart of this runtime (through the ABI for an MPICH build), and
// the library it was built for, with and without its asynchronous progress.
std::vector<std::string> default_program_configs(ProgramAbi abi);

// Why `run` (kind "app") cannot start here, or "": launcher missing, program not
// found, or a configuration that cannot run its build.
std::string program_missing_reason(const PlannedRun& run, const LaunchSite& site);

// Rows of a finished run: time_wall (the launch to exit `seconds`, s) and, with a
// pattern, its figure of merit (rate_merit when higher is better, time_merit when
// lower, in the pattern's unit), written to `csv_path`. A pattern that matches no
// line of the log fails the run.
SuiteOutput record_program_output(const PlannedRun& run, double seconds,
                                  const std::string& log_path, const std::string& csv_path);

// What `sibench app` asks for: one program study, written as a profile.
struct ProgramRunRequest {
    std::string name;  // the study's; "" : from the program's file name
    std::string program;
    std::vector<std::string> args;
    std::vector<int> ranks;
    std::vector<std::string> configs;  // empty: default_program_configs
    std::vector<int> helpers;
    int rounds = 3;
    double timeout_s = 0;  // 0: the profile default
    MeritSpec merit;
    EnvList env;
};

// The profile text (TOML, written with cpptoml) of `sibench app`: name app-<study>.
std::string program_profile_text(const ProgramRunRequest& request);

// "NPmpi" -> "npmpi", "lmp_mpi" -> "lmp_mpi": a study name from a file name.
std::string study_name_of_program(const std::string& program);

// Per program study and configuration, the runtime's counters per run (mean over
// its rounds, summed over ranks): wake-ups of its threads, futile ones, bytes moved
// outside the application's own MPI calls, and the helpers' and ghosts' CPU time.
// Empty when no program study ran this runtime.
std::string format_background_table(const std::vector<CounterRow>& counters,
                                    const std::vector<std::string>& program_studies);

}  // namespace si::harness
