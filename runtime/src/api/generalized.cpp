// Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): an
// operation the program carries out itself, which MPI_Wait, MPI_Test and
// their array forms wait for beside MPI's own. Each is an engine Activity
// that finishes once the program says so; the callbacks run in the
// completion calls, in the program's thread, never inside a progress pass
// (which an interrupt thread may make).
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"
#include "p2p/activity.hpp"

namespace si::api {

namespace {

struct Generalized {
    MPI_Grequest_query_function* query = nullptr;
    MPI_Grequest_free_function* free = nullptr;
    MPI_Grequest_cancel_function* cancel = nullptr;
    void* extra_state = nullptr;
    std::atomic<bool> completed{false};  // MPI_Grequest_complete was called
    bool handle_freed = false;           // by MPI_Request_free (free_fn ran then)
};

// Finishes when the program completes the request. Polls: completion is a
// store in another thread of the program, which rings no doorbell.
class GeneralizedActivity final : public p2p::Activity {
  public:
    explicit GeneralizedActivity(std::shared_ptr<Generalized> state) : state_(std::move(state)) {}
    bool advance(p2p::Engine&) override {
        return state_->completed.load(std::memory_order_acquire);
    }
    int result() const override { return MPI_SUCCESS; }
    bool polls_memory() const override { return true; }

  private:
    std::shared_ptr<Generalized> state_;
};

// The live generalized requests by handle.
struct Registry {
    std::mutex mutex;
    std::unordered_map<MPI_Request, std::shared_ptr<Generalized>> by_handle;
};

// How many the registry holds, outside it so that the completion calls read
// it without the lock or the registry's first-use guard.
constinit std::atomic<int> g_live{0};

Registry& registry() {
    static Registry instance;
    return instance;
}

std::shared_ptr<Generalized> find(MPI_Request handle) {
    if (g_live.load(std::memory_order_acquire) == 0) return nullptr;
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    const auto it = r.by_handle.find(handle);
    return it == r.by_handle.end() ? nullptr : it->second;
}

void forget(MPI_Request handle) {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    if (r.by_handle.erase(handle) != 0) g_live.fetch_sub(1, std::memory_order_release);
}

int run_free(const Generalized& g) {
    return g.free == nullptr ? MPI_SUCCESS : g.free(g.extra_state);
}

int run_query(const Generalized& g, MPI_Status* status) {
    MPI_Status local{};
    MPI_Status* out = status == MPI_STATUS_IGNORE ? &local : status;
    return g.query == nullptr ? MPI_SUCCESS : g.query(g.extra_state, out);
}

}  // namespace

// find() answers at once, without the lock, while the program has none.
bool is_generalized(const p2p::Request* request) {
    // Every completion asks: the usual answer comes before the handle is made.
    if (g_live.load(std::memory_order_acquire) == 0) return false;
    return find(handle_of(request)) != nullptr;
}

int query_generalized(const p2p::Request* request, MPI_Status* status) {
    return run_query(*find(handle_of(request)), status);
}

int finish_generalized(const p2p::Request* request, MPI_Status* status) {
    const MPI_Request handle = handle_of(request);
    const std::shared_ptr<Generalized> g = find(handle);
    const int queried = run_query(*g, status);
    forget(handle);
    const int freed = run_free(*g);
    return queried != MPI_SUCCESS ? queried : freed;
}

bool cancel_generalized(const p2p::Request* request, int& error) {
    const std::shared_ptr<Generalized> g = find(handle_of(request));
    if (g == nullptr) return false;
    const bool completed = g->completed.load(std::memory_order_acquire);
    error = g->cancel == nullptr ? MPI_SUCCESS : g->cancel(g->extra_state, completed ? 1 : 0);
    return true;
}

bool free_generalized_handle(const p2p::Request* request, int& error) {
    const MPI_Request handle = handle_of(request);
    const std::shared_ptr<Generalized> g = find(handle);
    if (g == nullptr) return false;
    // free_fn runs now, as in MPICH; a request not completed yet stays known
    // until MPI_Grequest_complete, which then only forgets it.
    bool completed = true;
    {
        const std::lock_guard lock(registry().mutex);
        completed = g->completed.load(std::memory_order_acquire);
        g->handle_freed = true;
    }
    if (completed) forget(handle);
    error = run_free(*g);
    return true;
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                        MPI_Request* request) {
    Call call("MPI_Grequest_start");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(request, "request")) return rc;
    auto state = std::make_shared<Generalized>();
    state->query = query_fn;
    state->free = free_fn;
    state->cancel = cancel_fn;
    state->extra_state = extra_state;
    si::p2p::Request* started =
        Runtime::get()->engine->start(std::make_unique<GeneralizedActivity>(state));
    // Its errors go to MPI_COMM_WORLD's handler, as MPICH's do.
    started->owner = MPI_COMM_WORLD;
    *request = handle_of(started);
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    r.by_handle.emplace(*request, std::move(state));
    g_live.fetch_add(1, std::memory_order_release);
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request) {
    Call call("MPI_Grequest_complete");
    if (int rc = call.initialized()) return rc;
    const std::shared_ptr<Generalized> g = find(request);
    if (g == nullptr)
        return call.fail(MPI_ERR_REQUEST,
                         "request {:#x} is not a generalized request that is still active "
                         "(MPI_Grequest_start makes one; each is completed once)",
                         request);
    bool freed = false;
    {
        const std::lock_guard lock(registry().mutex);
        if (g->completed.exchange(true, std::memory_order_acq_rel))
            return call.fail(MPI_ERR_REQUEST, "request {:#x} was completed already", request);
        freed = g->handle_freed;
    }
    // A freed handle: nobody will wait; the engine recycles the request at
    // its next pass.
    if (freed) forget(request);
    return MPI_SUCCESS;
}

}  // extern "C"
