// Epoch synchronization: fence, PSCW, locks and flushes, each once as the
// nonblocking MPIX_Win_i* call, which the blocking MPI call starts and waits.
#include <algorithm>
#include <limits>
#include <optional>

#include "api/group.hpp"
#include "api/requests.hpp"
#include "api/rma_api.hpp"
#include "api/runtime.hpp"
#include "base/cpu.hpp"

namespace si::api {

namespace {

// MPI_Win_flush_all and its kin: not a rank a program can pass.
constexpr int kAllRanks = std::numeric_limits<int>::min();

constexpr int kAllAsserts =
    MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

class FlushCompletion final : public p2p::Activity {
  public:
    FlushCompletion(rma::Window& window, rma::Window::FlushMark mark)
        : window_(window), mark_(std::move(mark)) {}
    bool advance(p2p::Engine&) override { return window_.flushed_locked(mark_); }
    int result() const override { return 0; }
    bool polls_memory() const override { return true; }

  private:
    rma::Window& window_;
    rma::Window::FlushMark mark_;
};

// Runs a synchronization: checks, then `body` under the progress lock, which
// returns an error class or sets what the call's request waits for (none:
// complete at once); the request is returned when `request` is given
// (MPIX_), waited for otherwise.
struct WaitFor {
    std::shared_ptr<rma::Epoch> epoch;  // its completion
    std::unique_ptr<p2p::Activity> activity;
};

template <typename Fn>
int synchronize(Call& call, MPI_Win win, int assert, MPI_Request* request, Fn body) {
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if ((assert & ~kAllAsserts) != 0)
        return call.fail(MPI_ERR_ASSERT,
                         "assert {:#x} has bits no MPI_MODE_* constant has (valid: an OR of "
                         "MPI_MODE_NOCHECK, NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED)",
                         assert);
    rma::Window& window = *w->window;
    p2p::Engine& engine = window.engine();
    WaitFor wait_for;
    {
        p2p::ProgressGuard guard(engine.lock());
        if (int rc = body(window, wait_for)) return rc;
    }
    if (request != nullptr) {
        if (wait_for.epoch)
            wait_for.activity = std::make_unique<rma::EpochCompletion>(std::move(wait_for.epoch));
        *request = handle_of(start_rma_request(engine, w->comm, std::move(wait_for.activity)));
        return MPI_SUCCESS;
    }
    p2p::Request* r = nullptr;
    std::optional<rma::EpochCompletion> closing;  // a blocking call's, off the heap
    if (wait_for.epoch) {
        r = engine.start(closing.emplace(std::move(wait_for.epoch)));
        r->owner = w->comm;
    } else if (wait_for.activity) {
        r = start_rma_request(engine, w->comm, std::move(wait_for.activity));
    } else {
        return MPI_SUCCESS;
    }
    engine.wait(r);
    return finish_request(call.function(), r, MPI_STATUS_IGNORE);
}

// What a closing call waits for: nothing when the epoch completed in it
// (its operations were copies, its signals left), else its completion.
void wait_for_closing(std::shared_ptr<rma::Epoch> epoch, WaitFor& wait_for) {
    if (epoch->completed && epoch->error == 0) return;
    wait_for.epoch = std::move(epoch);
}

// The window ranks of a group's members.
int group_ranks(Call& call, MPI_Group group, MPI_Win win, std::vector<int>& out) {
    Members members;
    if (int rc = group_members(call, group, members)) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    const std::vector<int>& world_of = Runtime::get()->communicators.find(w->comm)->world_of;
    out.clear();
    for (int world : *members) {
        const auto at = std::find(world_of.begin(), world_of.end(), world);
        if (at == world_of.end())
            return call.fail(MPI_ERR_GROUP, "group has world rank {}, which is not in the window",
                             world);
        out.push_back(static_cast<int>(at - world_of.begin()));
    }
    return MPI_SUCCESS;
}

int no_epoch(Call& call, const char* what) {
    return call.fail(MPI_ERR_RMA_SYNC, "{}", what);
}

int ifence(Call& call, int assert, MPI_Win win, MPI_Request* request) {
    return synchronize(call, win, assert, request, [&](rma::Window& w, auto& wait_for) {
        if (w.passive_open() || w.exposure_open() || w.pscw_access_open())
            return no_epoch(call,
                            "a lock or PSCW epoch of the window is open; a fence may not "
                            "be called inside it");
        std::shared_ptr<rma::Epoch> closed = w.fence_locked((assert & MPI_MODE_NOSUCCEED) != 0);
        // MPI_MODE_NOPRECEDE: no member issued operations in the closing
        // epoch, so the blocking call has nothing to complete, and the next
        // epoch's operations wait as recorded ones for every member's fence.
        // It returns at once, like MPICH's, and the program may compute
        // while a late member reaches its fence.
        const bool nothing_to_complete = (assert & MPI_MODE_NOPRECEDE) != 0 && closed->quiet();
        if (request != nullptr || !nothing_to_complete)
            wait_for_closing(std::move(closed), wait_for);
        return MPI_SUCCESS;
    });
}

int ipost(Call& call, MPI_Group group, int assert, MPI_Win win, MPI_Request* request) {
    thread_local std::vector<int> origins;  // its capacity kept from call to call
    if (int rc = group_ranks(call, group, win, origins)) return rc;
    return synchronize(call, win, assert, request, [&](rma::Window& w, auto&) {
        if (w.exposure_open())
            return no_epoch(call, "an exposure epoch (MPI_Win_post) is already open");
        w.post_locked(origins);
        return MPI_SUCCESS;
    });
}

int istart(Call& call, MPI_Group group, int assert, MPI_Win win, MPI_Request* request) {
    thread_local std::vector<int> targets;  // its capacity kept from call to call
    if (int rc = group_ranks(call, group, win, targets)) return rc;
    return synchronize(call, win, assert, request, [&](rma::Window& w, auto&) {
        if (w.pscw_access_open() || w.passive_open())
            return no_epoch(call, "an access epoch (MPI_Win_start or a lock) is already open");
        w.start_locked(targets);
        return MPI_SUCCESS;
    });
}

int icomplete(Call& call, MPI_Win win, MPI_Request* request) {
    return synchronize(call, win, 0, request, [&](rma::Window& w, auto& wait_for) {
        auto epoch = w.complete_locked();
        if (!epoch) return no_epoch(call, "no access epoch of MPI_Win_start is open");
        wait_for_closing(std::move(epoch), wait_for);
        return MPI_SUCCESS;
    });
}

int iwait(Call& call, MPI_Win win, MPI_Request* request) {
    return synchronize(call, win, 0, request, [&](rma::Window& w, auto& wait_for) {
        auto epoch = w.wait_locked();
        if (!epoch) return no_epoch(call, "no exposure epoch of MPI_Win_post is open");
        wait_for_closing(std::move(epoch), wait_for);
        return MPI_SUCCESS;
    });
}

int check_rank(Call& call, const rma::Window& w, int rank) {
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w.size())) return MPI_SUCCESS;
    return call.fail(MPI_ERR_RANK, "invalid rank {}: the window has {} ranks (valid: 0..{})", rank,
                     w.size(), w.size() - 1);
}

int ilock(Call& call, int lock_type, int rank, int assert, MPI_Win win, MPI_Request* request) {
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return call.fail(MPI_ERR_LOCKTYPE,
                         "lock_type is {}; it must be MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED",
                         lock_type);
    return synchronize(call, win, assert, request, [&](rma::Window& w, auto&) {
        if (int rc = check_rank(call, w, rank)) return rc;
        if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
        if (w.lock_open_to(rank) || w.lock_all_open() || w.pscw_access_open())
            return no_epoch(call, "an access epoch towards that rank is already open");
        w.lock_locked(rank, lock_type == MPI_LOCK_EXCLUSIVE ? rma::LockType::exclusive
                                                            : rma::LockType::shared);
        return MPI_SUCCESS;
    });
}

int iunlock(Call& call, int rank, MPI_Win win, MPI_Request* request) {
    return synchronize(call, win, 0, request, [&](rma::Window& w, auto& wait_for) {
        if (int rc = check_rank(call, w, rank)) return rc;
        if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
        auto epoch = w.unlock_locked(rank);
        if (!epoch) return no_epoch(call, "no lock epoch towards that rank is open");
        wait_for_closing(std::move(epoch), wait_for);
        return MPI_SUCCESS;
    });
}

int ilock_all(Call& call, int assert, MPI_Win win, MPI_Request* request) {
    return synchronize(call, win, assert, request, [&](rma::Window& w, auto&) {
        if (w.passive_open() || w.pscw_access_open())
            return no_epoch(call, "an access epoch of the window is already open");
        w.lock_all_locked();
        return MPI_SUCCESS;
    });
}

int iunlock_all(Call& call, MPI_Win win, MPI_Request* request) {
    return synchronize(call, win, 0, request, [&](rma::Window& w, auto& wait_for) {
        auto epoch = w.unlock_all_locked();
        if (!epoch) return no_epoch(call, "no MPI_Win_lock_all epoch is open");
        wait_for_closing(std::move(epoch), wait_for);
        return MPI_SUCCESS;
    });
}

// Flushes wait for every operation issued so far (towards `rank`, or all
// when rank < 0) to complete at the target, which also completes them
// locally: the local forms are the same call.
int iflush(Call& call, int rank, MPI_Win win, MPI_Request* request) {
    return synchronize(call, win, 0, request, [&](rma::Window& w, auto& wait_for) {
        if (rank != kAllRanks) {
            if (int rc = check_rank(call, w, rank)) return rc;
            if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
            if (!w.lock_open_to(rank) && !w.lock_all_open())
                return no_epoch(call, "no passive-target epoch towards that rank is open");
        } else if (!w.passive_open()) {
            return no_epoch(call, "no passive-target epoch of the window is open");
        }
        wait_for.activity = std::make_unique<FlushCompletion>(
            w, w.flush_mark_locked(rank == kAllRanks ? -1 : rank));
        return MPI_SUCCESS;
    });
}

}  // namespace

}  // namespace si::api

using namespace si::api;
namespace p2p = si::p2p;

extern "C" {
#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win) {
    Call call("MPI_Win_fence");
    return ifence(call, assert, win, nullptr);
}

#pragma weak MPIX_Win_ifence = PMPIX_Win_ifence
int PMPIX_Win_ifence(int assert, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_ifence");
    if (int rc = call.not_null(request, "request")) return rc;
    return ifence(call, assert, win, request);
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
    Call call("MPI_Win_post");
    return ipost(call, group, assert, win, nullptr);
}

#pragma weak MPIX_Win_ipost = PMPIX_Win_ipost
int PMPIX_Win_ipost(MPI_Group group, int assert, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_ipost");
    if (int rc = call.not_null(request, "request")) return rc;
    return ipost(call, group, assert, win, request);
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
    Call call("MPI_Win_start");
    return istart(call, group, assert, win, nullptr);
}

#pragma weak MPIX_Win_istart = PMPIX_Win_istart
int PMPIX_Win_istart(MPI_Group group, int assert, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_istart");
    if (int rc = call.not_null(request, "request")) return rc;
    return istart(call, group, assert, win, request);
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win) {
    Call call("MPI_Win_complete");
    return icomplete(call, win, nullptr);
}

#pragma weak MPIX_Win_icomplete = PMPIX_Win_icomplete
int PMPIX_Win_icomplete(MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_icomplete");
    if (int rc = call.not_null(request, "request")) return rc;
    return icomplete(call, win, request);
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win) {
    Call call("MPI_Win_wait");
    return iwait(call, win, nullptr);
}

#pragma weak MPIX_Win_iwait = PMPIX_Win_iwait
int PMPIX_Win_iwait(MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_iwait");
    if (int rc = call.not_null(request, "request")) return rc;
    return iwait(call, win, request);
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
    Call call("MPI_Win_lock");
    return ilock(call, lock_type, rank, assert, win, nullptr);
}

#pragma weak MPIX_Win_ilock = PMPIX_Win_ilock
int PMPIX_Win_ilock(int lock_type, int rank, int assert, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_ilock");
    if (int rc = call.not_null(request, "request")) return rc;
    return ilock(call, lock_type, rank, assert, win, request);
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win) {
    Call call("MPI_Win_unlock");
    return iunlock(call, rank, win, nullptr);
}

#pragma weak MPIX_Win_iunlock = PMPIX_Win_iunlock
int PMPIX_Win_iunlock(int rank, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_iunlock");
    if (int rc = call.not_null(request, "request")) return rc;
    return iunlock(call, rank, win, request);
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win) {
    Call call("MPI_Win_lock_all");
    return ilock_all(call, assert, win, nullptr);
}

#pragma weak MPIX_Win_ilock_all = PMPIX_Win_ilock_all
int PMPIX_Win_ilock_all(int assert, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_ilock_all");
    if (int rc = call.not_null(request, "request")) return rc;
    return ilock_all(call, assert, win, request);
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win) {
    Call call("MPI_Win_unlock_all");
    return iunlock_all(call, win, nullptr);
}

#pragma weak MPIX_Win_iunlock_all = PMPIX_Win_iunlock_all
int PMPIX_Win_iunlock_all(MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_iunlock_all");
    if (int rc = call.not_null(request, "request")) return rc;
    return iunlock_all(call, win, request);
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win) {
    Call call("MPI_Win_flush");
    return iflush(call, rank, win, nullptr);
}

#pragma weak MPIX_Win_iflush = PMPIX_Win_iflush
int PMPIX_Win_iflush(int rank, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_iflush");
    if (int rc = call.not_null(request, "request")) return rc;
    return iflush(call, rank, win, request);
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win) {
    Call call("MPI_Win_flush_local");
    return iflush(call, rank, win, nullptr);
}

#pragma weak MPIX_Win_iflush_local = PMPIX_Win_iflush_local
int PMPIX_Win_iflush_local(int rank, MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_iflush_local");
    if (int rc = call.not_null(request, "request")) return rc;
    return iflush(call, rank, win, request);
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win) {
    Call call("MPI_Win_flush_all");
    return iflush(call, kAllRanks, win, nullptr);
}

#pragma weak MPIX_Win_iflush_all = PMPIX_Win_iflush_all
int PMPIX_Win_iflush_all(MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_iflush_all");
    if (int rc = call.not_null(request, "request")) return rc;
    return iflush(call, kAllRanks, win, request);
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win) {
    Call call("MPI_Win_flush_local_all");
    return iflush(call, kAllRanks, win, nullptr);
}

#pragma weak MPIX_Win_iflush_local_all = PMPIX_Win_iflush_local_all
int PMPIX_Win_iflush_local_all(MPI_Win win, MPI_Request* request) {
    Call call("MPIX_Win_iflush_local_all");
    if (int rc = call.not_null(request, "request")) return rc;
    return iflush(call, kAllRanks, win, request);
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int* flag) {
    Call call("MPI_Win_test");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    p2p::Engine& engine = w->window->engine();
    engine.progress();
    p2p::ProgressGuard guard(engine.lock());
    const int state = w->window->test_locked();
    if (state < 0) return no_epoch(call, "no exposure epoch of MPI_Win_post is open");
    *flag = state;
    return MPI_SUCCESS;
}

// The window's memory is the one copy both RMA and local accesses see
// (MPI_WIN_UNIFIED); what remains is to order this process's own accesses.
#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win) {
    Call call("MPI_Win_sync");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    si::store_load_fence();
    w->window->engine().progress();
    return MPI_SUCCESS;
}

}  // extern "C"
