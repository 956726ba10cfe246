// Intercommunicators: two disjoint groups, each receiving on a context pair
// its own members agreed on, sending on the other group's (communicator.hpp).
// Point-to-point works on them like on any communicator; what needs both
// groups at once (merging, duplicating) goes through the two leaders, rank 0
// of each group, which trade on the intercommunicator's collective contexts
// and pass the result on within their group. Collectives on
// intercommunicators: coll/intercomm.hpp, with the rooted ones' entry points
// in intercomm_collective.cpp.
#include <algorithm>
#include <memory>
#include <vector>

#include "api/errors.hpp"
#include "api/group.hpp"
#include "api/runtime.hpp"
#include "coll/collectives.hpp"

namespace si::api {

namespace {

// Tag on an intercommunicator's collective contexts of the leaders'
// exchanges, above the collectives' own (coll/intercomm.hpp).
constexpr int kLeaderTag = 2 * coll::kFirstFreeTag;

// Collectives among the local group: on the context only this group
// receives on, numbered as the local group.
coll::Context local_context(const Communicator& inter) {
    return inter_collective_context(inter).local;
}

// The leaders trade `bytes` bytes; then every member of a group has what
// the other group's leader sent.
int swap_with_remote(const Communicator& inter, const void* mine, void* theirs, std::size_t bytes) {
    p2p::Engine& engine = *Runtime::get()->engine;
    int error = MPI_SUCCESS;
    if (inter.rank == 0) {
        p2p::Request* receive =
            engine.irecv(theirs, bytes, 0, kLeaderTag, inter.ref(), inter.coll_context(), true);
        p2p::Request* send = engine.isend(mine, bytes, 0, kLeaderTag, inter.ref(),
                                          inter.send_coll_context(), p2p::SendMode::standard);
        engine.wait(send);
        engine.wait(receive);
        error = send->result.error != MPI_SUCCESS ? send->result.error : receive->result.error;
        if (error == MPI_SUCCESS && receive->result.bytes != bytes) error = MPI_ERR_INTERN;
        engine.release(send);
        engine.release(receive);
    }
    const int broadcast = coll::bcast(local_context(inter), theirs, bytes, 0);
    return error != MPI_SUCCESS ? error : broadcast;
}

using Mask = std::vector<std::uint64_t>;

// ANDs offers over the local group.
int agree_locally(const Communicator& inter, const Mask& offer, Mask& agreed) {
    const datatype::Type* type = datatype::lookup(MPI_UINT64_T);
    const datatype::Op* band = datatype::lookup_op(MPI_BAND);
    return coll::allreduce(local_context(inter), offer.data(), agreed.data(),
                           static_cast<int>(offer.size()), *type, *band);
}

// ANDs offers over both groups.
int agree_across(const Communicator& inter, const Mask& offer, Mask& agreed) {
    Mask group(offer.size());
    if (int rc = agree_locally(inter, offer, group)) return rc;
    Mask other(offer.size());
    if (int rc = swap_with_remote(inter, group.data(), other.data(), group.size() * 8)) return rc;
    for (std::size_t i = 0; i < agreed.size(); ++i) agreed[i] = group[i] & other[i];
    return MPI_SUCCESS;
}

int no_context(Call& call, int rc) {
    return call.fail(rc,
                     "no communicator context id is free on every member (too many "
                     "communicators alive; free some with MPI_Comm_free)");
}

MPI_Comm install(std::unique_ptr<Communicator> made) {
    return Runtime::get()->communicators.add(std::move(made));
}

int start_inter(Call& call, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.communicator(comm, c)) return rc;
    if (c->inter()) return MPI_SUCCESS;
    return call.fail(MPI_ERR_COMM, "comm {:#x} is not an intercommunicator", comm);
}

}  // namespace

// A new context pair for this group, agreed within it; the other group does
// the same and the leaders trade the results.
int dup_intercommunicator(Call& call, const Communicator& inter, MPI_Comm* newcomm) {
    CommunicatorTable& table = Runtime::get()->communicators;
    std::uint16_t pair = 0;
    const auto agree = [&](const Mask& offer, Mask& agreed) {
        return agree_locally(inter, offer, agreed);
    };
    if (int rc = table.allocate_pair(inter.allocation_priority(), agree, pair))
        return no_context(call, rc);
    std::uint16_t remote_pair = 0;
    if (int rc = swap_with_remote(inter, &pair, &remote_pair, sizeof pair)) {
        table.release_pair(pair);
        return call.fail(rc, "exchanging context ids with the remote group failed");
    }
    auto made = std::make_unique<Communicator>(inter);
    made->pair = pair;
    made->remote_pair = remote_pair;
    made->name.clear();
    made->topology = nullptr;
    *newcomm = install(std::move(made));
    return MPI_SUCCESS;
}

// Each group splits by color as an intracommunicator would; the subgroups of
// one color on both sides form a new intercommunicator, or MPI_COMM_NULL if
// either side has none. One context pair per group serves every color: the
// subgroups of different colors share no process.
int split_intercommunicator(Call& call, const Communicator& inter, int color, int key,
                            MPI_Comm* newcomm) {
    struct Entry {
        int color, key;
    };
    const Entry mine{color, key};
    std::vector<Entry> here(inter.world_of.size());
    std::vector<Entry> there(inter.remote_of.size());
    if (int rc = coll::allgather(local_context(inter), &mine, sizeof mine,
                                 coll::regular_blocks(here.data(), inter.size(), sizeof mine)))
        return call.fail(rc, "exchanging colors and keys within the local group failed");
    // The groups' tables differ in size: both swap the larger size, padded.
    std::vector<Entry> padded(std::max(here.size(), there.size()));
    std::vector<Entry> received(padded.size());
    std::copy(here.begin(), here.end(), padded.begin());
    if (int rc =
            swap_with_remote(inter, padded.data(), received.data(), padded.size() * sizeof(Entry)))
        return call.fail(rc, "exchanging colors and keys with the remote group failed");
    std::copy_n(received.begin(), there.size(), there.begin());
    // Members of a color ordered by key, ties by rank.
    const auto members = [color](const std::vector<Entry>& table, const std::vector<int>& ranks) {
        std::vector<int> order;
        for (std::size_t r = 0; r < table.size(); ++r)
            if (table[r].color == color) order.push_back(static_cast<int>(r));
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return table[a].key < table[b].key; });
        std::vector<int> world;
        world.reserve(order.size());
        for (const int r : order) world.push_back(ranks[static_cast<std::size_t>(r)]);
        return world;
    };
    std::vector<int> local = members(here, inter.world_of);
    std::vector<int> remote = members(there, inter.remote_of);

    CommunicatorTable& table = Runtime::get()->communicators;
    std::uint16_t pair = 0;
    const auto agree = [&](const Mask& offer, Mask& agreed) {
        return agree_locally(inter, offer, agreed);
    };
    if (int rc = table.allocate_pair(inter.allocation_priority(), agree, pair))
        return no_context(call, rc);
    std::uint16_t remote_pair = 0;
    if (int rc = swap_with_remote(inter, &pair, &remote_pair, sizeof pair)) {
        table.release_pair(pair);
        return call.fail(rc, "exchanging context ids with the remote group failed");
    }
    if (color == MPI_UNDEFINED || remote.empty()) {
        table.release_pair(pair);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    const int me = inter.world_of[static_cast<std::size_t>(inter.rank)];
    auto made = std::make_unique<Communicator>();
    made->rank = static_cast<int>(std::find(local.begin(), local.end(), me) - local.begin());
    made->world_of = std::move(local);
    made->remote_of = std::move(remote);
    made->pair = pair;
    made->remote_pair = remote_pair;
    made->errhandler = inter.errhandler;
    *newcomm = install(std::move(made));
    return MPI_SUCCESS;
}

}  // namespace si::api

using namespace si::api;
namespace coll = si::coll;

extern "C" {

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm* newintercomm) {
    Call call("MPI_Intercomm_create");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.intracommunicator(local_comm, c)) return rc;
    if (int rc = call.not_null(newintercomm, "newintercomm")) return rc;
    if (local_leader < 0 || local_leader >= c->size())
        return call.fail(MPI_ERR_RANK, "local_leader {} is not a rank of local_comm (0..{})",
                         local_leader, c->size() - 1);
    const bool leader = c->rank == local_leader;
    if (leader) {
        Communicator* peer = nullptr;
        if (int rc = call.communicator(peer_comm, peer)) return rc;
        if (int rc = call.destination(*peer, remote_leader, "remote_leader")) return rc;
        if (int rc = call.send_tag(tag)) return rc;
    }
    // This group's receive contexts, agreed over local_comm.
    CommunicatorTable& table = Runtime::get()->communicators;
    std::uint16_t pair = 0;
    if (int rc = table.allocate_pair(*c, pair)) return no_context(call, rc);

    // The leaders trade (context pair, group size) and the groups' world
    // ranks over peer_comm, then tell their groups.
    int mine[2] = {pair, c->size()};
    int theirs[2] = {0, 0};
    std::vector<int> remote;
    int failed = MPI_SUCCESS;
    if (leader) {
        failed = PMPI_Sendrecv(mine, 2, MPI_INT, remote_leader, tag, theirs, 2, MPI_INT,
                               remote_leader, tag, peer_comm, MPI_STATUS_IGNORE);
        remote.resize(static_cast<std::size_t>(std::max(theirs[1], 0)));
        if (failed == MPI_SUCCESS)
            failed = PMPI_Sendrecv(c->world_of.data(), c->size(), MPI_INT, remote_leader, tag,
                                   remote.data(), theirs[1], MPI_INT, remote_leader, tag, peer_comm,
                                   MPI_STATUS_IGNORE);
    }
    const coll::Context local = collective_context(*c);
    int shared[3] = {theirs[0], theirs[1], failed};
    if (int rc = coll::bcast(local, shared, sizeof shared, local_leader)) failed = rc;
    if (failed == MPI_SUCCESS && shared[2] == MPI_SUCCESS) {
        remote.resize(static_cast<std::size_t>(shared[1]));
        failed = coll::bcast(local, remote.data(), remote.size() * sizeof(int), local_leader);
    } else if (failed == MPI_SUCCESS) {
        failed = shared[2];
    }
    if (failed != MPI_SUCCESS || remote.empty()) {
        table.release_pair(pair);
        return call.fail(failed != MPI_SUCCESS ? MPI_ERR_OTHER : MPI_ERR_ARG,
                         "the leaders could not exchange their groups over peer_comm");
    }
    auto made = std::make_unique<Communicator>();
    made->world_of = c->world_of;
    made->rank = c->rank;
    made->pair = pair;
    made->remote_of = std::move(remote);
    made->remote_pair = static_cast<std::uint16_t>(shared[0]);
    made->errhandler = c->errhandler;
    *newintercomm = install(std::move(made));
    return MPI_SUCCESS;
}

// The group that passed high = false comes first; if both passed the same,
// the group holding the lowest world rank does.
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
    Call call("MPI_Intercomm_merge");
    Communicator* c = nullptr;
    if (int rc = start_inter(call, intercomm, c)) return rc;
    if (int rc = call.not_null(newintracomm, "newintracomm")) return rc;
    const int mine = high != 0 ? 1 : 0;
    int theirs = 0;
    if (int rc = swap_with_remote(*c, &mine, &theirs, sizeof mine))
        return call.fail(rc, "exchanging high with the remote group failed");
    const int lowest_here = *std::min_element(c->world_of.begin(), c->world_of.end());
    const int lowest_there = *std::min_element(c->remote_of.begin(), c->remote_of.end());
    const bool first = mine != theirs ? mine == 0 : lowest_here < lowest_there;
    std::vector<int> world_of = first ? c->world_of : c->remote_of;
    const std::vector<int>& second = first ? c->remote_of : c->world_of;
    world_of.insert(world_of.end(), second.begin(), second.end());

    CommunicatorTable& table = Runtime::get()->communicators;
    std::uint16_t pair = 0;
    const auto agree = [&](const Mask& offer, Mask& agreed) {
        return agree_across(*c, offer, agreed);
    };
    // Both groups' members take part: the lower of the two pairs orders it.
    const std::uint64_t priority =
        std::uint64_t{std::min(c->pair, c->remote_pair)} << 32 | c->nonblocking_collectives;
    if (int rc = table.allocate_pair(priority, agree, pair)) return no_context(call, rc);
    auto made = std::make_unique<Communicator>();
    made->rank = first ? c->rank : static_cast<int>(c->remote_of.size()) + c->rank;
    made->world_of = std::move(world_of);
    made->pair = pair;
    made->errhandler = c->errhandler;
    *newintracomm = install(std::move(made));
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
    Call call("MPI_Comm_test_inter");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    *flag = c->inter() ? 1 : 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
    Call call("MPI_Comm_remote_size");
    Communicator* c = nullptr;
    if (int rc = start_inter(call, comm, c)) return rc;
    if (int rc = call.not_null(size, "size")) return rc;
    *size = static_cast<int>(c->remote_of.size());
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
    Call call("MPI_Comm_remote_group");
    Communicator* c = nullptr;
    if (int rc = start_inter(call, comm, c)) return rc;
    if (int rc = call.not_null(group, "group")) return rc;
    return make_group(call, c->remote_of, group);
}

}  // extern "C"
