// Integer handles (datatype/handle_bits.hpp: MPICH's layout). The kinds are
// MPICH's where mpi.h has predefined handles of them; a message and a
// persistent request, which MPICH makes requests, have kinds of their own
// (MPI_MESSAGE_NULL and MPI_MESSAGE_NO_PROC keep MPICH's request values).
#pragma once

#include <cstdint>

#include "datatype/handle_bits.hpp"
#include "mpi.h"

namespace si::api {

enum class HandleKind : int {
    communicator = 1,
    group = 2,
    datatype = 3,
    errhandler = 5,
    op = 6,
    info = 7,
    window = 8,
    keyval = 9,  // attribute keys
    request = 11,
    message = 12,             // MPI_Message
    persistent_request = 13,  // an MPI_Request made by MPI_*_init
};

// A handle this library creates at run time.
constexpr int make_handle(HandleKind kind, int index) {
    return handle::make(static_cast<int>(kind), handle::Storage::created,
                        static_cast<std::uint32_t>(index));
}
constexpr int make_predefined(HandleKind kind, int index) {
    return handle::make(static_cast<int>(kind), handle::Storage::predefined,
                        static_cast<std::uint32_t>(index));
}
constexpr int null_handle(HandleKind kind) {
    return handle::make(static_cast<int>(kind), handle::Storage::null, 0);
}
// Whether a handle is of `kind`, its null handle included.
constexpr bool is_kind(int handle, HandleKind kind) {
    return handle::kind_of(handle) == static_cast<int>(kind);
}
// Whether it names an object of `kind` (predefined or created, not null).
constexpr bool names_object(int handle, HandleKind kind) {
    return handle::names_object(handle, static_cast<int>(kind));
}
constexpr int handle_index(int handle) {
    return static_cast<int>(handle::index_of(handle));
}

// A request's index field holds its pool index + 1 in the low bits and the
// low bits of its generation above them, so that a handle kept after its
// request was freed and the slot reused names nothing (MPI_ERR_REQUEST)
// rather than the new request, unless the slot was reused a multiple of
// 2^kRequestGenerationBits times since.
constexpr int kRequestSlotBits = 20;
constexpr int kRequestGenerationBits = handle::kKindShift - kRequestSlotBits;
constexpr int kMaxRequestSlots = (1 << kRequestSlotBits) - 1;  // index 0 is MPI_REQUEST_NULL
constexpr int make_request_handle(int slot, std::uint32_t generation) {
    const auto low_generation =
        static_cast<int>(generation & ((1u << kRequestGenerationBits) - 1));
    return make_handle(HandleKind::request, low_generation << kRequestSlotBits | slot);
}
constexpr int request_slot(int handle) { return handle & ((1 << kRequestSlotBits) - 1); }
constexpr bool same_generation(int handle, std::uint32_t generation) {
    return make_request_handle(request_slot(handle), generation) == handle;
}

const char* kind_name(int handle);

static_assert(MPI_COMM_NULL == null_handle(HandleKind::communicator));
static_assert(MPI_COMM_WORLD == make_predefined(HandleKind::communicator, 0));
static_assert(MPI_GROUP_EMPTY == make_predefined(HandleKind::group, 0));
static_assert(MPI_REQUEST_NULL == null_handle(HandleKind::request));
static_assert(MPI_MESSAGE_NO_PROC == make_predefined(HandleKind::request, 0));
static_assert(MPI_KEYVAL_INVALID == null_handle(HandleKind::keyval));
static_assert(MPI_ERRORS_RETURN == make_predefined(HandleKind::errhandler, 1));
static_assert(MPI_INFO_ENV == make_predefined(HandleKind::info, 1));
static_assert(MPI_WIN_NULL == null_handle(HandleKind::window));
static_assert(MPI_DATATYPE_NULL == null_handle(HandleKind::datatype) &&
              MPI_OP_NULL == null_handle(HandleKind::op) &&
              MPI_GROUP_NULL == null_handle(HandleKind::group) &&
              MPI_INFO_NULL == null_handle(HandleKind::info) &&
              MPI_ERRHANDLER_NULL == null_handle(HandleKind::errhandler));

}  // namespace si::api
