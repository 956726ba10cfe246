// A doubly linked list threaded through its elements (which carry `prev` and
// `next` pointers, or the two members named), so queueing never allocates and
// removal is O(1). An element may sit in two lists at once through two pairs
// of links.
#pragma once

namespace si::p2p {

template <typename T, T* T::*Prev = &T::prev, T* T::*Next = &T::next>
class IntrusiveList {
  public:
    bool empty() const { return head_ == nullptr; }
    T* front() const { return head_; }

    void push_back(T* item) {
        item->*Next = nullptr;
        item->*Prev = tail_;
        (tail_ ? tail_->*Next : head_) = item;
        tail_ = item;
    }

    void erase(T* item) {
        (item->*Prev ? item->*Prev->*Next : head_) = item->*Next;
        (item->*Next ? item->*Next->*Prev : tail_) = item->*Prev;
        item->*Prev = item->*Next = nullptr;
    }

    // First element for which predicate holds, in queue order.
    template <typename Predicate>
    T* find(Predicate predicate) const {
        for (T* item = head_; item != nullptr; item = item->*Next)
            if (predicate(*item)) return item;
        return nullptr;
    }

private:
    T* head_ = nullptr;
    T* tail_ = nullptr;
};

}  // namespace si::p2p
