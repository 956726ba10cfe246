// MPI_Pack, MPI_Unpack, MPI_Pack_size and MPI_Get_address: the user's view
// of the packed form the library sends (datatype.hpp); MPI_Pack_external and
// friends: the portable form, external32.
#include <cstdint>
#include <cstring>
#include <string_view>

#include "api/errors.hpp"
#include "datatype/datatype.hpp"

namespace si::api {

namespace {

// A position inside a packing buffer of `size` bytes, with room for `bytes`
// more (an int for MPI_Pack, an MPI_Aint for MPI_Pack_external).
template <typename Bytes>
int room_at(Call& call, Bytes size, const Bytes* position, std::size_t bytes, const char* what) {
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

// The data representation of MPI_Pack_external and friends: "external32" is
// the only one MPI-3.1 defines (section 13.5.2).
int external32(Call& call, const char* datarep) {
    if (int rc = call.not_null(datarep, "datarep")) return rc;
    if (std::strcmp(datarep, "external32") == 0) return MPI_SUCCESS;
    // Quoted up to a sensible length, in case it is not a string at all.
    const std::string_view given(datarep, strnlen(datarep, 64));
    return call.fail(MPI_ERR_ARG,
                     "datarep is \"{}\"; the only data representation is \"external32\"", given);
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

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                       void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
    Call call("MPI_Pack_external");
    if (int rc = external32(call, datarep)) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.message(inbuf, incount, datatype, type, "inbuf", "incount")) return rc;
    const std::size_t bytes =
        si::datatype::external32_bytes(*type, static_cast<std::size_t>(incount));
    if (int rc = room_at(call, outsize, position, bytes, "packing needs")) return rc;
    if (bytes > 0 && outbuf == nullptr) return call.fail(MPI_ERR_BUFFER, "outbuf is NULL");
    si::datatype::pack_external32(*type, inbuf, static_cast<std::size_t>(incount),
                                  static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<MPI_Aint>(bytes);
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                         MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype) {
    Call call("MPI_Unpack_external");
    if (int rc = external32(call, datarep)) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.message(outbuf, outcount, datatype, type, "outbuf", "outcount")) return rc;
    const std::size_t bytes =
        si::datatype::external32_bytes(*type, static_cast<std::size_t>(outcount));
    if (int rc = room_at(call, insize, position, bytes, "unpacking reads")) return rc;
    if (bytes > 0 && inbuf == nullptr) return call.fail(MPI_ERR_BUFFER, "inbuf is NULL");
    si::datatype::unpack_external32(*type, static_cast<const std::byte*>(inbuf) + *position,
                                    static_cast<std::size_t>(outcount), outbuf);
    *position += static_cast<MPI_Aint>(bytes);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint* size) {
    Call call("MPI_Pack_external_size");
    if (int rc = external32(call, datarep)) return rc;
    const si::datatype::Type* type = nullptr;
    if (int rc = call.count(incount, "incount")) return rc;
    if (int rc = call.datatype(datatype, type)) return rc;
    if (int rc = call.not_null(size, "size")) return rc;
    const std::size_t item = si::datatype::external32_bytes(*type, 1);
    MPI_Aint bytes = 0;
    if (__builtin_mul_overflow(item, static_cast<std::size_t>(incount), &bytes))
        return call.fail(MPI_ERR_COUNT,
                         "{} items of {} take {} bytes each in external32, more than an "
                         "MPI_Aint holds",
                         incount, type->name, item);
    *size = bytes;
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
