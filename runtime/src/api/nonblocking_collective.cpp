// Nonblocking collectives that move data (the reductions are in
// reduction.cpp): the blocking calls' argument checks, then the
// collective layer's schedule for the algorithm, started on the progress
// engine (coll/schedule.hpp). Each gets a tag range of its own
// (coll::nonblocking_tag_base), so that several may be in flight on one
// communicator, beside its blocking collectives. Data of a non-contiguous
// datatype travels packed (Outgoing, Incoming) in buffers the schedule keeps,
// and its last step unpacks what arrived. Intercommunicators are refused for
// now.
#include <memory>
#include <vector>

#include "api/collective_args.hpp"
#include "api/nonblocking.hpp"
#include "api/packing.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"
#include "coll/schedule.hpp"

namespace si::api {

int start_nonblocking(Call& call, MPI_Comm comm, MPI_Request* request, Communicator*& c) {
    if (int rc = call.not_null(request, "request")) return rc;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return call.fail(MPI_ERR_COMM,
                         "comm is an intercommunicator: this runtime's nonblocking collectives "
                         "run on intracommunicators only so far");
    return MPI_SUCCESS;
}

std::unique_ptr<coll::Schedule> new_schedule(Communicator& c, coll::Tag tag) {
    coll::Context ctx = collective_context(c);
    ctx.tag_base = coll::nonblocking_tag_base(c.nonblocking_collectives++);
    return std::make_unique<coll::Schedule>(ctx, tag);
}

void finish_with_unpack(coll::Schedule& schedule, std::shared_ptr<const Incoming> room,
                        std::shared_ptr<const Outgoing> message) {
    if (room) {
        schedule.next_round();
        schedule.local([room] { room->unpack(room->capacity()); });
        schedule.keep(std::move(room));
    }
    if (message) schedule.keep(std::move(message));
}

int hand_over(std::unique_ptr<coll::Schedule> schedule, const Communicator& c,
              MPI_Request* request) {
    p2p::Request* started = coll::Schedule::start(std::move(schedule));
    started->owner = c.handle;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

}  // namespace si::api

namespace {

using namespace si::api;
namespace coll = si::coll;

// MPI_Igather and MPI_Iscatter: the blocking calls' checks and packing
// (prepare_gather, prepare_scatter), then the schedule `add` builds on them.
struct RootedArguments {
    const void* sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void* recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int root;
};
using PrepareRooted = int (*)(Call&, const Communicator&, const void*, int, MPI_Datatype, void*,
                              int, MPI_Datatype, int, RootedBlocks&);

template <typename Add>
int start_rooted(Call& call, PrepareRooted prepare, coll::Tag tag, const RootedArguments& a,
                 MPI_Comm comm, MPI_Request* request, Add add) {
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    RootedBlocks g;
    if (int rc = prepare(call, *c, a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount,
                         a.recvtype, a.root, g))
        return rc;
    auto schedule = new_schedule(*c, tag);
    add(*schedule, g);
    finish_with_unpack(*schedule, std::move(g.room), std::move(g.message));
    return hand_over(std::move(schedule), *c, request);
}

}  // namespace

extern "C" {

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Ibarrier");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    auto schedule = new_schedule(*c, coll::Tag::barrier);
    coll::add_barrier(*schedule);
    return hand_over(std::move(schedule), *c, request);
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request* request) {
    Call call("MPI_Ibcast");
    Communicator* c = nullptr;
    const si::datatype::Type* type = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
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

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
    Call call("MPI_Igather");
    const RootedArguments args{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root};
    return start_rooted(call, prepare_gather, coll::Tag::gather, args, comm, request,
                        [root](coll::Schedule& s, const RootedBlocks& g) {
                            coll::add_gather(s, g.gather_send(), g.message->bytes(), g.blocks,
                                             root);
                        });
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
    Call call("MPI_Iscatter");
    const RootedArguments args{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root};
    return start_rooted(call, prepare_scatter, coll::Tag::scatter, args, comm, request,
                        [root](coll::Schedule& s, const RootedBlocks& g) {
                            coll::add_scatter(s, g.blocks, g.scatter_receive(),
                                              g.room ? g.room->capacity() : 0, root);
                        });
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Iallgather");
    Communicator* c = nullptr;
    const si::datatype::Type* stype = nullptr;
    const si::datatype::Type* rtype = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf, recvcount,
                                    recvtype, rtype))
        return rc;
    const bool skip_send = in_place(sendbuf);
    auto message = std::make_shared<const Outgoing>(
        skip_send ? nullptr : sendbuf, skip_send ? 0 : items(sendcount), skip_send ? *rtype : *stype);
    auto room = std::make_shared<const Incoming>(recvbuf, items(recvcount) * items(c->size()),
                                                 *rtype, skip_send);
    auto schedule = new_schedule(*c, coll::Tag::allgather);
    coll::add_allgather(
        *schedule, skip_send ? MPI_IN_PLACE : message->data(), message->bytes(),
        coll::regular_blocks(room->data(), c->size(), rtype->bytes(items(recvcount))));
    finish_with_unpack(*schedule, std::move(room), std::move(message));
    return hand_over(std::move(schedule), *c, request);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Ialltoall");
    Communicator* c = nullptr;
    const si::datatype::Type* stype = nullptr;
    const si::datatype::Type* rtype = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (int rc = exchange_arguments(call, sendbuf, sendcount, sendtype, stype, recvbuf, recvcount,
                                    recvtype, rtype))
        return rc;
    const bool skip_send = in_place(sendbuf);
    const int n = c->size();
    auto message = std::make_shared<const Outgoing>(skip_send ? nullptr : sendbuf,
                                                    skip_send ? 0 : items(sendcount) * items(n),
                                                    skip_send ? *rtype : *stype);
    auto room =
        std::make_shared<const Incoming>(recvbuf, items(recvcount) * items(n), *rtype, skip_send);
    std::vector<coll::Block> send_blocks;
    if (!skip_send)
        send_blocks = coll::regular_blocks(message->data(), n, stype->bytes(items(sendcount)));
    auto schedule = new_schedule(*c, coll::Tag::alltoall);
    coll::add_alltoall(*schedule, send_blocks,
                       coll::regular_blocks(room->data(), n, rtype->bytes(items(recvcount))));
    finish_with_unpack(*schedule, std::move(room), std::move(message));
    return hand_over(std::move(schedule), *c, request);
}

}  // extern "C"
