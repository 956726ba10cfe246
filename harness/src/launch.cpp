#include "launch.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "process.hpp"
#include "units.hpp"

namespace si::harness {

namespace {

// The progression settings of a configuration, the same for every launcher.
EnvList config_env(const Config& config) {
    EnvList env;
    switch (config.runtime) {
        case Runtime::simpi:
            if (config.mode.starts_with("ghost-")) {
                env.emplace_back("SI_PROGRESS", "ghost");
                env.emplace_back("SI_GHOST_MATCHING", config.mode.substr(6));
                break;
            }
            env.emplace_back("SI_PROGRESS", config.mode);
            if (config.mode == "smart")
                env.emplace_back("SI_HELPERS", std::to_string(config.helpers));
            break;
        case Runtime::mpich:
            if (config.mode == "async") {
                env.emplace_back("MPIR_CVAR_ASYNC_PROGRESS", "1");
                env.emplace_back("SI_BENCH_THREAD_MULTIPLE", "1");
            }
            break;
        case Runtime::openmpi:
            // Open MPI 4.1's only asynchronous progress is the TCP BTL's thread
            // (its generic progress thread is not functional): ob1 over TCP
            // loopback, the thread on.
            if (config.mode == "async") {
                env.emplace_back("OMPI_MCA_pml", "ob1");
                env.emplace_back("OMPI_MCA_btl", "self,tcp");
                env.emplace_back("OMPI_MCA_btl_tcp_progress_thread", "1");
                env.emplace_back("SI_BENCH_THREAD_MULTIPLE", "1");
            }
            break;
    }
    return env;
}

std::vector<std::string> program_argv(const PlannedRun& run, const std::string& binary,
                                      const std::string& csv_path) {
    std::vector<std::string> argv = {binary};
    argv.insert(argv.end(), run.args.begin(), run.args.end());
    // Any program (an application study) writes no CSV: sibench reads its output.
    if (run.kind != "app") argv.insert(argv.end(), {"--csv", csv_path});
    return argv;
}

}  // namespace

std::string Command::display() const {
    std::string line;
    for (const auto& [key, value] : env) line += fmt::format("{}={} ", key, shell_quote(value));
    return line + shell_join(argv);
}

LaunchSite find_launch_site(const std::string& build_dir) {
    LaunchSite site;
    site.bin_dir = (std::filesystem::path(build_dir) / "bin").string();
    site.hydra = find_program("mpiexec.hydra");
    site.openmpi = find_program("mpirun.openmpi");
    return site;
}

std::string mpich_abi_dir(const std::string& bin_dir) {
    return (std::filesystem::path(bin_dir).parent_path() / "lib" / "mpich-abi").string();
}

std::string benchmark_binary(const PlannedRun& run, const std::string& bin_dir) {
    if (run.kind == "app") return run.program;
    std::string name = run.benchmark;
    if (run.config.built_against() == Runtime::mpich) name += ".mpich";
    if (run.config.built_against() == Runtime::openmpi) name += ".openmpi";
    return (std::filesystem::path(bin_dir) / name).string();
}

std::string launcher_missing(const PlannedRun& run, const LaunchSite& site) {
    namespace fs = std::filesystem;
    switch (run.config.runtime) {
        case Runtime::simpi:
            if (run.launcher == "hydra" && site.hydra.empty())
                return "launcher mpiexec.hydra not found in PATH (Debian: mpich or hydra)";
            if (run.launcher != "hydra" && !fs::exists(fs::path(site.bin_dir) / "sirun"))
                return fmt::format("launcher not built: {}/sirun", site.bin_dir);
            break;
        case Runtime::mpich:
            if (site.hydra.empty()) return "MPICH launcher mpiexec.hydra not found in PATH";
            break;
        case Runtime::openmpi:
            if (site.openmpi.empty())
                return "Open MPI not installed (mpirun.openmpi not found in PATH)";
            break;
    }
    return "";
}

std::string missing_reason(const PlannedRun& run, const LaunchSite& site) {
    namespace fs = std::filesystem;
    if (std::string why = launcher_missing(run, site); !why.empty()) return why;
    const std::string binary = benchmark_binary(run, site.bin_dir);
    if (!fs::exists(binary)) return fmt::format("benchmark not built: {}", binary);
    return "";
}

Command local_command(const PlannedRun& run, const LaunchSite& site, const std::string& csv_path) {
    Command command =
        launch_command(run, site, program_argv(run, benchmark_binary(run, site.bin_dir), csv_path));
    // sibench's benchmarks take the -async configurations' thread level from
    // SI_BENCH_THREAD_MULTIPLE; any other program's MPI_Init from the library.
    if (run.kind == "app") add_thread_level_env(run.config, command.env);
    return command;
}

void add_thread_level_env(const Config& config, EnvList& env) {
    if (config.mode == "async" && config.runtime == Runtime::mpich)
        env.emplace_back("MPIR_CVAR_DEFAULT_THREAD_LEVEL", "MPI_THREAD_MULTIPLE");
    if (config.mode == "async" && config.runtime == Runtime::openmpi)
        env.emplace_back("OMPI_MPI_THREAD_LEVEL", "3");
}

Command launch_command(const PlannedRun& run, const LaunchSite& site,
                       const std::vector<std::string>& program) {
    Command command;
    command.env = run.env;
    const auto progression = config_env(run.config);
    command.env.insert(command.env.end(), progression.begin(), progression.end());
    const std::string ranks = std::to_string(run.ranks());
    switch (run.config.runtime) {
        case Runtime::simpi: {
            // An application's job is one node.
            if (run.pairs > 0) command.env.emplace_back("SI_NODE_SIZE", std::to_string(run.pairs));
            // sirun ends a hung job itself (and says which ranks hung) 5 s (short
            // limits: a quarter) before sibench's own limit would kill the whole
            // process group.
            const double limit = run.timeout_s > 20
                                     ? std::floor(run.timeout_s - 5)
                                     : std::max(1.0, std::floor(run.timeout_s * 0.75));
            if (run.launcher == "hydra") {
                command.argv = {site.hydra.empty() ? "mpiexec.hydra" : site.hydra, "-n", ranks};
                if (run.config.mpich_abi)
                    command.env.emplace_back("LD_LIBRARY_PATH", mpich_abi_dir(site.bin_dir));
            } else {
                command.argv = {(std::filesystem::path(site.bin_dir) / "sirun").string(), "-n",
                                ranks, "--timeout", fmt::format("{}", limit)};
                if (run.config.mpich_abi)
                    command.argv.insert(command.argv.begin() + 1, {"--abi", "mpich"});
            }
            break;
        }
        case Runtime::mpich:
            command.argv = {site.hydra.empty() ? "mpiexec.hydra" : site.hydra, "-n", ranks};
            break;
        case Runtime::openmpi:
            command.argv = {site.openmpi.empty() ? "mpirun.openmpi" : site.openmpi, "-n", ranks,
                            "--oversubscribe"};
            // Open MPI refuses to start as root unless told twice.
            if (::geteuid() == 0) {
                command.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
                command.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            }
            break;
    }
    command.argv.insert(command.argv.end(), program.begin(), program.end());
    return command;
}

Command srun_command(const PlannedRun& run, const std::string& bin_dir, int nodes,
                     int ranks_per_node, int ranks, const std::string& csv_path) {
    Command command;
    command.env = run.env;
    const auto progression = config_env(run.config);
    command.env.insert(command.env.end(), progression.begin(), progression.end());
    // simpi and MPICH speak PMI-1, which Slurm's pmi2 plugin serves; Open MPI wants PMIx.
    const char* mpi = run.config.runtime == Runtime::openmpi ? "--mpi=pmix" : "--mpi=pmi2";
    if (run.config.mpich_abi) command.env.emplace_back("LD_LIBRARY_PATH", mpich_abi_dir(bin_dir));
    command.argv = {"srun", mpi, fmt::format("--nodes={}", nodes),
                    fmt::format("--ntasks-per-node={}", ranks_per_node),
                    fmt::format("--ntasks={}", ranks),
                    // block: the first half of the ranks on the first half of the nodes,
                    // so that rank i and its partner i + P/2 are on different nodes.
                    "--distribution=block", "--kill-on-bad-exit=1"};
    const auto program = program_argv(run, benchmark_binary(run, bin_dir), csv_path);
    command.argv.insert(command.argv.end(), program.begin(), program.end());
    if (run.kind == "app") add_thread_level_env(run.config, command.env);
    return command;
}

}  // namespace si::harness
