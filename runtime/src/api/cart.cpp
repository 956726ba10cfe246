// Cartesian topologies, MPI_Dims_create and MPI_Topo_test; the shared
// topology helpers of topology.hpp.
#include <algorithm>
#include <functional>

#include "api/runtime.hpp"
#include "api/topology.hpp"

namespace si::api {

std::vector<int> cart_coords(const Topology& t, int rank) {
    std::vector<int> coords(t.dims.size());
    for (std::size_t d = t.dims.size(); d-- > 0;) {
        coords[d] = rank % t.dims[d];
        rank /= t.dims[d];
    }
    return coords;
}

int cart_rank(const Topology& t, const std::vector<int>& coords) {
    int rank = 0;
    for (std::size_t d = 0; d < t.dims.size(); ++d) rank = rank * t.dims[d] + coords[d];
    return rank;
}

int cart_neighbor(const Topology& t, int rank, int dimension, int displacement) {
    std::vector<int> coords = cart_coords(t, rank);
    const auto d = static_cast<std::size_t>(dimension);
    const long at = static_cast<long>(coords[d]) + displacement;
    const int extent = t.dims[d];
    if (!t.periods[d] && (at < 0 || at >= extent)) return MPI_PROC_NULL;
    coords[d] = static_cast<int>(((at % extent) + extent) % extent);
    return cart_rank(t, coords);
}

int topology_of(Call& call, const Communicator& c, int kind, const Topology*& out) {
    out = c.topology.get();
    if (out != nullptr && (kind == MPI_UNDEFINED || out->kind == kind)) return MPI_SUCCESS;
    const char* wanted = kind == MPI_CART         ? "a Cartesian topology"
                         : kind == MPI_GRAPH      ? "a graph topology"
                         : kind == MPI_DIST_GRAPH ? "a distributed graph topology"
                                                  : "a topology";
    return call.fail(MPI_ERR_TOPOLOGY, "comm {} has no {}",
                     c.name.empty() ? fmt::format("{:#x}", c.handle) : c.name, wanted);
}

void attach_topology(MPI_Comm handle, Topology topology) {
    if (handle == MPI_COMM_NULL) return;
    Runtime::get()->communicators.find(handle)->topology =
        std::make_shared<const Topology>(std::move(topology));
}

Neighborhood neighborhood(const Topology& t, int rank) {
    Neighborhood n;
    if (t.kind == MPI_CART) {
        // Per dimension, the neighbour below, then the one above. A message
        // is labelled with its direction of travel: what goes down arrives
        // as coming from above.
        for (int d = 0; d < static_cast<int>(t.dims.size()); ++d) {
            const int below = cart_neighbor(t, rank, d, -1);
            const int above = cart_neighbor(t, rank, d, +1);
            const int down = 2 * d, up = 2 * d + 1;
            n.in.push_back({below, up});
            n.in.push_back({above, down});
            n.out.push_back({below, down});
            n.out.push_back({above, up});
        }
    } else if (t.kind == MPI_GRAPH) {
        const int first = rank == 0 ? 0 : t.index[static_cast<std::size_t>(rank) - 1];
        for (int e = first; e < t.index[static_cast<std::size_t>(rank)]; ++e) {
            n.in.push_back({t.edges[static_cast<std::size_t>(e)], 0});
            n.out.push_back({t.edges[static_cast<std::size_t>(e)], 0});
        }
    } else {
        for (const int s : t.sources) n.in.push_back({s, 0});
        for (const int d : t.destinations) n.out.push_back({d, 0});
    }
    return n;
}

}  // namespace si::api

using namespace si::api;

namespace {

int start(Call& call, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    return call.intracommunicator(comm, c);
}

int start_cart(Call& call, MPI_Comm comm, Communicator*& c, const Topology*& t) {
    if (int rc = start(call, comm, c)) return rc;
    return topology_of(call, *c, MPI_CART, t);
}

int check_ndims(Call& call, int ndims, const void* array, const char* name) {
    if (ndims < 0) return call.fail(MPI_ERR_DIMS, "ndims is {}; it must be 0 or more", ndims);
    return ndims > 0 ? call.not_null(array, name) : MPI_SUCCESS;
}

int check_rank(Call& call, const Communicator& c, int rank) {
    if (rank >= 0 && rank < c.size()) return MPI_SUCCESS;
    return call.fail(MPI_ERR_RANK, "rank {} is outside the topology's {} ranks", rank, c.size());
}

// The most balanced way to write n as a product of `count` factors, largest
// first: the smallest difference between the largest and the smallest factor,
// and among those the one with the larger smallest factor, compared from the
// smallest up (the choices MPICH makes, which its test suite checks). A
// depth-first search over divisors in non-increasing order.
class BalancedFactors {
  public:
    BalancedFactors(int n, int count) : current_(static_cast<std::size_t>(count)) {
        search(n, 0, n);
    }
    const std::vector<int>& best() const { return best_; }

  private:
    void search(int rest, std::size_t depth, int ceiling) {
        const std::size_t left = current_.size() - depth;
        if (left == 1) {
            if (rest > ceiling) return;
            current_[depth] = rest;
            const int spread = current_.front() - rest;
            if (best_.empty() || spread < best_spread_ ||
                (spread == best_spread_ &&
                 std::lexicographical_compare(best_.rbegin(), best_.rend(), current_.rbegin(),
                                              current_.rend()))) {
                best_ = current_;
                best_spread_ = spread;
            }
            return;
        }
        // This factor is the largest of those left, so at least their
        // geometric mean; smaller candidates come first.
        int f = 1;
        while (power(f, left) < rest) ++f;
        for (; f <= std::min(ceiling, rest); ++f) {
            if (rest % f != 0) continue;
            const int first = depth == 0 ? f : current_.front();
            // The last factor is at most f, and at most the r-th root of
            // the r factors after this one: the spread is at least first
            // minus either, and the second bound only grows with f.
            if (!best_.empty() && first - f > best_spread_) continue;
            if (!best_.empty() && first - root(rest / f, left - 1) > best_spread_) break;
            current_[depth] = f;
            search(rest / f, depth + 1, f);
        }
    }
    // The largest x with x^r <= m.
    static int root(int m, std::size_t r) {
        int x = 1;
        while (power(x + 1, r) <= m) ++x;
        return x;
    }
    static long power(long base, std::size_t exponent) {
        long result = 1;
        for (std::size_t i = 0; i < exponent && result <= (1L << 40); ++i) result *= base;
        return result;
    }

    std::vector<int> current_;
    std::vector<int> best_;
    int best_spread_ = 0;
};

}  // namespace

extern "C" {

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int* status) {
    Call call("MPI_Topo_test");
    Communicator* c = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = call.not_null(status, "status")) return rc;
    *status = c->topology ? c->topology->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

// Free dimensions share what the fixed ones leave as evenly as factors allow
// (BalancedFactors), in non-increasing order, as the standard asks.
#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
    Call call("MPI_Dims_create");
    if (int rc = call.initialized()) return rc;
    if (nnodes <= 0) return call.fail(MPI_ERR_ARG, "nnodes is {}; it must be 1 or more", nnodes);
    if (int rc = check_ndims(call, ndims, dims, "dims")) return rc;
    int fixed = 1;
    std::vector<int> free_dims;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] < 0)
            return call.fail(MPI_ERR_DIMS, "dims[{}] is {}; it must be 0 (free) or more", i,
                             dims[i]);
        if (dims[i] == 0)
            free_dims.push_back(i);
        else
            fixed *= dims[i];
    }
    if (nnodes % fixed != 0)
        return call.fail(MPI_ERR_DIMS,
                         "the fixed dimensions multiply to {}, which does not divide nnodes {}",
                         fixed, nnodes);
    const int rest = nnodes / fixed;
    if (free_dims.empty()) {
        if (rest != 1)
            return call.fail(MPI_ERR_DIMS,
                             "every dimension is fixed and they multiply to {}, not "
                             "nnodes {}",
                             fixed, nnodes);
        return MPI_SUCCESS;
    }
    const BalancedFactors factors(rest, static_cast<int>(free_dims.size()));
    for (std::size_t i = 0; i < free_dims.size(); ++i) dims[free_dims[i]] = factors.best()[i];
    return MPI_SUCCESS;
}

// Ranks keep their order (reorder is allowed to, but need not, change it);
// ranks beyond the grid get MPI_COMM_NULL.
#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm* comm_cart) {
    Call call("MPI_Cart_create");
    Communicator* c = nullptr;
    if (int rc = start(call, comm_old, c)) return rc;
    if (int rc = call.not_null(comm_cart, "comm_cart")) return rc;
    if (int rc = check_ndims(call, ndims, dims, "dims")) return rc;
    if (int rc = check_ndims(call, ndims, periods, "periods")) return rc;
    Topology t;
    t.kind = MPI_CART;
    long grid = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0)
            return call.fail(MPI_ERR_DIMS, "dims[{}] is {}; it must be 1 or more", i, dims[i]);
        grid *= dims[i];
        if (grid > c->size())
            return call.fail(MPI_ERR_TOPOLOGY, "the grid has more ranks than comm_old's {}",
                             c->size());
        t.dims.push_back(dims[i]);
        t.periods.push_back(periods[i] != 0);
    }
    const auto members = static_cast<std::size_t>(grid);
    std::vector<int> world_of(c->world_of.begin(), c->world_of.begin() + grid);
    if (int rc = create_communicator(call, *c, std::move(world_of), c->rank,
                                     static_cast<std::size_t>(c->rank) < members, comm_cart))
        return rc;
    attach_topology(*comm_cart, std::move(t));
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
    Call call("MPI_Cart_map");
    Communicator* c = nullptr;
    if (int rc = start(call, comm, c)) return rc;
    if (int rc = check_ndims(call, ndims, dims, "dims")) return rc;
    if (int rc = call.not_null(newrank, "newrank")) return rc;
    long grid = 1;
    for (int i = 0; i < ndims; ++i) grid *= dims[i];
    if (grid > c->size())
        return call.fail(MPI_ERR_TOPOLOGY, "the grid has more ranks than comm's {}", c->size());
    *newrank = c->rank < grid ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
    Call call("MPI_Cartdim_get");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_cart(call, comm, c, t)) return rc;
    if (int rc = call.not_null(ndims, "ndims")) return rc;
    *ndims = static_cast<int>(t->dims.size());
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    Call call("MPI_Cart_get");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_cart(call, comm, c, t)) return rc;
    const auto n = static_cast<int>(t->dims.size());
    if (maxdims < n)
        return call.fail(MPI_ERR_ARG, "maxdims is {}; the topology has {} dimensions", maxdims, n);
    const std::vector<int> mine = cart_coords(*t, c->rank);
    for (int i = 0; i < n; ++i) {
        const auto d = static_cast<std::size_t>(i);
        if (dims != nullptr) dims[i] = t->dims[d];
        if (periods != nullptr) periods[i] = t->periods[d] ? 1 : 0;
        if (coords != nullptr) coords[i] = mine[d];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
    Call call("MPI_Cart_rank");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_cart(call, comm, c, t)) return rc;
    if (int rc = call.not_null(rank, "rank")) return rc;
    std::vector<int> wrapped(t->dims.size());
    for (std::size_t d = 0; d < t->dims.size(); ++d) {
        const int extent = t->dims[d];
        if (!t->periods[d] && (coords[d] < 0 || coords[d] >= extent))
            return call.fail(MPI_ERR_ARG,
                             "coords[{}] is {}, outside the non-periodic dimension 0..{}", d,
                             coords[d], extent - 1);
        wrapped[d] = ((coords[d] % extent) + extent) % extent;
    }
    *rank = cart_rank(*t, wrapped);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
    Call call("MPI_Cart_coords");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_cart(call, comm, c, t)) return rc;
    if (int rc = check_rank(call, *c, rank)) return rc;
    const auto n = static_cast<int>(t->dims.size());
    if (maxdims < n)
        return call.fail(MPI_ERR_ARG, "maxdims is {}; the topology has {} dimensions", maxdims, n);
    const std::vector<int> mine = cart_coords(*t, rank);
    std::copy(mine.begin(), mine.end(), coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
    Call call("MPI_Cart_shift");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_cart(call, comm, c, t)) return rc;
    if (int rc = call.not_null(rank_source, "rank_source")) return rc;
    if (int rc = call.not_null(rank_dest, "rank_dest")) return rc;
    if (direction < 0 || direction >= static_cast<int>(t->dims.size()))
        return call.fail(MPI_ERR_ARG, "direction is {}; the topology has dimensions 0..{}",
                         direction, static_cast<int>(t->dims.size()) - 1);
    *rank_source = cart_neighbor(*t, c->rank, direction, -disp);
    *rank_dest = cart_neighbor(*t, c->rank, direction, disp);
    return MPI_SUCCESS;
}

// A split: ranks that agree on the coordinates of the dropped dimensions
// form one subgrid, in the grid's order.
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
    Call call("MPI_Cart_sub");
    Communicator* c = nullptr;
    const Topology* t = nullptr;
    if (int rc = start_cart(call, comm, c, t)) return rc;
    if (int rc = call.not_null(newcomm, "newcomm")) return rc;
    if (!t->dims.empty())
        if (int rc = call.not_null(remain_dims, "remain_dims")) return rc;
    Topology sub;
    sub.kind = MPI_CART;
    std::vector<int> members;
    const std::vector<int> mine = cart_coords(*t, c->rank);
    for (int r = 0; r < c->size(); ++r) {
        const std::vector<int> theirs = cart_coords(*t, r);
        bool same = true;
        for (std::size_t d = 0; d < t->dims.size(); ++d)
            if (!remain_dims[d] && theirs[d] != mine[d]) same = false;
        if (same) members.push_back(r);
    }
    for (std::size_t d = 0; d < t->dims.size(); ++d)
        if (remain_dims[d]) {
            sub.dims.push_back(t->dims[d]);
            sub.periods.push_back(t->periods[d]);
        }
    std::vector<int> world_of;
    int new_rank = 0;
    for (const int r : members) {
        if (r == c->rank) new_rank = static_cast<int>(world_of.size());
        world_of.push_back(c->world_of[static_cast<std::size_t>(r)]);
    }
    // Every rank of comm takes part in one agreement over comm.
    if (int rc = create_communicator(call, *c, std::move(world_of), new_rank, true, newcomm))
        return rc;
    attach_topology(*newcomm, std::move(sub));
    return MPI_SUCCESS;
}

}  // extern "C"
