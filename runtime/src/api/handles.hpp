// Integer handles: the object kind in the bits above SI_HANDLE_KIND_SHIFT,
// an index below. Index 0 of every kind is its null handle.
#pragma once

#include <cstdint>

#include "mpi.h"

namespace si::api {

enum class HandleKind : int {
    communicator = 1,
    datatype = 2,
    op = 3,
    request = 4,
    errhandler = 5,
    group = 6,
    window = 7,
    info = 8,
    message = 9,             // MPI_Message
    persistent_request = 10, // an MPI_Request made by MPI_*_init
    keyval = 11,             // attribute keys
};

constexpr int kIndexMask = (1 << SI_HANDLE_KIND_SHIFT) - 1;

constexpr int make_handle(HandleKind kind, int index) {
    return static_cast<int>(kind) << SI_HANDLE_KIND_SHIFT | index;
}
constexpr bool is_kind(int handle, HandleKind kind) {
    return (static_cast<unsigned>(handle) >> SI_HANDLE_KIND_SHIFT) == static_cast<unsigned>(kind);
}
constexpr int handle_index(int handle) { return handle & kIndexMask; }

// A request's index field holds its pool index + 1 in the low bits and the
// low bits of its generation above them, so that a handle kept after its
// request was freed and the slot reused names nothing (MPI_ERR_REQUEST)
// rather than the new request, unless the slot was reused a multiple of
// 2^kRequestGenerationBits times since.
constexpr int kRequestSlotBits = 20;
constexpr int kRequestGenerationBits = SI_HANDLE_KIND_SHIFT - kRequestSlotBits;
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

static_assert(MPI_COMM_WORLD == make_handle(HandleKind::communicator, 1));
static_assert(MPI_REQUEST_NULL == make_handle(HandleKind::request, 0));
static_assert(MPI_MESSAGE_NULL == make_handle(HandleKind::message, 0));
static_assert(MPI_MESSAGE_NO_PROC == make_handle(HandleKind::message, 1));
static_assert(MPI_KEYVAL_INVALID == make_handle(HandleKind::keyval, 0));
static_assert(MPI_ERRORS_RETURN == make_handle(HandleKind::errhandler, 2));

}  // namespace si::api
