// Collective entry points for barrier and broadcast, blocking and
// nonblocking (nonblocking.hpp): argument checks, then the collective layer,
// whose errors are reported with its description. The reductions are in
// reduction.cpp, the collectives that move one block per rank in
// collective_blocks.cpp. On an intercommunicator a barrier runs the layer's
// intercommunicator algorithm (run_collective, or add_inter_barrier for
// MPI_Ibarrier); a broadcast's root means something else there
// (intercomm_collective.cpp).
#include <memory>

#include "api/collective_args.hpp"
#include "api/nonblocking.hpp"
#include "api/runtime.hpp"
#include "coll/schedule.hpp"

using namespace si::api;
namespace coll = si::coll;
using si::datatype::Type;

extern "C" {

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm) {
    Call call("MPI_Barrier");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    std::string detail;
    const int rc = run_collective(*c, detail, [](const auto& ctx) { return coll::barrier(ctx); });
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Ibarrier");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    auto schedule = new_schedule(*c, coll::Tag::barrier);
    if (c->inter())
        coll::add_inter_barrier(*schedule);
    else
        coll::add_barrier(*schedule);
    return hand_over(std::move(schedule), *c, request);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    Call call("MPI_Bcast");
    Communicator* c = nullptr;
    const Type* type = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter()) return inter_bcast(call, *c, buffer, count, datatype, root, nullptr);
    if (int rc = call.message(buffer, count, datatype, type, "buffer")) return rc;
    if (int rc = call.root(*c, root)) return rc;
    if (int rc = refuse_in_place(call, buffer, "buffer", "in no broadcast")) return rc;
    const bool is_root = c->rank == root;
    Incoming room(buffer, items(count), *type, is_root);
    std::string detail;
    const int rc =
        coll::bcast(blocking_collective_context(*c, &detail), room.data(), room.capacity(), root);
    if (!is_root) room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request* request) {
    Call call("MPI_Ibcast");
    Communicator* c = nullptr;
    const si::datatype::Type* type = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (c->inter()) return inter_bcast(call, *c, buffer, count, datatype, root, request);
    if (int rc = call.message(buffer, count, datatype, type, "buffer")) return rc;
    if (int rc = call.root(*c, root)) return rc;
    if (int rc = refuse_in_place(call, buffer, "buffer", "in no broadcast")) return rc;
    const bool is_root = c->rank == root;
    auto room = std::make_shared<const Incoming>(buffer, items(count), *type, is_root);
    auto schedule = new_schedule(*c, coll::Tag::bcast);
    coll::add_bcast(*schedule, room->data(), room->capacity(), root);
    if (is_root)
        schedule->keep(std::move(room));
    else
        finish_with_unpack(*schedule, std::move(room));
    return hand_over(std::move(schedule), *c, request);
}

}  // extern "C"
