// A vector whose first N elements live inside the object, for the
// per-call lists of the blocking collectives (a schedule's steps, a
// collective's blocks): a call on a small communicator then allocates
// nothing, and one on a large communicator moves to the heap once it
// outgrows the inline room, like std::vector from then on.
//
// Only what those lists need: push_back/emplace_back, assign, indexing,
// iteration, clear, moves (a moved-from vector is empty). Elements must be
// nothrow-movable. Unlike std::vector, a move of a vector that still holds
// its elements inline moves each element, so pointers into it do not
// survive a move.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace si {

template <typename T, std::size_t N>
class InlineVector {
    static_assert(N > 0);
    static_assert(std::is_nothrow_move_constructible_v<T>);

  public:
    InlineVector() = default;
    InlineVector(const InlineVector&) = delete;
    InlineVector& operator=(const InlineVector&) = delete;
    InlineVector(InlineVector&& other) noexcept { take(other); }
    InlineVector& operator=(InlineVector&& other) noexcept {
        if (this != &other) {
            release();
            take(other);
        }
        return *this;
    }
    ~InlineVector() { release(); }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    std::size_t capacity() const { return capacity_; }
    // False while the elements are inside the object.
    bool on_heap() const { return data_ != inline_data(); }

    T& operator[](std::size_t i) { return data_[i]; }
    const T& operator[](std::size_t i) const { return data_[i]; }
    T& back() { return data_[size_ - 1]; }
    const T& back() const { return data_[size_ - 1]; }
    T* begin() { return data_; }
    T* end() { return data_ + size_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    operator std::span<const T>() const { return {data_, size_}; }

    template <typename... Args>
    T& emplace_back(Args&&... args) {
        if (size_ == capacity_) grow();
        std::construct_at(data_ + size_, std::forward<Args>(args)...);
        return data_[size_++];
    }
    void push_back(T value) { emplace_back(std::move(value)); }
    template <std::input_iterator Iterator>
    void assign(Iterator first, Iterator last) {
        clear();
        for (; first != last; ++first) emplace_back(*first);
    }
    void assign(std::size_t count, const T& value) {
        clear();
        for (std::size_t i = 0; i < count; ++i) emplace_back(value);
    }
    void clear() {
        std::destroy_n(data_, size_);
        size_ = 0;
    }

  private:
    T* inline_data() { return std::launder(reinterpret_cast<T*>(storage_)); }
    const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(storage_)); }

    void grow() {
        const std::size_t capacity = capacity_ * 2;
        T* bigger = std::allocator<T>().allocate(capacity);
        std::uninitialized_move_n(data_, size_, bigger);
        std::destroy_n(data_, size_);
        if (on_heap()) std::allocator<T>().deallocate(data_, capacity_);
        data_ = bigger;
        capacity_ = capacity;
    }
    void release() {
        std::destroy_n(data_, size_);
        if (on_heap()) std::allocator<T>().deallocate(data_, capacity_);
        data_ = inline_data();
        size_ = 0;
        capacity_ = N;
    }
    // Leaves `other` empty and inline.
    void take(InlineVector& other) noexcept {
        if (other.on_heap()) {
            data_ = other.data_;
            capacity_ = other.capacity_;
            size_ = other.size_;
            other.data_ = other.inline_data();
            other.capacity_ = N;
            other.size_ = 0;
            return;
        }
        std::uninitialized_move_n(other.data_, other.size_, data_);
        size_ = other.size_;
        other.clear();
    }

    // Raw room, so that a vector on the stack costs no construction of
    // elements it never holds.
    alignas(T) std::byte storage_[N * sizeof(T)];
    T* data_ = inline_data();
    std::size_t size_ = 0;
    std::size_t capacity_ = N;
};

}  // namespace si
