// Windows: creation, freeing, and what a program may ask of one.
#include "api/win.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "api/attributes.hpp"
#include "api/group.hpp"
#include "api/handles.hpp"
#include "api/info.hpp"
#include "api/runtime.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "base/shm_segment.hpp"

namespace si::api {

namespace {

// Handle index -> window; index 0 is MPI_WIN_NULL.
std::mutex g_mutex;
std::vector<std::unique_ptr<Win>> g_windows(1);

MPI_Win add_window(std::unique_ptr<Win> win) {
    std::lock_guard lock(g_mutex);
    std::size_t index = 1;
    while (index < g_windows.size() && g_windows[index] != nullptr) ++index;
    if (index == g_windows.size()) g_windows.emplace_back();
    win->handle = make_handle(HandleKind::window, static_cast<int>(index));
    g_windows[index] = std::move(win);
    return g_windows[index]->handle;
}

std::unique_ptr<Win> take_window(MPI_Win handle) {
    std::lock_guard lock(g_mutex);
    return std::move(g_windows[static_cast<std::size_t>(handle_index(handle))]);
}

// Seed 002's reordering flags (rma::Reordering) as window hints, under the
// paper's key names. "true" or "1" turns one on, "false" or "0" off; another
// value is ignored, as an invalid hint is.
struct ReorderingHint {
    const char* key;
    bool rma::Reordering::*flag;
};
constexpr ReorderingHint kReorderingHints[] = {
    {"MPI_WIN_ACCESS_AFTER_ACCESS_REORDER", &rma::Reordering::access_after_access},
    {"MPI_WIN_ACCESS_AFTER_EXPOSURE_REORDER", &rma::Reordering::access_after_exposure},
    {"MPI_WIN_EXPOSURE_AFTER_EXPOSURE_REORDER", &rma::Reordering::exposure_after_exposure},
    {"MPI_WIN_EXPOSURE_AFTER_ACCESS_REORDER", &rma::Reordering::exposure_after_access},
};

// The window's hints updated by `pairs`; hints not among them keep their values.
void apply_hints(Win& w, const InfoPairs& pairs) {
    p2p::ProgressGuard guard(w.window->engine().lock());
    rma::Reordering reordering = w.window->reordering();
    for (const auto& [key, value] : pairs)
        for (const ReorderingHint& hint : kReorderingHints) {
            if (key != hint.key) continue;
            if (value == "true" || value == "1") reordering.*hint.flag = true;
            if (value == "false" || value == "0") reordering.*hint.flag = false;
        }
    w.window->set_reordering_locked(reordering);
}

InfoPairs hints_in_use(const Win& w) {
    InfoPairs pairs;
    for (const ReorderingHint& hint : kReorderingHints)
        pairs.emplace_back(hint.key, w.window->reordering().*hint.flag ? "true" : "false");
    return pairs;
}

// Every flavor: a communicator of its own, the window (which allocates
// MPI_Win_allocate's memory), and every member's description of its window.
int create_window(Call& call, void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                  MPI_Comm comm, int flavor, MPI_Win* win) {
    Communicator* c = nullptr;
    if (int rc = call.intracommunicator(comm, c)) return rc;
    // Of the hints, the reordering flags are used; the standard's (no_locks,
    // accumulate_ordering, ...) are accepted and ignored.
    InfoPairs hints;
    if (int rc = read_hints(call, info, hints)) return rc;
    if (int rc = call.not_null(win, "win")) return rc;
    if (size < 0) return call.fail(MPI_ERR_SIZE, "size is {}; it must be 0 or more", size);
    if (disp_unit <= 0)
        return call.fail(MPI_ERR_DISP, "disp_unit is {}; it must be positive", disp_unit);
    const bool allocate = flavor == MPI_WIN_FLAVOR_ALLOCATE;
    if (size > 0 && base == nullptr && !allocate)
        return call.fail(MPI_ERR_BASE, "base is NULL for a window of {} bytes", size);

    MPI_Comm own = MPI_COMM_NULL;
    if (int rc = create_communicator(call, *c, c->world_of, c->rank, true, &own)) return rc;
    Runtime& runtime = *Runtime::get();
    Communicator* dup = runtime.communicators.find(own);
    // Windows start with MPI_ERRORS_ARE_FATAL, whatever their communicator has.
    dup->errhandler = MPI_ERRORS_ARE_FATAL;
    // Segment names: the window's context is the same on every member and
    // unique among live windows.
    std::vector<std::string> segments;
    for (int world : dup->world_of)
        segments.push_back(SharedSegment::name_for(runtime.bootstrap->job_id(),
                                                   fmt::format("w{}-{}", dup->pair, world)));

    auto w = std::make_unique<Win>();
    w->comm = own;
    w->flavor = flavor;
    w->size = size;
    w->disp_unit = disp_unit;
    try {
        w->window = std::make_unique<rma::Window>(
            *runtime.engine, dup->world_of, dup->rank, dup->p2p_context(),
            rma::Window::Memory{base, static_cast<std::size_t>(size),
                                static_cast<std::size_t>(disp_unit),
                                flavor == MPI_WIN_FLAVOR_DYNAMIC, allocate},
            segments[static_cast<std::size_t>(dup->rank)]);
    } catch (const Error& error) {
        // The other members would wait for this one forever: end the job.
        log::error("{}: {}", call.function(), error.what());
        abort_job(1, "a window could not be created");
    }
    w->base = w->window->base();
    const rma::PeerWindow mine = w->window->describe();
    std::vector<rma::PeerWindow> all(static_cast<std::size_t>(dup->size()));
    if (int rc = coll::allgather(collective_context(*dup), &mine, sizeof mine,
                                 coll::regular_blocks(all.data(), dup->size(), sizeof mine))) {
        runtime.communicators.remove(own);
        return call.fail(rc, "exchanging the window descriptions failed");
    }
    w->window->connect(std::move(all), segments);
    apply_hints(*w, hints);
    // Every member has mapped the segments of its node: their names can go.
    if (int rc = coll::barrier(collective_context(*dup)))
        return call.fail(rc, "the barrier of the window's members failed");
    w->window->unlink_segment();
    *win = add_window(std::move(w));
    dup->window = *win;
    return MPI_SUCCESS;
}

}  // namespace

int find_window(Call& call, MPI_Win handle, Win*& out) {
    if (handle == MPI_WIN_NULL) return call.fail(MPI_ERR_WIN, "win is MPI_WIN_NULL");
    if (!is_kind(handle, HandleKind::window))
        return call.fail(MPI_ERR_WIN, "win argument {:#x} is {}", handle, kind_name(handle));
    {
        std::lock_guard lock(g_mutex);
        const auto index = static_cast<std::size_t>(handle_index(handle));
        out = index < g_windows.size() ? g_windows[index].get() : nullptr;
    }
    if (out == nullptr)
        return call.fail(MPI_ERR_WIN, "window {:#x} does not exist (freed?)", handle);
    call.set_error_comm(out->comm);
    return MPI_SUCCESS;
}

void forget_windows() {
    std::lock_guard lock(g_mutex);
    int left = 0;
    for (auto& w : g_windows) {
        if (w == nullptr) continue;
        // Its activity runs in the engine and its memory is registered: it
        // cannot be taken apart without its peers. Left to the process's end.
        (void)w->window.release();
        ++left;
    }
    if (left > 0) log::warn("MPI_Finalize: {} window(s) were not freed with MPI_Win_free", left);
    g_windows.resize(1);
}

}  // namespace si::api

using namespace si::api;
namespace p2p = si::p2p;
namespace coll = si::coll;
namespace rma = si::rma;
using si::Error;
using si::SharedSegment;

extern "C" {

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win* win) {
    Call call("MPI_Win_create");
    if (int rc = call.initialized()) return rc;
    return create_window(call, base, size, disp_unit, info, comm, MPI_WIN_FLAVOR_CREATE, win);
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                      MPI_Win* win) {
    Call call("MPI_Win_allocate");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(baseptr, "baseptr")) return rc;
    if (int rc =
            create_window(call, nullptr, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE, win))
        return rc;
    Win* w = nullptr;
    (void)find_window(call, *win, w);
    void* base = w->base;
    std::memcpy(baseptr, &base, sizeof base);
    return MPI_SUCCESS;
}

// One segment for the node, made by the communicator's first rank, in which
// each member's part follows the previous member's (contiguous, as the
// standard's default is); every member maps all of it.
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void* baseptr, MPI_Win* win) {
    Call call("MPI_Win_allocate_shared");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.intracommunicator(comm, c)) return rc;
    if (int rc = call.not_null(baseptr, "baseptr")) return rc;
    if (size < 0) return call.fail(MPI_ERR_SIZE, "size is {}; it must be 0 or more", size);
    if (disp_unit <= 0)
        return call.fail(MPI_ERR_DISP, "disp_unit is {}; it must be positive", disp_unit);
    Runtime& runtime = *Runtime::get();
    const std::vector<int>& node_of = runtime.locality.node_of;
    for (int world : c->world_of)
        if (node_of[static_cast<std::size_t>(world)] !=
            node_of[static_cast<std::size_t>(c->world_of[0])])
            return call.fail(MPI_ERR_RMA_SHARED,
                             "the communicator spans several nodes; use one from "
                             "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");

    struct Part {
        MPI_Aint size;
        int disp_unit;
    };
    const Part mine{size, disp_unit};
    std::vector<Part> parts(static_cast<std::size_t>(c->size()));
    if (int rc = coll::allgather(collective_context(*c), &mine, sizeof mine,
                                 coll::regular_blocks(parts.data(), c->size(), sizeof mine)))
        return call.fail(rc, "exchanging the sizes failed");
    std::vector<MPI_Aint> offsets(parts.size());
    MPI_Aint total = 0;
    for (std::size_t r = 0; r < parts.size(); ++r) {
        offsets[r] = total;
        total += parts[r].size;
    }
    // Every member counts the calls on a communicator alike: the count names
    // the segment while it has a name (until the barrier below).
    static std::mutex calls_mutex;
    static std::map<std::uint16_t, unsigned> calls;
    unsigned call_number;
    {
        std::lock_guard lock(calls_mutex);
        call_number = calls[c->pair]++;
    }
    const std::string name =
        SharedSegment::name_for(runtime.bootstrap->job_id(),
                                fmt::format("ws{}-{}-{}", c->pair, c->world_of[0], call_number));
    SharedSegment shared;
    try {
        if (c->rank == 0)
            shared = SharedSegment::create(name, static_cast<std::size_t>(total) + 64);
        if (int rc = coll::barrier(collective_context(*c)))
            return call.fail(rc, "the barrier of the members failed");
        if (c->rank != 0) shared = SharedSegment::open(name);
    } catch (const Error& error) {
        si::log::error("MPI_Win_allocate_shared: {}", error.what());
        abort_job(1, "a shared window could not be created");
    }
    auto* memory = static_cast<std::byte*>(shared.data());
    void* base = memory + offsets[static_cast<std::size_t>(c->rank)];
    if (int rc = create_window(call, size > 0 ? base : nullptr, size, disp_unit, info, comm,
                               MPI_WIN_FLAVOR_SHARED, win))
        return rc;
    // create_window ended with a barrier: every member has mapped the segment.
    shared.unlink();
    Win* w = nullptr;
    (void)find_window(call, *win, w);
    std::vector<std::byte*> bases;
    for (std::size_t r = 0; r < parts.size(); ++r) {
        bases.push_back(memory + offsets[r]);
        w->shared_offsets.push_back(offsets[r]);
        w->shared_sizes.push_back(parts[r].size);
        w->shared_units.push_back(parts[r].disp_unit);
    }
    {
        p2p::ProgressGuard guard(runtime.engine->lock());
        w->window->map_memory(std::move(bases));
    }
    w->shared = std::move(shared);
    std::memcpy(baseptr, &base, sizeof base);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
    Call call("MPI_Win_shared_query");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(size, "size")) return rc;
    if (int rc = call.not_null(disp_unit, "disp_unit")) return rc;
    if (int rc = call.not_null(baseptr, "baseptr")) return rc;
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return call.fail(MPI_ERR_RMA_FLAVOR, "the window was not made by MPI_Win_allocate_shared");
    const int members = static_cast<int>(w->shared_sizes.size());
    if (rank == MPI_PROC_NULL) {
        // The first member with memory, as the standard asks.
        rank = 0;
        while (rank + 1 < members && w->shared_sizes[static_cast<std::size_t>(rank)] == 0) ++rank;
    } else if (rank < 0 || rank >= members) {
        return call.fail(MPI_ERR_RANK,
                         "invalid rank {}: the window has {} ranks (valid: 0..{} or "
                         "MPI_PROC_NULL)",
                         rank, members, members - 1);
    }
    const auto r = static_cast<std::size_t>(rank);
    // A member without memory has no base: NULL, as in MPICH (its
    // rma/win_shared_noncontig_put checks it).
    void* base = w->shared_sizes[r] == 0
                     ? nullptr
                     : static_cast<std::byte*>(w->shared.data()) + w->shared_offsets[r];
    *size = w->shared_sizes[r];
    *disp_unit = w->shared_units[r];
    std::memcpy(baseptr, &base, sizeof base);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
    Call call("MPI_Win_create_dynamic");
    if (int rc = call.initialized()) return rc;
    return create_window(call, nullptr, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC, win);
}

// Attached memory needs nothing more on shared memory, where peers reach
// any address; over verbs a dynamic window's transfers go through the
// target's CPU (rma/window.hpp), so nothing is registered either. The list
// only checks MPI_Win_detach.
#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
    Call call("MPI_Win_attach");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return call.fail(MPI_ERR_RMA_FLAVOR,
                         "the window was not made by MPI_Win_create_dynamic; only such windows "
                         "take attached memory");
    if (size < 0) return call.fail(MPI_ERR_SIZE, "size is {}; it must be 0 or more", size);
    if (size > 0 && base == nullptr)
        return call.fail(MPI_ERR_BASE, "base is NULL for {} bytes", size);
    std::lock_guard lock(g_mutex);
    w->attached.push_back(base);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void* base) {
    Call call("MPI_Win_detach");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    std::lock_guard lock(g_mutex);
    const auto at = std::find(w->attached.begin(), w->attached.end(), base);
    if (at == w->attached.end())
        return call.fail(MPI_ERR_RMA_ATTACH, "base {} was not attached to the window", base);
    w->attached.erase(at);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win* win) {
    Call call("MPI_Win_free");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(win, "win")) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, *win, w)) return rc;
    Runtime& runtime = *Runtime::get();
    p2p::Engine& engine = *runtime.engine;
    {
        p2p::ProgressGuard guard(engine.lock());
        if (w->window->passive_open() || w->window->exposure_open() ||
            w->window->pscw_access_open())
            return call.fail(MPI_ERR_RMA_SYNC,
                             "an epoch of the window is still open (unlock, complete or wait "
                             "first; a fence epoch is closed by MPI_Win_fence)");
    }
    // Every epoch this process closed must complete before the barrier, and
    // nobody touches the window after it.
    struct Idle final : p2p::Activity {
        rma::Window& window;
        explicit Idle(rma::Window& w) : window(w) {}
        bool advance(p2p::Engine&) override { return window.idle_locked(); }
        int result() const override { return 0; }
        bool polls_memory() const override { return true; }
    } idle(*w->window);
    p2p::Request* done = engine.start(idle);
    engine.wait(done);
    engine.release(done);
    if (int rc = delete_attributes(call, AttributeHost::window, *win)) return rc;
    Communicator* own = runtime.communicators.find(w->comm);
    if (int rc = coll::barrier(collective_context(*own)))
        return call.fail(rc, "the barrier of the window's members failed");
    w->window->disconnect();
    std::unique_ptr<Win> gone = take_window(*win);
    gone->window.reset();
    runtime.communicators.remove(gone->comm);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
    Call call("MPI_Win_get_group");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(group, "group")) return rc;
    Communicator* own = Runtime::get()->communicators.find(w->comm);
    return make_group(call, own->world_of, group);
}

// The reordering flags are the hints a window uses, and those it reports.
#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
    Call call("MPI_Win_set_info");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    InfoPairs hints;
    if (int rc = read_hints(call, info, hints)) return rc;
    apply_hints(*w, hints);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
    Call call("MPI_Win_get_info");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(info_used, "info_used")) return rc;
    return new_info(call, hints_in_use(*w), info_used);
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int keyval, void* attribute_val, int* flag) {
    Call call("MPI_Win_get_attr");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(attribute_val, "attribute_val")) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    // The value is a pointer to the attribute, except MPI_WIN_BASE, whose
    // value is the base itself.
    void* value = nullptr;
    switch (keyval) {
        case MPI_WIN_BASE:
            value = w->base;
            break;
        case MPI_WIN_SIZE:
            value = &w->size;
            break;
        case MPI_WIN_DISP_UNIT:
            value = &w->disp_unit;
            break;
        case MPI_WIN_CREATE_FLAVOR:
            value = &w->flavor;
            break;
        case MPI_WIN_MODEL:
            value = &w->model;
            break;
        default:
            return get_window_attribute(call.function(), win, keyval, attribute_val, flag);
    }
    *flag = 1;
    std::memcpy(attribute_val, &value, sizeof value);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
    Call call("MPI_Win_set_name");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(win_name, "win_name")) return rc;
    w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
    Call call("MPI_Win_get_name");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(win_name, "win_name")) return rc;
    if (int rc = call.not_null(resultlen, "resultlen")) return rc;
    std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
    *resultlen = static_cast<int>(w->name.size());
    return MPI_SUCCESS;
}

}  // extern "C"
