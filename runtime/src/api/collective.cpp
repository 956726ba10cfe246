// Collective entry points for barrier and broadcast: argument checks, then
// the collective layer, whose errors are reported with its description. The
// reductions are in reduction.cpp, the collectives that move one block per
// rank in collective_blocks.cpp, the nonblocking forms in
// nonblocking_collective.cpp. On an intercommunicator a barrier runs the
// layer's intercommunicator algorithm (run_collective); a broadcast's root
// means something else there (intercomm_collective.cpp).
#include <climits>
#include <optional>
#include <span>

#include "api/collective_args.hpp"
#include "api/runtime.hpp"
#include "datatype/op.hpp"

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

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    Call call("MPI_Bcast");
    Communicator* c = nullptr;
    const Type* type = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter()) return inter_bcast(call, *c, buffer, count, datatype, root);
    if (int rc = call.message(buffer, count, datatype, type, "buffer")) return rc;
    if (int rc = call.root(*c, root)) return rc;
    if (int rc = refuse_in_place(call, buffer, "buffer", "in no broadcast")) return rc;
    const bool is_root = c->rank == root;
    Incoming room(buffer, items(count), *type, is_root);
    std::string detail;
    const int rc =
        coll::bcast(collective_context(*c, &detail), room.data(), room.capacity(), root);
    if (!is_root) room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

}  // extern "C"
