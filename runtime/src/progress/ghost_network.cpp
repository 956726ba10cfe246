#include "progress/ghost_network.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "base/error.hpp"
#include "base/error_class.hpp"
#include "base/log.hpp"
#include "progress/node_process.hpp"
#include "transport/verbs/verbs_transport.hpp"

namespace si::progress {

namespace {

using namespace std::chrono_literals;
using node::ExchangeState;

constexpr int kErrOther = error_class::kOther;
constexpr std::string_view kKeyPrefix = "ghost-";
// How often either side of the exchange looks at the other.
constexpr auto kExchangePoll = 50us;

ExchangeState state_of(const node::GhostExchange& exchange) {
    return static_cast<ExchangeState>(exchange.state.load(std::memory_order_acquire));
}

void set_state(node::GhostExchange& exchange, ExchangeState state) {
    exchange.state.store(static_cast<std::uint32_t>(state), std::memory_order_release);
}

void write_text(node::GhostExchange& exchange, std::string_view text) {
    const std::size_t bytes = std::min(text.size(), node::kExchangeBytes - 1);
    std::memcpy(exchange.text, text.data(), bytes);
    exchange.text[bytes] = '\0';
}

// The bootstrap a ghost hands to its verbs transport: puts and lookups go
// through its node's first rank (node::GhostExchange).
class ExchangeBootstrap final : public bootstrap::Bootstrap {
  public:
    ExchangeBootstrap(node::GhostExchange& exchange, int me, int ghosts)
        : exchange_(exchange), me_(me), ghosts_(ghosts) {
        write_text(exchange_, "");
    }

    int rank() const override { return me_; }
    int size() const override { return ghosts_; }
    const std::string& job_id() const override { return job_id_; }
    std::size_t max_value_length() const override { return 256; }

    void put(std::string_view key, std::string_view value) override {
        const std::size_t used = std::strlen(exchange_.text);
        const std::string line = fmt::format("{} {}\n", key, value);
        if (used + line.size() >= node::kExchangeBytes)
            fail(
                "ghost {}: its connection data to {} ghosts exceed {} bytes; use fewer "
                "ghosts (SI_GHOSTS) or nodes",
                me_, ghosts_, node::kExchangeBytes);
        std::memcpy(exchange_.text + used, line.c_str(), line.size() + 1);
    }

    std::string get(std::string_view key) override {
        while (state_of(exchange_) != ExchangeState::fenced)
            std::this_thread::sleep_for(kExchangePoll);
        write_text(exchange_, key);
        const std::uint32_t asked = exchange_.asked.load(std::memory_order_relaxed) + 1;
        exchange_.asked.store(asked, std::memory_order_release);
        while (exchange_.answered.load(std::memory_order_acquire) != asked)
            std::this_thread::sleep_for(kExchangePoll);
        if (exchange_.found == 0) fail("ghost {}: no ghost published {}", me_, key);
        return exchange_.text;
    }

    // The transport needs none of these.
    void fence() override { fail("ghost {}: no fence outside its rank", me_); }
    void abort(int, std::string_view) override {}
    void finalize() override {}

  private:
    node::GhostExchange& exchange_;
    const int me_;
    const int ghosts_;
    const std::string job_id_;
};

}  // namespace

// ---- the ghost's side -------------------------------------------------------------

GhostNetwork::GhostNetwork(node::GhostExchange& exchange, const GhostLayout& layout, int me,
                           std::size_t eager_bytes, int credits, std::atomic<std::uint32_t>& word,
                           Handler& handler)
    : eager_bytes_(eager_bytes),
      handler_(handler),
      waiting_(static_cast<std::size_t>(layout.ghosts())) {
    std::vector<int> peers;
    for (int ghost = 0; ghost < layout.ghosts(); ++ghost)
        if (layout.domain_of_ghost(ghost) != layout.domain_of_ghost(me)) peers.push_back(ghost);
    try {
        ExchangeBootstrap bootstrap(exchange, me, layout.ghosts());
        const transport::verbs::Options options{credits, sizeof(RemoteEnvelope) + eager_bytes,
                                                "SI_PROGRESS=ghost across nodes"};
        icb_ = std::make_unique<std::atomic<std::uint64_t>[]>(
            transport::verbs::VerbsTransport::icb_slots_per_peer(options) * peers.size());
        auto verbs = std::make_unique<transport::verbs::VerbsTransport>(bootstrap, peers,
                                                                        icb_.get(), word, options);
        set_state(exchange, ExchangeState::published);
        verbs->connect(bootstrap);
        transport_ = std::move(verbs);
    } catch (const std::exception& error) {
        write_text(exchange, error.what());
        set_state(exchange, ExchangeState::failed);
        throw;
    }
    set_state(exchange, ExchangeState::connected);
}

GhostNetwork::~GhostNetwork() {
    for (auto& [id, registration] : registered_) transport_->deregister_memory(registration);
}

void GhostNetwork::send(int to, const RemoteEnvelope& envelope, std::span<const std::byte> data) {
    queue(to, Wire::eager, envelope, data);
}

void GhostNetwork::send_done(int to, std::uint64_t id, int error) {
    queue(to, Wire::done, RemoteEnvelope{.id = id, .error = error}, {});
}

void GhostNetwork::queue(int to, Wire wire, const RemoteEnvelope& envelope,
                         std::span<const std::byte> data) {
    if (waiting(to).empty() && try_send(to, wire, envelope, data)) return;
    // Waits for credits, with its own copy of the data.
    waiting(to).push_back(Outgoing{wire, envelope, {data.begin(), data.end()}});
}

bool GhostNetwork::send_rts(int to, RemoteEnvelope envelope, const void* data, std::size_t bytes) {
    transport::Registration registration = transport_->register_memory(data, bytes);
    if (registration.bytes != bytes) return false;
    envelope.address = reinterpret_cast<std::uint64_t>(data);
    envelope.key = registration.key;
    registered_.emplace(envelope.id, registration);
    queue(to, Wire::rts, envelope, {});
    return true;
}

bool GhostNetwork::read(int from, const RemoteEnvelope& rts, void* into, std::size_t bytes,
                        std::uint64_t cookie) {
    const transport::Result result =
        transport_->rdma_read(from, into, bytes, {rts.address, rts.key}, cookie);
    if (result == transport::Result::done) rdma_completed(cookie, 0);
    return result != transport::Result::failed;
}

bool GhostNetwork::try_send(int to, Wire wire, const RemoteEnvelope& envelope,
                            std::span<const std::byte> data) {
    const auto header = std::as_bytes(std::span(&envelope, 1));
    switch (transport_->send(to, static_cast<std::uint64_t>(wire), header, data)) {
        case transport::Result::retry:
            return false;
        case transport::Result::failed:
            // peer_failed reports it, and everything waiting for it.
        case transport::Result::done:
        case transport::Result::posted:
            return true;
    }
    return true;
}

int GhostNetwork::progress() {
    int handled = 0;
    for (std::size_t to = 0; to < waiting_.size(); ++to) {
        std::deque<Outgoing>& pending = waiting_[to];
        while (!pending.empty() && try_send(static_cast<int>(to), pending.front().wire,
                                            pending.front().envelope, pending.front().data)) {
            pending.pop_front();
            ++handled;
        }
    }
    return handled + transport_->progress(*this);
}

bool GhostNetwork::arm() {
    return transport_->arm() == transport::Armed::ok;
}

bool GhostNetwork::message_arrived(const transport::Arrival& arrival) {
    RemoteEnvelope envelope;
    std::memcpy(&envelope, arrival.body, sizeof envelope);
    const std::span<const std::byte> data(arrival.body + sizeof envelope,
                                          arrival.bytes - sizeof envelope);
    const auto wire = static_cast<Wire>(arrival.tuple);
    envelope.rts = wire == Wire::rts ? 1 : 0;
    if (wire == Wire::done) {
        if (const auto it = registered_.find(envelope.id); it != registered_.end()) {
            transport_->deregister_memory(it->second);
            registered_.erase(it);
        }
        handler_.remote_done(envelope.id, envelope.error);
    } else {
        handler_.remote_message(arrival.peer, envelope, data);
    }
    transport_->repost(arrival);
    return true;
}

void GhostNetwork::rdma_completed(std::uint64_t cookie, int error) {
    handler_.read_done(cookie, error != 0 ? kErrOther : 0);
}

void GhostNetwork::peer_failed(int peer) {
    waiting(peer).clear();
    handler_.ghost_failed(peer);
}

// ---- the ranks' side ---------------------------------------------------------------

void connect_ghost_network(bootstrap::Bootstrap& bootstrap, const node::GhostArea& area,
                           std::span<const int> blocks) {
    std::vector<int> pidfds(blocks.size(), -1);
    const auto check = [&](std::size_t i) {
        node::GhostBlock& ghost = area.ghost(blocks[i]);
        if (state_of(ghost.exchange) == ExchangeState::failed)
            fail("ghost process {} cannot reach the other nodes' ghosts: {}", blocks[i],
                 ghost.exchange.text);
        if (node_process_exited(ghost.pid.load(), pidfds[i]))
            fail("ghost process {} (pid {}) died while connecting to the other nodes' ghosts",
                 blocks[i], ghost.pid.load());
    };
    const auto wait_all = [&](ExchangeState state) {
        for (std::size_t i = 0; i < blocks.size(); ++i)
            while (state_of(area.ghost(blocks[i]).exchange) != state) {
                check(i);
                std::this_thread::sleep_for(kExchangePoll);
            }
    };
    wait_all(ExchangeState::published);
    for (int block : blocks) {
        std::string_view text = area.ghost(block).exchange.text;
        while (!text.empty()) {
            const std::string_view line = text.substr(0, text.find('\n'));
            text.remove_prefix(std::min(text.size(), line.size() + 1));
            const std::size_t space = line.find(' ');
            bootstrap.put(fmt::format("{}{}", kKeyPrefix, line.substr(0, space)),
                          line.substr(space + 1));
        }
    }
    bootstrap.fence();
    for (int block : blocks) set_state(area.ghost(block).exchange, ExchangeState::fenced);
    for (bool all_connected = false; !all_connected;) {
        all_connected = true;
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            check(i);
            node::GhostExchange& exchange = area.ghost(blocks[i]).exchange;
            all_connected = all_connected && state_of(exchange) == ExchangeState::connected;
            const std::uint32_t asked = exchange.asked.load(std::memory_order_acquire);
            if (asked == exchange.answered.load(std::memory_order_relaxed)) continue;
            try {
                write_text(exchange, bootstrap.get(fmt::format("{}{}", kKeyPrefix, exchange.text)));
                exchange.found = 1;
            } catch (const Error&) {
                exchange.found = 0;
            }
            exchange.answered.store(asked, std::memory_order_release);
        }
        if (!all_connected) std::this_thread::sleep_for(kExchangePoll);
    }
    for (int fd : pidfds)
        if (fd >= 0) ::close(fd);
    // Nobody sends before every queue pair of every ghost is connected.
    bootstrap.fence();
}

}  // namespace si::progress
