// Intrusive lists reached by a 64-bit key: the messages or receives of one
// exact (context, source, tag), in queue order, so that matching them costs
// one hash look-up instead of a walk past every other key's entries. A key's
// list goes when it empties, so a program that uses ever new tags does not
// grow the table; its hash node is kept for the next key (up to kSpareNodes),
// so that steady traffic allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "p2p/intrusive_list.hpp"

namespace si::p2p {

template <typename T, T* T::*Prev, T* T::*Next>
class BucketIndex {
  public:
    using List = IntrusiveList<T, Prev, Next>;

    BucketIndex() { spare_.reserve(kSpareNodes); }

    // The oldest entry of `key`, or nullptr.
    T* front(std::uint64_t key) const {
        const auto list = lists_.find(key);
        return list == lists_.end() ? nullptr : list->second.front();
    }

    void push_back(std::uint64_t key, T* item) {
        auto list = lists_.find(key);
        if (list == lists_.end()) {
            if (spare_.empty()) {
                list = lists_.emplace(key, List{}).first;
            } else {
                auto node = std::move(spare_.back());
                spare_.pop_back();
                node.key() = key;
                node.mapped() = List{};
                list = lists_.insert(std::move(node)).position;
            }
        }
        list->second.push_back(item);
    }

    // `item` must be in the list of `key`.
    void erase(std::uint64_t key, T* item) {
        const auto list = lists_.find(key);
        list->second.erase(item);
        if (!list->second.empty()) return;
        if (spare_.size() < kSpareNodes)
            spare_.push_back(lists_.extract(list));
        else
            lists_.erase(list);
    }

  private:
    static constexpr std::size_t kSpareNodes = 64;
    using Map = std::unordered_map<std::uint64_t, List>;
    Map lists_;
    std::vector<typename Map::node_type> spare_;
};

}  // namespace si::p2p
