#include "sirun/pmi_server.hpp"

#include <fmt/format.h>

namespace si::sirun {

namespace pmi1 = bootstrap::pmi1;

namespace {

void reply(std::vector<PmiReply>& out, int rank, const pmi1::Message& message) {
    out.push_back({rank, message.format()});
}

pmi1::Message success(std::string_view command) {
    pmi1::Message message(command);
    message.add("rc", 0);
    return message;
}

pmi1::Message failure(std::string_view command, std::string_view why) {
    pmi1::Message message(command);
    message.add("rc", -1).add("msg", why);
    return message;
}

PmiEvent protocol_error(std::string problem) {
    return {PmiEvent::Kind::protocol_error, 0, std::move(problem)};
}

}  // namespace

PmiServer::PmiServer(int size, std::string kvsname)
    : size_(size), kvsname_(std::move(kvsname)), ranks_(static_cast<std::size_t>(size)) {
    // MPICH reads the rank-to-node map from this key: one node, holding all ranks.
    kvs_["PMI_process_mapping"] = fmt::format("(vector,(0,1,{}))", size);
}

PmiEvent PmiServer::handle_line(int rank, std::string_view line, std::vector<PmiReply>& out) {
    auto command = pmi1::parse_message(line);
    if (!command)
        return protocol_error(fmt::format("sent a line that is not a PMI-1 command: '{}'", line));
    return dispatch(rank, *command, out);
}

PmiEvent PmiServer::dispatch(int rank, const pmi1::Message& command, std::vector<PmiReply>& out) {
    const std::string& name = command.command();
    if (name == "init") {
        auto version = command.find_int("pmi_version");
        if (version != 1) {
            reply(out, rank, failure("response_to_init", "only_pmi_version_1_is_served"));
            return protocol_error(fmt::format(
                "asked for PMI version {}, and sirun serves only version 1",
                command.find("pmi_version").value_or("(none)")));
        }
        ranks_[rank].initialized = true;
        reply(out, rank,
              pmi1::Message("response_to_init")
                  .add("pmi_version", 1)
                  .add("pmi_subversion", 1)
                  .add("rc", 0));
        return {PmiEvent::Kind::initialized, 0, {}};
    }
    if (name == "get_maxes") {
        reply(out, rank,
              success("maxes")
                  .add("kvsname_max", static_cast<long>(kMaxKvsName))
                  .add("keylen_max", static_cast<long>(kMaxKey))
                  .add("vallen_max", static_cast<long>(kMaxValue)));
        return {};
    }
    if (name == "get_appnum") {
        reply(out, rank, success("appnum").add("appnum", 0));
        return {};
    }
    if (name == "get_my_kvsname") {
        reply(out, rank, success("my_kvsname").add("kvsname", kvsname_));
        return {};
    }
    if (name == "get_universe_size") {
        reply(out, rank, success("universe_size").add("size", size_));
        return {};
    }
    if (name == "put") return put(rank, command, out);
    if (name == "get") {
        get(rank, command, out);
        return {};
    }
    if (name == "barrier_in") return barrier_in(rank, out);
    if (name == "finalize") return finalize(rank, out);
    if (name == "abort") {
        // Hydra's clients send exitcode; anything unreadable still ends the job.
        long code = command.find_int("exitcode").value_or(1);
        return {PmiEvent::Kind::aborted, static_cast<int>(code), {}};
    }
    return protocol_error(
        fmt::format("sent the PMI command '{}', which sirun does not serve", name));
}

PmiEvent PmiServer::put(int rank, const pmi1::Message& command, std::vector<PmiReply>& out) {
    auto kvsname = command.find("kvsname");
    auto key = command.find("key");
    auto value = command.find("value");
    if (!key || !value || !pmi1::is_wire_key(*key)) {
        reply(out, rank, failure("put_result", "put_needs_key_and_value"));
        return {};
    }
    if (kvsname != kvsname_) {
        reply(out, rank, failure("put_result", "unknown_kvsname"));
        return {};
    }
    if (key->size() > kMaxKey || value->size() > kMaxValue) {
        reply(out, rank, failure("put_result", "key_or_value_too_long"));
        return {};
    }
    ranks_[rank].staged.emplace_back(*key, *value);
    reply(out, rank, success("put_result").add("msg", "success"));
    return {};
}

void PmiServer::get(int rank, const pmi1::Message& command, std::vector<PmiReply>& out) {
    auto kvsname = command.find("kvsname");
    auto key = command.find("key");
    if (!key || kvsname != kvsname_) {
        reply(out, rank, failure("get_result", key ? "unknown_kvsname" : "get_needs_key"));
        return;
    }
    auto found = kvs_.find(*key);
    if (found == kvs_.end()) {
        // The message is a single word; the key is safe in it (checked at put).
        pmi1::Message missing("get_result");
        missing.add("rc", -1).add("msg", fmt::format("key_{}_not_found", *key));
        if (!pmi1::is_wire_value(*key)) missing = failure("get_result", "key_not_found");
        reply(out, rank, missing);
        return;
    }
    reply(out, rank, success("get_result").add("msg", "success").add("value", found->second));
}

PmiEvent PmiServer::barrier_in(int rank, std::vector<PmiReply>& out) {
    RankState& state = ranks_[rank];
    if (state.in_barrier)
        return protocol_error("entered a fence twice without waiting for the first to end");
    state.in_barrier = true;
    ++waiting_;
    for (auto& [key, value] : state.staged) kvs_[key] = std::move(value);
    state.staged.clear();
    for (int r = 0; r < size_; ++r)
        if (ranks_[r].finalized)
            return protocol_error(fmt::format(
                "entered a fence that cannot complete because rank {} already finalized", r));
    if (waiting_ < size_) return {};
    for (int r = 0; r < size_; ++r) {
        ranks_[r].in_barrier = false;
        reply(out, r, success("barrier_out"));
    }
    waiting_ = 0;
    return {};
}

PmiEvent PmiServer::finalize(int rank, std::vector<PmiReply>& out) {
    ranks_[rank].finalized = true;
    reply(out, rank, success("finalize_ack"));
    // A finalized rank never enters another fence, so ranks already waiting in
    // one would wait forever.
    std::string waiting;
    for (int r = 0; r < size_; ++r)
        if (ranks_[r].in_barrier) waiting += fmt::format("{}{}", waiting.empty() ? "" : ", ", r);
    if (!waiting.empty())
        return protocol_error(fmt::format(
            "finalized while rank(s) {} wait in a fence that can no longer complete", waiting));
    return {PmiEvent::Kind::finalized, 0, {}};
}

}  // namespace si::sirun
