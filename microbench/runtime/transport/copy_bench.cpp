// How fast a rendezvous can move its data on one host: the copies the
// shared-memory transport could use, each between two processes as in a real
// transfer, at rendezvous sizes.
//
//   copy_memcpy            one process copies a buffer it owns (the memory
//                          system's speed for one core)
//   copy_readv/<bytes>/<n> the receiver reads the sender's buffer with
//                          process_vm_readv in n iovecs (n > 1: the blocks of a
//                          non-contiguous datatype, read in place)
//   copy_pack_then_readv   the sender packs n blocks into a contiguous buffer,
//                          then the receiver reads it in one iovec: what the
//                          runtime does for a non-contiguous send today
//   copy_split             both processes copy at once, the receiver reading
//                          the first half, the sender writing the second half
//                          (process_vm_writev): two cores on one transfer
//
// The "sender" is a child forked once per benchmark, which after fork has its
// source buffer at the same address as the parent's; the two drive each other
// through words in a shared anonymous mapping (polled, no syscall). Bytes per
// second are the payload's.
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <vector>

namespace si::bench {
namespace {

enum Command : std::uint32_t { kIdle, kPack, kWriteSecondHalf, kExit };

struct Control {
    alignas(64) std::atomic<std::uint32_t> command{kIdle};
    alignas(64) std::atomic<std::uint32_t> done{0};  // commands finished
};

// The peer process: owns `source` (bytes, filled), copies on command.
class Sender {
  public:
    Sender(std::size_t bytes, std::size_t blocks)
        : bytes_(bytes), blocks_(blocks), source_(2 * bytes, std::byte{7}), packed_(bytes),
          destination_(bytes) {
        void* shared = mmap(nullptr, sizeof(Control), PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        control_ = new (shared) Control;
        pid_ = fork();
        if (pid_ == 0) serve();
    }
    ~Sender() {
        run(kExit);
        waitpid(pid_, nullptr, 0);
        munmap(control_, sizeof(Control));
    }
    Sender(const Sender&) = delete;
    Sender& operator=(const Sender&) = delete;

    pid_t pid() const { return pid_; }
    // Block i of the strided source: bytes/blocks bytes every other block.
    iovec block(std::size_t i) const {
        const std::size_t length = bytes_ / blocks_;
        return {const_cast<std::byte*>(source_.data()) + 2 * i * length, length};
    }
    const std::byte* packed() const { return packed_.data(); }
    std::byte* destination() { return destination_.data(); }

    // Starts a command in the sender; finish() waits for it.
    void start(Command command) {
        expected_ = control_->done.load(std::memory_order_acquire) + 1;
        control_->command.store(command, std::memory_order_release);
    }
    void finish() {
        while (control_->done.load(std::memory_order_acquire) != expected_) {
        }
    }
    void run(Command command) {
        start(command);
        if (command != kExit) finish();
    }

  private:
    [[noreturn]] void serve() {
        const pid_t parent = getppid();
        for (;;) {
            std::uint32_t command = kIdle;
            while ((command = control_->command.load(std::memory_order_acquire)) == kIdle) {
            }
            control_->command.store(kIdle, std::memory_order_relaxed);
            if (command == kExit) _exit(0);
            if (command == kPack)
                for (std::size_t i = 0; i < blocks_; ++i) {
                    const iovec b = block(i);
                    std::memcpy(packed_.data() + i * b.iov_len, b.iov_base, b.iov_len);
                }
            if (command == kWriteSecondHalf) {
                const std::size_t half = bytes_ / 2;
                iovec local{source_.data() + half, bytes_ - half};
                iovec remote{destination_.data() + half, bytes_ - half};
                process_vm_writev(parent, &local, 1, &remote, 1, 0);
            }
            control_->done.fetch_add(1, std::memory_order_release);
        }
    }

    std::size_t bytes_, blocks_;
    std::vector<std::byte> source_, packed_, destination_;
    Control* control_ = nullptr;
    pid_t pid_ = -1;
    std::uint32_t expected_ = 0;
};

void finish_bytes(benchmark::State& state, std::size_t bytes) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(bytes));
}

void copy_memcpy(benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    std::vector<std::byte> from(bytes, std::byte{7}), to(bytes);
    for (auto _ : state) {
        std::memcpy(to.data(), from.data(), bytes);
        benchmark::ClobberMemory();
    }
    finish_bytes(state, bytes);
}

void copy_readv(benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    const auto blocks = static_cast<std::size_t>(state.range(1));
    Sender sender(bytes, blocks);
    std::vector<iovec> remote(blocks);
    for (std::size_t i = 0; i < blocks; ++i) remote[i] = sender.block(i);
    iovec local{sender.destination(), bytes};
    for (auto _ : state)
        if (process_vm_readv(sender.pid(), &local, 1, remote.data(), blocks, 0) !=
            static_cast<ssize_t>(bytes))
            state.SkipWithError("process_vm_readv failed or was short");
    finish_bytes(state, bytes);
}

void copy_pack_then_readv(benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    const auto blocks = static_cast<std::size_t>(state.range(1));
    Sender sender(bytes, blocks);
    iovec remote{const_cast<std::byte*>(sender.packed()), bytes};
    iovec local{sender.destination(), bytes};
    for (auto _ : state) {
        sender.run(kPack);
        if (process_vm_readv(sender.pid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(bytes))
            state.SkipWithError("process_vm_readv failed or was short");
    }
    finish_bytes(state, bytes);
}

void copy_split(benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    Sender sender(bytes, 1);
    const std::size_t half = bytes / 2;
    iovec remote{sender.block(0).iov_base, half};
    iovec local{sender.destination(), half};
    for (auto _ : state) {
        sender.start(kWriteSecondHalf);
        if (process_vm_readv(sender.pid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(half))
            state.SkipWithError("process_vm_readv failed or was short");
        sender.finish();
    }
    finish_bytes(state, bytes);
}

constexpr std::int64_t kKiB = 1024;
BENCHMARK(copy_memcpy)->RangeMultiplier(4)->Range(64 * kKiB, 4096 * kKiB)->UseRealTime();
BENCHMARK(copy_readv)
    ->ArgsProduct({{64 * kKiB, 1024 * kKiB, 4096 * kKiB}, {1, 16, 256}})
    ->UseRealTime();
BENCHMARK(copy_pack_then_readv)
    ->ArgsProduct({{64 * kKiB, 1024 * kKiB, 4096 * kKiB}, {16, 256}})
    ->UseRealTime();
BENCHMARK(copy_split)->RangeMultiplier(4)->Range(64 * kKiB, 4096 * kKiB)->UseRealTime();

}  // namespace
}  // namespace si::bench
