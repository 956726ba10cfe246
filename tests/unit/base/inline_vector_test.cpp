// InlineVector (base/inline_vector.hpp): inline up to N, on the heap beyond,
// and moves that keep every element, inline or not.
#include "base/inline_vector.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <utility>

namespace si {
namespace {

TEST(InlineVectorTest, StaysInlineUpToItsCapacity) {
    InlineVector<int, 4> v;
    for (int i = 0; i < 4; ++i) v.push_back(i);
    EXPECT_FALSE(v.on_heap());
    EXPECT_EQ(v.size(), 4u);
    v.push_back(4);
    EXPECT_TRUE(v.on_heap());
    EXPECT_GE(v.capacity(), 5u);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(v[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(v.back(), 4);
}

TEST(InlineVectorTest, MovesKeepTheElements) {
    InlineVector<std::unique_ptr<int>, 2> small;
    small.emplace_back(std::make_unique<int>(7));
    InlineVector<std::unique_ptr<int>, 2> moved(std::move(small));
    ASSERT_EQ(moved.size(), 1u);
    EXPECT_EQ(*moved[0], 7);
    EXPECT_TRUE(small.empty());

    InlineVector<std::unique_ptr<int>, 2> big;
    for (int i = 0; i < 5; ++i) big.emplace_back(std::make_unique<int>(i));
    const auto* heap = big.data();
    moved = std::move(big);
    EXPECT_EQ(moved.data(), heap);  // the heap block changes hands
    ASSERT_EQ(moved.size(), 5u);
    EXPECT_EQ(*moved[4], 4);
    EXPECT_TRUE(big.empty());
    EXPECT_FALSE(big.on_heap());
}

TEST(InlineVectorTest, AssignReplacesTheContents) {
    InlineVector<int, 2> v;
    v.assign(3, 9);
    EXPECT_EQ(v.size(), 3u);
    const int values[] = {1, 2};
    v.assign(std::begin(values), std::end(values));
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0], 1);
    EXPECT_EQ(v[1], 2);
    const std::span<const int> view = v;
    EXPECT_EQ(view.size(), 2u);
    v.clear();
    EXPECT_TRUE(v.empty());
}

}  // namespace
}  // namespace si
