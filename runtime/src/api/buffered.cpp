// Buffered mode: MPI_Buffer_attach gives the library a buffer; each buffered
// send copies its message there (taking MPI_BSEND_OVERHEAD bytes more) and
// is complete at once, while the copy travels as an ordinary send. Space
// returns when that send completes, which the next buffered send or
// MPI_Buffer_detach notices.
#include <algorithm>
#include <mutex>
#include <vector>

#include "api/errors.hpp"
#include "api/pt2pt.hpp"
#include "api/requests.hpp"
#include "api/runtime.hpp"

namespace si::api {

namespace {

struct InFlight {
    p2p::Request* request;
    std::size_t offset;  // of its region in the attached buffer
    std::size_t bytes;   // of the region, overhead included
};

struct AttachedBuffer {
    std::mutex mutex;
    std::byte* base = nullptr;
    std::size_t size = 0;
    bool attached = false;
    std::vector<InFlight> in_flight;  // by offset

    // Returns the space of completed sends.
    void reclaim() {
        std::erase_if(in_flight, [](const InFlight& f) {
            if (!f.request->complete.load(std::memory_order_acquire)) return false;
            Runtime::get()->engine->release(f.request);
            return true;
        });
    }

    // First fit among the gaps between regions in use; size if none.
    std::size_t allocate(std::size_t bytes) {
        std::size_t start = 0;
        for (const InFlight& f : in_flight) {
            if (f.offset - start >= bytes) return start;
            start = f.offset + f.bytes;
        }
        return size - start >= bytes ? start : size;
    }

    std::size_t largest_gap() const {
        std::size_t start = 0, largest = 0;
        for (const InFlight& f : in_flight) {
            largest = std::max(largest, f.offset - start);
            start = f.offset + f.bytes;
        }
        return std::max(largest, size - start);
    }
};

AttachedBuffer& attached() {
    static AttachedBuffer instance;
    return instance;
}

}  // namespace

int start_buffered_send(const char* function, const void* buf, int count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm, p2p::Request*& out) {
    Call call(function);
    Communicator* c = nullptr;
    const datatype::Type* type = nullptr;
    if (int rc = check_send(call, buf, count, datatype, dest, tag, comm, c, type)) return rc;
    p2p::Engine& engine = *Runtime::get()->engine;
    const std::size_t bytes = type->bytes(static_cast<std::size_t>(count));
    if (dest != MPI_PROC_NULL) {
        AttachedBuffer& pool = attached();
        std::lock_guard lock(pool.mutex);
        engine.progress();
        pool.reclaim();
        const std::size_t need = bytes + MPI_BSEND_OVERHEAD;
        const std::size_t offset = pool.allocate(need);
        if (offset == pool.size)
            return call.fail(MPI_ERR_BUFFER,
                             "a buffered send of {} bytes needs {} bytes of the attached buffer "
                             "(MPI_BSEND_OVERHEAD included); {}",
                             bytes, need,
                             pool.attached
                                 ? fmt::format("its largest free block has {} of {} bytes",
                                               pool.largest_gap(), pool.size)
                                 : std::string("no buffer is attached (MPI_Buffer_attach)"));
        std::byte* copy = pool.base + offset;
        datatype::pack(*type, buf, static_cast<std::size_t>(count), copy);
        p2p::Request* send = post_send(*c, copy, bytes, dest, tag, p2p::SendMode::standard);
        send->owner = comm;
        const auto at = std::find_if(pool.in_flight.begin(), pool.in_flight.end(),
                                     [&](const InFlight& f) { return f.offset > offset; });
        pool.in_flight.insert(at, InFlight{send, offset, need});
    }
    // The user's request is complete: the message is in the library's hands.
    out = engine.isend(nullptr, 0, p2p::kProcNull, tag, c->ref(), c->send_context(),
                       p2p::SendMode::standard);
    out->owner = comm;
    return MPI_SUCCESS;
}

void flush_buffered_sends() {
    AttachedBuffer& pool = attached();
    std::lock_guard lock(pool.mutex);
    for (const InFlight& f : pool.in_flight) Runtime::get()->engine->wait(f.request);
    pool.reclaim();
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void* buffer, int size) {
    Call call("MPI_Buffer_attach");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.count(size, "size")) return rc;
    if (int rc = call.buffer(buffer, size, "buffer")) return rc;
    AttachedBuffer& pool = attached();
    std::lock_guard lock(pool.mutex);
    if (pool.attached)
        return call.fail(MPI_ERR_BUFFER,
                         "a buffer of {} bytes is attached already (MPI_Buffer_detach it first)",
                         pool.size);
    pool.base = static_cast<std::byte*>(buffer);
    pool.size = static_cast<std::size_t>(size);
    pool.attached = true;
    return MPI_SUCCESS;
}

// buffer_addr is a void** in disguise, as in the standard.
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void* buffer_addr, int* size) {
    Call call("MPI_Buffer_detach");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(buffer_addr, "buffer_addr")) return rc;
    if (int rc = call.not_null(size, "size")) return rc;
    // Blocks until every message in the buffer has left it.
    flush_buffered_sends();
    AttachedBuffer& pool = attached();
    std::lock_guard lock(pool.mutex);
    if (!pool.attached) {
        *static_cast<void**>(buffer_addr) = nullptr;
        *size = 0;
        return MPI_SUCCESS;
    }
    *static_cast<void**>(buffer_addr) = pool.base;
    *size = static_cast<int>(pool.size);
    pool.base = nullptr;
    pool.size = 0;
    pool.attached = false;
    return MPI_SUCCESS;
}

#pragma weak MPI_Bsend = PMPI_Bsend
int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
    si::p2p::Request* request = nullptr;
    if (int rc = start_buffered_send("MPI_Bsend", buf, count, datatype, dest, tag, comm, request))
        return rc;
    return finish_request("MPI_Bsend", request, MPI_STATUS_IGNORE);
}

#pragma weak MPI_Ibsend = PMPI_Ibsend
int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
    Call call("MPI_Ibsend");
    if (int rc = call.not_null(request, "request")) return rc;
    si::p2p::Request* started = nullptr;
    if (int rc = start_buffered_send("MPI_Ibsend", buf, count, datatype, dest, tag, comm, started))
        return rc;
    *request = handle_of(started);
    return MPI_SUCCESS;
}

}  // extern "C"
