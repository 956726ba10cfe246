#include "api/runtime.hpp"
#include "api/errors.hpp"
#include "api/win.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <fstream>

#include "base/error.hpp"
#include "base/log.hpp"
#include "base/trace.hpp"
#include "coll/collectives.hpp"
#include "node/placement.hpp"
#include "progress/ghost.hpp"
#include "transport/shm/shm_transport.hpp"
#include "transport/verbs/verbs_transport.hpp"

namespace si::api {

std::atomic<Runtime*> Runtime::instance_{nullptr};
std::atomic<bool> Runtime::finalized_{false};

namespace {

// Events each process may record under SI_TRACE (32 bytes each).
constexpr std::size_t kTraceCapacity = std::size_t{1} << 18;

// SI_WAIT_SPIN_US=auto: how long a blocked call polls on an oversubscribed
// host (Runtime::spare_cpus).
constexpr std::chrono::microseconds kAutomaticWaitSpin{50};

// SI_PROGRESS=ghost: small messages in flight per rank with their data in
// shared memory (slots of SI_GHOST_THRESHOLD bytes each).
constexpr std::uint32_t kGhostPayloadSlots = 128;

// The largest body the protocol sends besides eager payloads (an RTS or a FIN).
constexpr std::size_t kControlBodyBytes = 64;

// Which peers this rank reaches through verbs. Locality is decided here, once:
// shared memory within a node, verbs between nodes (SI_TRANSPORT=auto), by a
// rule every rank evaluates alike, so that both ends of a pair agree.
struct TransportPlan {
    bool verbs_in_job = false;     // some pair of ranks uses verbs
    std::vector<int> verbs_peers;  // world ranks, ascending; never this rank
    std::string why;               // who asked for verbs, for error messages
};

TransportPlan plan_transports(const config::Settings& settings, const node::Locality& where) {
    const config::TransportChoice choice = settings.transport;
    const int me = where.world_rank;
    if (choice == config::TransportChoice::shm)
        for (int r = 0; r < where.world_size; ++r)
            if (!where.same_host(r))
                fail("SI_TRANSPORT=shm, but rank {} runs on another host than rank {} ({}); shared "
                     "memory reaches only the ranks of one host: use SI_TRANSPORT=auto or verbs",
                     r, me, where.host_name);
    TransportPlan plan;
    if (choice == config::TransportChoice::shm || where.world_size < 2) return plan;
    const bool all = choice == config::TransportChoice::verbs;
    // Simulated nodes of one host (SI_NODE_SIZE) talk verbs when the host has an
    // RDMA device, else shared memory: a laptop still runs two-node experiments,
    // with a helper set per simulated node. Every rank of a host sees the same
    // devices, so both ends of such a pair decide alike.
    const bool host_has_rdma = all || transport::verbs::device_available();
    const auto over_verbs = [&](int r) {
        if (all) return true;
        if (where.node_of[r] == where.node_of[me]) return false;
        return !where.same_host(r) || host_has_rdma;
    };
    for (int r = 0; r < where.world_size; ++r)
        if (r != me && over_verbs(r)) plan.verbs_peers.push_back(r);
    // Whether any pair of ranks uses verbs (every rank must agree: it sizes the
    // ICBs and adds a fence): ranks on other hosts, or simulated nodes with a device.
    bool other_host = false;
    for (int r = 0; r < where.world_size; ++r) other_host = other_host || !where.same_host(r);
    const bool several_nodes = where.several_nodes();
    plan.verbs_in_job = all || (several_nodes && (other_host || host_has_rdma));
    if (all)
        plan.why = "SI_TRANSPORT=verbs";
    else if (!plan.verbs_peers.empty())
        plan.why = fmt::format("SI_TRANSPORT=auto with rank {} on another {}",
                               plan.verbs_peers.front(),
                               settings.node_size > 0
                                   ? fmt::format("node (SI_NODE_SIZE={})", settings.node_size)
                                   : std::string("host"));
    return plan;
}

// SI_PROGRESS=ghost: which ghosts serve which ranks (progress/ghost_layout.hpp).
// Nodes that talk verbs have ghosts of their own, which talk verbs too;
// without verbs in the job the host is one domain, and its simulated nodes
// (SI_NODE_SIZE) share its ghosts, as their ranks share its memory.
progress::GhostLayout ghost_layout(const config::Settings& settings, const TransportPlan& plan,
                                   const node::Locality& where) {
    progress::GhostLayout layout(plan.verbs_in_job ? where.node_of : where.host_of, where.host_of,
                                 settings.ghosts);
    if (where.several_nodes() && layout.domains() == 1 && where.world_rank == 0)
        log::info("SI_PROGRESS=ghost: the simulated nodes of SI_NODE_SIZE={} share this host's "
                  "ghosts (no verbs between them)", settings.node_size);
    return layout;
}

// The shape of the host's ghost area: room for the ghosts of every domain on it.
node::GhostArea::Shape ghost_shape(const config::Settings& settings, const node::Locality& where,
                                   const progress::GhostLayout& layout) {
    node::GhostArea::Shape shape;
    shape.local_size = where.local_size();
    shape.ghosts = layout.blocks_on(where.host_of[static_cast<std::size_t>(where.world_rank)]);
    shape.cells_per_rank = std::bit_ceil(static_cast<std::uint32_t>(settings.ghost_cells));
    shape.payloads_per_rank = std::min<std::uint32_t>(shape.cells_per_rank, kGhostPayloadSlots);
    shape.inline_bytes = settings.ghost_threshold;
    shape.matching = settings.ghost_matching;
    return shape;
}

}  // namespace

void Runtime::start(const char* function, int required_thread_level) {
    auto runtime = std::unique_ptr<Runtime>(new Runtime);
    runtime->thread_level = std::min(required_thread_level, MPI_THREAD_MULTIPLE);
    runtime->main_thread = std::this_thread::get_id();
    try {
        runtime->bring_up();
    } catch (const std::exception& e) {
        // The cause goes on record before the half-built runtime is destroyed:
        // that unlinks the host's segments, and a rank still opening them then
        // fails with ENOENT and may end the job before this line is written.
        log::error("{}: {}", function, e.what());
        std::fflush(stdout);
        runtime.reset();
        ::_exit(1);
    }
    instance_.store(runtime.release(), std::memory_order_release);
}

void Runtime::bring_up() {
    settings = config::load(config::process_environment());
    bootstrap = bootstrap::connect();
    log::set_rank(bootstrap->rank());
    if (bootstrap->rank() == 0)
        for (const std::string& warning : config::unknown_variable_warnings(config::environment_names()))
            log::warn("{}", warning);

    locality = node::discover_locality(*bootstrap, settings.node_size);
    if (::sched_getaffinity(0, sizeof launch_affinity, &launch_affinity) != 0) CPU_ZERO(&launch_affinity);
    if (settings.bind == config::Binding::automatic) bind_unbound_rank();
    if (!settings.trace.empty())
        trace::start(settings.trace, fmt::format("rank{}", locality.world_rank), kTraceCapacity);
    // Decided once per process, before any helper is forked, so that every
    // sleeper and waker of a node agrees; one line per host says so.
    if (auto why = wake::backend_unavailable(settings.wake)) {
        if (locality.local_index() == 0) log::warn("SI_WAKE: {}; using futex", *why);
        settings.wake = config::WakeBackend::futex;
    }
    const TransportPlan plan = plan_transports(settings, locality);

    // Shared-memory set-up in three fenced steps: the first rank of the host
    // creates the segments; everyone maps them and fills its rank block; the
    // creator unlinks the names, after which no crash can leave them behind.
    transport::shm::Layout layout{locality.local_size(), settings.shm_cells,
                                  std::max(settings.shm_eager_limit(), kControlBodyBytes),
                                  settings.shm_ring_bytes,
                                  settings.shm_staging_bytes_for(locality.local_size())};
    const bool creator = locality.local_index() == 0;
    // Checked by every rank, so that none waits at the fence for one that failed.
    std::optional<node::GhostArea::Shape> ghosts;
    progress::GhostLayout ghost_domains;
    if (settings.progress == config::ProgressMode::ghost) {
        ghost_domains = ghost_layout(settings, plan, locality);
        ghosts = ghost_shape(settings, locality, ghost_domains);
    }
    SharedSegment shm_segment;
    // Every rank's ICB has room for the verbs receives of the largest peer
    // count any rank of the host may have (the region's slots are uniform).
    transport::verbs::Options verbs_options{
        settings.verbs_credits, std::max(settings.verbs_eager_limit(), kControlBodyBytes),
        plan.why};
    const std::size_t verbs_icb_slots =
        plan.verbs_in_job ? transport::verbs::VerbsTransport::icb_slots_per_peer(verbs_options) *
                                static_cast<std::size_t>(locality.world_size)
                          : 0;
    if (creator) {
        // Whole words of SmartProgress's free-entry bits.
        const auto irb_entries = (static_cast<std::size_t>(settings.irb_entries) + 63) / 64 * 64;
        region = node::Region::create(bootstrap->job_id(), layout.local_size,
                                      layout.icb_slots() + verbs_icb_slots, irb_entries);
        shm_segment = transport::shm::ShmTransport::create_segment(bootstrap->job_id(), layout);
        if (ghosts) ghost_area = node::GhostArea::create(bootstrap->job_id(), *ghosts);
    }
    bootstrap->fence();
    if (!creator) {
        region = node::Region::open(bootstrap->job_id());
        shm_segment = transport::shm::ShmTransport::open_segment(bootstrap->job_id());
        if (ghosts) ghost_area = node::GhostArea::open(bootstrap->job_id());
    }
    node::RankBlock& block = region.rank_block(locality.local_index());
    block.pid = ::getpid();
    block.world_rank = locality.world_rank;
    if (::sched_getaffinity(0, sizeof block.affinity, &block.affinity) != 0) CPU_ZERO(&block.affinity);
    block.launch_affinity = launch_affinity;
    transport::shm::ShmTransport::publish_probe(block);
    // The verbs connection data rides on the fence that follows.
    transport::verbs::VerbsTransport* verbs_transport = nullptr;
    if (!plan.verbs_peers.empty()) {
        auto created = std::make_unique<transport::verbs::VerbsTransport>(
            *bootstrap, plan.verbs_peers, region.icb(locality.local_index()) + layout.icb_slots(),
            block.doorbell, verbs_options);
        verbs_transport = created.get();
        verbs = std::move(created);
    }
    bootstrap->fence();
    const SpareCpus spare = spare_cpus();
    // Before any send. A plain doorbell ring moves a memory barrier to the
    // sleeper (wake_word.hpp), whose cost is an interrupt to every CPU
    // running a registered process: cheap where the ranks have a CPU each
    // and mostly poll, dearer than the read-modify-write it saves where they
    // outnumber the CPUs and sleep often (4 ranks on 2 CPUs: an Ibcast of
    // 1 MiB 340 -> 460 us). The barrier itself stays, so a host whose
    // processes decide differently is still correct.
    if (spare.beside_ranks >= 0) wake::enable_plain_wakers();
    if (creator) {
        region.unlink();
        shm_segment.unlink();
        ghost_area.unlink();
    }
    auto shm_transport = std::make_unique<transport::shm::ShmTransport>(
        std::move(shm_segment), region, locality, layout);
    if (settings.progress == config::ProgressMode::smart) shm_transport->publish_tuples();
    shm_transport->split_reads_from(settings.shm_split_read_bytes);
    if (settings.progress == config::ProgressMode::interrupt) {
        shm_transport->ring_interrupt_threads();
        if (verbs_transport != nullptr) verbs_transport->also_ring(block.interrupt_word);
    }
    shm = std::move(shm_transport);
    if (plan.verbs_in_job) {
        if (verbs_transport != nullptr) verbs_transport->connect(*bootstrap);
        // Nobody sends before every queue pair is connected: a queue pair not
        // yet ready to receive drops what arrives, and the sender's retries
        // may run out before a slow peer gets there.
        bootstrap->fence();
    }

    progress_lock = std::make_unique<p2p::ProgressLock>(block.progress_lock, &region.lock_waiters());
    if (settings.progress == config::ProgressMode::none && thread_level != MPI_THREAD_MULTIPLE)
        progress_lock->set_exclusive();
    // Its interrupt thread takes the lock only when a helper woke it; PEF's
    // timer signal interrupts the thread that posted the receive, which is
    // the only one calling MPI below MPI_THREAD_SERIALIZED.
    if ((settings.progress == config::ProgressMode::smart && thread_level != MPI_THREAD_MULTIPLE) ||
        (settings.progress == config::ProgressMode::pef && thread_level < MPI_THREAD_SERIALIZED))
        (void)progress_lock->set_biased();
    std::vector<transport::Transport*> transport_of(locality.world_size, shm.get());
    for (int peer : plan.verbs_peers) transport_of[static_cast<std::size_t>(peer)] = verbs.get();
    p2p::Engine::Options engine_options{settings.shm_eager_limit(),
                                        std::chrono::microseconds(settings.wait_spin_us)};
    for (const transport::Transport* transport : transport_of)
        engine_options.eager_limit_of.push_back(
            transport == shm.get() ? settings.shm_eager_limit() : settings.verbs_eager_limit());
    engine_options.direct_write = settings.direct_write;
    engine_options.stream_noncontiguous = settings.stream_noncontiguous;
    engine_options.background_rounds = settings.background_rounds;
    engine_options.copy_in_signal_handler = settings.pef_copy_on_shared_memory;
    engine_options.concurrent_threads = thread_level == MPI_THREAD_MULTIPLE;
    if (settings.wait_spin_us == config::Settings::kWaitSpinAuto) {
        engine_options.wait_spin = kAutomaticWaitSpin;
        engine_options.spare_cpus = spare.overall;
        engine_options.lock_waiters = &region.lock_waiters();
    }
    progress_lock->set_background_spin(engine_options.wait_spin);
    engine = std::make_unique<p2p::Engine>(locality.world_rank, std::move(transport_of),
                                           *progress_lock, engine_options);
    // The doorbell stays on the futex whatever SI_WAKE says: any rank that
    // delivers a message rings it, so it would need a slot per sleeping
    // MPI_Wait and every sender to attach to it; SI_WAKE is about how
    // helpers wake interrupt threads.
    doorbell_backend = wake::make_backend(config::WakeBackend::futex);
    progress_lock->set_doorbell(block.doorbell, *doorbell_backend);
    engine->set_doorbell(block.doorbell, *doorbell_backend);
    // As MPICH does on a fatal network error: without fault tolerance, the
    // job cannot go on without a rank. After the closing barrier of
    // MPI_Finalize a peer that left first may look unreachable: not an error.
    engine->on_peer_unreachable([this](int peer) {
        if (closing.load(std::memory_order_relaxed)) return;
        abort_job(1, fmt::format("rank {} cannot be reached any more (the error above says "
                                 "why); the job cannot go on without it",
                                 peer));
    });
    communicators.reset(locality.world_rank, locality.world_size);
    if (settings.progress == config::ProgressMode::thread)
        progress_thread = std::make_unique<progress::ProgressThread>(*engine);
    if (settings.progress == config::ProgressMode::interrupt)
        interrupt_progress = std::make_unique<progress::InterruptProgress>(*engine, block, settings,
                                                                           verbs != nullptr);
    if (settings.progress == config::ProgressMode::pef)
        pef = std::make_unique<progress::PefProgress>(*engine, settings);
    if (settings.progress == config::ProgressMode::smart)
        smart = std::make_unique<progress::SmartProgress>(*engine, region, locality, settings);
    if (settings.progress == config::ProgressMode::ghost) {
        ghost = std::make_unique<progress::GhostClient>(*engine, region, ghost_area, locality,
                                                        ghost_domains, settings.verbs_credits);
        ghost->connect(*bootstrap);
    }
    TagRules tags;
    if (ghost && ghost_area.shape().matching == config::GhostMatching::tag)
        tags = {p2p::kMaxTag >> ghost_domains.offset_bits(), false};
    set_tag_rules(tags);
}

// Before any runtime thread or helper exists, so that they start where the
// rank runs. An unbound rank is at the scheduler's mercy: woken after a
// sleep in MPI, it can be queued behind its computing peer while another core
// runs only a helper's polling loop, and then leaves MPI when that peer next
// enters it (hundreds of microseconds later). One core per rank removes that.
void Runtime::bind_unbound_rank() {
    std::vector<int> cpus;
    try {
        cpus = node::automatic_rank_cpus(node::load_topology(), node::bound_cpus_of_this_process(),
                                         locality.local_index(), locality.local_size())
                   .value_or(std::vector<int>{});
    } catch (const std::exception& error) {
        log::warn("SI_BIND=auto: no CPU topology ({}); the rank stays unbound", error.what());
        return;
    }
    std::string problem;
    if (!cpus.empty() && !node::bind_this_process(cpus, &problem))
        log::warn("SI_BIND=auto: {}; the rank stays unbound", problem);
}

// SI_WAIT_SPIN_US=auto. A blocked rank that polls answers a message within
// a pass, while one that sleeps pays a wake-up (tens of microseconds on a
// virtual machine): on a host with a CPU for every thread that wants one, it
// polls as long as it waits. When ranks, polling progress threads, helpers
// and further threads of ranks in MPI (counted as they wait, wait.cpp)
// outnumber the CPUs, a polling rank takes the core from one of them, which
// then cannot progress the very message it waits for; there it sleeps after
// kAutomaticWaitSpin, longer than a peer inside MPI takes to answer. Every
// rank of the host reads the same blocks (filled before the last start-up
// fence) and agrees. Negative: the host is oversubscribed from the start.
Runtime::SpareCpus Runtime::spare_cpus() const {
    node::CpuDemand demand;
    std::vector<int> rank_cpus;
    std::vector<int> node_members;  // per node index: its ranks on this host
    for (int rank : locality.host_ranks) {
        const node::RankBlock& block = region.rank_block(locality.local_index_of[rank]);
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &block.launch_affinity) &&
                std::find(rank_cpus.begin(), rank_cpus.end(), cpu) == rank_cpus.end())
                rank_cpus.push_back(cpu);
        demand.rank_threads += settings.progress == config::ProgressMode::thread ? 2 : 1;
        const auto node = static_cast<std::size_t>(locality.node_of[rank]);
        if (node_members.size() <= node) node_members.resize(node + 1, 0);
        ++node_members[node];
    }
    if (settings.progress == config::ProgressMode::smart)
        for (int members : node_members) demand.helpers += std::min(settings.helpers, members);
    // Ghosts poll as long as they have work (progress/ghost.cpp): as helpers.
    if (settings.progress == config::ProgressMode::ghost) demand.helpers += ghost_area.shape().ghosts;
    try {
        const node::CpuTopology topology = node::load_topology();
        return {node::spare_cpus(topology, rank_cpus, demand),
                node::spare_cpus(topology, rank_cpus, {demand.rank_threads, 0})};
    } catch (const std::exception& error) {
        log::warn("no CPU topology ({}); the host counts as oversubscribed (blocked calls sleep "
                  "after {} us)",
                  error.what(), kAutomaticWaitSpin.count());
        return {};
    }
}

void Runtime::stop() {
    Runtime* runtime = instance_.load(std::memory_order_acquire);
    if (runtime == nullptr) return;
    // Every rank reaches this barrier only after its own sends completed, so
    // after it nobody needs our memory or our receive slots any more.
    Communicator* world = runtime->communicators.find(MPI_COMM_WORLD);
    std::string detail;
    if (coll::barrier(collective_context(*world, &detail)) != MPI_SUCCESS)
        log::warn("MPI_Finalize: the closing barrier failed ({}); ending anyway", detail);
    runtime->closing.store(true, std::memory_order_relaxed);
    forget_windows();
    runtime->progress_thread.reset();
    if (runtime->interrupt_progress) runtime->interrupt_progress->stop();
    if (runtime->smart) runtime->smart->stop();
    if (runtime->pef) runtime->pef->stop();
    if (runtime->ghost) runtime->ghost->stop();
    runtime->write_stats();
    runtime->interrupt_progress.reset();
    runtime->smart.reset();
    trace::finish();  // every thread that records has stopped
    runtime->bootstrap->finalize();
    instance_.store(nullptr, std::memory_order_release);
    finalized_.store(true, std::memory_order_relaxed);
    runtime->communicators.clear();
    delete runtime;
}

void Runtime::write_stats() const {
    if (settings.stats.empty()) return;
    const p2p::Stats& s = engine->stats();
    std::vector<progress::Counter> counters = {
        {"eager_sent", s.eager_sent},
        {"eager_bytes", s.eager_bytes},
        {"rendezvous_sent", s.rendezvous_sent},
        {"rendezvous_bytes", s.rendezvous_bytes},
        {"rdma_reads", s.rdma_reads},
        {"rdma_read_bytes", s.rdma_read_bytes},
        {"rdma_read_bytes_in_background", s.rdma_read_bytes_in_background},
        {"piecewise_reads", s.piecewise_reads},
        {"reads_behind_packing", s.reads_behind_packing},
        {"rma_writes", s.rma_writes},
        {"rma_write_bytes", s.rma_write_bytes},
        {"rma_reads", s.rma_reads},
        {"rma_read_bytes", s.rma_read_bytes},
        {"rma_copies", s.rma_copies},
        {"rma_copy_bytes", s.rma_copy_bytes},
        {"rma_epochs", s.rma_epochs},
        {"rma_epochs_deferred", s.rma_epochs_deferred},
        {"rma_messages_served", s.rma_messages_served},
        {"rma_lock_waits", s.rma_lock_waits},
        {"rma_started_in_background", s.rma_started_in_background},
        {"direct_writes", s.direct_writes},
        {"direct_write_bytes", s.direct_write_bytes},
        {"direct_writes_abandoned", s.direct_writes_abandoned},
        {"direct_deliveries", s.direct_deliveries},
        {"messages_received", s.messages_received},
        {"unexpected", s.unexpected},
        {"send_retries", s.send_retries},
        {"progress_calls", s.progress_calls},
        {"progress_events", s.progress_events},
        {"wait_sleeps", s.wait_sleeps},
        {"wait_timeouts", s.wait_timeouts},
        {"lost_wakeups", s.lost_wakeups},
        {"collective_rounds", s.collective_rounds},
        {"collective_rounds_in_background", s.collective_rounds_in_background},
        {"collectives_on_node", s.collectives_on_node},
        {"rts_to_read_count", s.rts_to_read_count},
        {"rts_to_read_us_mean",
         s.rts_to_read_count == 0 ? 0 : s.rts_to_read_ns_total / s.rts_to_read_count / 1000},
        {"rts_to_read_us_max", s.rts_to_read_ns_max / 1000},
    };
    for (const transport::Transport* transport : engine->transports())
        for (const transport::Counter& counter : transport->counters())
            counters.push_back({counter.name, counter.value});
    if (smart)
        for (progress::Counter& counter : smart->counters()) counters.push_back(std::move(counter));
    if (ghost)
        for (progress::Counter& counter : ghost->counters()) counters.push_back(std::move(counter));
    if (interrupt_progress)
        for (progress::Counter& counter : interrupt_progress->counters())
            counters.push_back(std::move(counter));
    if (pef)
        for (progress::Counter& counter : pef->counters()) counters.push_back(std::move(counter));
    const int rank = locality.world_rank;
    if (settings.stats == "1") {
        std::string line = "counters:";
        for (const auto& [name, value] : counters) line += fmt::format(" {}={}", name, value);
        log::info("{}", line);
        return;
    }
    // Written aside and renamed, so a reader never sees half a file.
    const std::string path = fmt::format("{}.{}", settings.stats, rank);
    const std::string partial = path + ".partial";
    {
        std::ofstream out(partial);
        out << "rank,counter,value\n";
        for (const auto& [name, value] : counters)
            out << rank << ',' << name << ',' << value << '\n';
        if (!out) {
            log::warn("SI_STATS: could not write {}", partial);
            return;
        }
    }
    if (std::rename(partial.c_str(), path.c_str()) != 0)
        log::warn("SI_STATS: could not rename {} to {}", partial, path);
}

void abort_job(int exit_code, std::string_view reason) {
    // What the program printed just before (a pipe or a file buffers it) must
    // not die with it: the process manager may end this process any moment.
    std::fflush(nullptr);
    Runtime* runtime = Runtime::get();
    if (runtime != nullptr && runtime->bootstrap) runtime->bootstrap->abort(exit_code, reason);
    // The process manager did not take the request (or there is none): at
    // least end this process; sirun and Hydra end the others when it exits.
    ::_exit(exit_code == 0 ? 1 : exit_code);
}

}  // namespace si::api
