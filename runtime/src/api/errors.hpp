// Error codes, error handlers, and the argument checks of every MPI call.
//
// An error code is its class plus 128 times a slot number in a small ring of
// recent messages, so that MPI_Error_string can return the full message that
// was built where the error was found ("MPI_Send: invalid dest 7: ...") while
// MPI_Error_class still recovers the class.
//
// Each entry point creates a Call and runs its checks in order; a check
// returns MPI_SUCCESS (0) or an error code already passed to the error
// handler, so entry points read
//     if (int rc = call.count(count)) return rc;
#pragma once

#include <string>

#include <fmt/format.h>

#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"
#include "mpi.h"
#include "p2p/tuple.hpp"

namespace si::api {

// The application's tags: MPI_TAG_UB, and whether receives may use
// MPI_ANY_TAG. Both hold for the whole job; seed 003's tag encoding
// (SI_GHOST_MATCHING=tag) narrows them at MPI_Init.
struct TagRules {
    int upper_bound = p2p::kMaxTag;
    bool any_tag = true;
};
extern TagRules g_tag_rules;  // read on every send and receive: inline, no call
inline const TagRules& tag_rules() { return g_tag_rules; }
void set_tag_rules(const TagRules& rules);

// Stores the message and returns a code that carries the class.
int make_error_code(int error_class, std::string message);
// Class of any code, or -1 if the code is not valid.
int error_class_of(int code);
// The message of a code (or the generic text of its class).
std::string error_string(int code);

// MPI_Add_error_class / MPI_Add_error_code: a new class, or a new code of a
// class; MPI_Add_error_string: false if `code` is not one a program added.
int add_error_class();
int add_error_code(int error_class);
bool set_error_string(int code, std::string text);
// The MPI_LASTUSEDCODE attribute.
int last_used_error_code();

// Applies a communicator's error handler to an error code: fatal handlers
// print the message and end the job; MPI_ERRORS_RETURN returns the code.
int invoke_errhandler(MPI_Comm comm, int code);

class Call {
public:
    explicit Call(const char* function) : function_(function) {}

    const char* function() const { return function_; }
    // Errors found after the communicator is known go to its handler.
    void set_error_comm(MPI_Comm comm) { error_comm_ = comm; }

    template <typename... Args>
    int fail(int error_class, fmt::format_string<Args...> format, Args&&... args) {
        return report(error_class, fmt::format(format, std::forward<Args>(args)...));
    }
    int report(int error_class, const std::string& detail);

    int initialized();
    // Inline for a valid handle: every message's call checks one.
    int communicator(MPI_Comm handle, Communicator*& out) {
        out = Runtime::get()->communicators.find(handle);
        if (out == nullptr) [[unlikely]]
            return invalid_communicator(handle);
        error_comm_ = handle;
        return MPI_SUCCESS;
    }
    // The same, refusing an intercommunicator.
    int intracommunicator(MPI_Comm handle, Communicator*& out);
    // A committed datatype (messages), or any existing one (constructors, queries).
    int datatype(MPI_Datatype handle, const datatype::Type*& out, const char* argument = "datatype");
    int any_datatype(MPI_Datatype handle, const datatype::Type*& out,
                     const char* argument = "datatype");
    // The operator exists and is defined for the type.
    int reduction(MPI_Op handle, const datatype::Type& type, const datatype::Op*& out);
    // The checks every message call makes are inline for their usual outcome;
    // their failures (and the rarer cases) are out of line.
    int count(int value, const char* argument = "count") {
        return value >= 0 ? MPI_SUCCESS : negative_count(value, argument);
    }
    int buffer(const void* buffer, int count, const char* argument = "buf") {
        return buffer != nullptr || count <= 0 ? MPI_SUCCESS : null_buffer(count, argument);
    }
    // A whole message description: buffer, count and committed datatype (or
    // MPI_DATATYPE_NULL with count 0, which MPICH takes for no data).
    int message(const void* buffer, int count, MPI_Datatype type, const datatype::Type*& out,
                const char* buffer_name = "buf", const char* count_name = "count",
                const char* type_name = "datatype") {
        // A predefined type is committed; only its data needs a buffer.
        const datatype::Type* predefined = datatype::find_predefined(type);
        if (predefined != nullptr && count >= 0 &&
            (buffer != nullptr || count == 0 || predefined->size == 0)) {
            out = predefined;
            return MPI_SUCCESS;
        }
        return any_message(buffer, count, type, out, buffer_name, count_name, type_name);
    }
    int destination(const Communicator& comm, int rank, const char* argument = "dest") {
        if ((rank >= 0 && rank < comm.peers()) || rank == MPI_PROC_NULL) return MPI_SUCCESS;
        return invalid_rank(comm, rank, argument, false);
    }
    int source(const Communicator& comm, int rank, const char* argument = "source") {
        if ((rank >= 0 && rank < comm.peers()) || rank == MPI_ANY_SOURCE || rank == MPI_PROC_NULL)
            return MPI_SUCCESS;
        return invalid_rank(comm, rank, argument, true);
    }
    int root(const Communicator& comm, int rank);
    int send_tag(int tag, const char* argument = "tag") {
        return tag >= 0 && tag <= tag_rules().upper_bound ? MPI_SUCCESS
                                                           : invalid_tag(tag, argument, false);
    }
    int receive_tag(int tag, const char* argument = "tag") {
        const TagRules& rules = tag_rules();
        if ((tag >= 0 && tag <= rules.upper_bound) || (tag == MPI_ANY_TAG && rules.any_tag))
            return MPI_SUCCESS;
        return invalid_tag(tag, argument, true);
    }
    int not_null(const void* pointer, const char* argument) {
        return pointer != nullptr ? MPI_SUCCESS : null_argument(argument);
    }

private:
  int invalid_communicator(MPI_Comm handle);
  int negative_count(int value, const char* argument);
  int null_buffer(int count, const char* argument);
  int any_message(const void* buffer, int count, MPI_Datatype type, const datatype::Type*& out,
                  const char* buffer_name, const char* count_name, const char* type_name);
  int invalid_rank(const Communicator& comm, int rank, const char* argument, bool receive);
  int invalid_tag(int tag, const char* argument, bool receive);
  int null_argument(const char* argument);

  const char* function_;
  MPI_Comm error_comm_ = MPI_COMM_WORLD;
};

}  // namespace si::api
