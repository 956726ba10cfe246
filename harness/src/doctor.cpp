#include "doctor.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <cpptoml.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "process.hpp"

namespace si::harness {

namespace fs = std::filesystem;
using Status = DoctorCheck::Status;

namespace {

std::string read_line(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

template <typename T>
T value_or(const std::shared_ptr<cpptoml::table>& table, const std::string& key, T fallback) {
    if (table == nullptr) return fallback;
    return table->get_qualified_as<T>(key).value_or(fallback);
}

std::string strings_of(const std::shared_ptr<cpptoml::table>& table, const std::string& key) {
    std::string text;
    if (table == nullptr) return text;
    if (const auto array = table->get_qualified_array_of<std::string>(key))
        for (const auto& item : *array) text += (text.empty() ? "" : "; ") + item;
    return text;
}

// The probe's "rank_cpus = [[0], [1]]": arrays of arrays, shown as written.
std::string nested_of(const std::shared_ptr<cpptoml::table>& table, const std::string& key) {
    const auto array = table == nullptr ? nullptr : table->get_array_qualified(key);
    if (array == nullptr) return "?";
    std::vector<std::string> items;
    for (const auto& inner : array->nested_array()) {
        std::vector<std::string> cpus;
        for (const auto& cpu : inner->get_array_of<std::int64_t>().value_or(std::vector<std::int64_t>{}))
            cpus.push_back(std::to_string(cpu));
        items.push_back(cpus.empty() ? "scheduler" : "CPU " + fmt::format("{}", fmt::join(cpus, ",")));
    }
    return fmt::format("{}", fmt::join(items, "; "));
}

void machine_checks(const std::shared_ptr<cpptoml::table>& probe,
                    std::vector<DoctorCheck>& checks) {
    const auto machine = probe->get_table("machine");
    if (const auto problem = value_or<std::string>(machine, "problem", ""); !problem.empty()) {
        checks.push_back({"CPU topology", Status::warn, problem,
                          "ranks and helpers stay unbound; check that hwloc sees the machine"});
        return;
    }
    const auto cores = value_or<std::int64_t>(machine, "cores", 0);
    const auto pus = value_or<std::int64_t>(machine, "pus", 0);
    checks.push_back({"CPU topology", Status::ok,
                      fmt::format("{} cores, {} hardware threads, {} NUMA node(s){}", cores, pus,
                                  value_or<std::int64_t>(machine, "numa_nodes", 1),
                                  value_or<bool>(machine, "smt", false) ? ", SMT on" : ""),
                      ""});
    const auto placement = probe->get_table("placement");
    const auto ranks = value_or<std::int64_t>(placement, "ranks", 0);
    const std::string helpers = nested_of(placement, "helper_cpus");
    const bool helper_shares = helpers.find("scheduler") != std::string::npos;
    checks.push_back(
        {"placement", helper_shares ? Status::note : Status::ok,
         fmt::format("{} ranks: {}; helpers: {}", ranks, nested_of(placement, "rank_cpus"),
                     helpers),
         helper_shares ? "no core is free for a helper at this rank count: it shares the ranks' "
                         "cores at SCHED_IDLE (README, placement); leave a core free per node "
                         "to give it one"
                       : ""});
}

void memlock_check(const std::shared_ptr<cpptoml::table>& probe, bool device,
                   const DoctorOptions& options, std::vector<DoctorCheck>& checks) {
    const auto memlock = probe->get_table("memlock");
    const auto limit = value_or<std::int64_t>(memlock, "limit_kib", -1);
    const auto allowed = value_or<std::int64_t>(memlock, "peers_allowed", -1);
    const auto per_peer = value_or<std::int64_t>(memlock, "per_peer_kib", 0);
    if (value_or<bool>(memlock, "can_lock_any", false) || allowed < 0) {
        checks.push_back({"locked memory", Status::ok,
                          value_or<bool>(memlock, "can_lock_any", false)
                              ? "CAP_IPC_LOCK: no limit applies to this user"
                              : "unlimited",
                          ""});
        return;
    }
    const std::string found = fmt::format(
        "limit {} KiB: the verbs transport pins about {} KiB per peer, so a rank can connect "
        "to {} peers",
        limit, per_peer, allowed);
    const std::string raise =
        "raise it before the job starts: `ulimit -l unlimited`, `* - memlock unlimited` in "
        "/etc/security/limits.conf, LimitMEMLOCK=infinity for systemd, PropagateResourceLimits "
        "under Slurm";
    const bool matters = device || options.need_verbs;
    if (allowed == 0)
        checks.push_back({"locked memory", matters ? Status::fail : Status::note, found,
                          "no job over verbs can start: " + raise});
    else if (allowed < 64)
        checks.push_back({"locked memory", matters ? Status::warn : Status::note, found,
                          fmt::format("a job with more than {} ranks on other nodes fails in "
                                      "MPI_Init: {}",
                                      allowed, raise)});
    else
        checks.push_back({"locked memory", Status::ok, found, ""});
}

void rdma_checks(const std::shared_ptr<cpptoml::table>& probe, const DoctorOptions& options,
                 std::vector<DoctorCheck>& checks, bool& usable) {
    const auto rdma = probe->get_table("rdma");
    const auto devices = value_or<std::int64_t>(rdma, "devices", 0);
    const auto problem = value_or<std::string>(rdma, "problem", "");
    usable = problem.empty() && devices > 0;
    const Status missing = options.need_verbs ? Status::fail : Status::note;
    if (usable) {
        checks.push_back({"RDMA", Status::ok,
                          fmt::format("{} device(s); the runtime uses {}", devices,
                                      value_or<std::string>(rdma, "chosen", "?")),
                          ""});
    } else {
        checks.push_back(
            {"RDMA", missing,
             devices == 0 ? "no RDMA device" : fmt::format("{} device(s), none usable", devices),
             options.need_verbs ? problem
                                : "single-node runs only (shared memory); a job across nodes "
                                  "needs this: " +
                                      problem});
    }
    if (const auto ports = probe->get_table_array("port")) {
        for (const auto& port : *ports) {
            const std::string name = fmt::format("{} port {}", value_or<std::string>(port, "device", "?"),
                                                 value_or<std::int64_t>(port, "port", 0));
            const auto state = value_or<std::string>(port, "state", "?");
            const bool active = value_or<bool>(port, "active", false);
            const bool ethernet = value_or<std::string>(port, "link_layer", "") == "Ethernet";
            std::string detail = fmt::format(
                "{}, {}, MTU {}", state, value_or<std::string>(port, "link_layer", "?"),
                value_or<std::int64_t>(port, "active_mtu", 0));
            if (ethernet)
                detail += ", GIDs: " + (strings_of(port, "gids").empty()
                                            ? std::string("none")
                                            : strings_of(port, "gids"));
            else
                detail += fmt::format(", LID {}", value_or<std::int64_t>(port, "lid", 0));
            std::string fix;
            if (!active) fix = "bring the link up (cable, switch, `ip link set <netdev> up` for RoCE)";
            else if (ethernet && strings_of(port, "gids").empty())
                fix = "give the port's network interface an IP address";
            checks.push_back({name, active && fix.empty() ? Status::ok : Status::note, detail, fix});
        }
    }
}

void wake_check(const std::shared_ptr<cpptoml::table>& probe, const DoctorOptions& options,
                std::vector<DoctorCheck>& checks) {
    const auto wake = probe->get_table("wake");
    if (value_or<bool>(wake, "module", false)) {
        checks.push_back({"si_wake module", Status::ok,
                          value_or<std::string>(wake, "device", "/dev/si_wake") +
                              " answers with this runtime's ABI (SI_WAKE=kmod works)",
                          ""});
        return;
    }
    checks.push_back({"si_wake module", options.need_kmod ? Status::fail : Status::note,
                      value_or<std::string>(wake, "problem", "not loaded"),
                      options.need_kmod
                          ? "load it (kmod/README.md: make -C kmod, insmod si_wake.ko)"
                          : "the default SI_WAKE=futex needs no module; kmod/README.md to try it"});
}

// The CPU frequency governors of the node's CPUs, counted.
void cpu_checks(std::vector<DoctorCheck>& checks) {
    std::map<std::string, int> governors;
    for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu", fs::directory_options::skip_permission_denied)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with("cpu") || name.size() < 4 ||
            !std::all_of(name.begin() + 3, name.end(), ::isdigit))
            continue;
        const std::string governor = read_line(entry.path() / "cpufreq" / "scaling_governor");
        if (!governor.empty()) ++governors[governor];
    }
    if (governors.empty()) {
        checks.push_back({"CPU frequency", Status::note,
                          "no cpufreq governor visible (a virtual machine, or a container)", ""});
    } else {
        std::string detail;
        for (const auto& [governor, count] : governors)
            detail += fmt::format("{}{} CPUs {}", detail.empty() ? "" : ", ", count, governor);
        const bool steady = governors.size() == 1 && governors.count("performance") == 1;
        checks.push_back({"CPU frequency", steady ? Status::ok : Status::warn, detail,
                          steady ? "" : "timings vary with the clock: set the performance "
                                        "governor (cpupower frequency-set -g performance)"});
    }
    const std::string smt = read_line("/sys/devices/system/cpu/smt/active");
    checks.push_back({"SMT", Status::ok,
                      smt.empty() ? "unknown" : (smt == "1" ? "on" : "off"), ""});
}

void launcher_checks(std::vector<DoctorCheck>& checks) {
    const std::string hydra = find_program("mpiexec.hydra");
    checks.push_back({"Hydra", hydra.empty() ? Status::note : Status::ok,
                      hydra.empty() ? "mpiexec.hydra not found" : hydra,
                      hydra.empty() ? "apt-get install mpich (jobs across nodes without Slurm)"
                                    : ""});
    const std::string srun = find_program("srun");
    if (srun.empty()) {
        checks.push_back({"Slurm", Status::note, "srun not found", ""});
    } else {
        const std::string types = capture_output({srun, "--mpi=list"}, 20);
        const bool pmi2 = types.find("pmi2") != std::string::npos;
        if (types.find("fatal") != std::string::npos)
            checks.push_back({"Slurm", Status::note,
                              fmt::format("{} is installed but reaches no controller here", srun),
                              ""});
        else
            checks.push_back({"Slurm", pmi2 ? Status::ok : Status::warn,
                              fmt::format("{}: {}", srun, types),
                              pmi2 ? "" : "this runtime starts under srun --mpi=pmi2, which this "
                                          "Slurm does not list; ask the site for the pmi2 plugin"});
    }
}

void baseline_checks(std::vector<DoctorCheck>& checks) {
    const std::string mpich = capture_output({"mpichversion"}, 1);
    checks.push_back({"MPICH", mpich.empty() ? Status::note : Status::ok,
                      mpich.empty() ? "not found" : mpich,
                      mpich.empty() ? "sibench's mpich configurations need it (apt-get install "
                                      "mpich libmpich-dev)"
                                    : ""});
    const std::string openmpi = capture_output({"mpirun.openmpi", "--version"}, 1);
    checks.push_back({"Open MPI", openmpi.empty() ? Status::note : Status::ok,
                      openmpi.empty() ? "not found" : openmpi,
                      openmpi.empty() ? "sibench's openmpi configurations need it (apt-get "
                                        "install openmpi-bin libopenmpi-dev)"
                                      : ""});
}

void shm_check(std::vector<DoctorCheck>& checks) {
    struct statvfs fs_info {};
    if (::statvfs("/dev/shm", &fs_info) != 0) {
        checks.push_back({"/dev/shm", Status::fail, "not mounted",
                          "the shared-memory transport needs a tmpfs at /dev/shm"});
        return;
    }
    const double free_mib = static_cast<double>(fs_info.f_bavail) * fs_info.f_frsize / (1 << 20);
    checks.push_back({"/dev/shm", free_mib < 256 ? Status::warn : Status::ok,
                      fmt::format("{:.0f} MiB free", free_mib),
                      free_mib < 256 ? "a node's segments need tens of MiB per rank; free or "
                                       "enlarge /dev/shm"
                                     : ""});
}

// A two-rank ping-pong under sirun; `env` picks the transport.
DoctorCheck smoke_job(const std::string& name, const DoctorOptions& options, EnvList env,
                      const fs::path& log) {
    const fs::path sirun = fs::path(options.bin_dir) / "sirun";
    const fs::path program = fs::path(options.bin_dir) / "pingpong";
    if (!fs::exists(sirun) || !fs::exists(program))
        return {name, Status::fail, fmt::format("{} or {} missing", sirun.string(), program.string()),
                "build first (make build)"};
    fs::remove(log);
    const Command command{{sirun.string(), "-n", "2", program.string(), "--sizes", "8,64k",
                           "--iterations", "20", "--warmup", "2", "--quiet"},
                          std::move(env)};
    const auto result = run_process(command, log.string(), 120);
    const std::string output = tail_file(log.string(), 6);
    const bool ok = result.exit_status == 0 && output.find("No Errors") != std::string::npos;
    return {name, ok ? Status::ok : Status::fail,
            ok ? fmt::format("2 ranks, 8 B and 64 KiB, in {:.1f} s", result.seconds)
               : fmt::format("{} (exit status {}): {}", command.display(), result.exit_status,
                             output),
            ok ? "" : "read the output above (full log: " + log.string() + ")"};
}

const char* status_word(Status status) {
    switch (status) {
        case Status::ok: return "ok";
        case Status::note: return "note";
        case Status::warn: return "WARN";
        case Status::fail: return "FAIL";
    }
    return "?";
}

}  // namespace

std::vector<DoctorCheck> checks_from_probe(const std::string& probe_toml_path,
                                           const DoctorOptions& options) {
    std::vector<DoctorCheck> checks;
    std::shared_ptr<cpptoml::table> probe;
    try {
        probe = cpptoml::parse_file(probe_toml_path);
    } catch (const cpptoml::parse_exception& error) {
        checks.push_back({"si_probe", Status::fail,
                          fmt::format("unreadable output ({})", error.what()),
                          "run si_probe by hand and report the problem"});
        return checks;
    }
    machine_checks(probe, checks);
    bool usable = false;
    rdma_checks(probe, options, checks, usable);
    const bool device = value_or<std::int64_t>(probe->get_table("rdma"), "devices", 0) > 0;
    memlock_check(probe, device, options, checks);
    wake_check(probe, options, checks);
    return checks;
}

std::vector<DoctorCheck> run_doctor(const DoctorOptions& options) {
    std::vector<DoctorCheck> checks;
    const fs::path scratch = options.scratch.empty()
                                 ? fs::temp_directory_path() / fmt::format("sibench-doctor-{}", ::getpid())
                                 : fs::path(options.scratch);
    fs::create_directories(scratch);
    const fs::path probe = fs::path(options.bin_dir) / "si_probe";
    if (!fs::exists(probe)) {
        checks.push_back({"si_probe", Status::fail, probe.string() + " missing",
                          "build first (make build), or give --build"});
    } else {
        Command command{{probe.string()}, {}};
        if (options.ranks > 0) command.argv.insert(command.argv.end(), {"--ranks", std::to_string(options.ranks)});
        const fs::path toml = scratch / "probe.toml";
        const auto result = run_process_to(command, toml.string(), (scratch / "probe.log").string(), 60);
        if (result.exit_status != 0)
            checks.push_back({"si_probe", Status::fail,
                              fmt::format("exit status {}: {}", result.exit_status,
                                          tail_file((scratch / "probe.log").string(), 5)),
                              "run it by hand: " + probe.string()});
        else
            checks = checks_from_probe(toml.string(), options);
    }
    cpu_checks(checks);
    shm_check(checks);
    launcher_checks(checks);
    baseline_checks(checks);
    if (options.jobs) {
        checks.push_back(smoke_job("job over shared memory", options,
                                   {{"SI_TRANSPORT", "shm"}}, scratch / "job-shm.log"));
        const bool device = std::any_of(checks.begin(), checks.end(), [](const DoctorCheck& c) {
            return c.name == "RDMA" && c.status == Status::ok;
        });
        if (device)
            checks.push_back(smoke_job("job over verbs", options,
                                       {{"SI_TRANSPORT", "verbs"}, {"SI_NODE_SIZE", "1"}},
                                       scratch / "job-verbs.log"));
    }
    if (options.scratch.empty()) fs::remove_all(scratch);
    return checks;
}

std::string format_doctor(const std::vector<DoctorCheck>& checks) {
    std::size_t width = 0;
    for (const auto& check : checks) width = std::max(width, check.name.size());
    std::string text;
    int blocking = 0, warnings = 0;
    for (const auto& check : checks) {
        blocking += check.status == Status::fail;
        warnings += check.status == Status::warn;
        text += fmt::format("{:<5} {:<{}}  {}\n", status_word(check.status), check.name, width,
                            check.detail);
        if (!check.fix.empty()) text += fmt::format("{:<5} {:<{}}  -> {}\n", "", "", width, check.fix);
    }
    text += blocking > 0 ? fmt::format("\n{} problem(s) block a run, {} warning(s)\n", blocking,
                                       warnings)
                         : fmt::format("\nnothing blocks a run; {} warning(s)\n", warnings);
    return text;
}

int doctor_exit_code(const std::vector<DoctorCheck>& checks) {
    return std::any_of(checks.begin(), checks.end(),
                       [](const DoctorCheck& c) { return c.status == Status::fail; })
               ? 1
               : 0;
}

}  // namespace si::harness
