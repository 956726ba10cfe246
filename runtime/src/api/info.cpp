// Info objects: ordered (key, value) string pairs. Of the hints, this
// runtime reads a window's reordering flags (api/win.cpp); the others exist
// so that programs passing hints run.
// MPI_INFO_ENV (and MPI_Info_create_env) describe how the process started,
// with the standard's reserved keys this runtime knows.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "api/info.hpp"

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/runtime.hpp"
#include "datatype/handle_table.hpp"

namespace si::api {

namespace {

struct InfoEntry {
    std::vector<std::pair<std::string, std::string>> pairs;  // in the order keys were first set
    int handle = 0;                                          // set by the table
    const char* name = nullptr;                              // unused
};

// Created info objects; MPI_INFO_ENV is predefined and never in the table.
datatype::HandleTable<InfoEntry>& infos() {
    static datatype::HandleTable<InfoEntry> table(static_cast<int>(HandleKind::info), 1);
    return table;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

const char* thread_level_name(int level) {
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

// The reserved keys of MPI_INFO_ENV (MPI-3.1 section 9.1.2) for a process
// started with `args` (the command first): command, argv (the arguments
// separated by spaces), maxprocs, wdir, host, thread_level.
Pairs environment(const std::vector<std::string>& args) {
    Pairs pairs;
    if (!args.empty()) pairs.emplace_back("command", args.front());
    std::string joined;
    for (std::size_t i = 1; i < args.size(); ++i) joined += (i > 1 ? " " : "") + args[i];
    if (!joined.empty()) pairs.emplace_back("argv", joined);
    const Runtime& runtime = *Runtime::get();
    pairs.emplace_back("maxprocs", std::to_string(runtime.bootstrap->size()));
    if (char cwd[4096]; getcwd(cwd, sizeof cwd) != nullptr) pairs.emplace_back("wdir", cwd);
    if (char host[256]; gethostname(host, sizeof host) == 0) {
        host[sizeof host - 1] = '\0';
        pairs.emplace_back("host", host);
    }
    pairs.emplace_back("thread_level", thread_level_name(runtime.thread_level));
    // Values longer than an info value may be cut (a long argument list).
    for (auto& pair : pairs)
        if (pair.second.size() >= MPI_MAX_INFO_VAL) pair.second.resize(MPI_MAX_INFO_VAL - 1);
    return pairs;
}

// This process's command line, as the kernel keeps it.
std::vector<std::string> own_command_line() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (std::size_t start = 0; start < raw.size();) {
        const std::size_t end = std::min(raw.find('\0', start), raw.size());
        args.push_back(raw.substr(start, end - start));
        start = end + 1;
    }
    return args;
}

// A copy of an info object's pairs, or an error naming `argument`.
int read_info(Call& call, MPI_Info info, Pairs& out, const char* argument = "info") {
    if (int rc = call.initialized()) return rc;
    if (info == MPI_INFO_ENV) {
        static const Pairs pairs = environment(own_command_line());
        out = pairs;
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
    if (info == MPI_INFO_NULL) return call.initialized();
    Pairs ignored;
    return read_info(call, info, ignored, argument);
}

int new_empty_info(Call& call, MPI_Info* out) {
    return make_info(call, {}, out);
}

int read_hints(Call& call, MPI_Info info, InfoPairs& out, const char* argument) {
    out.clear();
    if (info == MPI_INFO_NULL) return call.initialized();
    return read_info(call, info, out, argument);
}

int new_info(Call& call, InfoPairs pairs, MPI_Info* out) {
    return make_info(call, std::move(pairs), out);
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

#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
    Call call("MPI_Info_get_string");
    Pairs pairs;
    if (int rc = read_info(call, info, pairs)) return rc;
    if (int rc = check_key(call, key)) return rc;
    if (int rc = call.not_null(buflen, "buflen")) return rc;
    if (int rc = call.not_null(flag, "flag")) return rc;
    if (*buflen < 0) return call.fail(MPI_ERR_ARG, "*buflen is {}; it must be 0 or more", *buflen);
    const auto it = find_key(pairs, key);
    *flag = it != pairs.end() ? 1 : 0;
    if (it == pairs.end()) return MPI_SUCCESS;
    // Up to *buflen - 1 characters and a null; *buflen becomes what the
    // whole value needs. With *buflen 0, value is not touched.
    const auto room = static_cast<std::size_t>(*buflen);
    if (room > 0) {
        if (int rc = call.not_null(value, "value")) return rc;
        const std::size_t n = std::min(it->second.size(), room - 1);
        std::memcpy(value, it->second.data(), n);
        value[n] = '\0';
    }
    *buflen = static_cast<int>(it->second.size() + 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
    Call call("MPI_Info_create_env");
    if (int rc = call.initialized()) return rc;
    if (int rc = call.not_null(info, "info")) return rc;
    if (argc < 0) return call.fail(MPI_ERR_ARG, "argc is {}; it must be 0 or more", argc);
    if (argc > 0)
        if (int rc = call.not_null(argv, "argv")) return rc;
    const std::vector<std::string> args(argv, argv + argc);
    return make_info(call, environment(argc > 0 ? args : own_command_line()), info);
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
