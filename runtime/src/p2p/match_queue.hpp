// A queue of the matching engine (posted receives, unexpected messages) that
// stays a plain list while scans are short and grows an index when they are
// long.
//
// Matching must honour queue order: of the entries that match, the oldest
// wins. A list does that with a scan, which is the cheapest there is for the
// few entries most programs keep, and for long queues that match at their
// front (a window of receives for one peer and tag); with thousands that do
// not, each arrival would scan them all. Once a lookup has passed kIndexFrom
// entries and the queue holds that many, the queue also files every entry in
// a bin of its exact (context, source, tag), or among the wildcard entries
// when it has none, each chain in queue order; a lookup by exact key then
// merges the key's bin with the wildcard chain by sequence number. The index
// goes when the queue empties. An entry T carries `MatchLinks<T> links`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>

namespace si::p2p {

// Kept with the entry's match fields in one cache line (request.hpp,
// unexpected.hpp): a lookup reads them of every entry it passes.
template <typename T>
struct MatchLinks {
    std::uint64_t sequence = 0;  // order of arrival in the queue
    T* prev = nullptr;           // queue order
    T* next = nullptr;
    T* bin_prev = nullptr;  // the entry's bin, or the wildcard chain
    T* bin_next = nullptr;
};

// `KeyOf` maps an entry to its bin key, or to std::nullopt for a wildcard
// entry (a receive from MPI_ANY_SOURCE or for MPI_ANY_TAG).
template <typename T, typename KeyOf>
class MatchQueue {
public:
  // Scans shorter than this build no index (an eight-byte ping-pong costs
  // 0.05-0.08 us more when every entry is hashed, a message of a window of
  // 64 about 75 instructions; runtime_costs' match_* show where the scan
  // starts to cost more than the index).
  static constexpr std::size_t kIndexFrom = 64;

  MatchQueue() = default;
  MatchQueue(const MatchQueue&) = delete;
  MatchQueue& operator=(const MatchQueue&) = delete;

  bool empty() const { return order_.head == nullptr; }
  T* front() const { return order_.head; }
  std::size_t size() const { return size_; }
  bool indexed() const { return indexed_; }

  void push_back(T* item) {
      item->links.sequence = next_sequence_++;
      link<&MatchLinks<T>::prev, &MatchLinks<T>::next>(order_, item);
      ++size_;
      if (indexed_)
          file(item);
      else if (size_ >= kIndexFrom && long_scan_)
          build_index();
    }

    void erase(T* item) {
        unlink<&MatchLinks<T>::prev, &MatchLinks<T>::next>(order_, item);
        if (indexed_) unfile(item);
        if (--size_ == 0) {
            long_scan_ = false;
            if (!indexed_) return;
            bins_.clear();
            wildcards_ = Chain{};
            indexed_ = false;
        }
    }

    // The oldest entry for which accept() holds. A long scan lets the next
    // push_back() build the index (never here: a lookup in a signal handler
    // must not allocate).
    template <typename Accept>
    T* find(Accept accept) const {
        std::size_t passed = 0;
        T* item = order_.head;
        for (; item != nullptr && !accept(*item); item = item->links.next) ++passed;
        if (passed >= kIndexFrom) long_scan_ = true;
        return item;
    }

    // The oldest entry for which accept() holds, among those that may match
    // `key` (every entry when there is no key or no index). accept() must
    // still check the match: the wildcard chain holds entries of every key.
    template <typename Accept>
    T* find(std::optional<std::uint64_t> key, Accept accept) const {
        if (!indexed_ || !key) return find(accept);
        const auto bin = bins_.find(*key);
        T* exact = bin == bins_.end() ? nullptr : bin->second.head;
        T* wild = wildcards_.head;
        for (;;) {
            T* item;
            if (wild != nullptr && (exact == nullptr || wild->links.sequence < exact->links.sequence)) {
                item = wild;
                wild = wild->links.bin_next;
            } else if (exact != nullptr) {
                item = exact;
                exact = exact->links.bin_next;
            } else {
                return nullptr;
            }
            if (accept(*item)) return item;
        }
    }

private:
    struct Chain {
        T* head = nullptr;
        T* tail = nullptr;
    };

    template <T* MatchLinks<T>::*Prev, T* MatchLinks<T>::*Next>
    static void link(Chain& chain, T* item) {
        item->links.*Next = nullptr;
        item->links.*Prev = chain.tail;
        (chain.tail != nullptr ? chain.tail->links.*Next : chain.head) = item;
        chain.tail = item;
    }
    template <T* MatchLinks<T>::*Prev, T* MatchLinks<T>::*Next>
    static void unlink(Chain& chain, T* item) {
        T* prev = item->links.*Prev;
        T* next = item->links.*Next;
        (prev != nullptr ? prev->links.*Next : chain.head) = next;
        (next != nullptr ? next->links.*Prev : chain.tail) = prev;
        item->links.*Prev = item->links.*Next = nullptr;
    }

    void file(T* item) {
        const std::optional<std::uint64_t> key = KeyOf{}(*item);
        link<&MatchLinks<T>::bin_prev, &MatchLinks<T>::bin_next>(key ? bins_[*key] : wildcards_,
                                                                  item);
    }
    void unfile(T* item) {
        const std::optional<std::uint64_t> key = KeyOf{}(*item);
        if (!key) {
            unlink<&MatchLinks<T>::bin_prev, &MatchLinks<T>::bin_next>(wildcards_, item);
            return;
        }
        const auto bin = bins_.find(*key);
        unlink<&MatchLinks<T>::bin_prev, &MatchLinks<T>::bin_next>(bin->second, item);
        if (bin->second.head == nullptr) bins_.erase(bin);
    }
    void build_index() {
        indexed_ = true;
        for (T* item = order_.head; item != nullptr; item = item->links.next) file(item);
    }

    Chain order_;
    std::size_t size_ = 0;
    std::uint64_t next_sequence_ = 0;
    bool indexed_ = false;
    mutable bool long_scan_ = false;  // a find() passed kIndexFrom entries
    std::unordered_map<std::uint64_t, Chain> bins_;
    Chain wildcards_;
};

}  // namespace si::p2p
