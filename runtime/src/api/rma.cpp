// One-sided operations: Put, Get, the accumulates, and their request forms.
// Argument checks live here; the rma layer records the operation in its epoch.
#include <memory>

#include "api/requests.hpp"
#include "api/rma_api.hpp"
#include "api/runtime.hpp"

namespace si::api {

namespace {

using Kind = rma::Window::Request::Kind;

struct Arguments {
    Kind kind;
    const void* origin = nullptr;
    int origin_count = 0;
    MPI_Datatype origin_type = MPI_DATATYPE_NULL;
    void* result = nullptr;
    int result_count = 0;
    MPI_Datatype result_type = MPI_DATATYPE_NULL;
    const void* compare = nullptr;
    int target = 0;
    MPI_Aint target_disp = 0;
    int target_count = 0;
    MPI_Datatype target_type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;  // accumulates
};

// The target datatype must be one basic type (or built from copies of one),
// the origin's the same one: the owner applies the operator element-wise.
int check_accumulate(Call& call, const Arguments& a, const datatype::Type& origin,
                     const datatype::Type& target, rma::Window::Request& out) {
    if (a.op == MPI_NO_OP) {
        out.no_op = true;
        return MPI_SUCCESS;
    }
    if (a.op == MPI_REPLACE) return MPI_SUCCESS;
    if (target.base == MPI_DATATYPE_NULL)
        return call.fail(MPI_ERR_TYPE, "target_datatype {} mixes basic types; accumulates need one",
                         target.name);
    if (origin.base != target.base)
        return call.fail(MPI_ERR_TYPE,
                         "origin_datatype {} and target_datatype {} are built of "
                         "different basic types",
                         origin.name, target.name);
    const datatype::Op* op = nullptr;
    if (int rc = call.reduction(a.op, datatype::predefined(target.base), op)) return rc;
    if (!op->predefined)
        return call.fail(MPI_ERR_OP,
                         "op {} is a user operator; one-sided accumulates take "
                         "predefined operators only",
                         op->name);
    out.op = op;
    return MPI_SUCCESS;
}

int operation(Call& call, const Arguments& a, MPI_Win win, MPI_Request* request) {
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    rma::Window& window = *w->window;
    if (a.target != MPI_PROC_NULL && (a.target < 0 || a.target >= window.size()))
        return call.fail(MPI_ERR_RANK,
                         "invalid target_rank {}: the window has {} ranks (valid: "
                         "0..{} or MPI_PROC_NULL)",
                         a.target, window.size(), window.size() - 1);
    if (a.target_disp < 0)
        return call.fail(MPI_ERR_DISP, "target_disp is {}; it must be 0 or more", a.target_disp);

    rma::Window::Request r;
    r.kind = a.kind;
    r.target = a.target;
    const datatype::Type* origin = nullptr;
    const datatype::Type* target = nullptr;
    const bool reads_origin = a.kind != Kind::get && a.op != MPI_NO_OP;
    if (reads_origin) {
        if (int rc = call.message(a.origin, a.origin_count, a.origin_type, origin, "origin_addr",
                                  "origin_count", "origin_datatype"))
            return rc;
        r.origin = a.origin;
        r.origin_count = static_cast<std::size_t>(a.origin_count);
        r.origin_type = origin;
    }
    if (a.kind != Kind::put && a.kind != Kind::accumulate) {
        const bool get = a.kind == Kind::get;
        if (int rc = call.message(a.result, a.result_count, a.result_type, r.result_type,
                                  get ? "origin_addr" : "result_addr",
                                  get ? "origin_count" : "result_count",
                                  get ? "origin_datatype" : "result_datatype"))
            return rc;
        r.result = a.result;
        r.result_count = static_cast<std::size_t>(a.result_count);
    }
    if (int rc = call.count(a.target_count, "target_count")) return rc;
    if (int rc = call.datatype(a.target_type, target, "target_datatype")) return rc;
    r.target_count = static_cast<std::size_t>(a.target_count);
    r.target_type = target;
    r.target_disp = static_cast<std::uint64_t>(a.target_disp);
    r.compare = a.compare;
    const std::size_t target_bytes = target->bytes(r.target_count);
    if (reads_origin && origin->bytes(r.origin_count) != target_bytes)
        return call.fail(MPI_ERR_TYPE,
                         "the origin describes {} bytes ({} x {}), the target {} "
                         "({} x {}); they must match",
                         origin->bytes(r.origin_count), a.origin_count, origin->name, target_bytes,
                         a.target_count, target->name);
    if (r.result_type != nullptr && r.result_type->bytes(r.result_count) != target_bytes)
        return call.fail(MPI_ERR_TYPE,
                         "the result buffer describes {} bytes, the target {}; "
                         "they must match",
                         r.result_type->bytes(r.result_count), target_bytes);
    // Nothing moves when the target's part is empty: then any types go, as in
    // MPICH (its rma/badrma), and nothing is issued.
    const bool empty = target_bytes == 0;
    if (!empty && (a.kind == Kind::accumulate || a.kind == Kind::get_accumulate))
        if (int rc = check_accumulate(call, a, origin ? *origin : *target, *target, r)) return rc;

    p2p::Engine& engine = window.engine();
    std::shared_ptr<rma::Operation> op;
    if (a.target != MPI_PROC_NULL) {
        p2p::ProgressGuard guard(engine.lock());
        if (!window.access_open_to(a.target))
            return call.fail(MPI_ERR_RMA_SYNC,
                             "no access epoch towards target {} is open (call MPI_Win_fence, "
                             "MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first)",
                             a.target);
        if (request != nullptr && !window.passive_open())
            return call.fail(MPI_ERR_RMA_SYNC,
                             "request-based operations need a passive-target "
                             "epoch (MPI_Win_lock or MPI_Win_lock_all)");
        if (!empty) {
            const rma::PeerWindow& peer = window.peer(a.target);
            // The items run down from the first when the extent is negative.
            const auto last = static_cast<std::int64_t>(r.target_count - 1) * target->extent;
            const std::int64_t first = static_cast<std::int64_t>(r.target_disp * peer.disp_unit) +
                                       target->true_lb + std::min<std::int64_t>(0, last);
            const std::int64_t end = static_cast<std::int64_t>(r.target_disp * peer.disp_unit) +
                                     target->true_lb + std::max<std::int64_t>(0, last) +
                                     static_cast<std::int64_t>(target->true_extent);
            // (A dynamic window's size is the largest uint64: any address.)
            if (first < 0 || static_cast<std::uint64_t>(end) > peer.size)
                return call.fail(MPI_ERR_RMA_RANGE,
                                 "bytes {}..{} of target {}'s window are asked for; it has {}",
                                 first, end, a.target, peer.size);
            if (!window.copy_at_once_locked(r)) op = window.issue_locked(r);
        }
    }
    if (request != nullptr)
        *request = handle_of(start_rma_request(
            engine, w->comm, op ? std::make_unique<rma::OperationCompletion>(op) : nullptr));
    return MPI_SUCCESS;
}

}  // namespace

p2p::Request* start_rma_request(p2p::Engine& engine, MPI_Comm owner,
                                std::unique_ptr<p2p::Activity> activity) {
    struct Done final : p2p::Activity {
        bool advance(p2p::Engine&) override { return true; }
        int result() const override { return 0; }
    };
    if (activity == nullptr) activity = std::make_unique<Done>();
    p2p::Request* request = engine.start(std::move(activity));
    request->owner = owner;
    return request;
}

}  // namespace si::api

using namespace si::api;
namespace datatype = si::datatype;

extern "C" {

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win) {
    Call call("MPI_Put");
    return operation(
        call,
        {Kind::put, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
         nullptr, target_rank, target_disp, target_count, target_datatype},
        win, nullptr);
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    Call call("MPI_Get");
    return operation(
        call,
        {Kind::get, nullptr, 0, MPI_DATATYPE_NULL, origin_addr, origin_count, origin_datatype,
         nullptr, target_rank, target_disp, target_count, target_datatype},
        win, nullptr);
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request* request) {
    Call call("MPI_Rput");
    if (int rc = call.not_null(request, "request")) return rc;
    return operation(
        call,
        {Kind::put, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
         nullptr, target_rank, target_disp, target_count, target_datatype},
        win, request);
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
    Call call("MPI_Rget");
    if (int rc = call.not_null(request, "request")) return rc;
    return operation(
        call,
        {Kind::get, nullptr, 0, MPI_DATATYPE_NULL, origin_addr, origin_count, origin_datatype,
         nullptr, target_rank, target_disp, target_count, target_datatype},
        win, request);
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    Call call("MPI_Accumulate");
    if (op == MPI_NO_OP) return MPI_SUCCESS;  // changes nothing, and needs no message
    return operation(
        call,
        {Kind::accumulate, origin_addr, origin_count, origin_datatype, nullptr, 0,
         MPI_DATATYPE_NULL, nullptr, target_rank, target_disp, target_count, target_datatype, op},
        win, nullptr);
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
    Call call("MPI_Raccumulate");
    if (int rc = call.not_null(request, "request")) return rc;
    return operation(
        call,
        {Kind::accumulate, origin_addr, origin_count, origin_datatype, nullptr, 0,
         MPI_DATATYPE_NULL, nullptr, target_rank, target_disp, target_count, target_datatype, op},
        win, request);
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    Call call("MPI_Get_accumulate");
    return operation(call,
                     {Kind::get_accumulate, origin_addr, origin_count, origin_datatype, result_addr,
                      result_count, result_datatype, nullptr, target_rank, target_disp,
                      target_count, target_datatype, op},
                     win, nullptr);
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void* result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request* request) {
    Call call("MPI_Rget_accumulate");
    if (int rc = call.not_null(request, "request")) return rc;
    return operation(call,
                     {Kind::get_accumulate, origin_addr, origin_count, origin_datatype, result_addr,
                      result_count, result_datatype, nullptr, target_rank, target_disp,
                      target_count, target_datatype, op},
                     win, request);
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
    Call call("MPI_Fetch_and_op");
    return operation(call,
                     {Kind::get_accumulate, origin_addr, 1, datatype, result_addr, 1, datatype,
                      nullptr, target_rank, target_disp, 1, datatype, op},
                     win, nullptr);
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win) {
    Call call("MPI_Compare_and_swap");
    if (int rc = call.not_null(compare_addr, "compare_addr")) return rc;
    const datatype::Type* type = datatype::lookup(datatype);
    if (type != nullptr && !type->predefined)
        return call.fail(MPI_ERR_TYPE,
                         "datatype {} is derived; MPI_Compare_and_swap takes a "
                         "predefined integer, logical or byte type",
                         type->name);
    return operation(call,
                     {Kind::compare_and_swap, origin_addr, 1, datatype, result_addr, 1, datatype,
                      compare_addr, target_rank, target_disp, 1, datatype},
                     win, nullptr);
}

}  // extern "C"
