// MPI_Pack, MPI_Unpack, MPI_Pack_size and MPI_Get_address: the user's view
// of the packed form the library sends (datatype.hpp).
#include <cstdint>

#include "api/errors.hpp"
#include "datatype/datatype.hpp"

namespace si::api {

namespace {

// A position inside a packing buffer of `size` bytes, with room for `bytes` more.
int room_at(Call& call, int size, const int* position, std::size_t bytes, const char* what) {
    if (int rc = call.not_null(position, "position")) return rc;
    if (size < 0)
        return call.fail(MPI_ERR_ARG, "the buffer size is {}; it must be 0 or more", size);
    if (*position < 0 || *position > size)
        return call.fail(MPI_ERR_ARG, "position is {}; it must lie in 0..{} (the buffer size)",
                         *position, size);
    if (bytes > static_cast<std::size_t>(size - *position))
        return call.fail(MPI_ERR_TRUNCATE, "{} {} bytes at position {}, but the buffer has {}",
                         what, bytes, *position, size);
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
              int* position, MPI_Comm comm) {
    Call call("MPI_Pack");
    const si::datatype::Type* type = nullptr;
    if (int rc = call.message(inbuf, incount, datatype, type, "inbuf", "incount")) return rc;
    const std::size_t bytes = type->bytes(static_cast<std::size_t>(incount));
    if (int rc = room_at(call, outsize, position, bytes, "packing needs")) return rc;
    if (bytes > 0 && outbuf == nullptr) return call.fail(MPI_ERR_BUFFER, "outbuf is NULL");
    si::datatype::pack(*type, inbuf, static_cast<std::size_t>(incount),
                       static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<int>(bytes);
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
    Call call("MPI_Unpack");
    const si::datatype::Type* type = nullptr;
    if (int rc = call.message(outbuf, outcount, datatype, type, "outbuf", "outcount")) return rc;
    const std::size_t bytes = type->bytes(static_cast<std::size_t>(outcount));
    if (int rc = room_at(call, insize, position, bytes, "unpacking reads")) return rc;
    if (bytes > 0 && inbuf == nullptr) return call.fail(MPI_ERR_BUFFER, "inbuf is NULL");
    si::datatype::unpack(*type, static_cast<const std::byte*>(inbuf) + *position, bytes, outbuf);
    *position += static_cast<int>(bytes);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
    Call call("MPI_Pack_size");
    const si::datatype::Type* type = nullptr;
    if (int rc = call.count(incount, "incount")) return rc;
    if (int rc = call.datatype(datatype, type)) return rc;
    if (int rc = call.not_null(size, "size")) return rc;
    const std::size_t bytes = type->bytes(static_cast<std::size_t>(incount));
    if (bytes > INT32_MAX)
        return call.fail(MPI_ERR_COUNT, "{} items of {} pack into {} bytes, more than an int holds",
                         incount, type->name, bytes);
    *size = static_cast<int>(bytes);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void* location, MPI_Aint* address) {
    Call call("MPI_Get_address");
    if (int rc = call.not_null(address, "address")) return rc;
    *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
    return MPI_SUCCESS;
}

#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
    return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) +
                                 static_cast<std::uintptr_t>(disp));
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
    return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) -
                                 static_cast<std::uintptr_t>(addr2));
}

}  // extern "C"
