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

const char* kind_name(int handle);

static_assert(MPI_COMM_WORLD == make_handle(HandleKind::communicator, 1));
static_assert(MPI_REQUEST_NULL == make_handle(HandleKind::request, 0));
static_assert(MPI_MESSAGE_NULL == make_handle(HandleKind::message, 0));
static_assert(MPI_MESSAGE_NO_PROC == make_handle(HandleKind::message, 1));
static_assert(MPI_KEYVAL_INVALID == make_handle(HandleKind::keyval, 0));
static_assert(MPI_ERRORS_RETURN == make_handle(HandleKind::errhandler, 2));

}  // namespace si::api
