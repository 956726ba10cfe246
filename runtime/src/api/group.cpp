// Group entry points. Groups are local objects: nothing here communicates.
#include "api/group.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "api/handles.hpp"
#include "api/runtime.hpp"
#include "datatype/handle_table.hpp"

namespace si::api {

namespace {

struct GroupEntry {
    Members members;
    int handle = 0;              // set by the table
    const char* name = nullptr;  // unused
};

// Created groups; MPI_GROUP_EMPTY is predefined and never in the table.
datatype::HandleTable<GroupEntry>& groups() {
    static datatype::HandleTable<GroupEntry> table(static_cast<int>(HandleKind::group), 1);
    return table;
}

const Members& empty_members() {
    static const Members empty = std::make_shared<const std::vector<int>>();
    return empty;
}

int my_world_rank() {
    return Runtime::get()->locality.world_rank;
}

// Group rank of a world rank, or MPI_UNDEFINED.
int rank_in(const std::vector<int>& members, int world_rank) {
    const auto it = std::find(members.begin(), members.end(), world_rank);
    return it == members.end() ? MPI_UNDEFINED : static_cast<int>(it - members.begin());
}

int start(Call& call, MPI_Group group, Members& members, const char* argument = "group") {
    if (int rc = call.initialized()) return rc;
    return group_members(call, group, members, argument);
}

// `n` ranks of a group of `size`, each valid and listed once.
int check_ranks(Call& call, int n, const int* ranks, int size) {
    if (n < 0) return call.fail(MPI_ERR_ARG, "n is {}; it must be 0 or more", n);
    if (n > 0)
        if (int rc = call.not_null(ranks, "ranks")) return rc;
    std::vector<bool> seen(static_cast<std::size_t>(size));
    for (int i = 0; i < n; ++i) {
        if (ranks[i] < 0 || ranks[i] >= size)
            return call.fail(MPI_ERR_RANK, "ranks[{}] is {}; the group has {} ranks", i, ranks[i],
                             size);
        if (seen[static_cast<std::size_t>(ranks[i])])
            return call.fail(MPI_ERR_RANK, "ranks[{}] is {}, which appears twice", i, ranks[i]);
        seen[static_cast<std::size_t>(ranks[i])] = true;
    }
    return MPI_SUCCESS;
}

// The ranks n triplets (first, last, stride) describe, checked as check_ranks does.
int expand_ranges(Call& call, int n, const int ranges[][3], int size, std::vector<int>& out) {
    if (n < 0) return call.fail(MPI_ERR_ARG, "n is {}; it must be 0 or more", n);
    if (n > 0)
        if (int rc = call.not_null(ranges, "ranges")) return rc;
    for (int i = 0; i < n; ++i) {
        const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0) return call.fail(MPI_ERR_ARG, "ranges[{}] has stride 0", i);
        if (first < 0 || first >= size || last < 0 || last >= size)
            return call.fail(MPI_ERR_RANK, "ranges[{}] = ({}, {}, {}) leaves a group of {} ranks",
                             i, first, last, stride, size);
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            out.push_back(static_cast<int>(r));
    }
    return check_ranks(call, static_cast<int>(out.size()), out.data(), size);
}

// The members of `group` at the given group ranks, in that order.
std::vector<int> pick(const std::vector<int>& group, std::span<const int> ranks) {
    std::vector<int> members;
    members.reserve(ranks.size());
    for (const int r : ranks) members.push_back(group[static_cast<std::size_t>(r)]);
    return members;
}

// The members of `group` not at the given group ranks, in group order.
std::vector<int> drop(const std::vector<int>& group, std::span<const int> ranks) {
    std::vector<bool> dropped(group.size());
    for (const int r : ranks) dropped[static_cast<std::size_t>(r)] = true;
    std::vector<int> members;
    members.reserve(group.size() - ranks.size());  // the ranks are distinct (check_ranks)
    for (std::size_t i = 0; i < group.size(); ++i)
        if (!dropped[i]) members.push_back(group[i]);
    return members;
}

enum class SetOp { union_of, intersection, difference };

// MPI's set operations keep the order of the first group, then (union) the
// second group's new members in its order.
std::vector<int> combine(const std::vector<int>& a, const std::vector<int>& b, SetOp op) {
    const std::unordered_set<int> in_b(b.begin(), b.end());
    std::vector<int> members;
    for (const int w : a) {
        const bool shared = in_b.count(w) > 0;
        const bool keep = op == SetOp::union_of || (op == SetOp::intersection ? shared : !shared);
        if (keep) members.push_back(w);
    }
    if (op == SetOp::union_of) {
        const std::unordered_set<int> in_a(a.begin(), a.end());
        for (const int w : b)
            if (in_a.count(w) == 0) members.push_back(w);
    }
    return members;
}

int set_operation(const char* function, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup,
                  SetOp op) {
    Call call(function);
    Members a, b;
    if (int rc = start(call, group1, a, "group1")) return rc;
    if (int rc = group_members(call, group2, b, "group2")) return rc;
    if (int rc = call.not_null(newgroup, "newgroup")) return rc;
    return make_group(call, combine(*a, *b, op), newgroup);
}

}  // namespace

int group_members(Call& call, MPI_Group group, Members& out, const char* argument) {
    if (group == MPI_GROUP_EMPTY) {
        out = empty_members();
        return MPI_SUCCESS;
    }
    if (group == MPI_GROUP_NULL) return call.fail(MPI_ERR_GROUP, "{} is MPI_GROUP_NULL", argument);
    const bool found = groups().update(group, [&](const GroupEntry& g) { out = g.members; });
    if (!found)
        return call.fail(MPI_ERR_GROUP, "{} {:#x} is {}", argument, group,
                         is_kind(group, HandleKind::group) ? "not an existing group (freed?)"
                                                           : kind_name(group));
    return MPI_SUCCESS;
}

int make_group(Call& call, std::vector<int> members, MPI_Group* out) {
    if (members.empty()) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    const int handle =
        groups().add(GroupEntry{std::make_shared<const std::vector<int>>(std::move(members))},
                     [](int) { return std::string(); });
    if (handle == 0) return call.fail(MPI_ERR_INTERN, "too many groups exist; free some");
    *out = handle;
    return MPI_SUCCESS;
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
    Call call("MPI_Comm_group");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(group, "group")) return rc;
    return make_group(call, c->world_of, group);
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int* size) {
    Call call("MPI_Group_size");
    Members m;
    if (int rc = start(call, group, m)) return rc;
    if (int rc = call.not_null(size, "size")) return rc;
    *size = static_cast<int>(m->size());
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int* rank) {
    Call call("MPI_Group_rank");
    Members m;
    if (int rc = start(call, group, m)) return rc;
    if (int rc = call.not_null(rank, "rank")) return rc;
    *rank = rank_in(*m, my_world_rank());
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group* group) {
    Call call("MPI_Group_free");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(group, "group")) return rc;
    Members m;
    if (int rc = group_members(call, *group, m)) return rc;
    // MPI_GROUP_EMPTY is predefined: freeing it only clears the caller's handle.
    if (*group != MPI_GROUP_EMPTY) groups().remove(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    Call call("MPI_Group_incl");
    Members m;
    if (int rc = start(call, group, m)) return rc;
    if (int rc = call.not_null(newgroup, "newgroup")) return rc;
    if (int rc = check_ranks(call, n, ranks, static_cast<int>(m->size()))) return rc;
    return make_group(call, pick(*m, {ranks, static_cast<std::size_t>(n)}), newgroup);
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    Call call("MPI_Group_excl");
    Members m;
    if (int rc = start(call, group, m)) return rc;
    if (int rc = call.not_null(newgroup, "newgroup")) return rc;
    if (int rc = check_ranks(call, n, ranks, static_cast<int>(m->size()))) return rc;
    return make_group(call, drop(*m, {ranks, static_cast<std::size_t>(n)}), newgroup);
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    Call call("MPI_Group_range_incl");
    Members m;
    if (int rc = start(call, group, m)) return rc;
    if (int rc = call.not_null(newgroup, "newgroup")) return rc;
    std::vector<int> ranks;
    if (int rc = expand_ranges(call, n, ranges, static_cast<int>(m->size()), ranks)) return rc;
    return make_group(call, pick(*m, ranks), newgroup);
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    Call call("MPI_Group_range_excl");
    Members m;
    if (int rc = start(call, group, m)) return rc;
    if (int rc = call.not_null(newgroup, "newgroup")) return rc;
    std::vector<int> ranks;
    if (int rc = expand_ranges(call, n, ranges, static_cast<int>(m->size()), ranks)) return rc;
    return make_group(call, drop(*m, ranks), newgroup);
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return set_operation("MPI_Group_union", group1, group2, newgroup, SetOp::union_of);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return set_operation("MPI_Group_intersection", group1, group2, newgroup, SetOp::intersection);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return set_operation("MPI_Group_difference", group1, group2, newgroup, SetOp::difference);
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[]) {
    Call call("MPI_Group_translate_ranks");
    Members a, b;
    if (int rc = start(call, group1, a, "group1")) return rc;
    if (int rc = group_members(call, group2, b, "group2")) return rc;
    if (n < 0) return call.fail(MPI_ERR_ARG, "n is {}; it must be 0 or more", n);
    if (n > 0) {
        if (int rc = call.not_null(ranks1, "ranks1")) return rc;
        if (int rc = call.not_null(ranks2, "ranks2")) return rc;
    }
    std::unordered_map<int, int> rank_in_b;
    for (std::size_t i = 0; i < b->size(); ++i) rank_in_b[(*b)[i]] = static_cast<int>(i);
    for (int i = 0; i < n; ++i) {
        const int r = ranks1[i];
        if (r == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (r < 0 || r >= static_cast<int>(a->size()))
            return call.fail(MPI_ERR_RANK, "ranks1[{}] is {}; group1 has {} ranks", i, r,
                             a->size());
        const auto it = rank_in_b.find((*a)[static_cast<std::size_t>(r)]);
        ranks2[i] = it == rank_in_b.end() ? MPI_UNDEFINED : it->second;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
    Call call("MPI_Group_compare");
    Members a, b;
    if (int rc = start(call, group1, a, "group1")) return rc;
    if (int rc = group_members(call, group2, b, "group2")) return rc;
    if (int rc = call.not_null(result, "result")) return rc;
    if (*a == *b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    std::vector<int> x = *a, y = *b;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

}  // extern "C"
