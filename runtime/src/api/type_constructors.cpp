// Derived datatype constructors: argument checks, then each is described to
// the datatype layer as its pieces (count items of an old type at a byte
// displacement) in type-map order.
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/attributes.hpp"
#include "api/errors.hpp"
#include "datatype/datatype.hpp"

namespace si::api {

namespace {

using datatype::Piece;

// The old type's extent, and the checks every constructor shares.
int old_type(Call& call, MPI_Datatype handle, const datatype::Type*& out, MPI_Datatype* newtype,
             const char* argument = "oldtype") {
    if (int rc = call.any_datatype(handle, out, argument)) return rc;
    return call.not_null(newtype, "newtype");
}

int lengths(Call& call, int count, const int* blocklengths, const char* argument) {
    if (count > 0)
        if (int rc = call.not_null(blocklengths, argument)) return rc;
    for (int i = 0; i < count; ++i)
        if (blocklengths[i] < 0)
            return call.fail(MPI_ERR_ARG, "{}[{}] is {}; block lengths must be 0 or more", argument,
                             i, blocklengths[i]);
    return MPI_SUCCESS;
}

int build(Call& call, const std::vector<Piece>& pieces, bool is_struct, const std::string& name,
          MPI_Datatype* newtype) {
    int error_class = MPI_SUCCESS;
    try {
        error_class = datatype::create_from_pieces(pieces, is_struct, name, *newtype);
    } catch (const std::bad_alloc&) {
        return call.fail(MPI_ERR_NO_MEM,
                         "cannot build {}: no memory for its type map ({} pieces; this runtime "
                         "keeps every run of bytes of a derived type)",
                         name, pieces.size());
    }
    if (error_class == MPI_SUCCESS) return MPI_SUCCESS;
    return call.fail(error_class, "cannot build {}: {}", name,
                     error_class == MPI_ERR_COUNT  ? "its size overflows"
                     : error_class == MPI_ERR_TYPE ? "an old type was freed meanwhile"
                                                   : "its type map has too many runs, or too "
                                                     "many derived datatypes exist");
}

// Records how newtype was made, for MPI_Type_get_envelope/get_contents.
// The old types are valid: the constructor has just used them.
void record(MPI_Datatype newtype, int combiner, std::vector<int> integers,
            std::vector<std::ptrdiff_t> addresses, std::vector<MPI_Datatype> handles) {
    datatype::Envelope envelope{combiner, std::move(integers), std::move(addresses), {}, {}};
    for (const MPI_Datatype h : handles) envelope.types.push_back(*datatype::lookup(h));
    envelope.handles = std::move(handles);
    (void)datatype::set_envelope(newtype, std::move(envelope));
}

// A run of consecutive indices along one dimension of an array.
struct IndexRun {
    int start;
    int length;
};

// The type of the elements of an array (sizes[d] along dimension d, in C or
// Fortran order) whose index along each dimension d falls in owned[d]:
// subarrays and distributed arrays. It spans the whole array (lb 0, the
// array's extent), so that consecutive ones tile a sequence of arrays.
int build_array(Call& call, int ndims, const int* sizes,
                const std::vector<std::vector<IndexRun>>& owned, int order, MPI_Datatype oldtype,
                const datatype::Type& old, const std::string& name, int combiner,
                std::vector<int> integers, MPI_Datatype* newtype) {
    // Dimensions from the fastest varying; each run of the fastest is a piece.
    std::vector<int> dims(static_cast<std::size_t>(ndims));
    for (int k = 0; k < ndims; ++k)
        dims[static_cast<std::size_t>(k)] = order == MPI_ORDER_C ? ndims - 1 - k : k;
    const auto extent = static_cast<MPI_Aint>(old.extent);
    std::vector<MPI_Aint> stride(static_cast<std::size_t>(ndims));
    MPI_Aint total = 1;
    for (int k = 0; k < ndims; ++k) {
        stride[static_cast<std::size_t>(k)] = total * extent;
        total *= sizes[dims[static_cast<std::size_t>(k)]];
    }
    // Every index of the slower dimensions, odometer style; the fastest
    // contributes its runs.
    std::vector<std::vector<int>> indices(static_cast<std::size_t>(ndims));
    for (int k = 1; k < ndims; ++k)
        for (const IndexRun& run :
             owned[static_cast<std::size_t>(dims[static_cast<std::size_t>(k)])])
            for (int i = 0; i < run.length; ++i)
                indices[static_cast<std::size_t>(k)].push_back(run.start + i);
    bool empty = false;
    for (int k = 0; k < ndims; ++k)
        empty = empty || owned[static_cast<std::size_t>(dims[static_cast<std::size_t>(k)])].empty();
    std::vector<Piece> pieces;
    std::vector<std::size_t> position(static_cast<std::size_t>(ndims), 0);
    while (!empty) {
        MPI_Aint offset = 0;
        for (int k = 1; k < ndims; ++k)
            offset += indices[static_cast<std::size_t>(k)][position[static_cast<std::size_t>(k)]] *
                      stride[static_cast<std::size_t>(k)];
        for (const IndexRun& run : owned[static_cast<std::size_t>(dims[0])])
            pieces.push_back(Piece{oldtype, offset + run.start * stride[0],
                                   static_cast<std::size_t>(run.length)});
        int k = 1;
        for (; k < ndims; ++k) {
            auto& p = position[static_cast<std::size_t>(k)];
            if (++p < indices[static_cast<std::size_t>(k)].size()) break;
            p = 0;
        }
        if (k == ndims) break;
    }
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    if (int rc = build(call, pieces, false, name, &inner)) return rc;
    const int error_class =
        datatype::create_resized(inner, 0, total * extent, *newtype);
    (void)datatype::free_type(inner);
    if (error_class != MPI_SUCCESS)
        return call.fail(error_class, "cannot build {}: too many derived datatypes exist", name);
    record(*newtype, combiner, std::move(integers), {}, {oldtype});
    return MPI_SUCCESS;
}

// The indices along one dimension of a distributed array that the process
// at `coord` of `processes` owns (MPI-3.1 section 4.1.4).
int distribute(Call& call, int d, int gsize, int distrib, int darg, int processes, int coord,
               std::vector<IndexRun>& runs) {
    if (gsize < 1 || processes < 1)
        return call.fail(MPI_ERR_ARG, "dimension {}: gsize {} and psize {} must be 1 or more", d,
                         gsize, processes);
    switch (distrib) {
        case MPI_DISTRIBUTE_NONE:
            if (processes != 1)
                return call.fail(MPI_ERR_ARG,
                                 "dimension {} is MPI_DISTRIBUTE_NONE over {} processes; it "
                                 "needs psize 1",
                                 d, processes);
            runs.push_back({0, gsize});
            return MPI_SUCCESS;
        case MPI_DISTRIBUTE_BLOCK: {
            const int block =
                darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + processes - 1) / processes : darg;
            if (block < 1 || static_cast<long long>(block) * processes < gsize)
                return call.fail(MPI_ERR_ARG,
                                 "dimension {}: a block of {} over {} processes does not cover "
                                 "{} elements",
                                 d, block, processes, gsize);
            const long long start = static_cast<long long>(block) * coord;
            if (start < gsize)
                runs.push_back({static_cast<int>(start),
                                static_cast<int>(std::min<long long>(block, gsize - start))});
            return MPI_SUCCESS;
        }
        case MPI_DISTRIBUTE_CYCLIC: {
            const int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
            if (block < 1)
                return call.fail(MPI_ERR_ARG, "dimension {}: cyclic block {}; it must be 1 or more",
                                 d, block);
            for (long long start = static_cast<long long>(block) * coord; start < gsize;
                 start += static_cast<long long>(block) * processes)
                runs.push_back({static_cast<int>(start),
                                static_cast<int>(std::min<long long>(block, gsize - start))});
            return MPI_SUCCESS;
        }
        default:
            return call.fail(MPI_ERR_ARG,
                             "array_of_distribs[{}] is {}; use MPI_DISTRIBUTE_BLOCK, "
                             "MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE",
                             d, distrib);
    }
}

// count blocks of blocklength items, block i starting at i * stride_bytes.
std::vector<Piece> strided(int count, int blocklength, MPI_Aint stride_bytes, MPI_Datatype old) {
    std::vector<Piece> pieces(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        pieces[static_cast<std::size_t>(i)] =
            Piece{old, i * stride_bytes, static_cast<std::size_t>(blocklength)};
    return pieces;
}

template <typename Displacement>
std::vector<Piece> listed(int count, const int* blocklengths, int same_length,
                          const Displacement* displacements, MPI_Aint scale, MPI_Datatype old) {
    std::vector<Piece> pieces(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        pieces[static_cast<std::size_t>(i)] = Piece{
            old, static_cast<MPI_Aint>(displacements[i]) * scale,
            static_cast<std::size_t>(blocklengths != nullptr ? blocklengths[i] : same_length)};
    return pieces;
}

int vector_like(const char* function, int count, int blocklength, MPI_Aint stride,
                bool stride_in_bytes, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    Call call(function);
    const datatype::Type* old = nullptr;
    if (int rc = call.count(count)) return rc;
    if (int rc = call.count(blocklength, "blocklength")) return rc;
    if (int rc = old_type(call, oldtype, old, newtype)) return rc;
    const MPI_Aint stride_bytes = stride_in_bytes ? stride : stride * MPI_Aint(old->extent);
    // Blocks that do not touch are runs of their own: refuse what the type map
    // cannot hold before allocating a piece per block (MPICH's
    // datatype/large_count asks for 2^30 of them).
    const bool blocks_touch = old->contiguous && stride_bytes == blocklength * old->extent;
    if (!blocks_touch && static_cast<std::size_t>(count) > datatype::kMaxBlocks)
        return call.fail(MPI_ERR_INTERN,
                         "count {} is too large: this runtime keeps every run of bytes of a "
                         "derived type, at most {} per type, and each block of this {} is one",
                         count, datatype::kMaxBlocks, stride_in_bytes ? "hvector" : "vector");
    if (int rc = build(
            call, strided(count, blocklength, stride_bytes, oldtype), false,
            fmt::format("{}({} x {} x {}, stride {}{})", stride_in_bytes ? "hvector" : "vector",
                        count, blocklength, old->name, stride, stride_in_bytes ? " B" : ""),
            newtype))
        return rc;
    if (stride_in_bytes)
        record(*newtype, MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}, {oldtype});
    else
        record(*newtype, MPI_COMBINER_VECTOR, {count, blocklength, static_cast<int>(stride)}, {},
               {oldtype});
    return MPI_SUCCESS;
}

template <typename Displacement>
int indexed_like(const char* function, int count, const int* blocklengths, int same_length,
                 const Displacement* displacements, bool in_bytes, MPI_Datatype oldtype,
                 MPI_Datatype* newtype) {
    Call call(function);
    const datatype::Type* old = nullptr;
    if (int rc = call.count(count)) return rc;
    if (blocklengths != nullptr || count == 0) {
        if (int rc = lengths(call, count, blocklengths, "array_of_blocklengths")) return rc;
    } else if (int rc = call.count(same_length, "blocklength")) {
        return rc;
    }
    if (count > 0)
        if (int rc = call.not_null(displacements, "array_of_displacements")) return rc;
    if (int rc = old_type(call, oldtype, old, newtype)) return rc;
    const MPI_Aint scale = in_bytes ? 1 : MPI_Aint(old->extent);
    if (int rc = build(
            call, listed(count, blocklengths, same_length, displacements, scale, oldtype), false,
            fmt::format("{}{}({} blocks of {})", in_bytes ? "h" : "",
                        blocklengths != nullptr ? "indexed" : "indexed_block", count, old->name),
            newtype))
        return rc;
    // The standard's order: count, the block length(s), then the
    // displacements, among the integers or the addresses.
    std::vector<int> integers{count};
    if (blocklengths != nullptr)
        integers.insert(integers.end(), blocklengths, blocklengths + count);
    else
        integers.push_back(same_length);
    std::vector<std::ptrdiff_t> addresses;
    for (int i = 0; i < count; ++i) {
        if (in_bytes)
            addresses.push_back(static_cast<std::ptrdiff_t>(displacements[i]));
        else
            integers.push_back(static_cast<int>(displacements[i]));
    }
    const int combiner =
        blocklengths != nullptr
            ? (in_bytes ? MPI_COMBINER_HINDEXED : MPI_COMBINER_INDEXED)
            : (in_bytes ? MPI_COMBINER_HINDEXED_BLOCK : MPI_COMBINER_INDEXED_BLOCK);
    record(*newtype, combiner, std::move(integers), std::move(addresses), {oldtype});
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    Call call("MPI_Type_contiguous");
    const si::datatype::Type* old = nullptr;
    if (int rc = call.count(count)) return rc;
    if (int rc = old_type(call, oldtype, old, newtype)) return rc;
    const Piece piece{oldtype, 0, static_cast<std::size_t>(count)};
    if (int rc = build(call, {piece}, false, fmt::format("contiguous({} x {})", count, old->name),
                       newtype))
        return rc;
    record(*newtype, MPI_COMBINER_CONTIGUOUS, {count}, {}, {oldtype});
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
    return vector_like("MPI_Type_vector", count, blocklength, stride, false, oldtype, newtype);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
    return vector_like("MPI_Type_create_hvector", count, blocklength, stride, true, oldtype,
                       newtype);
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
    return indexed_like("MPI_Type_indexed", count, array_of_blocklengths, 0, array_of_displacements,
                        false, oldtype, newtype);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
    return indexed_like("MPI_Type_create_hindexed", count, array_of_blocklengths, 0,
                        array_of_displacements, true, oldtype, newtype);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return indexed_like<int>("MPI_Type_create_indexed_block", count, nullptr, blocklength,
                             array_of_displacements, false, oldtype, newtype);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype* newtype) {
    return indexed_like<MPI_Aint>("MPI_Type_create_hindexed_block", count, nullptr, blocklength,
                                  array_of_displacements, true, oldtype, newtype);
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
    Call call("MPI_Type_create_struct");
    if (int rc = call.count(count)) return rc;
    if (int rc = lengths(call, count, array_of_blocklengths, "array_of_blocklengths")) return rc;
    if (count > 0) {
        if (int rc = call.not_null(array_of_displacements, "array_of_displacements")) return rc;
        if (int rc = call.not_null(array_of_types, "array_of_types")) return rc;
    }
    if (int rc = call.not_null(newtype, "newtype")) return rc;
    std::vector<Piece> pieces(static_cast<std::size_t>(count));
    std::string members;
    for (int i = 0; i < count; ++i) {
        const si::datatype::Type* member = nullptr;
        const std::string argument = fmt::format("array_of_types[{}]", i);
        if (int rc = call.any_datatype(array_of_types[i], member, argument.c_str())) return rc;
        pieces[static_cast<std::size_t>(i)] =
            Piece{array_of_types[i], array_of_displacements[i],
                  static_cast<std::size_t>(array_of_blocklengths[i])};
        members +=
            fmt::format("{}{} x {}", i == 0 ? "" : ", ", array_of_blocklengths[i], member->name);
    }
    if (int rc = build(call, pieces, true, fmt::format("struct({})", members), newtype)) return rc;
    std::vector<int> integers{count};
    integers.insert(integers.end(), array_of_blocklengths, array_of_blocklengths + count);
    record(*newtype, MPI_COMBINER_STRUCT, std::move(integers),
           std::vector<std::ptrdiff_t>(array_of_displacements, array_of_displacements + count),
           std::vector<MPI_Datatype>(array_of_types, array_of_types + count));
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
    Call call("MPI_Type_create_subarray");
    const si::datatype::Type* old = nullptr;
    if (ndims <= 0) return call.fail(MPI_ERR_ARG, "ndims is {}; it must be 1 or more", ndims);
    if (int rc = call.not_null(array_of_sizes, "array_of_sizes")) return rc;
    if (int rc = call.not_null(array_of_subsizes, "array_of_subsizes")) return rc;
    if (int rc = call.not_null(array_of_starts, "array_of_starts")) return rc;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return call.fail(MPI_ERR_ARG, "order is {}; use MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    for (int d = 0; d < ndims; ++d) {
        const int size = array_of_sizes[d], sub = array_of_subsizes[d], start = array_of_starts[d];
        if (size < 1 || sub < 1 || sub > size || start < 0 || start > size - sub)
            return call.fail(MPI_ERR_ARG,
                             "dimension {}: size {}, subsize {}, start {}; valid are size >= 1, "
                             "1 <= subsize <= size, 0 <= start <= size - subsize",
                             d, size, sub, start);
    }
    if (int rc = old_type(call, oldtype, old, newtype)) return rc;
    std::vector<std::vector<IndexRun>> owned(static_cast<std::size_t>(ndims));
    for (int d = 0; d < ndims; ++d)
        owned[static_cast<std::size_t>(d)] = {{array_of_starts[d], array_of_subsizes[d]}};
    std::vector<int> integers{ndims};
    for (const int* array : {array_of_sizes, array_of_subsizes, array_of_starts})
        integers.insert(integers.end(), array, array + ndims);
    integers.push_back(order);
    return build_array(call, ndims, array_of_sizes, owned, order, oldtype, *old,
                       fmt::format("subarray({} dims of {})", ndims, old->name),
                       MPI_COMBINER_SUBARRAY, std::move(integers), newtype);
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
    Call call("MPI_Type_create_darray");
    const si::datatype::Type* old = nullptr;
    if (ndims <= 0) return call.fail(MPI_ERR_ARG, "ndims is {}; it must be 1 or more", ndims);
    for (const auto& [array, name] : {std::pair{array_of_gsizes, "array_of_gsizes"},
                                      {array_of_distribs, "array_of_distribs"},
                                      {array_of_dargs, "array_of_dargs"},
                                      {array_of_psizes, "array_of_psizes"}})
        if (int rc = call.not_null(array, name)) return rc;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return call.fail(MPI_ERR_ARG, "order is {}; use MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    long long processes = 1;
    for (int d = 0; d < ndims; ++d) processes *= array_of_psizes[d];
    if (size < 1 || processes != size || rank < 0 || rank >= size)
        return call.fail(MPI_ERR_ARG,
                         "size {}, rank {}: the process grid must have size processes "
                         "(its product is {}) and 0 <= rank < size",
                         size, rank, processes);
    if (int rc = old_type(call, oldtype, old, newtype)) return rc;
    // The process grid is row-major whatever the array's order.
    std::vector<std::vector<IndexRun>> owned(static_cast<std::size_t>(ndims));
    for (int d = ndims - 1, rest = rank; d >= 0; --d) {
        const int coord = rest % array_of_psizes[d];
        rest /= array_of_psizes[d];
        if (int rc =
                distribute(call, d, array_of_gsizes[d], array_of_distribs[d], array_of_dargs[d],
                           array_of_psizes[d], coord, owned[static_cast<std::size_t>(d)]))
            return rc;
    }
    std::vector<int> integers{size, rank, ndims};
    for (const int* array : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes})
        integers.insert(integers.end(), array, array + ndims);
    integers.push_back(order);
    return build_array(
        call, ndims, array_of_gsizes, owned, order, oldtype, *old,
        fmt::format("darray({} dims of {}, rank {} of {})", ndims, old->name, rank, size),
        MPI_COMBINER_DARRAY, std::move(integers), newtype);
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype* newtype) {
    Call call("MPI_Type_create_resized");
    const si::datatype::Type* old = nullptr;
    if (int rc = old_type(call, oldtype, old, newtype)) return rc;
    if (int error_class = si::datatype::create_resized(oldtype, lb, extent, *newtype))
        return call.fail(error_class, "cannot resize {}: too many derived datatypes exist",
                         old->name);
    record(*newtype, MPI_COMBINER_RESIZED, {}, {lb, extent}, {oldtype});
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
    Call call("MPI_Type_dup");
    const si::datatype::Type* old = nullptr;
    if (int rc = old_type(call, oldtype, old, newtype)) return rc;
    if (int error_class = si::datatype::create_dup(oldtype, *newtype))
        return call.fail(error_class, "cannot duplicate {}: too many derived datatypes exist",
                         old->name);
    // A duplicate of a committed type is committed (MPI-3.1 section 4.1.10).
    if (old->committed) (void)si::datatype::commit(*newtype);
    record(*newtype, MPI_COMBINER_DUP, {}, {}, {oldtype});
    if (int rc = copy_attributes(call, AttributeHost::datatype, oldtype, *newtype)) {
        // A copy callback failed: no duplicate (as MPICH, MPI_DATATYPE_NULL).
        discard_attributes(AttributeHost::datatype, *newtype);
        (void)si::datatype::free_type(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return rc;
    }
    return MPI_SUCCESS;
}

}  // extern "C"
