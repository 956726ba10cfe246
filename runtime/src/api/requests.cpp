// Completion calls: Wait, Test and their any/some/all forms, Request_free.
#include "api/requests.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/runtime.hpp"
#include "api/status.hpp"
#include "base/log.hpp"

namespace si::api {

namespace {

void set_empty_status(MPI_Status* status) {
    if (status == MPI_STATUS_IGNORE) return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    set_status(*status, 0, false);
}

// A handle that names no active request. Out of line: resolve_one is on
// every completion's path.
[[gnu::noinline, gnu::cold]] int not_active(Call& call, MPI_Request handle, int position) {
    const std::string argument =
        position < 0 ? "request" : fmt::format("array_of_requests[{}]", position);
    return call.fail(MPI_ERR_REQUEST,
                     "{} = {:#x} is not an active request (it completed or was freed{})",
                     argument, handle,
                     is_kind(handle, HandleKind::request)
                         ? ""
                         : fmt::format("; it is {}", kind_name(handle)));
}

// One handle; MPI_REQUEST_NULL gives nullptr. position is the index in an
// array argument, or -1 for a single request.
int resolve_one(Call& call, MPI_Request handle, p2p::Request*& out, int position = -1) {
    out = nullptr;
    if (handle == MPI_REQUEST_NULL) return MPI_SUCCESS;
    // An inactive persistent request is treated as a null one.
    if (const PersistentRequest* persistent = find_persistent(handle)) {
        out = persistent->active;
        return MPI_SUCCESS;
    }
    if (is_kind(handle, HandleKind::request) && request_slot(handle) > 0) {
        out = Runtime::get()->engine->find(static_cast<std::uint32_t>(request_slot(handle) - 1));
        // A reused slot: the handle named a request freed since.
        if (out != nullptr && !same_generation(handle, out->generation)) out = nullptr;
    }
    if (out != nullptr && !out->detached) return MPI_SUCCESS;
    return not_active(call, handle, position);
}

// The requests of an array argument. Arrays up to a bandwidth test's window
// stay on the stack: a thread_local vector would cost a TLS lookup per call
// in a shared library, and sharing one would break a completion call made
// from a generalized request's callback.
class RequestArray {
  public:
    // `count` null entries.
    std::span<p2p::Request*> reset(std::size_t count) {
        p2p::Request** data = short_.data();
        if (count > short_.size()) {
            long_.assign(count, nullptr);
            data = long_.data();
        } else {
            std::fill_n(data, count, nullptr);
        }
        return {data, count};
    }

  private:
    std::array<p2p::Request*, 64> short_;
    std::vector<p2p::Request*> long_;
};

// An array of handles, into `array`; `out` is its entries.
int resolve(Call& call, int count, const MPI_Request handles[], RequestArray& array,
            std::span<p2p::Request*>& out) {
    if (int rc = call.count(count)) return rc;
    if (count > 0)
        if (int rc = call.not_null(handles, "array_of_requests")) return rc;
    out = array.reset(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        if (int rc = resolve_one(call, handles[i], out[i], i)) return rc;
    return MPI_SUCCESS;
}

bool is_receive(const p2p::Request* request) { return request->kind == p2p::Request::Kind::receive; }

bool is_done(const p2p::Request* request) {
    return request->complete.load(std::memory_order_acquire);
}

// Completes a request but for returning it to the pool: status (with
// MPI_ERROR when asked), handle.
int settle(const p2p::Request* request, MPI_Request* handle, MPI_Status* status, bool set_error) {
    p2p::Completion result = request->result;
    fill_status(status, result, is_receive(request));
    if (is_generalized(request)) result.error = finish_generalized(request, status);
    if (set_error && status != MPI_STATUS_IGNORE) status->MPI_ERROR = result.error;
    if (handle == nullptr) return result.error;
    if (PersistentRequest* persistent = find_persistent(*handle))
        persistent->active = nullptr;
    else
        *handle = MPI_REQUEST_NULL;
    return result.error;
}

// The same, and the request goes back to the pool.
int harvest(p2p::Request* request, MPI_Request* handle, MPI_Status* status, bool set_error) {
    const int error = settle(request, handle, status, set_error);
    Runtime::get()->engine->release(request);
    return error;
}

// Harvests every completed request of an array, as Waitsome and Testsome
// report them.
int harvest_some(Call& call, int incount, MPI_Request requests[],
                 std::span<p2p::Request* const> r, int* outcount, int indices[],
                 MPI_Status statuses[]) {
    int completed = 0;
    bool failed = false;
    MPI_Comm failed_comm = MPI_COMM_WORLD;
    for (int i = 0; i < incount; ++i) {
        if (r[i] == nullptr || !is_done(r[i])) continue;
        MPI_Status* status =
            statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[completed];
        const MPI_Comm owner = r[i]->owner;
        if (harvest(r[i], &requests[i], status, true) != MPI_SUCCESS && !failed) {
            failed = true;
            failed_comm = owner;
        }
        indices[completed++] = i;
    }
    *outcount = completed;
    if (!failed) return MPI_SUCCESS;
    call.set_error_comm(failed_comm);
    return call.fail(MPI_ERR_IN_STATUS, "at least one request failed; see MPI_ERROR of the statuses");
}

bool none_active(std::span<p2p::Request* const> r) {
    return std::all_of(r.begin(), r.end(), [](const p2p::Request* q) { return q == nullptr; });
}

// MPI_Waitsome (block) and MPI_Testsome.
int complete_some(Call& call, bool block, int incount, MPI_Request requests[], int* outcount,
                  int indices[], MPI_Status statuses[]) {
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(outcount, "outcount")) return rc;
    if (incount > 0)
        if (int rc = call.not_null(indices, "array_of_indices")) return rc;
    RequestArray array;
    std::span<si::p2p::Request*> r;
    if (int rc = resolve(call, incount, requests, array, r)) return rc;
    if (none_active(r)) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (block)
        Runtime::get()->engine->wait_any(r);
    else
        Runtime::get()->engine->progress();
    return harvest_some(call, incount, requests, r, outcount, indices, statuses);
}

}  // namespace

MPI_Request handle_of(const p2p::Request* request) {
    static_assert(p2p::RequestPool::kMaxRequests + 1 == kMaxRequestSlots);
    return make_request_handle(static_cast<int>(request->index) + 1, request->generation);
}

void fill_status(MPI_Status* status, const p2p::Completion& completion, bool receive) {
    if (status == MPI_STATUS_IGNORE) return;
    if (receive) {
        status->MPI_SOURCE = completion.source;
        status->MPI_TAG = completion.tag;
    }
    set_status(*status, completion.bytes, completion.cancelled);
}

int finish_request(const char* function, p2p::Request* request, MPI_Status* status,
                   MPI_Request* handle) {
    const MPI_Comm owner = request->owner;
    const int error = harvest(request, handle, status, false);
    if (error == MPI_SUCCESS) return MPI_SUCCESS;
    return report_failed(function, owner, error);
}

int report_failed(const char* function, MPI_Comm comm, int error) {
    Call call(function);
    call.set_error_comm(comm);
    return call.report(error, error == MPI_ERR_TRUNCATE
                                  ? "message truncated: the receive buffer is smaller than the "
                                    "message that matched it"
                                  : "the operation failed (see the error above)");
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
    Call call("MPI_Wait");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(request, "request")) return rc;
    si::p2p::Request* r = nullptr;
    if (int rc = resolve_one(call, *request, r)) return rc;
    if (r == nullptr) {
        set_empty_status(status);
        return MPI_SUCCESS;
    }
    Runtime::get()->engine->wait(r);
    return finish_request("MPI_Wait", r, status, request);
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    Call call("MPI_Test");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(request, "request")) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    si::p2p::Request* r = nullptr;
    if (int rc = resolve_one(call, *request, r)) return rc;
    if (r == nullptr) {
        *flag = 1;
        set_empty_status(status);
        return MPI_SUCCESS;
    }
    *flag = Runtime::get()->engine->test(r);
    if (!*flag) return MPI_SUCCESS;
    return finish_request("MPI_Test", r, status, request);
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    Call call("MPI_Waitall");
    if (int rc = call.initialized()) return rc;
    RequestArray array;
    std::span<si::p2p::Request*> r;
    if (int rc = resolve(call, count, requests, array, r)) return rc;
    si::p2p::Engine& engine = *Runtime::get()->engine;
    engine.wait_all(r);
    bool failed = false;
    MPI_Comm failed_comm = MPI_COMM_WORLD;
    for (int i = 0; i < count; ++i) {
        MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (r[i] == nullptr) {
            set_empty_status(status);
            continue;
        }
        if (settle(r[i], &requests[i], status, true) != MPI_SUCCESS && !failed) {
            failed = true;
            failed_comm = r[i]->owner;
        }
    }
    engine.release_all(r);
    if (!failed) return MPI_SUCCESS;
    call.set_error_comm(failed_comm);
    return call.fail(MPI_ERR_IN_STATUS, "at least one request failed; see MPI_ERROR of the statuses");
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
    Call call("MPI_Testall");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    RequestArray array;
    std::span<si::p2p::Request*> r;
    if (int rc = resolve(call, count, requests, array, r)) return rc;
    Runtime::get()->engine->progress();
    *flag = std::all_of(r.begin(), r.end(),
                        [](const si::p2p::Request* q) { return q == nullptr || is_done(q); });
    if (!*flag) return MPI_SUCCESS;
    return PMPI_Waitall(count, requests, statuses);
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
    Call call("MPI_Waitany");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(index, "index")) return rc;
    RequestArray array;
    std::span<si::p2p::Request*> r;
    if (int rc = resolve(call, count, requests, array, r)) return rc;
    if (none_active(r)) {
        *index = MPI_UNDEFINED;
        set_empty_status(status);
        return MPI_SUCCESS;
    }
    Runtime::get()->engine->wait_any(r);
    const auto done = std::find_if(r.begin(), r.end(), [](const si::p2p::Request* q) {
        return q != nullptr && is_done(q);
    });
    *index = static_cast<int>(done - r.begin());
    return finish_request("MPI_Waitany", *done, status, &requests[*index]);
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
    Call call("MPI_Testany");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(index, "index")) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    RequestArray array;
    std::span<si::p2p::Request*> r;
    if (int rc = resolve(call, count, requests, array, r)) return rc;
    Runtime::get()->engine->progress();
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
        if (r[i] == nullptr) continue;
        any_active = true;
        if (!is_done(r[i])) continue;
        *flag = 1;
        *index = i;
        return finish_request("MPI_Testany", r[i], status, &requests[i]);
    }
    *flag = !any_active;
    *index = MPI_UNDEFINED;
    if (!any_active) set_empty_status(status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                  MPI_Status statuses[]) {
    Call call("MPI_Waitsome");
    return complete_some(call, true, incount, requests, outcount, indices, statuses);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                  MPI_Status statuses[]) {
    Call call("MPI_Testsome");
    return complete_some(call, false, incount, requests, outcount, indices, statuses);
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
    Call call("MPI_Request_get_status");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    si::p2p::Request* r = nullptr;
    if (int rc = resolve_one(call, request, r)) return rc;
    if (r == nullptr) {
        *flag = 1;
        set_empty_status(status);
        return MPI_SUCCESS;
    }
    // Unlike MPI_Test, the request stays as it is, complete or not.
    *flag = Runtime::get()->engine->test(r);
    if (!*flag) return MPI_SUCCESS;
    fill_status(status, r->result, is_receive(r));
    if (!is_generalized(r)) return MPI_SUCCESS;
    if (int rc = query_generalized(r, status))
        return call.report(error_class_of(rc), "the generalized request's query_fn failed");
    return MPI_SUCCESS;
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request* request) {
    Call call("MPI_Cancel");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(request, "request")) return rc;
    si::p2p::Request* r = nullptr;
    if (int rc = resolve_one(call, *request, r)) return rc;
    if (r == nullptr)
        return call.fail(MPI_ERR_REQUEST, "request {:#x} is {}", *request,
                         *request == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL"
                                                      : "an inactive persistent request");
    int error = MPI_SUCCESS;
    if (cancel_generalized(r, error))
        return error == MPI_SUCCESS
                   ? MPI_SUCCESS
                   : call.report(error_class_of(error), "the generalized request's cancel_fn failed");
    // Too late is not an error: the operation then completes as usual, and
    // MPI_Test_cancelled tells which happened.
    Runtime::get()->engine->cancel(r);
    return MPI_SUCCESS;
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
    Call call("MPI_Test_cancelled");
    if (int rc = call.not_null(status, "status")) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    *flag = status_cancelled(*status) ? 1 : 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
    Call call("MPI_Status_set_cancelled");
    if (int rc = call.not_null(status, "status")) return rc;
    set_status_cancelled(*status, flag != 0);
    return MPI_SUCCESS;
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request* request) {
    Call call("MPI_Request_free");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(request, "request")) return rc;
    if (*request == MPI_REQUEST_NULL)
        return call.fail(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
    if (find_persistent(*request) != nullptr) {
        free_persistent(*request);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    si::p2p::Request* r = nullptr;
    if (int rc = resolve_one(call, *request, r)) return rc;
    int error = MPI_SUCCESS;
    const bool generalized = free_generalized_handle(r, error);
    Runtime::get()->engine->release(r);
    *request = MPI_REQUEST_NULL;
    if (generalized && error != MPI_SUCCESS)
        return call.report(error_class_of(error), "the generalized request's free_fn failed");
    return MPI_SUCCESS;
}

}  // extern "C"
