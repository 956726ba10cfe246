#include "api/collective_args.hpp"

#include <fmt/format.h>

namespace si::api {

int start_collective(Call& call, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    return call.communicator(comm, c);
}

int start_intra_collective(Call& call, MPI_Comm comm, Communicator*& c) {
    if (int rc = call.initialized()) return rc;
    return call.intracommunicator(comm, c);
}

// MPI_ERR_BUFFER, as MPICH reports a misplaced MPI_IN_PLACE.
int refuse_in_place(Call& call, const void* buffer, const char* argument, const char* where) {
    if (!in_place(buffer)) return MPI_SUCCESS;
    return call.fail(MPI_ERR_BUFFER, "{} is MPI_IN_PLACE, which is allowed {}", argument, where);
}

int refuse_in_place_inter(Call& call, const Communicator& c, const void* buffer,
                          const char* argument) {
    if (!c.inter()) return MPI_SUCCESS;
    return refuse_in_place(call, buffer, argument, kNowhereOnInter);
}

int finish_collective(Call& call, int error_class, const std::string& detail) {
    if (error_class == MPI_SUCCESS) return MPI_SUCCESS;
    return call.fail(error_class, "{}", detail.empty() ? "the collective failed" : detail);
}

int reduce_arguments(Call& call, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, const datatype::Type*& type,
                     const datatype::Op*& reduction) {
    if (int rc = call.message(in_place(sendbuf) ? recvbuf : sendbuf, count, datatype, type,
                              in_place(sendbuf) ? "recvbuf" : "sendbuf"))
        return rc;
    return call.reduction(op, *type, reduction);
}

namespace {

// The arrays exist (unless they have no entries) and the buffer is not
// MPI_IN_PLACE.
int check_arrays(Call& call, const void* buffer, const int* counts, const void* displs, int ranks,
                 const VectorNames& names) {
    if (ranks > 0) {
        if (int rc = call.not_null(counts, names.counts)) return rc;
        if (int rc = call.not_null(displs, names.displs)) return rc;
    }
    return refuse_in_place(call, buffer, names.buffer, names.in_place_allowed);
}

// Block i: a non-negative count, and a buffer unless the type may address
// absolute memory (MPI_BOTTOM) or the block is empty.
int check_block(Call& call, const void* buffer, int count, const datatype::Type& type, int i,
                const VectorNames& names) {
    if (count < 0)
        return call.fail(MPI_ERR_COUNT, "{}[{}] is {}; it must be 0 or more", names.counts, i,
                         count);
    if (buffer == nullptr && count > 0 && type.predefined && type.size > 0)
        return call.fail(MPI_ERR_BUFFER, "{} is NULL while {}[{}] is {}", names.buffer,
                         names.counts, i, count);
    return MPI_SUCCESS;
}

}  // namespace

int vector_layout(Call& call, const void* buffer, const int* counts, const int* displs,
                  MPI_Datatype datatype, int ranks, const VectorNames& names,
                  std::vector<BlockBuffer::Layout>& out) {
    if (int rc = check_arrays(call, buffer, counts, displs, ranks, names)) return rc;
    const datatype::Type* type = nullptr;
    if (int rc = call.datatype(datatype, type, names.datatype)) return rc;
    out.clear();
    out.reserve(items(ranks));
    const auto extent = static_cast<std::ptrdiff_t>(type->extent);
    for (int i = 0; i < ranks; ++i) {
        if (int rc = check_block(call, buffer, counts[i], *type, i, names)) return rc;
        out.push_back({displs[i] * extent, items(counts[i]), type});
    }
    return MPI_SUCCESS;
}

template <typename Displacement>
int w_layout(Call& call, const void* buffer, const int* counts, const Displacement* displs,
             const MPI_Datatype* datatypes, int ranks, const VectorNames& names,
             std::vector<BlockBuffer::Layout>& out) {
    if (int rc = check_arrays(call, buffer, counts, displs, ranks, names)) return rc;
    if (ranks > 0)
        if (int rc = call.not_null(datatypes, names.datatype)) return rc;
    out.clear();
    out.reserve(items(ranks));
    for (int i = 0; i < ranks; ++i) {
        const datatype::Type* type = nullptr;
        const std::string argument = fmt::format("{}[{}]", names.datatype, i);
        if (int rc = call.datatype(datatypes[i], type, argument.c_str())) return rc;
        if (int rc = check_block(call, buffer, counts[i], *type, i, names)) return rc;
        out.push_back({static_cast<std::ptrdiff_t>(displs[i]), items(counts[i]), type});
    }
    return MPI_SUCCESS;
}

template int w_layout<int>(Call&, const void*, const int*, const int*, const MPI_Datatype*, int,
                           const VectorNames&, std::vector<BlockBuffer::Layout>&);
template int w_layout<MPI_Aint>(Call&, const void*, const int*, const MPI_Aint*,
                                const MPI_Datatype*, int, const VectorNames&,
                                std::vector<BlockBuffer::Layout>&);

int exchange_arguments(Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       const datatype::Type*& stype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, const datatype::Type*& rtype) {
    if (!in_place(sendbuf))
        if (int rc = call.message(sendbuf, sendcount, sendtype, stype, "sendbuf", "sendcount",
                                  "sendtype"))
            return rc;
    if (int rc =
            call.message(recvbuf, recvcount, recvtype, rtype, "recvbuf", "recvcount", "recvtype"))
        return rc;
    return refuse_in_place(call, recvbuf, "recvbuf", "for sendbuf only");
}

}  // namespace si::api
