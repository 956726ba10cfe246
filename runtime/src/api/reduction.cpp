// The reductions' entry points, blocking and nonblocking side by side:
// MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter(_block), MPI_Scan,
// MPI_Exscan and their MPI_I* forms. Both check their arguments and pack them
// the same way (prepare_*), then either run the collective layer's schedule
// or start it (nonblocking.hpp). On an intercommunicator they run the
// layer's intercommunicator algorithms (run_collective, add_inter_*), where
// MPI_IN_PLACE is refused, except MPI_Reduce and MPI_Ireduce, whose root
// means something else there (intercomm_collective.cpp); MPI defines no
// prefix reduction there.
#include <climits>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "api/collective_args.hpp"
#include "api/nonblocking.hpp"
#include "api/runtime.hpp"
#include "coll/schedule.hpp"
#include "datatype/op.hpp"

namespace {

using namespace si::api;
namespace coll = si::coll;
using si::datatype::Type;

// The checked and packed arguments of one rank's part in a reduction. A
// blocking call keeps its buffers here, on its stack; a nonblocking one
// (`shared`) shares them with its schedule, which may outlive the call.
struct Reduction {
    explicit Reduction(bool nonblocking) : shared(nonblocking) {}
    const Outgoing* message = nullptr;  // the input, unless MPI_IN_PLACE
    const Incoming* room = nullptr;     // the result (none off the root of a reduce)
    const Type* type = nullptr;
    const si::datatype::Op* op = nullptr;
    bool in_place = false;
    const bool shared;
    std::shared_ptr<const Outgoing> shared_message;
    std::shared_ptr<const Incoming> shared_room;

    const void* send() const { return in_place ? MPI_IN_PLACE : message->data(); }
    void* recv() const { return room ? room->data() : nullptr; }
    void unpack() const {
        if (room) room->unpack(room->capacity());
    }
    template <typename... Args>
    void make_message(Args&&... args) {
        if (shared) {
            shared_message = std::make_shared<const Outgoing>(std::forward<Args>(args)...);
            message = shared_message.get();
        } else {
            message = &own_message.emplace(std::forward<Args>(args)...);
        }
    }
    template <typename... Args>
    void make_room(Args&&... args) {
        if (shared) {
            shared_room = std::make_shared<const Incoming>(std::forward<Args>(args)...);
            room = shared_room.get();
        } else {
            room = &own_room.emplace(std::forward<Args>(args)...);
        }
    }

  private:
    std::optional<Outgoing> own_message;
    std::optional<Incoming> own_room;
};

// The input, packed, or MPI_IN_PLACE.
void pack_input(const void* sendbuf, int count, Reduction& out) {
    out.in_place = in_place(sendbuf);
    out.make_message(out.in_place ? nullptr : sendbuf, out.in_place ? 0 : items(count), *out.type);
}

int prepare_reduce(Call& call, const Communicator& c, const void* sendbuf, void* recvbuf,
                   int count, MPI_Datatype datatype, MPI_Op op, int root, Reduction& out) {
    if (int rc = call.root(c, root)) return rc;
    const bool is_root = c.rank == root;
    if (!is_root)
        if (int rc = refuse_in_place(call, sendbuf, "sendbuf", "at the root only")) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, out.type, out.op))
        return rc;
    if (is_root) {
        if (int rc = call.buffer(recvbuf, count, "recvbuf")) return rc;
        if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    }
    pack_input(sendbuf, count, out);
    if (is_root)
        out.make_room(recvbuf, items(count), *out.type, out.in_place);
    return MPI_SUCCESS;
}

// MPI_Allreduce, MPI_Scan and MPI_Exscan: every rank has a result, and an
// exclusive scan leaves rank 0's recvbuf as it was.
int prepare_everywhere(Call& call, const Communicator& c, const void* sendbuf, void* recvbuf,
                       int count, MPI_Datatype datatype, MPI_Op op, bool exclusive,
                       Reduction& out) {
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, count, datatype, op, out.type, out.op))
        return rc;
    if (int rc = call.buffer(recvbuf, count, "recvbuf")) return rc;
    if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    pack_input(sendbuf, count, out);
    out.make_room(recvbuf, items(count), *out.type, out.in_place || exclusive);
    return MPI_SUCCESS;
}

// MPI_Reduce_scatter(_block) once the counts are known. The collective layer
// gets the whole input, never MPI_IN_PLACE: with it, the input is all of
// recvbuf and the result its first block.
int prepare_reduce_scatter(Call& call, const Communicator& c, const void* sendbuf, void* recvbuf,
                           std::span<const int> counts, MPI_Datatype datatype, MPI_Op op,
                           Reduction& out) {
    std::size_t total = 0;
    for (const int count : counts) total += items(count);
    if (total > static_cast<std::size_t>(INT_MAX))
        return call.fail(MPI_ERR_COUNT, "the counts add up to {}, more than INT_MAX", total);
    if (int rc = refuse_in_place_inter(call, c, sendbuf, "sendbuf")) return rc;
    if (int rc = reduce_arguments(call, sendbuf, recvbuf, static_cast<int>(total), datatype, op,
                                  out.type, out.op))
        return rc;
    if (int rc = refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only")) return rc;
    const std::size_t mine = items(counts[items(c.rank)]);
    if (int rc = call.buffer(recvbuf, static_cast<int>(mine), "recvbuf")) return rc;
    out.make_message(in_place(sendbuf) ? recvbuf : sendbuf, total, *out.type);
    out.make_room(recvbuf, mine, *out.type);
    return MPI_SUCCESS;
}

// recvcounts of MPI_Reduce_scatter, checked.
int check_counts(Call& call, const Communicator& c, const int* recvcounts,
                 std::span<const int>& counts) {
    if (int rc = call.not_null(recvcounts, "recvcounts")) return rc;
    counts = std::span<const int>(recvcounts, items(c.size()));
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i] < 0)
            return call.fail(MPI_ERR_COUNT, "recvcounts[{}] is {}; it must be 0 or more", i,
                             counts[i]);
    return MPI_SUCCESS;
}

std::vector<std::size_t> as_items(std::span<const int> counts) {
    return {counts.begin(), counts.end()};
}

// A blocking reduction's end: the result unpacked, the layer's error reported.
int finish(Call& call, const Reduction& r, int error_class, const std::string& detail) {
    r.unpack();
    return finish_collective(call, error_class, detail);
}

// A nonblocking reduction's schedule, built by `add`, handed over.
template <typename Add>
int start(Communicator& c, coll::Tag tag, Reduction& r, MPI_Request* request, Add add) {
    auto schedule = new_schedule(c, tag);
    add(*schedule);
    finish_with_unpack(*schedule, std::move(r.shared_room), std::move(r.shared_message));
    return hand_over(std::move(schedule), c, request);
}

// MPI_Reduce_scatter(_block) once the counts are known, and with a request
// their nonblocking forms.
int reduce_scatter(Call& call, Communicator& c, const void* sendbuf, void* recvbuf,
                   std::span<const int> counts, MPI_Datatype datatype, MPI_Op op,
                   MPI_Request* request) {
    Reduction r(request != nullptr);
    if (int rc = prepare_reduce_scatter(call, c, sendbuf, recvbuf, counts, datatype, op, r))
        return rc;
    if (request != nullptr)
        return start(c, coll::Tag::reduce_scatter, r, request, [&](coll::Schedule& s) {
            if (c.inter())
                coll::add_inter_reduce_scatter(s, r.message->data(), r.recv(), as_items(counts),
                                               *r.type, *r.op);
            else
                coll::add_reduce_scatter(s, r.message->data(), r.recv(), as_items(counts),
                                         *r.type, *r.op);
        });
    std::string detail;
    const int rc = run_collective(c, detail, [&](const auto& ctx) {
        return coll::reduce_scatter(ctx, r.message->data(), r.recv(), counts, *r.type, *r.op);
    });
    return finish(call, r, rc, detail);
}

// MPI_Scan and MPI_Exscan, and with `nonblocking` MPI_Iscan and MPI_Iexscan.
int prefix_reduction(const char* function, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool exclusive,
                     bool nonblocking, MPI_Request* request) {
    Call call(function);
    Communicator* c = nullptr;
    if (nonblocking)
        if (int rc = call.not_null(request, "request")) return rc;
    if (int rc = start_intra_collective(call, comm, c)) return rc;
    Reduction r(nonblocking);
    if (int rc = prepare_everywhere(call, *c, sendbuf, recvbuf, count, datatype, op, exclusive, r))
        return rc;
    if (nonblocking)
        return start(*c, coll::Tag::scan, r, request, [&](coll::Schedule& s) {
            coll::add_scan(s, r.send(), r.recv(), items(count), *r.type, *r.op, exclusive);
        });
    std::string detail;
    const int rc = coll::scan(collective_context(*c, &detail), r.send(), r.recv(), count, *r.type,
                              *r.op, exclusive);
    return finish(call, r, rc, detail);
}

}  // namespace

extern "C" {

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
    Call call("MPI_Reduce");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (c->inter())
        return inter_reduce(call, *c, sendbuf, recvbuf, count, datatype, op, root, nullptr);
    Reduction r(false);
    if (int rc = prepare_reduce(call, *c, sendbuf, recvbuf, count, datatype, op, root, r))
        return rc;
    std::string detail;
    const int rc = coll::reduce(blocking_collective_context(*c, &detail), r.send(), r.recv(),
                                count, *r.type, *r.op, root);
    return finish(call, r, rc, detail);
}

#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Ireduce");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (c->inter())
        return inter_reduce(call, *c, sendbuf, recvbuf, count, datatype, op, root, request);
    Reduction r(true);
    if (int rc = prepare_reduce(call, *c, sendbuf, recvbuf, count, datatype, op, root, r))
        return rc;
    return start(*c, coll::Tag::reduce, r, request, [&](coll::Schedule& s) {
        coll::add_reduce(s, r.send(), r.recv(), items(count), *r.type, *r.op, root);
    });
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
    Call call("MPI_Allreduce");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    Reduction r(false);
    if (int rc = prepare_everywhere(call, *c, sendbuf, recvbuf, count, datatype, op, false, r))
        return rc;
    std::string detail;
    const int rc = run_collective(*c, detail, [&](const auto& ctx) {
        return coll::allreduce(ctx, r.send(), r.recv(), count, *r.type, *r.op);
    });
    return finish(call, r, rc, detail);
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Iallreduce");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    Reduction r(true);
    if (int rc = prepare_everywhere(call, *c, sendbuf, recvbuf, count, datatype, op, false, r))
        return rc;
    return start(*c, coll::Tag::reduce, r, request, [&](coll::Schedule& s) {
        if (c->inter())
            coll::add_inter_allreduce(s, r.send(), r.recv(), items(count), *r.type, *r.op);
        else
            coll::add_allreduce(s, r.send(), r.recv(), items(count), *r.type, *r.op);
    });
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    Call call("MPI_Reduce_scatter");
    Communicator* c = nullptr;
    std::span<const int> counts;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = check_counts(call, *c, recvcounts, counts)) return rc;
    return reduce_scatter(call, *c, sendbuf, recvbuf, counts, datatype, op, nullptr);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Ireduce_scatter");
    Communicator* c = nullptr;
    std::span<const int> counts;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (int rc = check_counts(call, *c, recvcounts, counts)) return rc;
    return reduce_scatter(call, *c, sendbuf, recvbuf, counts, datatype, op, request);
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    Call call("MPI_Reduce_scatter_block");
    Communicator* c = nullptr;
    if (int rc = start_collective(call, comm, c)) return rc;
    if (int rc = call.count(recvcount, "recvcount")) return rc;
    const std::vector<int> counts(items(c->size()), recvcount);
    return reduce_scatter(call, *c, sendbuf, recvbuf, counts, datatype, op, nullptr);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request* request) {
    Call call("MPI_Ireduce_scatter_block");
    Communicator* c = nullptr;
    if (int rc = start_nonblocking(call, comm, request, c)) return rc;
    if (int rc = call.count(recvcount, "recvcount")) return rc;
    const std::vector<int> counts(items(c->size()), recvcount);
    return reduce_scatter(call, *c, sendbuf, recvbuf, counts, datatype, op, request);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm) {
    return prefix_reduction("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false, false,
                            nullptr);
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request) {
    return prefix_reduction("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, false, true,
                            request);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
    return prefix_reduction("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true, false,
                            nullptr);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request) {
    return prefix_reduction("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, true, true,
                            request);
}

}  // extern "C"
