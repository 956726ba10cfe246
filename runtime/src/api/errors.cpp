#include "api/errors.hpp"

#include <array>
#include <mutex>
#include <vector>

#include "api/handles.hpp"
#include "api/runtime.hpp"
#include "base/error_class.hpp"
#include "base/log.hpp"
#include "p2p/tuple.hpp"

namespace si::api {

static_assert(MPI_ERR_TRUNCATE == error_class::kTruncate && MPI_ERR_OTHER == error_class::kOther);

namespace {

constexpr int kClassSpan = 128;
constexpr int kMessageSlots = 64;

struct StoredMessage {
    int code = 0;
    std::string text;
};

std::mutex g_messages_mutex;
std::array<StoredMessage, kMessageSlots> g_messages;
int g_next_slot = 0;

const char* class_text(int error_class) {
    switch (error_class) {
        case MPI_SUCCESS: return "no error";
        case MPI_ERR_BUFFER: return "invalid buffer pointer";
        case MPI_ERR_COUNT: return "invalid count argument";
        case MPI_ERR_TYPE: return "invalid datatype";
        case MPI_ERR_TAG: return "invalid tag";
        case MPI_ERR_COMM: return "invalid communicator";
        case MPI_ERR_RANK: return "invalid rank";
        case MPI_ERR_REQUEST: return "invalid request";
        case MPI_ERR_ROOT: return "invalid root";
        case MPI_ERR_GROUP: return "invalid group";
        case MPI_ERR_OP: return "invalid reduction operation";
        case MPI_ERR_TOPOLOGY: return "invalid topology";
        case MPI_ERR_DIMS: return "invalid dimension argument";
        case MPI_ERR_ARG: return "invalid argument";
        case MPI_ERR_UNKNOWN: return "unknown error";
        case MPI_ERR_TRUNCATE: return "message truncated: the receive buffer is too small";
        case MPI_ERR_OTHER: return "other error";
        case MPI_ERR_INTERN: return "internal error";
        case MPI_ERR_IN_STATUS: return "error code is in the status";
        case MPI_ERR_PENDING: return "request pending";
        case MPI_ERR_NO_MEM: return "out of memory";
        case MPI_ERR_KEYVAL: return "invalid attribute key";
        case MPI_ERR_INFO: return "invalid info object";
        case MPI_ERR_WIN: return "invalid window";
        case MPI_ERR_RMA_SYNC: return "wrong synchronization of RMA calls";
        case MPI_ERR_PROC_ABORTED: return "a process of the job was aborted";
        case MPI_ERR_INFO_KEY: return "invalid info key";
        case MPI_ERR_INFO_VALUE: return "invalid info value";
        case MPI_ERR_INFO_NOKEY: return "no such info key";
        case MPI_ERR_RMA_RANGE: return "target memory is not part of the window";
        case MPI_ERR_RMA_CONFLICT: return "conflicting accesses to a window";
        case MPI_ERR_RMA_ATTACH: return "memory cannot be attached";
        case MPI_ERR_RMA_SHARED: return "memory cannot be shared";
        case MPI_ERR_RMA_FLAVOR: return "wrong window flavor";
        case MPI_ERR_LOCKTYPE: return "invalid lock type";
        case MPI_ERR_ASSERT: return "invalid assertion";
        case MPI_ERR_DISP: return "invalid displacement";
        case MPI_ERR_SIZE: return "invalid size";
        case MPI_ERR_BASE: return "invalid base address";
        // Named for programs that test for them; no call returns them yet.
        case MPI_ERR_ACCESS: return "permission denied";
        case MPI_ERR_AMODE: return "invalid file access mode";
        case MPI_ERR_BAD_FILE: return "invalid file name";
        case MPI_ERR_CONVERSION: return "data conversion failed";
        case MPI_ERR_DUP_DATAREP: return "data representation already defined";
        case MPI_ERR_FILE_EXISTS: return "file exists";
        case MPI_ERR_FILE_IN_USE: return "file in use";
        case MPI_ERR_FILE: return "invalid file handle";
        case MPI_ERR_IO: return "I/O error";
        case MPI_ERR_NAME: return "service name not published";
        case MPI_ERR_NOT_SAME: return "arguments differ between processes";
        case MPI_ERR_NO_SPACE: return "no space left";
        case MPI_ERR_NO_SUCH_FILE: return "no such file";
        case MPI_ERR_PORT: return "invalid port name";
        case MPI_ERR_QUOTA: return "quota exceeded";
        case MPI_ERR_READ_ONLY: return "read-only file or file system";
        case MPI_ERR_SERVICE: return "invalid service name";
        case MPI_ERR_SPAWN: return "processes could not be spawned";
        case MPI_ERR_UNSUPPORTED_DATAREP: return "unsupported data representation";
        case MPI_ERR_UNSUPPORTED_OPERATION: return "unsupported operation";
        case MPI_ERR_SESSION: return "invalid session";
        case MPI_ERR_VALUE_TOO_LARGE: return "value too large for its output argument";
        default: return nullptr;
    }
}

std::string describe_comm(const Communicator& comm) {
    if (!comm.name.empty()) return comm.name;
    return fmt::format("communicator {:#x}", comm.handle);
}

// Classes and codes a program adds (MPI_Add_error_class/code) lie above
// MPI_ERR_LASTCODE, as the standard has them: classes from kFirstUserClass,
// codes from kFirstUserCode, each with the text MPI_Add_error_string gave it.
constexpr int kFirstUserClass = MPI_ERR_LASTCODE + 1;
constexpr int kFirstUserCode = kFirstUserClass + (1 << 20);
std::vector<std::string> g_user_classes;  // index: class - kFirstUserClass
struct UserCode {
    int error_class;
    std::string text;
};
std::vector<UserCode> g_user_codes;  // index: code - kFirstUserCode

// The text slot of a user class or code, or nullptr. Needs g_messages_mutex.
std::string* user_text(int code) {
    if (code >= kFirstUserCode) {
        const auto i = static_cast<std::size_t>(code - kFirstUserCode);
        return i < g_user_codes.size() ? &g_user_codes[i].text : nullptr;
    }
    if (code >= kFirstUserClass) {
        const auto i = static_cast<std::size_t>(code - kFirstUserClass);
        return i < g_user_classes.size() ? &g_user_classes[i] : nullptr;
    }
    return nullptr;
}

}  // namespace

int add_error_class() {
    std::lock_guard lock(g_messages_mutex);
    g_user_classes.emplace_back();
    return kFirstUserClass + static_cast<int>(g_user_classes.size()) - 1;
}

int add_error_code(int error_class) {
    std::lock_guard lock(g_messages_mutex);
    g_user_codes.push_back(UserCode{error_class, {}});
    return kFirstUserCode + static_cast<int>(g_user_codes.size()) - 1;
}

bool set_error_string(int code, std::string text) {
    std::lock_guard lock(g_messages_mutex);
    std::string* slot = user_text(code);
    if (slot == nullptr) return false;
    *slot = std::move(text);
    return true;
}

int last_used_error_code() {
    std::lock_guard lock(g_messages_mutex);
    int last = MPI_ERR_LASTCODE;
    if (!g_user_classes.empty()) last = kFirstUserClass + static_cast<int>(g_user_classes.size()) - 1;
    if (!g_user_codes.empty()) last = kFirstUserCode + static_cast<int>(g_user_codes.size()) - 1;
    return last;
}

int make_error_code(int error_class, std::string message) {
    // A user class has no room for a message slot: it is its own code.
    if (error_class >= kClassSpan) return error_class;
    std::lock_guard lock(g_messages_mutex);
    const int slot = g_next_slot;
    g_next_slot = (g_next_slot + 1) % kMessageSlots;
    const int code = error_class + kClassSpan * (slot + 1);
    g_messages[slot] = StoredMessage{code, std::move(message)};
    return code;
}

int error_class_of(int code) {
    if (code < 0) return -1;
    if (code >= kFirstUserClass) {
        std::lock_guard lock(g_messages_mutex);
        if (code >= kFirstUserCode) {
            const auto i = static_cast<std::size_t>(code - kFirstUserCode);
            return i < g_user_codes.size() ? g_user_codes[i].error_class : -1;
        }
        return user_text(code) != nullptr ? code : -1;
    }
    const int error_class = code % kClassSpan;
    if (class_text(error_class) == nullptr) return -1;
    if (code >= kClassSpan * (kMessageSlots + 1)) return -1;
    return error_class;
}

std::string error_string(int code) {
    const int error_class = error_class_of(code);
    if (error_class < 0) return fmt::format("unknown error code {}", code);
    if (code >= kFirstUserClass) {
        std::lock_guard lock(g_messages_mutex);
        return *user_text(code);
    }
    if (code >= kClassSpan) {
        std::lock_guard lock(g_messages_mutex);
        const StoredMessage& stored = g_messages[code / kClassSpan - 1];
        if (stored.code == code) return stored.text;
    }
    return class_text(error_class);
}

int invoke_errhandler(MPI_Comm comm, int code) {
    Runtime* runtime = Runtime::get();
    Communicator* communicator = runtime ? runtime->communicators.find(comm) : nullptr;
    const MPI_Errhandler handler =
        communicator ? communicator->errhandler : MPI_ERRORS_ARE_FATAL;
    if (handler == MPI_ERRORS_RETURN) return code;
    if (handler != MPI_ERRORS_ARE_FATAL && handler != MPI_ERRORS_ABORT) {
        if (MPI_Comm_errhandler_function* function = user_errhandler(handler)) {
            MPI_Comm target = communicator->window != MPI_WIN_NULL ? communicator->window : comm;
            int argument = code;
            function(&target, &argument);
            return code;
        }
    }
    log::error("{}", error_string(code));
    abort_job(1, "an MPI call failed under MPI_ERRORS_ARE_FATAL");
}

int Call::report(int error_class, const std::string& detail) {
    return invoke_errhandler(error_comm_,
                             make_error_code(error_class, fmt::format("{}: {}", function_, detail)));
}

int Call::initialized() {
    if (Runtime::get() != nullptr) return MPI_SUCCESS;
    // No error handler exists yet (or any more): report and end the process.
    log::error("{} called {}", function_,
               Runtime::finalized_flag() ? "after MPI_Finalize" : "before MPI_Init");
    abort_job(1, "MPI call outside MPI_Init ... MPI_Finalize");
}

int Call::invalid_communicator(MPI_Comm handle) {
    if (handle == MPI_COMM_NULL)
        return fail(MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
    if (!is_kind(handle, HandleKind::communicator))
        return fail(MPI_ERR_COMM, "communicator argument {:#x} is {}", handle, kind_name(handle));
    return fail(MPI_ERR_COMM, "communicator {:#x} does not exist (freed?)", handle);
}

int Call::intracommunicator(MPI_Comm handle, Communicator*& out) {
    if (int rc = communicator(handle, out)) return rc;
    if (!out->inter()) return MPI_SUCCESS;
    return fail(MPI_ERR_COMM, "{} is an intercommunicator, which this call does not accept",
                describe_comm(*out));
}

int Call::any_datatype(MPI_Datatype handle, const datatype::Type*& out, const char* argument) {
    if (handle == MPI_DATATYPE_NULL)
        return fail(MPI_ERR_TYPE, "{} is MPI_DATATYPE_NULL", argument);
    if (!is_kind(handle, HandleKind::datatype))
        return fail(MPI_ERR_TYPE, "{} {:#x} is {}", argument, handle, kind_name(handle));
    out = datatype::lookup(handle);
    if (out == nullptr)
        return fail(MPI_ERR_TYPE, "{} {:#x} does not exist (freed?)", argument, handle);
    return MPI_SUCCESS;
}

int Call::datatype(MPI_Datatype handle, const datatype::Type*& out, const char* argument) {
    if (int rc = any_datatype(handle, out, argument)) return rc;
    if (!out->committed)
        return fail(MPI_ERR_TYPE, "{} {} is not committed; call MPI_Type_commit first", argument,
                    out->name);
    return MPI_SUCCESS;
}

int Call::reduction(MPI_Op handle, const datatype::Type& type, const datatype::Op*& out) {
    if (handle == MPI_OP_NULL) return fail(MPI_ERR_OP, "op is MPI_OP_NULL");
    out = datatype::lookup_op(handle);
    if (out == nullptr)
        return fail(MPI_ERR_OP, "op {:#x} is not an existing operation ({})", handle,
                    kind_name(handle));
    if (!datatype::reduction_valid(*out, type))
        return fail(MPI_ERR_OP, "op {}", datatype::reduction_error(*out, type));
    return MPI_SUCCESS;
}

int Call::negative_count(int value, const char* argument) {
    return fail(MPI_ERR_COUNT, "{} is {}; it must be 0 or more", argument, value);
}

int Call::null_buffer(int count, const char* argument) {
    return fail(MPI_ERR_BUFFER, "{} is NULL while the count is {}", argument, count);
}

int Call::any_message(const void* buffer_pointer, int count_value, MPI_Datatype type,
                      const datatype::Type*& out, const char* buffer_name, const char* count_name,
                      const char* type_name) {
    if (int rc = count(count_value, count_name)) return rc;
    // No data, no type: MPICH takes MPI_DATATYPE_NULL there (its pt2pt/recvnull).
    if (count_value == 0 && type == MPI_DATATYPE_NULL) {
        out = &datatype::predefined(MPI_BYTE);
        return MPI_SUCCESS;
    }
    if (int rc = datatype(type, out, type_name)) return rc;
    // MPI_BOTTOM (null) with a derived type whose displacements are addresses.
    if (out->size == 0 || !out->predefined) return MPI_SUCCESS;
    return buffer(buffer_pointer, count_value, buffer_name);
}

int Call::invalid_rank(const Communicator& comm, int rank, const char* argument, bool receive) {
    return fail(MPI_ERR_RANK, "invalid {} {}: {} has {} {}ranks (valid: 0..{}{} or MPI_PROC_NULL)",
                argument, rank, describe_comm(comm), comm.peers(), comm.inter() ? "remote " : "",
                comm.peers() - 1, receive ? ", MPI_ANY_SOURCE" : "");
}

int Call::root(const Communicator& comm, int rank) {
    if (rank >= 0 && rank < comm.size()) return MPI_SUCCESS;
    return fail(MPI_ERR_ROOT, "invalid root {}: {} has {} ranks (valid: 0..{})", rank,
                describe_comm(comm), comm.size(), comm.size() - 1);
}

TagRules g_tag_rules;

void set_tag_rules(const TagRules& rules) {
    g_tag_rules = rules;
}

int Call::invalid_tag(int tag, const char* argument, bool receive) {
    if (tag == MPI_ANY_TAG && receive)
        return fail(MPI_ERR_TAG,
                    "invalid {} MPI_ANY_TAG: SI_GHOST_MATCHING=tag encodes the receiver in the "
                    "tag, so every receive names its tag (seed 003's wildcard_used=none); "
                    "SI_GHOST_MATCHING=receiver or dup allow MPI_ANY_TAG",
                    argument);
    return fail(MPI_ERR_TAG, "invalid {} {}: tags of a {} range from 0 to MPI_TAG_UB = {}{}",
                argument, tag, receive ? "receive" : "send", g_tag_rules.upper_bound,
                receive && g_tag_rules.any_tag ? ", or MPI_ANY_TAG" : "");
}

int Call::null_argument(const char* argument) {
    return fail(MPI_ERR_ARG, "{} is NULL", argument);
}

const char* kind_name(int handle) {
    switch (static_cast<HandleKind>(handle::kind_of(handle))) {
        case HandleKind::communicator: return "a communicator";
        case HandleKind::datatype: return "a datatype";
        case HandleKind::op: return "an operation";
        case HandleKind::request: return "a request";
        case HandleKind::errhandler: return "an error handler";
        case HandleKind::group: return "a group";
        case HandleKind::window: return "a window";
        case HandleKind::info: return "an info object";
        case HandleKind::message: return "a message";
        case HandleKind::persistent_request: return "a persistent request";
        case HandleKind::keyval: return "an attribute key";
        default: return "not a handle of this MPI library";
    }
}

}  // namespace si::api
