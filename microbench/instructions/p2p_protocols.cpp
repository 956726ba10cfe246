// The point-to-point protocols of protocols.hpp, on ranks 0 (counted) and 1. The
// peer sends to rank 0 only while rank 0 waits outside MPI (in the Handshake), so a
// counted receive finds every message it completes already there and a counted send
// meets nothing new. The peer may wait inside MPI while rank 0 counts, as a receiver
// with its receives posted or as a sender whose library completes a send only once
// the receiver took it (Open MPI's shared-memory BTL above its fast boxes): what the
// peer then writes into rank 0's queues answers rank 0's own messages.
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "common/buffer.hpp"
#include "instructions/protocols.hpp"

namespace si::bench::instructions {

namespace {

constexpr int kCounted = 0;
constexpr int kPeer = 1;
constexpr int kTag = 7;

std::uint64_t seed_of(std::size_t size, int sender) {
    return 4 * size + static_cast<std::uint64_t>(sender) + 1;
}

// Buffers and requests of a window: one send buffer, a receive slot per message.
class WindowProtocol : public Protocol {
  public:
    WindowProtocol(const ProtocolSetup& setup, std::size_t size)
        : setup_(setup),
          size_(size),
          count_(static_cast<int>(size)),
          peer_(setup.rank == kCounted ? kPeer : kCounted),
          send_(std::max<std::size_t>(size, 1)),
          receive_(std::max<std::size_t>(size, 1) * static_cast<std::size_t>(setup.window)),
          sends_(static_cast<std::size_t>(setup.window), MPI_REQUEST_NULL),
          receives_(static_cast<std::size_t>(setup.window), MPI_REQUEST_NULL) {
        fill_pattern(send_.bytes(0, size), seed_of(size, setup.rank));
        clear(receive_.bytes(0, size * static_cast<std::size_t>(setup.window)));
    }

    [[nodiscard]] int operations() const override { return setup_.window; }

  protected:
    [[nodiscard]] Handshake& handshake() const { return *setup_.handshake; }
    [[nodiscard]] int chunks() const { return setup_.window / setup_.chunk; }

    void post_receives() {
        for (int i = 0; i < setup_.window; ++i)
            MPI_Irecv(receive_.data() + static_cast<std::size_t>(i) * size_, count_, MPI_BYTE,
                      peer_, kTag, setup_.comm, &receives_[static_cast<std::size_t>(i)]);
    }
    void send_chunk(int chunk) {
        for (int i = chunk * setup_.chunk; i < (chunk + 1) * setup_.chunk; ++i)
            MPI_Isend(send_.data(), count_, MPI_BYTE, peer_, kTag, setup_.comm,
                      &sends_[static_cast<std::size_t>(i)]);
    }
    void complete_chunk(std::vector<MPI_Request>& requests, int chunk) {
        MPI_Waitall(setup_.chunk, requests.data() + chunk * setup_.chunk, MPI_STATUSES_IGNORE);
    }
    void complete_all(std::vector<MPI_Request>& requests) {
        MPI_Waitall(setup_.window, requests.data(), MPI_STATUSES_IGNORE);
    }
    [[nodiscard]] bool received_all() const {
        for (int i = 0; i < setup_.window; ++i)
            if (!check_pattern(receive_.bytes(static_cast<std::size_t>(i) * size_, size_),
                               seed_of(size_, peer_)))
                return false;
        return true;
    }

    ProtocolSetup setup_;
    std::size_t size_;
    int count_;
    int peer_;
    Buffer send_;
    Buffer receive_;
    std::vector<MPI_Request> sends_;
    std::vector<MPI_Request> receives_;
};

// MPI_Send then MPI_Recv: one round of a ping-pong, on the side that starts it. The
// peer posts its receive, then sleeps in the Handshake until rank 0 is about to send,
// and enters MPI_Wait `settle` before rank 0 sends: a library that completes a send
// only once the receiver took it (Open MPI above its fast boxes) finds the peer
// polling on a CPU, not preempted after a long wait. The peer answers only once rank 0
// has left MPI_Send, so the counted receive finds the answer there.
class PingPong : public WindowProtocol {
  public:
    using WindowProtocol::WindowProtocol;

    [[nodiscard]] int operations() const override { return 1; }

    void run(CallgrindCounter* counter) override {
        if (setup_.rank == kCounted) {
            handshake().wait_for(peer_);  // its receive posted
            handshake().signal(peer_);    // about to send
            std::this_thread::sleep_for(setup_.settle);
            if (counter != nullptr) counter->start();
            counted(counter,
                    [&] { MPI_Send(send_.data(), count_, MPI_BYTE, peer_, kTag, setup_.comm); });
            handshake().signal(peer_);
            handshake().wait_for(peer_);  // the answer sent
            counted(counter, [&] {
                MPI_Recv(receive_.data(), count_, MPI_BYTE, peer_, kTag, setup_.comm,
                         MPI_STATUS_IGNORE);
            });
        } else {
            MPI_Irecv(receive_.data(), count_, MPI_BYTE, peer_, kTag, setup_.comm, &receives_[0]);
            handshake().signal(peer_);
            handshake().wait_for(peer_);
            MPI_Wait(&receives_[0], MPI_STATUS_IGNORE);
            handshake().wait_for(peer_);
            MPI_Isend(send_.data(), count_, MPI_BYTE, peer_, kTag, setup_.comm, &sends_[0]);
            handshake().signal(peer_);
            MPI_Wait(&sends_[0], MPI_STATUS_IGNORE);
        }
    }

    [[nodiscard]] bool delivered() const override {
        return check_pattern(receive_.bytes(0, size_), seed_of(size_, peer_));
    }
};

// The sender of a window: MPI_Isend of every message, chunk by chunk (the receiver,
// its receives posted before, drains each chunk while rank 0 waits), then one
// MPI_Waitall over the window.
class SendWindow : public WindowProtocol {
  public:
    using WindowProtocol::WindowProtocol;

    void run(CallgrindCounter* counter) override {
        if (setup_.rank == kCounted) {
            handshake().wait_for(peer_);  // receives posted
            if (counter != nullptr) counter->start();
            for (int chunk = 0; chunk < chunks(); ++chunk) {
                counted(counter, [&] { send_chunk(chunk); });
                handshake().signal(peer_);
                handshake().wait_for(peer_);  // drained
            }
            counted(counter, [&] { complete_all(sends_); });
        } else {
            post_receives();
            handshake().signal(peer_);
            for (int chunk = 0; chunk < chunks(); ++chunk) {
                handshake().wait_for(peer_);
                complete_chunk(receives_, chunk);
                handshake().signal(peer_);
            }
        }
    }

    [[nodiscard]] bool delivered() const override {
        return setup_.rank == kCounted || received_all();
    }
};

// The receiver of a window: MPI_Irecv of every message before any arrives, then per
// chunk, once the sender has sent it while rank 0 waited, MPI_Waitall over the
// chunk's receives (the sender completes its sends meanwhile).
class ReceiveWindow : public WindowProtocol {
  public:
    using WindowProtocol::WindowProtocol;

    void run(CallgrindCounter* counter) override {
        if (setup_.rank == kCounted) {
            if (counter != nullptr) counter->start();
            counted(counter, [&] { post_receives(); });
            for (int chunk = 0; chunk < chunks(); ++chunk) {
                handshake().signal(peer_);
                handshake().wait_for(peer_);  // the chunk is here
                counted(counter, [&] { complete_chunk(receives_, chunk); });
            }
        } else {
            for (int chunk = 0; chunk < chunks(); ++chunk) {
                handshake().wait_for(peer_);
                send_chunk(chunk);
                handshake().signal(peer_);
                complete_chunk(sends_, chunk);
            }
        }
    }

    [[nodiscard]] bool delivered() const override {
        return setup_.rank != kCounted || received_all();
    }
};

// Both ways: each rank posts a window of receives, then per chunk rank 0 sends its
// messages, the peer takes them and sends its own, and rank 0 completes the chunk's
// receives while the peer completes its sends; last, rank 0's MPI_Waitall over its
// sends. Counted per message each way (one sent and one received).
class BothWindows : public WindowProtocol {
  public:
    using WindowProtocol::WindowProtocol;

    void run(CallgrindCounter* counter) override {
        if (setup_.rank == kCounted) {
            if (counter != nullptr) counter->start();
            counted(counter, [&] { post_receives(); });
            handshake().signal(peer_);
            handshake().wait_for(peer_);  // the peer's receives posted
            for (int chunk = 0; chunk < chunks(); ++chunk) {
                counted(counter, [&] { send_chunk(chunk); });
                handshake().signal(peer_);
                handshake().wait_for(peer_);  // drained, and its chunk sent
                counted(counter, [&] { complete_chunk(receives_, chunk); });
                handshake().signal(peer_);
                handshake().wait_for(peer_);  // its sends complete
            }
            counted(counter, [&] { complete_all(sends_); });
        } else {
            post_receives();
            handshake().wait_for(peer_);
            handshake().signal(peer_);
            for (int chunk = 0; chunk < chunks(); ++chunk) {
                handshake().wait_for(peer_);
                complete_chunk(receives_, chunk);
                send_chunk(chunk);
                handshake().signal(peer_);
                complete_chunk(sends_, chunk);
                handshake().wait_for(peer_);  // rank 0 took the chunk
                handshake().signal(peer_);
            }
        }
    }

    [[nodiscard]] bool delivered() const override { return received_all(); }
};

}  // namespace

std::unique_ptr<Protocol> make_p2p_protocol(const std::string& name, const ProtocolSetup& setup,
                                            std::size_t size) {
    if (name == "pingpong") return std::make_unique<PingPong>(setup, size);
    if (name == "isend_window") return std::make_unique<SendWindow>(setup, size);
    if (name == "irecv_window") return std::make_unique<ReceiveWindow>(setup, size);
    if (name == "both_windows") return std::make_unique<BothWindows>(setup, size);
    return nullptr;
}

}  // namespace si::bench::instructions
