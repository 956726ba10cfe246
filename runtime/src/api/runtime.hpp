// The process-wide state behind the MPI API: created by MPI_Init, destroyed by
// MPI_Finalize. Layers below know nothing of it.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>

#include "api/communicator.hpp"
#include "base/config.hpp"
#include "bootstrap/bootstrap.hpp"
#include "coll/collectives.hpp"
#include "coll/intercomm.hpp"
#include "node/locality.hpp"
#include "node/ghost_area.hpp"
#include "node/region.hpp"
#include "p2p/engine.hpp"
#include "progress/ghost_client.hpp"
#include "progress/interrupt.hpp"
#include "progress/pef.hpp"
#include "progress/progress_thread.hpp"
#include "progress/smart.hpp"
#include "transport/transport.hpp"
#include "wake/backends.hpp"

namespace si::api {

class Runtime {
public:
    // Brings the runtime up; if it cannot, reports the reason as `function`'s
    // and ends the process with status 1.
    static void start(const char* function, int required_thread_level);
    // Tears it down (collective over MPI_COMM_WORLD).
    static void stop();

    // nullptr before MPI_Init and after MPI_Finalize.
    static Runtime* get() { return instance_.load(std::memory_order_acquire); }
    static bool finalized_flag() { return finalized_.load(std::memory_order_relaxed); }

    config::Settings settings;
    std::unique_ptr<bootstrap::Bootstrap> bootstrap;
    node::Locality locality;
    node::Region region;
    node::GhostArea ghost_area;  // SI_PROGRESS=ghost only
    std::unique_ptr<transport::Transport> shm;
    std::unique_ptr<transport::Transport> verbs;  // ranks on other nodes; may be null
    std::unique_ptr<wake::Backend> doorbell_backend;  // declared before its users
    std::unique_ptr<p2p::ProgressLock> progress_lock;
    std::unique_ptr<p2p::Engine> engine;
    // MPI_Finalize passed its closing barrier (engine's peer_unreachable handler).
    std::atomic<bool> closing{false};
    std::unique_ptr<progress::ProgressThread> progress_thread;
    std::unique_ptr<progress::InterruptProgress> interrupt_progress;
    std::unique_ptr<progress::PefProgress> pef;
    std::unique_ptr<progress::SmartProgress> smart;
    // SI_PROGRESS=ghost: the application's point-to-point goes through it
    // (api/pt2pt.cpp, post_send and post_receive).
    std::unique_ptr<progress::GhostClient> ghost;
    CommunicatorTable communicators;
    int thread_level = MPI_THREAD_SINGLE;
    std::thread::id main_thread;
    cpu_set_t launch_affinity{};  // before SI_BIND=auto changed it

private:
    Runtime() = default;
    void bring_up();
    void bind_unbound_rank();
    // CPUs of this host beyond the threads that want one all the time
    // (node::spare_cpus): beyond everyone's, and beyond the ranks' alone.
    struct SpareCpus {
        int overall = -1;
        int beside_ranks = -1;
    };
    SpareCpus spare_cpus() const;
    void write_stats() const;

    static std::atomic<Runtime*> instance_;
    static std::atomic<bool> finalized_;
};

// The collective context of a communicator; `detail` receives the first
// error's description.
inline coll::Context collective_context(const Communicator& comm, std::string* detail = nullptr) {
    Runtime& runtime = *Runtime::get();
    return coll::Context{*runtime.engine,    comm.ref(), comm.coll_context(), detail, 0,
                         std::nullopt,       runtime.settings.algorithms};
}

// The same for a blocking collective the program calls on c, which may run
// on the shared memory of c's node (coll/node_collectives.hpp): every rank
// of c makes the same such calls in the same order.
inline coll::Context blocking_collective_context(const Communicator& comm,
                                                 std::string* detail = nullptr) {
    coll::Context ctx = collective_context(comm, detail);
    ctx.node = node_collectives_of(comm);
    return ctx;
}

// The same for an intercommunicator: the other group, reached on its
// collective context, and this group among itself (coll/intercomm.hpp).
inline coll::InterContext inter_collective_context(const Communicator& inter,
                                                   std::string* detail = nullptr) {
    Runtime& runtime = *Runtime::get();
    return coll::InterContext{
        coll::Context{*runtime.engine, inter.ref(), inter.coll_context(), detail, 0,
                      inter.send_coll_context(), runtime.settings.algorithms},
        coll::Context{*runtime.engine,
                      p2p::CommRef{inter.coll_context(), inter.rank, inter.world_of},
                      inter.coll_context(), detail, coll::kLocalTagBase, std::nullopt,
                      runtime.settings.algorithms}};
}

// Ends the whole job: asks the process manager to kill every rank, then exits.
[[noreturn]] void abort_job(int exit_code, std::string_view reason);

// The function of a user-created error handler, or nullptr.
MPI_Comm_errhandler_function* user_errhandler(MPI_Errhandler handle);

}  // namespace si::api
