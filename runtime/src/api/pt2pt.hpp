// How the point-to-point entry points check their arguments and start
// operations, shared by the blocking, nonblocking, persistent, buffered and
// matched-probe calls. Each reports errors under the name of the MPI call
// given as `function`.
#pragma once

#include <cstddef>
#include <memory>

#include "api/communicator.hpp"
#include "api/errors.hpp"
#include "api/packing.hpp"
#include "datatype/datatype.hpp"
#include "mpi.h"
#include "p2p/engine.hpp"

namespace si::api {

// Fill c and type on success.
int check_send(Call& call, const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, Communicator*& c, const datatype::Type*& type);
int check_receive(Call& call, const void* buf, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm, Communicator*& c, const datatype::Type*& type);

// Whether a send of `count` items of a non-contiguous type to communicator
// rank `dest` (then the transport it streams through, else null), or a
// receive of one from `source` (MPI_ANY_SOURCE included), may stream
// (api/packing.hpp). A contiguous type streams only in a send whose caller
// waits for it (`blocking`), and is not looked at further otherwise: every
// message asks.
transport::Transport* streaming_to(const Communicator& c, int dest, const datatype::Type& type,
                                   int count, bool blocking = false);
Streaming streaming_from(const Communicator& c, int source, const datatype::Type& type);

// Where the application's point-to-point messages go: the engine, or in
// SI_PROGRESS=ghost the ghost that serves the receiver (progress/ghost.hpp).
// MPI_PROC_NULL always goes to the engine, which completes it at once.
p2p::Request* post_send(const Communicator& c, const void* data, std::size_t bytes, int dest,
                        int tag, p2p::SendMode mode,
                        std::unique_ptr<p2p::CompletionHook>&& hook = nullptr);
p2p::Request* post_receive(const Communicator& c, void* buffer, std::size_t capacity, int source,
                           int tag, bool blocking,
                           std::unique_ptr<p2p::CompletionHook>&& hook = nullptr);

// `blocking`: the caller waits for it at once (then a contiguous message may
// stream too, Outgoing).
int start_send(const char* function, const void* buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm, p2p::SendMode mode, p2p::Request*& out,
               bool blocking = false);
// `blocking`: the caller waits for it at once (see Engine::irecv).
int start_receive(const char* function, void* buf, int count, MPI_Datatype datatype, int source,
                  int tag, MPI_Comm comm, bool blocking, p2p::Request*& out);
// Waits for a request no handle names (a blocking call's) and finishes it.
int blocking(const char* function, p2p::Request* request, MPI_Status* status);

// Buffered mode (buffered.cpp): copies the message into the attached buffer
// and sends it from there; `out` is already complete.
int start_buffered_send(const char* function, const void* buf, int count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm, p2p::Request*& out);
// Waits until every buffered send has left the attached buffer (MPI_Finalize).
void flush_buffered_sends();

}  // namespace si::api
