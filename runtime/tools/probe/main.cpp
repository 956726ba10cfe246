// si_probe: what this runtime would find and decide on this node, without
// starting a job: the CPU topology and where ranks and helpers would be bound,
// the locked-memory limit against what the verbs transport pins, every RDMA
// port with the one the runtime would use, and the wake-up module. It prints
// TOML for `sibench doctor` (and a person). The decisions come from the
// runtime's own code (node/placement, transport/verbs, wake/kmod_backend),
// so what it says is what MPI_Init would do.
#include <infiniband/verbs.h>
#include <sys/resource.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "base/error.hpp"
#include "node/placement.hpp"
#include "transport/verbs/verbs_transport.hpp"
#include "wake/kmod_backend.hpp"

namespace {

namespace verbs = si::transport::verbs;

// A TOML basic string.
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + '"';
}

void print_machine(const si::node::CpuTopology& machine, int ranks, int helpers) {
    int pus = 0;
    bool smt = false;
    for (const auto& core : machine.cores) {
        pus += static_cast<int>(core.cpus.size());
        smt = smt || core.cpus.size() > 1;
    }
    fmt::print("[machine]\ncores = {}\npus = {}\nnuma_nodes = {}\nsmt = {}\n\n",
               machine.cores.size(), pus, machine.numa_nodes, smt);
    // As SI_BIND=auto binds ranks a launcher left free, and where helpers go.
    std::vector<int> every_cpu;
    for (const auto& core : machine.cores)
        every_cpu.insert(every_cpu.end(), core.cpus.begin(), core.cpus.end());
    std::vector<int> rank_cpus;
    std::vector<std::string> bound;
    for (int r = 0; r < ranks; ++r) {
        const auto cpus = si::node::automatic_rank_cpus(machine, every_cpu, r, ranks);
        bound.push_back(cpus ? fmt::format("{}", *cpus) : "[]");
        rank_cpus.push_back(cpus && !cpus->empty() ? cpus->front() : -1);
    }
    std::vector<std::string> helper_places;
    for (int h = 0; h < helpers; ++h) {
        const auto cpus = si::node::helper_cpus(machine, rank_cpus, h, helpers);
        helper_places.push_back(cpus ? fmt::format("{}", *cpus) : "[]");
    }
    fmt::print(
        "[placement]\nranks = {}\nhelpers = {}\n# [] : left to the scheduler\nrank_cpus = [{}]\n"
        "helper_cpus = [{}]\n\n",
        ranks, helpers, fmt::join(bound, ", "), fmt::join(helper_places, ", "));
}

void print_memlock(int peers, const verbs::Options& options) {
    rlimit limit{};
    const bool read = ::getrlimit(RLIMIT_MEMLOCK, &limit) == 0;
    const bool unlimited = !read || limit.rlim_cur == RLIM_INFINITY;
    const bool can_lock_any = verbs::can_lock_any_memory();
    const std::uint64_t needed = verbs::pinned_bytes(options, static_cast<std::size_t>(peers));
    // How many peers the limit lets a rank connect to over verbs (-1: any).
    const std::uint64_t per_peer = verbs::pinned_bytes(options, 2) - verbs::pinned_bytes(options, 1);
    long long allowed = -1;
    if (!unlimited && !can_lock_any) {
        const std::uint64_t base = verbs::pinned_bytes(options, 1) - per_peer;
        allowed = limit.rlim_cur > base ? static_cast<long long>((limit.rlim_cur - base) / per_peer) : 0;
        // Page rounding: step back until it fits.
        while (allowed > 0 &&
               verbs::pinned_bytes(options, static_cast<std::size_t>(allowed)) > limit.rlim_cur)
            --allowed;
    }
    fmt::print(
        "[memlock]\nlimit_kib = {}\ncan_lock_any = {}\nper_peer_kib = {}\npeers_allowed = {}\n"
        "needed_kib = {}\npeers = {}\n",
        unlimited ? -1 : static_cast<long long>(limit.rlim_cur / 1024), can_lock_any,
        (per_peer + 1023) / 1024,
        allowed, (needed + 1023) / 1024, peers);
    if (const auto problem = verbs::memlock_problem(unlimited ? UINT64_MAX : limit.rlim_cur,
                                                    needed, can_lock_any))
        fmt::print("problem = {}\n", quoted(*problem));
    fmt::print("\n");
}

const char* gid_type_name(std::uint32_t type) {
    switch (type) {
        case IBV_GID_TYPE_IB: return "IB";
        case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
        case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
        default: return "unknown";
    }
}

void print_ports() {
    int count = 0;
    ibv_device** list = ::ibv_get_device_list(&count);
    fmt::print("[rdma]\ndevices = {}\n", list == nullptr ? 0 : count);
    // What the runtime would use, or its own words for why nothing.
    try {
        verbs::Device device = verbs::open_device("A job over verbs");
        fmt::print("chosen = {}\n",
                   quoted(fmt::format("{} port {}{}", device.name, device.port,
                                      device.ethernet
                                          ? fmt::format(" GID index {}", device.gid_index)
                                          : fmt::format(" LID {}", device.port_attr.lid))));
        verbs::close_device(device);
    } catch (const si::Error& error) {
        fmt::print("problem = {}\n", quoted(error.what()));
    }
    fmt::print("\n");
    for (int d = 0; list != nullptr && d < count; ++d) {
        ibv_context* context = ::ibv_open_device(list[d]);
        const std::string name = ::ibv_get_device_name(list[d]);
        if (context == nullptr) {
            fmt::print("[[port]]\ndevice = {}\nproblem = {}\n\n", quoted(name),
                       quoted("cannot be opened: is /dev/infiniband/uverbs* accessible?"));
            continue;
        }
        ibv_device_attr attr{};
        if (::ibv_query_device(context, &attr) != 0) attr.phys_port_cnt = 0;
        for (std::uint8_t port = 1; port <= attr.phys_port_cnt; ++port) {
            ibv_port_attr pa{};
            if (::ibv_query_port(context, port, &pa) != 0) continue;
            const bool ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
            fmt::print(
                "[[port]]\ndevice = {}\nport = {}\nstate = {}\nactive = {}\nlink_layer = {}\n"
                "active_mtu = {}\nlid = {}\n",
                quoted(name), port, quoted(::ibv_port_state_str(pa.state)),
                pa.state == IBV_PORT_ACTIVE,
                quoted(ethernet ? "Ethernet" : "InfiniBand"),
                128 << static_cast<int>(pa.active_mtu), pa.lid);
            std::vector<std::string> gids;
            for (int index = 0; index < pa.gid_tbl_len; ++index) {
                ibv_gid_entry entry{};
                if (::ibv_query_gid_ex(context, port, index, &entry, 0) != 0) continue;
                bool zero = true;
                for (auto b : entry.gid.raw) zero = zero && b == 0;
                if (zero) continue;
                std::string hex;
                for (auto b : entry.gid.raw) hex += fmt::format("{:02x}", b);
                gids.push_back(
                    quoted(fmt::format("{} {} {}", index, gid_type_name(entry.gid_type), hex)));
            }
            fmt::print("gids = [{}]\n\n", fmt::join(gids, ", "));
        }
        ::ibv_close_device(context);
    }
    if (list != nullptr) ::ibv_free_device_list(list);
}

void print_wake() {
    const auto unavailable = si::wake::kmod_unavailable(si::wake::kKmodDevice);
    fmt::print("[wake]\ndevice = {}\nmodule = {}\n", quoted(si::wake::kKmodDevice),
               !unavailable.has_value());
    if (unavailable) fmt::print("problem = {}\n", quoted(*unavailable));
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"What this runtime would find and decide on this node (TOML)", "si_probe"};
    int ranks = 0, helpers = 1, peers = 0, credits = 32;
    std::size_t eager_limit = 16384;
    app.add_option("--ranks", ranks, "Ranks on the node to place (default: one per core)")
        ->check(CLI::Range(1, 4096));
    app.add_option("--helpers", helpers, "SmartInterrupts helpers to place")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    app.add_option("--peers", peers,
                   "Peers a rank connects to over verbs, for the pinned memory (default: 63)")
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--credits", credits, "SI_VERBS_CREDITS")->capture_default_str();
    app.add_option("--eager-limit", eager_limit, "SI_EAGER_LIMIT (bytes)")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    try {
        const si::node::CpuTopology machine = si::node::load_topology();
        print_machine(machine, ranks > 0 ? ranks : static_cast<int>(machine.cores.size()),
                      helpers);
    } catch (const si::Error& error) {
        fmt::print("[machine]\nproblem = {}\n\n", quoted(error.what()));
    }
    print_memlock(peers > 0 ? peers : 63,
                  verbs::Options{.credits = credits, .max_body = eager_limit, .why = "si_probe"});
    print_ports();
    print_wake();
    return 0;
}
