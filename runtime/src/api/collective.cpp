// Collective entry points for barrier, broadcast and the reductions:
// argument checks (MPI_IN_PLACE only where the standard allows it, root-only
// arguments checked at the root only), then the collective layer, whose
// errors are reported with its description. The collectives that move one
// block per rank are in collective_blocks.cpp. On an intercommunicator the
// same code runs the layer's intercommunicator algorithms (run_collective),
// where MPI_IN_PLACE is refused, except for the rooted calls, whose roots
// mean something else there (intercomm_collective.cpp).
#include <climits>
#include <optional>
#include <span>

#include "api/collective_args.hpp"
#include "api/runtime.hpp"
#include "datatype/op.hpp"

namespace {

using namespace si::api;

// The packed send data, or MPI_IN_PLACE passed through.
const void* data_or_in_place(const Outgoing& message, const void* sendbuf) {
    return in_place(sendbuf) ? MPI_IN_PLACE : message.data();
}

// MPI_Scan and MPI_Exscan.
int prefix_reduction(const char* function, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool exclusive) {
    Call call(function);
    Communicator* c = nullptr;
    const si::datatype::Type* type = nullptr;
    const si::datatype::Op* reduction = nullptr;
    if (int rc = start_intra_collective(call, comm, c)) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, type, reduction))
        return rc;
    if (int rc = call.buffer(recvbuf, count, "recvbuf")) return rc;
    if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    const Outgoing message(in_place(sendbuf) ? nullptr : sendbuf,
                           in_place(sendbuf) ? 0 : items(count), *type);
    // An exclusive scan leaves rank 0's recvbuf as it was.
    Incoming room(recvbuf, items(count), *type, in_place(sendbuf) || exclusive);
    std::string detail;
    const int rc = si::coll::scan(collective_context(*c, &detail),
                                  data_or_in_place(message, sendbuf), room.data(), count, *type,
                                  *reduction, exclusive);
    room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

// MPI_Reduce_scatter and MPI_Reduce_scatter_block once the counts are known.
int reduce_scatter(Call& call, Communicator& c, const void* sendbuf, void* recvbuf,
                   std::span<const int> counts, MPI_Datatype datatype, MPI_Op op) {
    std::size_t total = 0;
    for (const int count : counts) total += items(count);
    if (total > static_cast<std::size_t>(INT_MAX))
        return call.fail(MPI_ERR_COUNT, "the counts add up to {}, more than INT_MAX", total);
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    const si::datatype::Type* type = nullptr;
    const si::datatype::Op* reduction = nullptr;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, static_cast<int>(total), datatype, op,
                                  type, reduction))
        return rc;
    if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    // With MPI_IN_PLACE the input is the whole recvbuf and the result its first block.
    const Outgoing input(in_place(sendbuf) ? recvbuf : sendbuf, total, *type);
    const std::size_t mine = items(counts[items(c.rank)]);
    if (int rc = call.buffer(recvbuf, static_cast<int>(mine), "recvbuf")) return rc;
    Incoming room(recvbuf, mine, *type);
    std::string detail;
    const int rc = run_collective(c, detail, [&](const auto& ctx) {
        return si::coll::reduce_scatter(ctx, input.data(), room.data(), counts, *type, *reduction);
    });
    room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

}  // namespace

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

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
    Call call("MPI_Reduce");
    Communicator* c = nullptr;
    const Type* type = nullptr;
    const si::datatype::Op* reduction = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter()) return inter_reduce(call, *c, sendbuf, recvbuf, count, datatype, op, root);
    if (int rc = call.root(*c, root)) return rc;
    const bool is_root = c->rank == root;
    if (!is_root)
        if (int rc = refuse_in_place(call, sendbuf, "sendbuf", "at the root only")) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, type, reduction))
        return rc;
    if (is_root) {
        if (int rc = call.buffer(recvbuf, count, "recvbuf")) return rc;
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    }
    const Outgoing message(in_place(sendbuf) ? nullptr : sendbuf,
                           in_place(sendbuf) ? 0 : items(count), *type);
    std::optional<Incoming> room;
    if (is_root) room.emplace(recvbuf, items(count), *type, in_place(sendbuf));
    std::string detail;
    const int rc = coll::reduce(collective_context(*c, &detail), data_or_in_place(message, sendbuf),
                                is_root ? room->data() : nullptr, count, *type, *reduction, root);
    if (is_root) room->unpack(room->capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
    Call call("MPI_Allreduce");
    Communicator* c = nullptr;
    const Type* type = nullptr;
    const si::datatype::Op* reduction = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = refuse_in_place_inter(call, *c, sendbuf, "sendbuf")) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, type, reduction))
        return rc;
    if (int rc = call.buffer(recvbuf, count, "recvbuf")) return rc;
    if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    const Outgoing message(in_place(sendbuf) ? nullptr : sendbuf,
                           in_place(sendbuf) ? 0 : items(count), *type);
    Incoming room(recvbuf, items(count), *type, in_place(sendbuf));
    std::string detail;
    const int rc = run_collective(*c, detail, [&](const auto& ctx) {
        return coll::allreduce(ctx, data_or_in_place(message, sendbuf), room.data(), count, *type,
                               *reduction);
    });
    room.unpack(room.capacity());
    return finish_collective(call, rc, detail);
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    Call call("MPI_Reduce_scatter");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = call.not_null(recvcounts, "recvcounts")) return rc;
    const std::span<const int> counts(recvcounts, items(c->size()));
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i] < 0)
            return call.fail(MPI_ERR_COUNT, "recvcounts[{}] is {}; it must be 0 or more", i,
                             counts[i]);
    return reduce_scatter(call, *c, sendbuf, recvbuf, counts, datatype, op);
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    Call call("MPI_Reduce_scatter_block");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = call.count(recvcount, "recvcount")) return rc;
    const std::vector<int> counts(items(c->size()), recvcount);
    return reduce_scatter(call, *c, sendbuf, recvbuf, counts, datatype, op);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm) {
    return prefix_reduction("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
    return prefix_reduction("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true);
}

}  // extern "C"
