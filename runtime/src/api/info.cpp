// Info objects: ordered (key, value) string pairs. This runtime reads no
// hints from them yet; they exist so that programs passing hints run, and
// MPI_INFO_ENV is empty.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "api/info.hpp"

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "datatype/handle_table.hpp"

namespace si::api {

namespace {

struct InfoEntry {
    std::vector<std::pair<std::string, std::string>> pairs;  // in the order keys were first set
    int handle = 0;                                          // set by the table
    const char* name = nullptr;                              // unused
};

// Handle index 1 is MPI_INFO_ENV.
datatype::HandleTable<InfoEntry>& infos() {
    static datatype::HandleTable<InfoEntry> table(static_cast<int>(HandleKind::info), 2);
    return table;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// A copy of an info object's pairs, or an error naming `argument`.
int read_info(Call& call, MPI_Info info, Pairs& out, const char* argument = "info") {
    if (int rc = call.initialized()) return rc;
    if (info == MPI_INFO_ENV) {
        out.clear();
        return MPI_SUCCESS;
    }
    if (info == MPI_INFO_NULL) return call.fail(MPI_ERR_ARG, "{} is MPI_INFO_NULL", argument);
    if (!infos().update(info, [&](const InfoEntry& e) { out = e.pairs; }))
        return call.fail(MPI_ERR_INFO, "{} {:#x} is {}", argument, info,
                         is_kind(info, HandleKind::info) ? "not an existing info object (freed?)"
                                                         : kind_name(info));
    return MPI_SUCCESS;
}

// Runs fn on a user-created info object's pairs; MPI_INFO_ENV may not change.
template <typename Fn>
int change_info(Call& call, MPI_Info info, Fn&& fn) {
    Pairs ignored;
    if (int rc = read_info(call, info, ignored)) return rc;
    if (info == MPI_INFO_ENV) return call.fail(MPI_ERR_INFO, "MPI_INFO_ENV cannot be changed");
    int rc = MPI_SUCCESS;
    infos().update(info, [&](InfoEntry& e) { rc = fn(e.pairs); });
    return rc;
}

int check_key(Call& call, const char* key) {
    if (int rc = call.not_null(key, "key")) return rc;
    const std::size_t length = std::strlen(key);
    if (length == 0 || length >= MPI_MAX_INFO_KEY)
        return call.fail(MPI_ERR_INFO_KEY, "key \"{:.40}\" has {} characters; keys have 1 to {}",
                         key, length, MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

Pairs::const_iterator find_key(const Pairs& pairs, const char* key) {
    return std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) { return p.first == key; });
}

int make_info(Call& call, Pairs pairs, MPI_Info* out) {
    const int handle = infos().add(InfoEntry{std::move(pairs)}, [](int) { return std::string(); });
    if (handle == 0) return call.fail(MPI_ERR_INTERN, "too many info objects exist; free some");
    *out = handle;
    return MPI_SUCCESS;
}

}  // namespace

int check_info(Call& call, MPI_Info info, const char* argument) {
    Pairs ignored;
    return read_info(call, info, ignored, argument);
}

int new_empty_info(Call& call, MPI_Info* out) {
    return make_info(call, {}, out);
}

}  // namespace si::api

using namespace si::api;

extern "C" {

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info* info) {
    Call call("MPI_Info_create");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(info, "info")) return rc;
    return make_info(call, {}, info);
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
    Call call("MPI_Info_dup");
    Pairs pairs;
    if (int rc = read_info(call, info, pairs)) return rc;
    if (int rc = call.not_null(newinfo, "newinfo")) return rc;
    return make_info(call, std::move(pairs), newinfo);
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info* info) {
    Call call("MPI_Info_free");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(info, "info")) return rc;
    Pairs ignored;
    if (int rc = read_info(call, *info, ignored)) return rc;
    if (*info == MPI_INFO_ENV) return call.fail(MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
    infos().remove(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
    Call call("MPI_Info_set");
    if (int rc = call.initialized()) return rc;
    if (int rc = check_key(call, key)) return rc;
    if (int rc = call.not_null(value, "value")) return rc;
    const std::size_t length = std::strlen(value);
    if (length == 0 || length >= MPI_MAX_INFO_VAL)
        return call.fail(MPI_ERR_INFO_VALUE,
                         "the value of {} has {} characters; values have 1 "
                         "to {}",
                         key, length, MPI_MAX_INFO_VAL - 1);
    return change_info(call, info, [&](Pairs& pairs) {
        const auto it = find_key(pairs, key);
        if (it == pairs.end())
            pairs.emplace_back(key, value);
        else
            pairs[static_cast<std::size_t>(it - pairs.begin())].second = value;
        return MPI_SUCCESS;
    });
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char* key) {
    Call call("MPI_Info_delete");
    if (int rc = call.initialized()) return rc;
    if (int rc = check_key(call, key)) return rc;
    bool found = false;
    if (int rc = change_info(call, info, [&](Pairs& pairs) {
            const auto it = find_key(pairs, key);
            found = it != pairs.end();
            if (found) pairs.erase(it);
            return MPI_SUCCESS;
        }))
        return rc;
    if (!found) return call.fail(MPI_ERR_INFO_NOKEY, "info has no key \"{}\"", key);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
    Call call("MPI_Info_get");
    Pairs pairs;
    if (int rc = read_info(call, info, pairs)) return rc;
    if (int rc = check_key(call, key)) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    if (valuelen < 0)
        return call.fail(MPI_ERR_ARG, "valuelen is {}; it must be 0 or more", valuelen);
    const auto it = find_key(pairs, key);
    *flag = it != pairs.end() ? 1 : 0;
    if (it == pairs.end()) return MPI_SUCCESS;
    if (int rc = call.not_null(value, "value")) return rc;
    // At most valuelen characters, then the terminating null.
    const std::size_t n = std::min(it->second.size(), static_cast<std::size_t>(valuelen));
    std::memcpy(value, it->second.data(), n);
    value[n] = '\0';
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
    Call call("MPI_Info_get_valuelen");
    Pairs pairs;
    if (int rc = read_info(call, info, pairs)) return rc;
    if (int rc = check_key(call, key)) return rc;
    if (int rc = call.not_null(valuelen, "valuelen")) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    const auto it = find_key(pairs, key);
    *flag = it != pairs.end() ? 1 : 0;
    if (it != pairs.end()) *valuelen = static_cast<int>(it->second.size());
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
    Call call("MPI_Info_get_nkeys");
    Pairs pairs;
    if (int rc = read_info(call, info, pairs)) return rc;
    if (int rc = call.not_null(nkeys, "nkeys")) return rc;
    *nkeys = static_cast<int>(pairs.size());
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
    Call call("MPI_Info_get_nthkey");
    Pairs pairs;
    if (int rc = read_info(call, info, pairs)) return rc;
    if (int rc = call.not_null(key, "key")) return rc;
    if (n < 0 || n >= static_cast<int>(pairs.size()))
        return call.fail(MPI_ERR_ARG, "n is {}; the info object has {} keys", n, pairs.size());
    const std::string& k = pairs[static_cast<std::size_t>(n)].first;
    std::memcpy(key, k.c_str(), k.size() + 1);
    return MPI_SUCCESS;
}

}  // extern "C"
