// Communicator entry points.
#include <algorithm>
#include <cstring>

#include "api/attributes.hpp"
#include "api/errors.hpp"
#include "api/group.hpp"
#include "api/info.hpp"
#include "api/runtime.hpp"
#include "coll/collectives.hpp"
#include "p2p/tuple.hpp"

using namespace si::api;

namespace si::api {

int create_communicator(Call& call, const Communicator& parent, std::vector<int> world_of, int rank,
                        bool member, MPI_Comm* newcomm, int tag_base) {
    Runtime& runtime = *Runtime::get();
    std::uint16_t pair = 0;
    if (int rc = runtime.communicators.allocate_pair(parent, pair, tag_base))
        return call.fail(rc, "no communicator context id is free on every member of {} "
                             "(too many communicators alive; free some with MPI_Comm_free)",
                         parent.name.empty() ? "the parent communicator" : parent.name);
    if (!member) {
        runtime.communicators.release_pair(pair);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    auto communicator = std::make_unique<Communicator>();
    communicator->world_of = std::move(world_of);
    communicator->rank = rank;
    communicator->pair = pair;
    communicator->errhandler = parent.errhandler;
    *newcomm = runtime.communicators.add(std::move(communicator));
    return MPI_SUCCESS;
}

}  // namespace si::api

namespace {

// MPI_Comm_split and MPI_Comm_split_type once the color is known: members of
// a color ordered by key, ties broken by rank in c.
int split(Call& call, const Communicator& c, int color, int key, MPI_Comm* newcomm) {
    struct Entry {
        int color, key;
    };
    const Entry mine{color, key};
    std::vector<Entry> all(static_cast<std::size_t>(c.size()));
    if (int rc = si::coll::allgather(collective_context(c), &mine, sizeof mine,
                                     si::coll::regular_blocks(all.data(), c.size(), sizeof mine)))
        return call.fail(rc, "exchanging colors and keys failed");

    std::vector<int> members;
    for (int r = 0; r < c.size(); ++r)
        if (all[r].color == color) members.push_back(r);
    std::stable_sort(members.begin(), members.end(),
                     [&](int a, int b) { return all[a].key < all[b].key; });
    std::vector<int> world_of;
    int new_rank = 0;
    for (int r : members) {
        if (r == c.rank) new_rank = static_cast<int>(world_of.size());
        world_of.push_back(c.world_of[r]);
    }
    return create_communicator(call, c, std::move(world_of), new_rank, color != MPI_UNDEFINED,
                               newcomm);
}

// The group's members, which must all be members of c; `my_rank` is this
// process's rank in the group or MPI_UNDEFINED.
int subgroup(Call& call, const Communicator& c, MPI_Group group, Members& members, int& my_rank) {
    if (int rc = group_members(call, group, members)) return rc;
    const int me = c.world_of[static_cast<std::size_t>(c.rank)];
    my_rank = MPI_UNDEFINED;
    for (std::size_t i = 0; i < members->size(); ++i) {
        const int w = (*members)[i];
        if (std::find(c.world_of.begin(), c.world_of.end(), w) == c.world_of.end())
            return call.fail(MPI_ERR_GROUP,
                             "group rank {} (world rank {}) is not a member of the communicator",
                             i, w);
        if (w == me) my_rank = static_cast<int>(i);
    }
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
    Call call("MPI_Comm_rank");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(rank, "rank")) return rc;
    *rank = c->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int* size) {
    Call call("MPI_Comm_size");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(size, "size")) return rc;
    *size = c->size();
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
    Call call("MPI_Comm_dup");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(newcomm, "newcomm")) return rc;
    if (c->inter()) {
        if (int rc = dup_intercommunicator(call, *c, newcomm)) return rc;
    } else if (int rc = create_communicator(call, *c, c->world_of, c->rank, true, newcomm)) {
        return rc;
    }
    // A duplicate keeps the topology, and the attributes whose keys say so.
    Runtime::get()->communicators.find(*newcomm)->topology = c->topology;
    if (int rc = copy_attributes(call, AttributeHost::communicator, comm, *newcomm)) {
        discard_attributes(AttributeHost::communicator, *newcomm);
        Runtime::get()->communicators.remove(*newcomm);
        *newcomm = MPI_COMM_NULL;
        return rc;
    }
    return MPI_SUCCESS;
}

// Hints are accepted and ignored: no communicator hint changes what this
// runtime does, so MPI_Comm_get_info reports none (as MPICH does for hints
// it does not know).
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
    Call call("MPI_Comm_dup_with_info");
    if (int rc = call.initialized()) return rc;
    if (int rc = check_info(call, info)) return rc;
    return PMPI_Comm_dup(comm, newcomm);
}

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
    Call call("MPI_Comm_set_info");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    return check_info(call, info);
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
    Call call("MPI_Comm_get_info");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(info_used, "info_used")) return rc;
    return new_empty_info(call, info_used);
}

// The runtime has no MPI_Comm_spawn, so no process has a parent.
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm* parent) {
    Call call("MPI_Comm_get_parent");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(parent, "parent")) return rc;
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
    Call call("MPI_Comm_split");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(newcomm, "newcomm")) return rc;
    if (color < 0 && color != MPI_UNDEFINED)
        return call.fail(MPI_ERR_ARG, "color is {}; it must be 0 or more, or MPI_UNDEFINED", color);
    if (c->inter()) return split_intercommunicator(call, *c, color, key, newcomm);
    return split(call, *c, color, key, newcomm);
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm* newcomm) {
    Call call("MPI_Comm_split_type");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.intracommunicator(comm, c)) return rc;
    if (int rc = call.not_null(newcomm, "newcomm")) return rc;
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return call.fail(MPI_ERR_ARG,
                         "split_type is {}; valid: MPI_COMM_TYPE_SHARED or MPI_UNDEFINED",
                         split_type);
    // Shared memory reaches the ranks of a node (SI_NODE_SIZE simulates smaller ones).
    const int color = split_type == MPI_UNDEFINED
                          ? MPI_UNDEFINED
                          : Runtime::get()->locality.node_of[static_cast<std::size_t>(
                                c->world_of[static_cast<std::size_t>(c->rank)])];
    return split(call, *c, color, key, newcomm);
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
    Call call("MPI_Comm_create");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(newcomm, "newcomm")) return rc;
    Members members;
    int my_rank = MPI_UNDEFINED;
    if (int rc = subgroup(call, *c, group, members, my_rank)) return rc;
    // On an intercommunicator each side passes a part of its own group: a
    // split with one color, ordered as the group.
    if (c->inter())
        return split_intercommunicator(call, *c, my_rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0,
                                       my_rank, newcomm);
    return create_communicator(call, *c, *members, my_rank, my_rank != MPI_UNDEFINED, newcomm);
}

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
    Call call("MPI_Comm_create_group");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.intracommunicator(comm, c)) return rc;
    if (int rc = call.not_null(newcomm, "newcomm")) return rc;
    if (int rc = call.send_tag(tag)) return rc;
    Members members;
    int my_rank = MPI_UNDEFINED;
    if (int rc = subgroup(call, *c, group, members, my_rank)) return rc;
    if (my_rank == MPI_UNDEFINED)
        return call.fail(MPI_ERR_GROUP, "the calling process is not a member of group (only "
                                        "members call MPI_Comm_create_group)");
    // Only the group's members agree on the context, over a stand-in for the
    // new communicator that borrows comm's contexts; a tag range of its own,
    // chosen by the caller's tag, keeps that traffic apart from comm's
    // collectives and from other MPI_Comm_create_group calls.
    Communicator among = *c;
    among.world_of = *members;
    among.rank = my_rank;
    among.topology = nullptr;
    const int tag_base = si::coll::kFirstFreeTag * (1 + tag % (1 << 17));
    return create_communicator(call, among, *members, my_rank, true, newcomm, tag_base);
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm* comm) {
    Call call("MPI_Comm_free");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(comm, "comm")) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(*comm, c)) return rc;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return call.fail(MPI_ERR_COMM, "comm is {}, which cannot be freed", c->name);
    if (int rc = delete_attributes(call, AttributeHost::communicator, *comm)) return rc;
    Runtime::get()->communicators.remove(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
    Call call("MPI_Comm_compare");
    if (int rc = call.initialized()) return rc;
    Communicator* a = nullptr;
    Communicator* b = nullptr;
    if (int rc = call.communicator(comm1, a)) return rc;
    if (int rc = call.communicator(comm2, b)) return rc;
    if (int rc = call.not_null(result, "result")) return rc;
    // Intercommunicators compare both groups, intra- and intercommunicators never match.
    const auto sorted = [](std::vector<int> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    if (comm1 == comm2) {
        *result = MPI_IDENT;
    } else if (a->inter() != b->inter()) {
        *result = MPI_UNEQUAL;
    } else if (a->world_of == b->world_of && a->remote_of == b->remote_of) {
        *result = MPI_CONGRUENT;
    } else {
        const bool similar = sorted(a->world_of) == sorted(b->world_of) &&
                             sorted(a->remote_of) == sorted(b->remote_of);
        *result = similar ? MPI_SIMILAR : MPI_UNEQUAL;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
    Call call("MPI_Comm_set_name");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(comm_name, "comm_name")) return rc;
    c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
    Call call("MPI_Comm_get_name");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(comm_name, "comm_name")) return rc;
    if (int rc = call.not_null(resultlen, "resultlen")) return rc;
    std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
    *resultlen = static_cast<int>(c->name.size());
    return MPI_SUCCESS;
}

}  // extern "C"
