// sirun's side of the PMI-1 wire protocol, kept free of sockets and processes
// so that it can be tested by feeding it lines.
//
// Puts are staged per rank and published when that rank enters the barrier,
// as Hydra's proxies do; a program that reads a key without a fence between
// the put and the get therefore fails under sirun as it would under Hydra.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bootstrap/pmi1_wire.hpp"

namespace si::sirun {

// What a line asked of the launcher besides replies.
struct PmiEvent {
    enum class Kind { none, initialized, finalized, aborted, protocol_error };
    Kind kind = Kind::none;
    int exit_code = 0;    // for aborted
    std::string problem;  // for protocol_error: one sentence naming what the rank did
};

struct PmiReply {
    int rank;
    std::string line;  // with its newline
};

class PmiServer {
public:
    static constexpr std::size_t kMaxKvsName = 256;
    static constexpr std::size_t kMaxKey = 64;
    static constexpr std::size_t kMaxValue = 1024;

    PmiServer(int size, std::string kvsname);

    // Handles one line (without newline) received from rank; replies, possibly
    // to several ranks (the barrier), are appended to out.
    PmiEvent handle_line(int rank, std::string_view line, std::vector<PmiReply>& out);

    const std::string& kvsname() const { return kvsname_; }
    bool initialized(int rank) const { return ranks_[rank].initialized; }
    bool finalized(int rank) const { return ranks_[rank].finalized; }

private:
    struct RankState {
        bool initialized = false;
        bool finalized = false;
        bool in_barrier = false;
        std::vector<std::pair<std::string, std::string>> staged;
    };

    PmiEvent dispatch(int rank, const bootstrap::pmi1::Message& command,
                      std::vector<PmiReply>& out);
    PmiEvent put(int rank, const bootstrap::pmi1::Message& command, std::vector<PmiReply>& out);
    void get(int rank, const bootstrap::pmi1::Message& command, std::vector<PmiReply>& out);
    PmiEvent barrier_in(int rank, std::vector<PmiReply>& out);
    PmiEvent finalize(int rank, std::vector<PmiReply>& out);

    int size_;
    std::string kvsname_;
    std::vector<RankState> ranks_;
    int waiting_ = 0;
    std::map<std::string, std::string, std::less<>> kvs_;
};

}  // namespace si::sirun
