// Environment entry points: start-up, shutdown, abort, clocks, memory.
#include <unistd.h>

#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

#include "api/attributes.hpp"
#include "api/errors.hpp"
#include "api/info.hpp"
#include "api/pt2pt.hpp"
#include "api/runtime.hpp"
#include "base/error.hpp"
#include "base/log.hpp"

using namespace si::api;

namespace {

std::mutex g_init_mutex;

int initialize(const char* function, int required, int* provided) {
    std::lock_guard lock(g_init_mutex);
    if (Runtime::get() != nullptr || Runtime::finalized_flag()) {
        si::log::error("{} called {}", function,
                       Runtime::finalized_flag() ? "after MPI_Finalize" : "a second time");
        abort_job(1, "MPI initialized twice");
    }
    // No communicator and so no error handler exists yet: a failure is fatal.
    Runtime::start(function, required);
    if (provided != nullptr) *provided = Runtime::get()->thread_level;
    return MPI_SUCCESS;
}

void copy_out(const std::string& text, char* out, int capacity, int* length) {
    const auto n = std::min<std::size_t>(text.size(), static_cast<std::size_t>(capacity - 1));
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
    *length = static_cast<int>(n);
}

}  // namespace

extern "C" {

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int*, char***) { return initialize("MPI_Init", MPI_THREAD_SINGLE, nullptr); }

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int*, char***, int required, int* provided) {
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
        si::log::error("MPI_Init_thread: required = {} is not a thread level (valid: "
                       "MPI_THREAD_SINGLE=0 .. MPI_THREAD_MULTIPLE=3)",
                       required);
        ::_exit(1);
    }
    if (provided == nullptr) {
        si::log::error("MPI_Init_thread: provided is NULL");
        ::_exit(1);
    }
    return initialize("MPI_Init_thread", required, provided);
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void) {
    Call call("MPI_Finalize");
    if (int rc = call.initialized()) return rc;
    // First of all, as the standard says: MPI_COMM_SELF's attributes are
    // deleted, which is how libraries hook their clean-up into MPI_Finalize.
    (void)delete_attributes(call, AttributeHost::communicator, MPI_COMM_SELF);
    // Buffered sends still in flight are delivered, as MPI_Buffer_detach would.
    flush_buffered_sends();
    std::lock_guard lock(g_init_mutex);
    try {
        Runtime::stop();
    } catch (const std::exception& e) {
        return call.fail(MPI_ERR_OTHER, "{}", e.what());
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int* flag) {
    if (flag == nullptr) return MPI_ERR_ARG;
    *flag = Runtime::get() != nullptr || Runtime::finalized_flag();
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int* flag) {
    if (flag == nullptr) return MPI_ERR_ARG;
    *flag = Runtime::finalized_flag();
    return MPI_SUCCESS;
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int* provided) {
    Call call("MPI_Query_thread");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(provided, "provided")) return rc;
    *provided = Runtime::get()->thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int* flag) {
    Call call("MPI_Is_thread_main");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    *flag = std::this_thread::get_id() == Runtime::get()->main_thread;
    return MPI_SUCCESS;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode) {
    Call call("MPI_Abort");
    if (int rc = call.initialized()) return rc;
    si::log::error("MPI_Abort(communicator {:#x}, errorcode {}) ends the job", comm, errorcode);
    abort_job(errorcode, "MPI_Abort");
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int* version, int* subversion) {
    if (version == nullptr || subversion == nullptr) return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char* version, int* resultlen) {
    if (version == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
    copy_out("SmartInterrupts runtime (libsimpi), MPI 3.1 subset", version,
             MPI_MAX_LIBRARY_VERSION_STRING, resultlen);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char* name, int* resultlen) {
    Call call("MPI_Get_processor_name");
    if (int rc = call.not_null(name, "name")) return rc;
    if (int rc = call.not_null(resultlen, "resultlen")) return rc;
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    ::gethostname(host, sizeof host - 1);
    copy_out(host, name, MPI_MAX_PROCESSOR_NAME, resultlen);
    return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void) {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void) {
    timespec resolution{};
    ::clock_getres(CLOCK_MONOTONIC, &resolution);
    return static_cast<double>(resolution.tv_sec) + 1e-9 * static_cast<double>(resolution.tv_nsec);
}

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
    Call call("MPI_Alloc_mem");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(baseptr, "baseptr")) return rc;
    if (size < 0) return call.fail(MPI_ERR_ARG, "size is {}; it must be 0 or more", size);
    // Hints (MPICH knows none either) are accepted and ignored.
    if (int rc = check_info(call, info)) return rc;
    // SI_PROGRESS=ghost: memory the ghosts map, so that they copy once.
    if (Runtime::get()->ghost) {
        if (void* shared = Runtime::get()->ghost->allocate_shared(static_cast<std::size_t>(size))) {
            std::memcpy(baseptr, &shared, sizeof shared);
            return MPI_SUCCESS;
        }
    }
    // Cache-line aligned so that a later registration with a NIC covers whole lines.
    void* memory = nullptr;
    if (::posix_memalign(&memory, 64, static_cast<std::size_t>(size > 0 ? size : 1)) != 0)
        return call.fail(MPI_ERR_NO_MEM, "cannot allocate {} bytes", size);
    std::memcpy(baseptr, &memory, sizeof memory);
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void* base) {
    Call call("MPI_Free_mem");
    if (int rc = call.initialized()) return rc;
    if (Runtime::get()->ghost && Runtime::get()->ghost->free_shared(base)) return MPI_SUCCESS;
    std::free(base);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int, ...) { return MPI_SUCCESS; }

}  // extern "C"
