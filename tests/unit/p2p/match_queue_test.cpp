// MatchQueue: the oldest matching entry wins, with and without the index.
// Random posts, removals and lookups are checked against a plain list scan.
#include "p2p/match_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <memory>
#include <random>
#include <vector>

#include "p2p/tuple.hpp"

namespace si::p2p {
namespace {

struct Entry {
    MatchSpec spec;
    int id = 0;
    MatchLinks<Entry> links;
};

struct KeyOfEntry {
    std::optional<std::uint64_t> operator()(const Entry& e) const { return e.spec.key(); }
};

using Queue = MatchQueue<Entry, KeyOfEntry>;

Tuple arrival(std::uint16_t context, int source, int tag) {
    return Tuple{MessageKind::eager, context, source, tag};
}

Entry* find_for(const Queue& queue, const Tuple& t) {
    return queue.find(match_key(t), [&](const Entry& e) { return e.spec.matches(t); });
}

TEST(MatchQueue, TheOldestMatchWinsAcrossBinsAndWildcards) {
    Queue queue;
    std::vector<std::unique_ptr<Entry>> entries;
    // Enough entries for the index; ids in posting order.
    const auto post = [&](int source, int tag) {
        entries.push_back(std::make_unique<Entry>(Entry{MatchSpec{4, source, tag}, 0, {}}));
        entries.back()->id = static_cast<int>(entries.size()) - 1;
        queue.push_back(entries.back().get());
    };
    for (std::size_t i = 0; i < Queue::kIndexFrom; ++i) post(1, 100 + static_cast<int>(i));
    EXPECT_FALSE(queue.indexed()) << "no lookup has been long yet";
    EXPECT_EQ(find_for(queue, arrival(4, 3, 3)), nullptr);  // passes every entry
    post(MatchSpec::kAnySource, 7);  // id kIndexFrom
    ASSERT_TRUE(queue.indexed()) << "the post after a long lookup builds the index";
    post(2, 7);                      // id kIndexFrom + 1
    post(2, MatchSpec::kAnyTag);     // id kIndexFrom + 2
    const int wildcard_source = static_cast<int>(Queue::kIndexFrom);

    // (2, 7): the any-source receive was posted first.
    EXPECT_EQ(find_for(queue, arrival(4, 2, 7))->id, wildcard_source);
    // Skipping it (a sender claimed it) leads to the exact one, then the any-tag one.
    int skipped = 0;
    Entry* next = queue.find(match_key(arrival(4, 2, 7)), [&](const Entry& e) {
        return e.spec.matches(arrival(4, 2, 7)) && skipped++ > 0;
    });
    EXPECT_EQ(next->id, wildcard_source + 1);
    queue.erase(entries[wildcard_source].get());
    queue.erase(entries[wildcard_source + 1].get());
    EXPECT_EQ(find_for(queue, arrival(4, 2, 7))->id, wildcard_source + 2);
    // Another context matches nothing; an exact bin still answers.
    EXPECT_EQ(find_for(queue, arrival(5, 1, 100)), nullptr);
    EXPECT_EQ(find_for(queue, arrival(4, 1, 103))->id, 3);

    // Emptied, the queue drops its index.
    for (std::size_t i = 0; i < Queue::kIndexFrom; ++i) queue.erase(entries[i].get());
    queue.erase(entries[wildcard_source + 2].get());
    EXPECT_TRUE(queue.empty());
    EXPECT_FALSE(queue.indexed());
}

// A window of receives for one peer and tag, matched in order: every lookup
// stops at the front, so hashing each entry would only cost.
TEST(MatchQueue, ALongQueueMatchedAtItsFrontStaysAList) {
    Queue queue;
    std::vector<std::unique_ptr<Entry>> entries;
    for (int round = 0; round < 3; ++round) {
        for (std::size_t i = 0; i < 4 * Queue::kIndexFrom; ++i) {
            entries.push_back(std::make_unique<Entry>(Entry{MatchSpec{0, 1, 5}, 0, {}}));
            queue.push_back(entries.back().get());
        }
        while (!queue.empty()) {
            Entry* found = find_for(queue, arrival(0, 1, 5));
            ASSERT_EQ(found, queue.front());
            queue.erase(found);
        }
        EXPECT_FALSE(queue.indexed());
    }
}

// A reference queue (a list scanned in order) next to MatchQueue, through
// random operations that cross the index threshold up and down.
TEST(MatchQueue, AgreesWithAListScanUnderRandomTraffic) {
    std::mt19937 random(12345);
    const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
    Queue queue;
    std::list<Entry*> reference;
    std::vector<std::unique_ptr<Entry>> owned;
    bool was_indexed = false;
    for (int step = 0; step < 40000; ++step) {
        // Phases of growth and of shrinking, then a cancellation of whatever
        // is left in a random order, so the index comes and goes.
        const bool growing = (step / 2000) % 2 == 0;
        if (step % 4000 == 0) {
            std::vector<Entry*> left(reference.begin(), reference.end());
            std::shuffle(left.begin(), left.end(), random);
            for (Entry* e : left) queue.erase(e);
            reference.clear();
            ASSERT_FALSE(queue.indexed());
        }
        const int action = pick(10);
        if (action < (growing ? 6 : 3)) {
            const int source = pick(8) == 0 ? MatchSpec::kAnySource : pick(4);
            const int tag = pick(8) == 0 ? MatchSpec::kAnyTag : pick(6);
            const auto context = static_cast<std::uint16_t>(pick(2));
            owned.push_back(std::make_unique<Entry>(Entry{MatchSpec{context, source, tag}, step, {}}));
            queue.push_back(owned.back().get());
            reference.push_back(owned.back().get());
        } else if (!reference.empty()) {
            const Tuple t = arrival(static_cast<std::uint16_t>(pick(2)), pick(4), pick(6));
            // Sometimes the first candidate is refused (claimed by another sender).
            const bool refuse_first = pick(4) == 0;
            int seen = 0;
            const auto accept = [&](const Entry& e) {
                return e.spec.matches(t) && (!refuse_first || seen++ > 0);
            };
            int seen_reference = 0;
            const auto expected = std::find_if(reference.begin(), reference.end(), [&](Entry* e) {
                return e->spec.matches(t) && (!refuse_first || seen_reference++ > 0);
            });
            Entry* found = queue.find(match_key(t), accept);
            ASSERT_EQ(found, expected == reference.end() ? nullptr : *expected) << "step " << step;
            if (found != nullptr) {
                queue.erase(found);
                reference.erase(expected);
            }
        }
        was_indexed = was_indexed || queue.indexed();
        ASSERT_EQ(queue.size(), reference.size());
        ASSERT_EQ(queue.front(), reference.empty() ? nullptr : reference.front());
    }
    EXPECT_TRUE(was_indexed) << "the traffic never grew the queue to its index";
}

}  // namespace
}  // namespace si::p2p
