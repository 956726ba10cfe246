#include "collectives/collective_call.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

namespace si::bench::coll {

namespace {

constexpr int kRoot = 0;

struct Names {
    Collective collective;
    std::string_view name;
    std::string_view blocking;
};

constexpr std::array<Names, 8> kNames = {{
    {Collective::ibarrier, "ibarrier", "MPI_Barrier"},
    {Collective::ibcast, "ibcast", "MPI_Bcast"},
    {Collective::igather, "igather", "MPI_Gather"},
    {Collective::iscatter, "iscatter", "MPI_Scatter"},
    {Collective::iallgather, "iallgather", "MPI_Allgather"},
    {Collective::ialltoall, "ialltoall", "MPI_Alltoall"},
    {Collective::ireduce, "ireduce", "MPI_Reduce"},
    {Collective::iallreduce, "iallreduce", "MPI_Allreduce"},
}};

const Names& names_of(Collective collective) {
    for (const auto& names : kNames)
        if (names.collective == collective) return names;
    return kNames.front();  // unreachable: every enumerator is listed
}

// A reduction's input: small positive integers that differ along the block and
// between ranks, so that a sum over the wrong elements or ranks shows, and whose sum
// over any realistic rank count fits an int.
int reduction_input(int rank, std::size_t element) {
    return (rank + 1) * static_cast<int>(element % 97 + 1);
}

}  // namespace

const std::vector<Collective>& all_collectives() {
    static const std::vector<Collective> all = [] {
        std::vector<Collective> result;
        for (const auto& names : kNames) result.push_back(names.collective);
        return result;
    }();
    return all;
}

std::string_view name_of(Collective collective) {
    return names_of(collective).name;
}

std::string_view blocking_name_of(Collective collective) {
    return names_of(collective).blocking;
}

std::optional<Collective> parse_collective(std::string_view name) {
    for (const auto& names : kNames)
        if (names.name == name) return names.collective;
    return std::nullopt;
}

bool moves_data(Collective collective) {
    return collective != Collective::ibarrier;
}

bool is_reduction(Collective collective) {
    return collective == Collective::ireduce || collective == Collective::iallreduce;
}

namespace {

int size_of(MPI_Comm comm) {
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    return ranks;
}

}  // namespace

CollectiveCall::CollectiveCall(Collective collective, MPI_Comm comm, std::size_t max_block)
    : collective_(collective),
      comm_(comm),
      ranks_(size_of(comm)),
      send_(static_cast<std::size_t>(size_of(comm)) * max_block),
      recv_(static_cast<std::size_t>(size_of(comm)) * max_block) {
    MPI_Comm_rank(comm_, &rank_);
}

int CollectiveCall::count() const {
    return static_cast<int>(is_reduction(collective_) ? block_ / sizeof(int) : block_);
}

MPI_Datatype CollectiveCall::type() const {
    return is_reduction(collective_) ? MPI_INT : MPI_BYTE;
}

std::span<std::byte> CollectiveCall::send_block(int slot) {
    return send_.bytes(static_cast<std::size_t>(slot) * block_, block_);
}

std::span<std::byte> CollectiveCall::recv_block(int slot) {
    return recv_.bytes(static_cast<std::size_t>(slot) * block_, block_);
}

std::span<const std::byte> CollectiveCall::recv_block(int slot) const {
    return recv_.bytes(static_cast<std::size_t>(slot) * block_, block_);
}

std::uint64_t CollectiveCall::seed(int from, int to) const {
    // The block size first, so that a block left over from the previous size fails.
    return (static_cast<std::uint64_t>(block_) * 1000003 + static_cast<std::uint64_t>(from)) *
               1000003 +
           static_cast<std::uint64_t>(to);
}

void CollectiveCall::prepare(std::size_t block) {
    block_ = block;
    if (is_reduction(collective_))
        fill_reduction_input();
    else
        for (int slot = 0; slot < ranks_; ++slot) fill_pattern(send_block(slot), seed(rank_, slot));
    clear_outputs();
}

void CollectiveCall::fill_reduction_input() {
    auto bytes = send_block(0);
    for (std::size_t k = 0; k < block_ / sizeof(int); ++k) {
        const int value = reduction_input(rank_, k);
        std::memcpy(bytes.data() + k * sizeof(int), &value, sizeof(int));
    }
}

void CollectiveCall::clear_outputs() {
    clear(recv_.bytes(0, static_cast<std::size_t>(ranks_) * block_));
}

void CollectiveCall::start(MPI_Request* request) {
    const int n = count();
    const MPI_Datatype t = type();
    switch (collective_) {
        case Collective::ibarrier:
            MPI_Ibarrier(comm_, request);
            break;
        case Collective::ibcast: {
            // The root broadcasts its first input block into the others' first output.
            auto buffer = rank_ == kRoot ? send_block(0) : recv_block(0);
            MPI_Ibcast(buffer.data(), n, t, kRoot, comm_, request);
            break;
        }
        case Collective::igather:
            MPI_Igather(send_block(0).data(), n, t, recv_block(0).data(), n, t, kRoot, comm_,
                        request);
            break;
        case Collective::iscatter:
            MPI_Iscatter(send_block(0).data(), n, t, recv_block(0).data(), n, t, kRoot, comm_,
                         request);
            break;
        case Collective::iallgather:
            MPI_Iallgather(send_block(0).data(), n, t, recv_block(0).data(), n, t, comm_, request);
            break;
        case Collective::ialltoall:
            MPI_Ialltoall(send_block(0).data(), n, t, recv_block(0).data(), n, t, comm_, request);
            break;
        case Collective::ireduce:
            MPI_Ireduce(send_block(0).data(), recv_block(0).data(), n, t, MPI_SUM, kRoot, comm_,
                        request);
            break;
        case Collective::iallreduce:
            MPI_Iallreduce(send_block(0).data(), recv_block(0).data(), n, t, MPI_SUM, comm_,
                           request);
            break;
    }
}

BlockingCall CollectiveCall::blocking_call() {
    BlockingCall call{collective_, send_block(0).data(), recv_block(0).data(), count(), type(),
                      comm_};
    // The broadcast's one buffer: the root's input block, another rank's output block.
    if (collective_ == Collective::ibcast && rank_ != kRoot) call.send = call.recv;
    return call;
}

bool CollectiveCall::reduction_holds() const {
    const auto bytes = recv_block(0);
    const int rank_sum = ranks_ * (ranks_ + 1) / 2;
    for (std::size_t k = 0; k < block_ / sizeof(int); ++k) {
        int value = 0;
        std::memcpy(&value, bytes.data() + k * sizeof(int), sizeof(int));
        if (value != rank_sum * static_cast<int>(k % 97 + 1)) return false;
    }
    return true;
}

bool CollectiveCall::outputs_hold() const {
    const bool root = rank_ == kRoot;
    switch (collective_) {
        case Collective::ibarrier:
            return true;
        case Collective::ibcast:
            return root || check_pattern(recv_block(0), seed(kRoot, 0));
        case Collective::igather:
            if (!root) return true;
            for (int from = 0; from < ranks_; ++from)
                if (!check_pattern(recv_block(from), seed(from, 0))) return false;
            return true;
        case Collective::iscatter:
            return check_pattern(recv_block(0), seed(kRoot, rank_));
        case Collective::iallgather:
            for (int from = 0; from < ranks_; ++from)
                if (!check_pattern(recv_block(from), seed(from, 0))) return false;
            return true;
        case Collective::ialltoall:
            for (int from = 0; from < ranks_; ++from)
                if (!check_pattern(recv_block(from), seed(from, rank_))) return false;
            return true;
        case Collective::ireduce:
            return !root || reduction_holds();
        case Collective::iallreduce:
            return reduction_holds();
    }
    return false;
}

}  // namespace si::bench::coll
