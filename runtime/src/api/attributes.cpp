#include "api/attributes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/runtime.hpp"
#include "api/win.hpp"
#include "datatype/handle_table.hpp"

namespace si::api {

namespace {

// The callbacks of a key. Copy callbacks of communicators and datatypes have
// the same C type (both handles are ints), and so do delete callbacks.
struct Keyval {
    AttributeHost host = AttributeHost::communicator;
    MPI_Comm_copy_attr_function* copy = nullptr;     // null: MPI_*_NULL_COPY_FN
    MPI_Comm_delete_attr_function* erase = nullptr;  // null: MPI_*_NULL_DELETE_FN
    void* extra_state = nullptr;
    // MPI_*_free_keyval came while attributes still used the key: the handle
    // stays taken (not reused) until the last of them is deleted.
    bool freed = false;
    int handle = 0;              // set by the table
    const char* name = nullptr;  // unused
};

datatype::HandleTable<Keyval>& keyvals() {
    static datatype::HandleTable<Keyval> table(static_cast<int>(HandleKind::keyval), 1);
    return table;
}

// One attribute. It keeps its own copy of the key's callbacks: the standard
// lets a program free a key while values attached under it live on.
struct Attribute {
    std::shared_ptr<const Keyval> key;
    void* value;
    std::uint64_t set_order;  // when it was set, for deletion in reverse order
};
std::uint64_t g_next_order = 0;                  // under g_mutex
using AttributeList = std::map<int, Attribute>;  // by keyval

// Every object's attributes. Callbacks run without the lock held: they are
// user code, which may call the attribute functions again.
std::mutex g_mutex;
std::unordered_map<std::uint64_t, AttributeList> g_attributes;

std::uint64_t object_key(AttributeHost host, int object) {
    return static_cast<std::uint64_t>(host) << 32 | static_cast<std::uint32_t>(object);
}

const char* host_name(AttributeHost host) {
    switch (host) {
        case AttributeHost::communicator: return "communicator";
        case AttributeHost::datatype: return "datatype";
        case AttributeHost::window: return "window";
    }
    return "";
}

// A callback's non-zero result, reported through call.
int callback_failed(Call& call, int code, const char* which, int keyval) {
    const int error_class = error_class_of(code);
    return call.fail(error_class > 0 ? error_class : MPI_ERR_OTHER,
                     "the {} callback of keyval {:#x} returned {}", which, keyval, code);
}

void release_if_freed(int keyval);

// Runs the delete callback of an attribute taken off `object`. When it fails
// the attribute stays (MPI-3.1 section 6.7.3; what MPICH does): it is put back.
int run_delete(Call& call, const Attribute& a, AttributeHost host, int object, int keyval) {
    const int code =
        a.key->erase == nullptr ? MPI_SUCCESS : a.key->erase(object, keyval, a.value, a.key->extra_state);
    if (code == MPI_SUCCESS) {
        release_if_freed(keyval);
        return MPI_SUCCESS;
    }
    {
        std::lock_guard lock(g_mutex);
        g_attributes[object_key(host, object)].emplace(keyval, a);
    }
    return callback_failed(call, code, "delete", keyval);
}

// A user key of the given host kind, copied out of the table.
int user_keyval(Call& call, AttributeHost host, int keyval, std::shared_ptr<const Keyval>& out) {
    std::optional<Keyval> found;
    keyvals().update(keyval, [&](const Keyval& k) { found = k; });
    if (!found)
        return call.fail(MPI_ERR_KEYVAL, "keyval {:#x} is {}", keyval,
                         is_kind(keyval, HandleKind::keyval) ? "not an existing key (freed?)"
                                                             : "not a key this call can use");
    if (found->host != host)
        return call.fail(MPI_ERR_KEYVAL, "keyval {:#x} was made for {} attributes, not {} ones",
                         keyval, host_name(found->host), host_name(host));
    out = std::make_shared<const Keyval>(*found);
    return MPI_SUCCESS;
}

// The object exists: a communicator, datatype or window handle.
int check_object(Call& call, AttributeHost host, int object) {
    if (int rc = call.initialized()) return rc;
    if (host == AttributeHost::communicator) {
        Communicator* c = nullptr;
        return call.communicator(object, c);
    }
    if (host == AttributeHost::window) {
        Win* w = nullptr;
        return find_window(call, object, w);
    }
    const datatype::Type* type = nullptr;
    return call.any_datatype(object, type);
}

int create_keyval(const char* function, AttributeHost host, MPI_Comm_copy_attr_function* copy,
                  MPI_Comm_delete_attr_function* erase, int* keyval, void* extra_state) {
    Call call(function);
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(keyval, "keyval")) return rc;
    const int handle =
        keyvals().add(Keyval{host, copy, erase, extra_state}, [](int) { return std::string(); });
    if (handle == 0) return call.fail(MPI_ERR_INTERN, "too many attribute keys exist");
    *keyval = handle;
    return MPI_SUCCESS;
}

bool key_in_use(int keyval) {
    std::lock_guard lock(g_mutex);
    return std::any_of(g_attributes.begin(), g_attributes.end(),
                       [&](const auto& object) { return object.second.count(keyval) != 0; });
}

// After an attribute of `keyval` was deleted: a freed key goes once unused.
void release_if_freed(int keyval) {
    bool freed = false;
    keyvals().update(keyval, [&](const Keyval& k) { freed = k.freed; });
    if (freed && !key_in_use(keyval)) keyvals().remove(keyval);
}

int free_keyval(const char* function, AttributeHost host, int* keyval) {
    Call call(function);
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(keyval, "keyval")) return rc;
    std::shared_ptr<const Keyval> key;
    if (int rc = user_keyval(call, host, *keyval, key)) return rc;
    if (key->freed)
        return call.fail(MPI_ERR_KEYVAL, "keyval {:#x} was freed already", *keyval);
    // MPI-3.1 section 6.7.2: attributes using the key live on, with its callbacks.
    if (key_in_use(*keyval))
        keyvals().update(*keyval, [](Keyval& k) { k.freed = true; });
    else
        keyvals().remove(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

// The values of the predefined communicator attributes; nullptr if keyval is
// not one of them.
const int* predefined_value(int keyval) {
    static const int host = MPI_PROC_NULL;
    static const int io = MPI_ANY_SOURCE;  // every rank can do I/O
    static const int wtime_is_global = 0;
    static const int appnum = 0;
    static int universe_size = 0;  // the world's size: sirun starts no more ranks later
    static int last_used_code = 0;
    switch (keyval) {
        case MPI_TAG_UB:
            return &tag_rules().upper_bound;
        case MPI_HOST:
            return &host;
        case MPI_IO:
            return &io;
        case MPI_WTIME_IS_GLOBAL:
            return &wtime_is_global;
        case MPI_APPNUM:
            return &appnum;
        case MPI_UNIVERSE_SIZE:
            universe_size = Runtime::get()->locality.world_size;
            return &universe_size;
        case MPI_LASTUSEDCODE:
            last_used_code = last_used_error_code();
            return &last_used_code;
        default:
            return nullptr;
    }
}

int get_attr(const char* function, AttributeHost host, int object, int keyval, void* attribute_val,
             int* flag) {
    Call call(function);
    if (int rc = check_object(call, host, object)) return rc;
    if (int rc = call.not_null(attribute_val, "attribute_val")) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    // Predefined attributes are returned as a pointer to their value.
    if (const int* value =
            host == AttributeHost::communicator ? predefined_value(keyval) : nullptr) {
        std::memcpy(attribute_val, &value, sizeof value);
        *flag = 1;
        return MPI_SUCCESS;
    }
    std::shared_ptr<const Keyval> key;
    if (int rc = user_keyval(call, host, keyval, key)) return rc;
    std::lock_guard lock(g_mutex);
    *flag = 0;
    const auto list = g_attributes.find(object_key(host, object));
    if (list == g_attributes.end()) return MPI_SUCCESS;
    const auto it = list->second.find(keyval);
    if (it == list->second.end()) return MPI_SUCCESS;
    std::memcpy(attribute_val, &it->second.value, sizeof(void*));
    *flag = 1;
    return MPI_SUCCESS;
}

// Removes an attribute, returning it; false if there was none.
bool take_attribute(AttributeHost host, int object, int keyval, Attribute& out) {
    {
        std::lock_guard lock(g_mutex);
        const auto list = g_attributes.find(object_key(host, object));
        if (list == g_attributes.end()) return false;
        const auto it = list->second.find(keyval);
        if (it == list->second.end()) return false;
        out = it->second;
        list->second.erase(it);
        if (list->second.empty()) g_attributes.erase(list);
    }
    return true;
}

int set_attr(const char* function, AttributeHost host, int object, int keyval, void* value) {
    Call call(function);
    if (int rc = check_object(call, host, object)) return rc;
    if (host == AttributeHost::communicator && predefined_value(keyval) != nullptr)
        return call.fail(MPI_ERR_KEYVAL, "keyval {:#x} is predefined; its value cannot be set",
                         keyval);
    std::shared_ptr<const Keyval> key;
    if (int rc = user_keyval(call, host, keyval, key)) return rc;
    // A value already there is deleted first, with its callback.
    Attribute old;
    if (take_attribute(host, object, keyval, old))
        if (int rc = run_delete(call, old, host, object, keyval)) return rc;
    std::lock_guard lock(g_mutex);
    g_attributes[object_key(host, object)][keyval] =
        Attribute{std::move(key), value, g_next_order++};
    return MPI_SUCCESS;
}

int delete_attr(const char* function, AttributeHost host, int object, int keyval) {
    Call call(function);
    if (int rc = check_object(call, host, object)) return rc;
    std::shared_ptr<const Keyval> key;
    if (int rc = user_keyval(call, host, keyval, key)) return rc;
    // Deleting an attribute that is not there succeeds, as with MPICH.
    Attribute old;
    if (!take_attribute(host, object, keyval, old)) return MPI_SUCCESS;
    return run_delete(call, old, host, object, keyval);
}

// Attributes of an object, copied out.
AttributeList attributes_of(AttributeHost host, int object) {
    std::lock_guard lock(g_mutex);
    const auto list = g_attributes.find(object_key(host, object));
    return list == g_attributes.end() ? AttributeList{} : list->second;
}

int copy_value(int, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
    std::memcpy(attribute_val_out, &attribute_val_in, sizeof(void*));
    *flag = 1;
    return MPI_SUCCESS;
}

}  // namespace

struct CopiedAttributes::Values {
    AttributeList list;
};

CopiedAttributes::CopiedAttributes() : values_(std::make_unique<Values>()) {}
CopiedAttributes::CopiedAttributes(CopiedAttributes&&) noexcept = default;
CopiedAttributes& CopiedAttributes::operator=(CopiedAttributes&&) noexcept = default;
CopiedAttributes::~CopiedAttributes() = default;

int get_window_attribute(const char* function, MPI_Win win, int keyval, void* attribute_val,
                         int* flag) {
    return get_attr(function, AttributeHost::window, win, keyval, attribute_val, flag);
}

int copy_attributes(Call& call, AttributeHost host, int original, CopiedAttributes& out) {
    for (const auto& [keyval, a] : attributes_of(host, original)) {
        if (a.key->copy == nullptr) continue;
        void* value = nullptr;
        int flag = 0;
        const int code = a.key->copy(original, keyval, a.key->extra_state, a.value, &value, &flag);
        if (code != MPI_SUCCESS) return callback_failed(call, code, "copy", keyval);
        if (!flag) continue;
        std::lock_guard lock(g_mutex);
        out.values_->list[keyval] = Attribute{a.key, value, g_next_order++};
    }
    return MPI_SUCCESS;
}

void attach_attributes(AttributeHost host, int copy, CopiedAttributes&& copied) {
    if (!copied.values_ || copied.values_->list.empty()) return;
    std::lock_guard lock(g_mutex);
    AttributeList& list = g_attributes[object_key(host, copy)];
    for (auto& [keyval, a] : copied.values_->list) list[keyval] = std::move(a);
    copied.values_->list.clear();
}

int copy_attributes(Call& call, AttributeHost host, int original, int copy) {
    CopiedAttributes copied;
    const int rc = copy_attributes(call, host, original, copied);
    // Even after a failure: the caller deletes them with the copy.
    attach_attributes(host, copy, std::move(copied));
    return rc;
}

// Newest first: the standard asks it for MPI_COMM_SELF at MPI_Finalize, and
// it is as good an order as any elsewhere.
int delete_attributes(Call& call, AttributeHost host, int object) {
    std::vector<std::pair<std::uint64_t, int>> order;  // (set_order, keyval)
    for (const auto& [keyval, a] : attributes_of(host, object))
        order.emplace_back(a.set_order, keyval);
    std::sort(order.rbegin(), order.rend());
    int first_error = MPI_SUCCESS;
    for (const auto& [set_order, keyval] : order) {
        Attribute taken;
        if (!take_attribute(host, object, keyval, taken)) continue;
        const int rc = run_delete(call, taken, host, object, keyval);
        if (first_error == MPI_SUCCESS) first_error = rc;
    }
    return first_error;
}

void discard_attributes(AttributeHost host, int object) {
    Call quiet("(cleanup)");
    (void)delete_attributes(quiet, host, object);
    std::vector<int> left;
    {
        std::lock_guard lock(g_mutex);
        const auto list = g_attributes.find(object_key(host, object));
        if (list == g_attributes.end()) return;
        for (const auto& entry : list->second) left.push_back(entry.first);
        g_attributes.erase(list);
    }
    for (int keyval : left) release_if_freed(keyval);
}

}  // namespace si::api

using namespace si::api;
using Host = AttributeHost;

extern "C" {

int MPI_COMM_DUP_FN(MPI_Comm c, int k, void* e, void* in, void* out, int* flag) {
    return copy_value(c, k, e, in, out, flag);
}
int MPI_TYPE_DUP_FN(MPI_Datatype t, int k, void* e, void* in, void* out, int* flag) {
    return copy_value(t, k, e, in, out, flag);
}
int MPI_DUP_FN(MPI_Comm c, int k, void* e, void* in, void* out, int* flag) {
    return copy_value(c, k, e, in, out, flag);
}
int MPI_WIN_DUP_FN(MPI_Win w, int k, void* e, void* in, void* out, int* flag) {
    return copy_value(w, k, e, in, out, flag);
}
// Every handle is an int, so one function serves all hosts, as in MPICH.
int MPIR_Dup_fn(int handle, int k, void* e, void* in, void* out, int* flag) {
    return copy_value(handle, k, e, in, out, flag);
}

// Windows are never duplicated: their copy callback is kept and never called.
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy, MPI_Win_delete_attr_function* erase,
                           int* keyval, void* extra_state) {
    return create_keyval("MPI_Win_create_keyval", Host::window, copy, erase, keyval, extra_state);
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int* keyval) {
    return free_keyval("MPI_Win_free_keyval", Host::window, keyval);
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int keyval, void* value) {
    return set_attr("MPI_Win_set_attr", Host::window, win, keyval, value);
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
    return delete_attr("MPI_Win_delete_attr", Host::window, win, keyval);
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* erase,
                            int* keyval, void* extra_state) {
    return create_keyval("MPI_Comm_create_keyval", Host::communicator, copy, erase, keyval,
                         extra_state);
}

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy, MPI_Type_delete_attr_function* erase,
                            int* keyval, void* extra_state) {
    return create_keyval("MPI_Type_create_keyval", Host::datatype, copy, erase, keyval,
                         extra_state);
}

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function* copy, MPI_Delete_function* erase, int* keyval,
                       void* extra_state) {
    return create_keyval("MPI_Keyval_create", Host::communicator, copy, erase, keyval, extra_state);
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int* keyval) {
    return free_keyval("MPI_Comm_free_keyval", Host::communicator, keyval);
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int* keyval) {
    return free_keyval("MPI_Type_free_keyval", Host::datatype, keyval);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int* keyval) {
    return free_keyval("MPI_Keyval_free", Host::communicator, keyval);
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* value) {
    return set_attr("MPI_Comm_set_attr", Host::communicator, comm, keyval, value);
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void* value) {
    return set_attr("MPI_Type_set_attr", Host::datatype, type, keyval, value);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void* value) {
    return set_attr("MPI_Attr_put", Host::communicator, comm, keyval, value);
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
    return get_attr("MPI_Comm_get_attr", Host::communicator, comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void* attribute_val, int* flag) {
    return get_attr("MPI_Type_get_attr", Host::datatype, type, keyval, attribute_val, flag);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
    return get_attr("MPI_Attr_get", Host::communicator, comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
    return delete_attr("MPI_Comm_delete_attr", Host::communicator, comm, keyval);
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype type, int keyval) {
    return delete_attr("MPI_Type_delete_attr", Host::datatype, type, keyval);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
    return delete_attr("MPI_Attr_delete", Host::communicator, comm, keyval);
}

}  // extern "C"
