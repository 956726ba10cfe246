// Error handlers and error strings.
#include <cstring>
#include <mutex>
#include <vector>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/runtime.hpp"
#include "api/win.hpp"

namespace si::api {

namespace {

// User error handlers; handle index = 16 + position. Never shrinks, so
// handles stay unique; freed entries become nullptr.
constexpr int kFirstUserIndex = 16;
std::mutex g_mutex;
std::vector<MPI_Comm_errhandler_function*> g_user;

bool is_predefined(MPI_Errhandler handle) {
    return handle == MPI_ERRORS_ARE_FATAL || handle == MPI_ERRORS_RETURN ||
           handle == MPI_ERRORS_ABORT;
}

}  // namespace

MPI_Comm_errhandler_function* user_errhandler(MPI_Errhandler handle) {
    if (!is_kind(handle, HandleKind::errhandler)) return nullptr;
    const int position = handle_index(handle) - kFirstUserIndex;
    std::lock_guard lock(g_mutex);
    if (position < 0 || position >= static_cast<int>(g_user.size())) return nullptr;
    return g_user[position];
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    Call call("MPI_Comm_set_errhandler");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (!is_predefined(errhandler) && user_errhandler(errhandler) == nullptr)
        return call.fail(MPI_ERR_ARG,
                         "errhandler {:#x} is not an error handler (use MPI_ERRORS_ARE_FATAL, "
                         "MPI_ERRORS_RETURN, MPI_ERRORS_ABORT or one from "
                         "MPI_Comm_create_errhandler)",
                         errhandler);
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
    Call call("MPI_Comm_get_errhandler");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    if (int rc = call.not_null(errhandler, "errhandler")) return rc;
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function,
                                MPI_Errhandler* errhandler) {
    Call call("MPI_Comm_create_errhandler");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(reinterpret_cast<const void*>(function), "function")) return rc;
    if (int rc = call.not_null(errhandler, "errhandler")) return rc;
    std::lock_guard lock(g_mutex);
    g_user.push_back(function);
    *errhandler = make_handle(HandleKind::errhandler,
                              kFirstUserIndex + static_cast<int>(g_user.size()) - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
    Call call("MPI_Errhandler_free");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(errhandler, "errhandler")) return rc;
    // Predefined handlers may be "freed" (the handle just becomes null).
    if (!is_predefined(*errhandler)) {
        if (user_errhandler(*errhandler) == nullptr)
            return call.fail(MPI_ERR_ARG, "errhandler {:#x} is not a live error handler",
                             *errhandler);
        // Communicators still using it keep working: the function is kept.
    }
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
    if (string == nullptr || resultlen == nullptr || error_class_of(errorcode) < 0) {
        if (string != nullptr && resultlen != nullptr) {
            *resultlen = std::snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d",
                                       errorcode);
        }
        return MPI_ERR_ARG;
    }
    const std::string text = error_string(errorcode);
    const std::size_t n = std::min<std::size_t>(text.size(), MPI_MAX_ERROR_STRING - 1);
    std::memcpy(string, text.data(), n);
    string[n] = '\0';
    *resultlen = static_cast<int>(n);
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int* errorclass) {
    if (errorclass == nullptr) return MPI_ERR_ARG;
    const int error_class = error_class_of(errorcode);
    if (error_class < 0) return MPI_ERR_ARG;
    *errorclass = error_class;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int* errorclass) {
    Call call("MPI_Add_error_class");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(errorclass, "errorclass")) return rc;
    *errorclass = add_error_class();
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int* errorcode) {
    Call call("MPI_Add_error_code");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(errorcode, "errorcode")) return rc;
    if (errorclass <= MPI_SUCCESS || error_class_of(errorclass) != errorclass)
        return call.fail(MPI_ERR_ARG,
                         "errorclass {} is not an error class (MPI's or one made by "
                         "MPI_Add_error_class)",
                         errorclass);
    *errorcode = add_error_code(errorclass);
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char* string) {
    Call call("MPI_Add_error_string");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(string, "string")) return rc;
    const std::size_t length = std::strlen(string);
    if (length >= MPI_MAX_ERROR_STRING)
        return call.fail(MPI_ERR_ARG, "string has {} characters; at most {} fit", length,
                         MPI_MAX_ERROR_STRING - 1);
    if (!set_error_string(errorcode, string))
        return call.fail(MPI_ERR_ARG,
                         "errorcode {} was not made by MPI_Add_error_class or MPI_Add_error_code "
                         "(MPI's own texts cannot be changed)",
                         errorcode);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
    Call call("MPI_Comm_call_errhandler");
    if (int rc = call.initialized()) return rc;
    Communicator* c = nullptr;
    if (int rc = call.communicator(comm, c)) return rc;
    // A fatal handler ends the job here; any other returns, and so does this call.
    (void)invoke_errhandler(comm, errorcode);
    return MPI_SUCCESS;
}

// Windows keep their error handler on their own communicator (win.hpp);
// window and communicator handlers are the same kind of object here, as
// their functions differ only in the handle type they receive.
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
    Call call("MPI_Win_set_errhandler");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (!is_predefined(errhandler) && user_errhandler(errhandler) == nullptr)
        return call.fail(MPI_ERR_ARG,
                         "errhandler {:#x} is not an error handler (use MPI_ERRORS_ARE_FATAL, "
                         "MPI_ERRORS_RETURN or one from MPI_Win_create_errhandler)",
                         errhandler);
    Runtime::get()->communicators.find(w->comm)->errhandler = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
    Call call("MPI_Win_get_errhandler");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    if (int rc = call.not_null(errhandler, "errhandler")) return rc;
    *errhandler = Runtime::get()->communicators.find(w->comm)->errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* function,
                               MPI_Errhandler* errhandler) {
    return PMPI_Comm_create_errhandler(
        reinterpret_cast<MPI_Comm_errhandler_function*>(function), errhandler);
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
    Call call("MPI_Win_call_errhandler");
    if (int rc = call.initialized()) return rc;
    Win* w = nullptr;
    if (int rc = find_window(call, win, w)) return rc;
    (void)invoke_errhandler(w->comm, errorcode);
    return MPI_SUCCESS;
}

}  // extern "C"
