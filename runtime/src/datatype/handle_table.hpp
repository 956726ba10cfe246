// Objects created at run time (derived datatypes, user reduction operators,
// and in the API layer persistent requests and matched-probe messages),
// addressed by integer handle.
//
// A created handle (datatype/handle_bits.hpp) of the table's kind, with
// index = generation << kSlotBits | slot. Slots start at first_slot. A freed
// slot goes to the back of a FIFO and its generation is bumped, so a stale
// handle is recognised as invalid until the slot has been reused
// kGenerations times, and a pointer obtained before the free keeps reading the
// old contents for as long as possible.
//
// Slots are kept in a deque and never removed, so an entry's address is stable
// for the life of the process: lookups may return a pointer and drop the lock.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "datatype/handle_bits.hpp"

namespace si::datatype {

template <typename Entry>
class HandleTable {
  public:
    static constexpr int kSlotBits = 20;
    static constexpr std::uint32_t kMaxSlots = std::uint32_t{1} << kSlotBits;
    static constexpr std::uint32_t kGenerations = std::uint32_t{1}
                                                  << (handle::kKindShift - kSlotBits);

    HandleTable(int kind, std::uint32_t first_slot) : kind_(kind), first_slot_(first_slot) {}
    HandleTable(const HandleTable&) = delete;
    HandleTable& operator=(const HandleTable&) = delete;

    // Stores entry under a new handle, naming it name_of(handle) (a
    // std::string kept alive with the entry, which entry.name points to).
    // Returns the handle, or 0 if the table is full.
    template <typename NameFn>
    int add(Entry entry, NameFn&& name_of) {
        std::lock_guard lock(mutex_);
        std::uint32_t slot;
        if (!free_.empty()) {
            slot = free_.front();
            free_.pop_front();
        } else if (first_slot_ + slots_.size() < kMaxSlots) {
            slot = first_slot_ + static_cast<std::uint32_t>(slots_.size());
            slots_.emplace_back();
        } else {
            return 0;
        }
        Slot& s = slots_[slot - first_slot_];
        s.entry = entry;
        s.entry.handle = handle_of(slot, s.generation);
        s.name = std::forward<NameFn>(name_of)(s.entry.handle);
        s.entry.name = s.name.c_str();
        s.live = true;
        ++live_;
        return s.entry.handle;
    }

    // The live entry a handle names, or nullptr.
    Entry* find(int handle) {
        std::lock_guard lock(mutex_);
        Slot* s = slot_of(handle);
        return s != nullptr ? &s->entry : nullptr;
    }

    // Runs fn(entry) under the lock; false if the handle names no live entry.
    template <typename Fn>
    bool update(int handle, Fn&& fn) {
        std::lock_guard lock(mutex_);
        Slot* s = slot_of(handle);
        if (s == nullptr) return false;
        std::forward<Fn>(fn)(s->entry);
        return true;
    }

    // False if the handle names no live entry.
    bool remove(int handle) {
        std::lock_guard lock(mutex_);
        Slot* s = slot_of(handle);
        if (s == nullptr) return false;
        s->live = false;
        s->generation = (s->generation + 1) % kGenerations;
        free_.push_back(slot_index(handle));
        --live_;
        return true;
    }

    std::size_t live() {
        std::lock_guard lock(mutex_);
        return live_;
    }

  private:
    struct Slot {
        Entry entry{};
        std::string name;
        std::uint32_t generation = 0;
        bool live = false;
    };

    int handle_of(std::uint32_t slot, std::uint32_t generation) const {
        return handle::make(kind_, handle::Storage::created, generation << kSlotBits | slot);
    }
    static std::uint32_t slot_index(int handle) {
        return static_cast<std::uint32_t>(handle) & (kMaxSlots - 1);
    }

    Slot* slot_of(int handle) {
        if (handle::kind_of(handle) != kind_) return nullptr;
        const std::uint32_t slot = slot_index(handle);
        if (slot < first_slot_ || slot - first_slot_ >= slots_.size()) return nullptr;
        Slot& s = slots_[slot - first_slot_];
        if (!s.live || s.entry.handle != handle) return nullptr;
        return &s;
    }

    const int kind_;
    const std::uint32_t first_slot_;
    std::mutex mutex_;
    std::deque<Slot> slots_;
    std::deque<std::uint32_t> free_;
    std::size_t live_ = 0;
};

}  // namespace si::datatype
