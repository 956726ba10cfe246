#include "api/communicator.hpp"

#include <algorithm>
#include <thread>

#include "api/handles.hpp"
#include "api/runtime.hpp"
#include "datatype/datatype.hpp"
#include "datatype/op.hpp"

namespace si::api {

coll::NodeCollectives* node_collectives_of(const Communicator& c) {
    Communicator::NodeState& node = c.node;
    if (node.decided) return node.collectives.get();
    node.decided = true;
    const Runtime& runtime = *Runtime::get();
    const std::vector<int>& node_of = runtime.locality.node_of;
    const int mine = node_of[static_cast<std::size_t>(runtime.locality.world_rank)];
    const bool one_node = std::all_of(c.world_of.begin(), c.world_of.end(), [&](int world) {
        return node_of[static_cast<std::size_t>(world)] == mine;
    });
    if (c.inter() || c.size() < 2 || c.size() > coll::NodeArea::kMaxRanks || !one_node ||
        runtime.settings.transport == config::TransportChoice::verbs)
        return nullptr;
    coll::NodeDoorbells doorbells;
    doorbells.backend = runtime.doorbell_backend.get();
    doorbells.sleepers = runtime.engine->sleeps_with_cpus_to_spare();
    for (const int world : c.world_of) {
        const int local = runtime.locality.local_index_of[static_cast<std::size_t>(world)];
        doorbells.of_rank.push_back(&runtime.region.rank_block(local).doorbell);
    }
    node.collectives = std::make_unique<coll::NodeCollectives>(
        runtime.bootstrap->job_id(), c.rank, c.size(), std::move(doorbells));
    return node.collectives.get();
}

namespace {

constexpr int kMaskWords = CommunicatorTable::kMaskWords;
static_assert(kMaskWords * 64 == CommunicatorTable::kMaxCommunicators);
// Pairs 0 and 1 belong to MPI_COMM_WORLD and MPI_COMM_SELF.
constexpr std::uint16_t kWorldPair = 0;
constexpr std::uint16_t kSelfPair = 1;

// A communicator's handle index is its context pair: pairs are unique among
// this process's live communicators, so handles are too.
static_assert(MPI_COMM_WORLD == make_predefined(HandleKind::communicator, kWorldPair));
static_assert(MPI_COMM_SELF == make_predefined(HandleKind::communicator, kSelfPair));

}  // namespace

void CommunicatorTable::reset(int world_rank, int world_size) {
    std::lock_guard lock(mutex_);
    free_pairs_.assign(kMaskWords, ~std::uint64_t{0});
    free_pairs_[0] &= ~std::uint64_t{3};

    auto world = std::make_unique<Communicator>();
    world->handle = MPI_COMM_WORLD;
    world->world_of.resize(world_size);
    for (int r = 0; r < world_size; ++r) world->world_of[r] = r;
    world->rank = world_rank;
    world->pair = kWorldPair;
    world->name = "MPI_COMM_WORLD";
    slots_[handle_index(MPI_COMM_WORLD)].store(world.release());

    auto self = std::make_unique<Communicator>();
    self->handle = MPI_COMM_SELF;
    self->world_of = {world_rank};
    self->rank = 0;
    self->pair = kSelfPair;
    self->name = "MPI_COMM_SELF";
    slots_[handle_index(MPI_COMM_SELF)].store(self.release());
}

void CommunicatorTable::clear() {
    std::lock_guard lock(mutex_);
    for (int i = 0; i < kMaxCommunicators; ++i) delete slots_[i].exchange(nullptr);
}

MPI_Comm CommunicatorTable::add(std::unique_ptr<Communicator> communicator) {
    std::lock_guard lock(mutex_);
    const int index = communicator->pair;
    const MPI_Comm handle = make_handle(HandleKind::communicator, index);
    communicator->handle = handle;
    slots_[index].store(communicator.release(), std::memory_order_release);
    return handle;
}

void CommunicatorTable::remove(MPI_Comm handle) {
    Communicator* communicator = find(handle);
    if (communicator == nullptr) return;
    slots_[handle_index(handle)].store(nullptr, std::memory_order_release);
    release_pair(communicator->pair);
    delete communicator;
}

void CommunicatorTable::release_pair(std::uint16_t pair) {
    std::lock_guard lock(mutex_);
    free_pairs_[pair / 64] |= std::uint64_t{1} << (pair % 64);
}

int CommunicatorTable::allocate_pair(const Communicator& parent, std::uint16_t& pair,
                                     int tag_base) {
    const datatype::Type* type = datatype::lookup(MPI_UINT64_T);
    const datatype::Op* band = datatype::lookup_op(MPI_BAND);
    coll::Context ctx = collective_context(parent);
    ctx.tag_base = tag_base;
    return allocate_pair(
        parent.allocation_priority(),
        [&](const std::vector<std::uint64_t>& offer, std::vector<std::uint64_t>& agreed) {
            return coll::allreduce(ctx, offer.data(), agreed.data(), kMaskWords + 1, *type,
                                   *band);
        },
        pair);
}

int CommunicatorTable::allocate_pair(std::uint64_t priority, const Agreement& agree,
                                     std::uint16_t& pair) {
    std::vector<std::uint64_t> offer(kMaskWords + 1);
    std::vector<std::uint64_t> agreed(kMaskWords + 1);
    for (;;) {
        const bool offered = offer_pairs(PairPool::blocking, priority, offer);
        const int rc = agree(offer, agreed);
        const int outcome = settle_offer(PairPool::blocking, priority, offered, rc, agreed, pair);
        if (outcome != kRetry) return outcome;
        std::this_thread::yield();
    }
}

namespace {

// The mask words of a pool's pairs: the first half, or the second.
constexpr int kPoolWords = kMaskWords / 2;
static_assert(kPoolWords * 2 == kMaskWords);
int first_word(CommunicatorTable::PairPool pool) {
    return pool == CommunicatorTable::PairPool::blocking ? 0 : kPoolWords;
}

}  // namespace

bool CommunicatorTable::offer_pairs(PairPool pool, std::uint64_t priority,
                                    std::vector<std::uint64_t>& offer) {
    // The pool's part of the free-pair mask (zeros elsewhere) plus a status
    // word: bit 0 clear when a member has no free pair, bit 1 set by members
    // that offered their mask. Every member sees the same AND, so all fail
    // together or all retry together.
    offer.assign(kMaskWords + 1, 0);
    std::lock_guard lock(mutex_);
    Lending& lending = lending_[static_cast<std::size_t>(pool)];
    // A retry waited since its last attempt: it leaves the queue to look.
    if (const auto mine = std::find(lending.waiting.begin(), lending.waiting.end(), priority);
        mine != lending.waiting.end())
        lending.waiting.erase(mine);
    const auto lowest_waiting = std::min_element(lending.waiting.begin(), lending.waiting.end());
    const bool offering = !lending.mask_taken && (lowest_waiting == lending.waiting.end() ||
                                                  *lowest_waiting >= priority);
    if (!offering) {
        offer[kMaskWords] = 1;
        lending.waiting.push_back(priority);
        return false;
    }
    lending.mask_taken = true;
    const auto from = free_pairs_.begin() + first_word(pool);
    std::copy(from, from + kPoolWords, offer.begin() + first_word(pool));
    offer[kMaskWords] =
        2 | std::any_of(from, from + kPoolWords, [](std::uint64_t w) { return w != 0; });
    return true;
}

int CommunicatorTable::settle_offer(PairPool pool, std::uint64_t priority, bool offered,
                                    int agreement, const std::vector<std::uint64_t>& agreed,
                                    std::uint16_t& pair) {
    std::lock_guard lock(mutex_);
    Lending& lending = lending_[static_cast<std::size_t>(pool)];
    if (offered) {
        lending.mask_taken = false;
    } else {
        lending.waiting.erase(std::find(lending.waiting.begin(), lending.waiting.end(), priority));
    }
    if (agreement != MPI_SUCCESS) return agreement;
    if ((agreed[kMaskWords] & 1) == 0) return MPI_ERR_OTHER;  // a member has none left
    for (int word = first_word(pool); word < first_word(pool) + kPoolWords; ++word) {
        if (agreed[word] == 0) continue;
        const int bit = __builtin_ctzll(agreed[word]);
        pair = static_cast<std::uint16_t>(word * 64 + bit);
        free_pairs_[word] &= ~(std::uint64_t{1} << bit);
        return MPI_SUCCESS;
    }
    if (agreed[kMaskWords] & 2) return MPI_ERR_OTHER;  // every member offered: no common id
    // A member's mask was lent to another allocation: try again, waiting
    // until then.
    lending.waiting.push_back(priority);
    return kRetry;
}

}  // namespace si::api
