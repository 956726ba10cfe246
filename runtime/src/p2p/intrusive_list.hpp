// A doubly linked list threaded through its elements (which carry `prev` and
// `next` pointers), so queueing never allocates and removal is O(1).
#pragma once

namespace si::p2p {

template <typename T>
class IntrusiveList {
public:
    bool empty() const { return head_ == nullptr; }
    T* front() const { return head_; }

    void push_back(T* item) {
        item->next = nullptr;
        item->prev = tail_;
        (tail_ ? tail_->next : head_) = item;
        tail_ = item;
    }

    void erase(T* item) {
        (item->prev ? item->prev->next : head_) = item->next;
        (item->next ? item->next->prev : tail_) = item->prev;
        item->prev = item->next = nullptr;
    }

    // First element for which predicate holds, in queue order.
    template <typename Predicate>
    T* find(Predicate predicate) const {
        for (T* item = head_; item != nullptr; item = item->next)
            if (predicate(*item)) return item;
        return nullptr;
    }

private:
    T* head_ = nullptr;
    T* tail_ = nullptr;
};

}  // namespace si::p2p
