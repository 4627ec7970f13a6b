// The sharded merge's id table (MergeIds) and the array under it
// (SlidingIdMap): the same answers as a std::map whatever the order ids are
// erased in, ids held while many later ones come and go, and memory that is
// the ids held plus a bounded array whatever the capture.
#include "analyzers/pipeline/merge_ids.h"
#include "analyzers/pipeline/sliding_id_map.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <stdexcept>

using namespace stallscope;

namespace {

// Ids added in rising order (with a gap now and then), erased at random
// among the newest `window` held ones and sometimes far older: every
// answer checked against a std::map.
void against_std_map(size_t max_span, uint64_t window, int ops, unsigned seed) {
    SlidingIdMap<uint64_t> m(max_span);
    std::map<uint64_t, uint64_t> ref;
    std::mt19937_64 rnd(seed);
    uint64_t next = 1;
    for (int op = 0; op < ops; ++op) {
        const unsigned roll = unsigned(rnd() % 8);
        if (roll < 4 || ref.empty()) {
            if (rnd() % 50 == 0) next += rnd() % 5;  // ids skipped
            const uint64_t v = rnd();
            m.add(next, v);
            ref[next++] = v;
        } else if (roll < 7) {
            const uint64_t id = next - 1 - rnd() % window;  // recent: held or not
            m.erase(id);
            ref.erase(id);
        } else {
            auto it = ref.begin();  // the oldest held (a call held open long)
            if (rnd() % 4 == 0) {
                m.erase(it->first);
                ref.erase(it);
            }
        }
        REQUIRE(m.size() == ref.size());
        REQUIRE(m.capacity() <= max_span);
        if (op % 101 == 0) {
            const uint64_t low = ref.empty() ? 1 : ref.begin()->first;
            for (uint64_t id = low > 10 ? low - 10 : 1; id < next + 3; ++id) {
                const uint64_t* v = m.find(id);
                auto it = ref.find(id);
                INFO(id);
                REQUIRE((v != nullptr) == (it != ref.end()));
                if (v) REQUIRE(*v == it->second);
            }
        }
    }
}

} // namespace

TEST_CASE("SlidingIdMap: the same entries as std::map, ids erased in any order", "[merge_ids]") {
    against_std_map(size_t(1) << 16, 40, 30000, 1);
    against_std_map(64, 40, 30000, 2);   // the array full: the oldest held move beside it
    against_std_map(128, 500, 30000, 3);  // erases reach further back than the array spans
}

TEST_CASE("SlidingIdMap: an id held while 200,000 later ones come and go keeps its value, memory bounded",
          "[merge_ids]") {
    SlidingIdMap<uint64_t> m(1024);
    m.add(1, 111);
    for (uint64_t id = 2; id < 200'000; ++id) {
        m.add(id, id * 10);
        if (id >= 6) m.erase(id - 4);  // four open at a time besides the first
        REQUIRE(m.capacity() <= 1024);
        REQUIRE(m.size() <= 6);
    }
    REQUIRE(m.find(1));
    CHECK(*m.find(1) == 111);
    CHECK(m.moved() == 1);  // beside the array: it no longer holds the array's oldest end
    CHECK(m.span() <= 5);
    CHECK(*m.find(199'999) == 1'999'990);
    CHECK(m.find(199'995) == nullptr);
    m.erase(1);
    CHECK(m.find(1) == nullptr);
    CHECK(m.moved() == 0);
}

TEST_CASE("SlidingIdMap: erase_if removes in the array and beside it", "[merge_ids]") {
    SlidingIdMap<uint64_t> m(64);
    for (uint64_t id = 1; id <= 300; ++id) m.add(id, id % 3);
    for (uint64_t id = 2; id <= 300; ++id)
        if (id % 5) m.erase(id);  // 1 and the multiples of 5 stay: some moved beside the array
    REQUIRE(m.moved() > 0);
    m.erase_if([](uint64_t, uint64_t v) { return v == 0; });
    for (uint64_t id = 1; id <= 300; ++id) {
        INFO(id);
        const bool held = (id == 1 || id % 5 == 0) && id % 3 != 0;
        REQUIRE((m.find(id) != nullptr) == held);
    }
}

TEST_CASE("MergeIds: calls finished out of order and one open across many later ones keep their final ids",
          "[merge_ids]") {
    MergeIds ids(2, 256);
    uint64_t final_conn = 0, final_call = 0;
    ids.new_connection(local_id(0, 1), ++final_conn);  // final 1
    ids.new_connection(local_id(1, 1), ++final_conn);  // final 2
    ids.new_call(local_id(0, 1), local_id(0, 1), ++final_call);  // held open throughout: final 1
    for (uint64_t n = 2; n < 20'000; n += 2) {
        ids.new_call(local_id(0, n), local_id(0, 1), ++final_call);
        ids.new_call(local_id(1, n / 2), local_id(1, 1), ++final_call);
        ids.new_call(local_id(0, n + 1), local_id(0, 1), ++final_call);
        // handed on in the other order than they opened
        REQUIRE(ids.finish_call(local_id(0, n + 1)) == final_call);
        REQUIRE(ids.finish_call(local_id(1, n / 2)) == final_call - 1);
        REQUIRE(ids.finish_call(local_id(0, n)) == final_call - 2);
        REQUIRE(ids.held() == 3);  // two connections and the call held open
    }
    CHECK(ids.call(local_id(0, 1)) == 1);
    CHECK(ids.connection(local_id(0, 1)) == 1);
    CHECK(ids.connection(local_id(1, 1)) == 2);
    CHECK(ids.slots() <= 4 * 256);  // two workers, connections and calls
    CHECK(ids.finish_call(local_id(0, 1)) == 1);
    // A call handed on, and a connection closed, are not named again: their local id is kept.
    CHECK(ids.call(local_id(0, 1)) == local_id(0, 1));
    ids.connection_closed(local_id(0, 1));
    CHECK(ids.connection(local_id(0, 1)) == local_id(0, 1));
    // Not a worker's id (the front's warnings): as it is.
    CHECK(ids.call(77) == 77);
    CHECK(ids.connection(local_id(5, 1)) == local_id(5, 1));
    CHECK_THROWS_AS(ids.finish_call(local_id(0, 3)), std::logic_error);
}

TEST_CASE("MergeIds: a connection closed forgets its calls never handed on, memory bounded", "[merge_ids]") {
    MergeIds ids(1, 128);
    uint64_t final_id = 0, call_n = 0;
    // 50,000 connections, each closed with a call still open (a lost response):
    // nothing stays once each is closed, and the arrays stay within their cap.
    for (uint64_t c = 1; c <= 50'000; ++c) {
        ids.new_connection(local_id(0, c), ++final_id);
        ids.new_call(local_id(0, ++call_n), local_id(0, c), final_id);
        ids.new_call(local_id(0, ++call_n), local_id(0, c), final_id);
        REQUIRE(ids.finish_call(local_id(0, call_n)) == final_id);
        if (c > 3) ids.connection_closed(local_id(0, c - 3));  // three open at a time
        REQUIRE(ids.held() <= 8);
        REQUIRE(ids.slots() <= 2 * 128);
    }
    CHECK(ids.call(local_id(0, 1)) == local_id(0, 1));  // its connection closed: forgotten
    CHECK_THROWS_AS(ids.finish_call(local_id(0, 1)), std::logic_error);
    CHECK(ids.call(local_id(0, call_n - 1)) == 50'000);  // the last connection's open call
    for (uint64_t c = 49'998; c <= 50'000; ++c) ids.connection_closed(local_id(0, c));
    CHECK(ids.held() == 0);
    CHECK(ids.held_outside_arrays() == 0);
}
