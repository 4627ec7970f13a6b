// FlatMap against std::unordered_map: the same answers after every insert and
// erase, with hashes that collide on purpose (runs that wrap around the end of
// the array, erases from the middle of a run).
#include "analyzers/pipeline/flat_map.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>

using namespace stallscope;

namespace {

struct FewHashes {  // 7 distinct hashes: long runs in any table size
    size_t operator()(uint64_t k) const { return size_t(k % 7); }
};
struct SameHash {
    size_t operator()(uint64_t) const { return 42; }
};

template <class Hash> void against_std_map(uint64_t key_range, int ops, unsigned seed) {
    FlatMap<uint64_t, uint64_t, Hash> flat;
    std::map<uint64_t, uint64_t> ref;
    std::mt19937_64 rnd(seed);
    for (int op = 0; op < ops; ++op) {
        const uint64_t k = rnd() % key_range;
        if (rnd() % 3 == 0) {
            flat.erase(k);
            ref.erase(k);
        } else if (!flat.find(k)) {
            REQUIRE(ref.count(k) == 0);
            const uint64_t v = rnd();
            CHECK(flat.insert(k, v) == v);
            ref[k] = v;
        } else {
            ++*flat.find(k);
            ++ref[k];
        }
        REQUIRE(flat.size() == ref.size());
        if (op % 97 == 0) {
            for (uint64_t q = 0; q < key_range; ++q) {
                const uint64_t* v = flat.find(q);
                auto it = ref.find(q);
                REQUIRE((v != nullptr) == (it != ref.end()));
                if (v) REQUIRE(*v == it->second);
            }
            std::map<uint64_t, uint64_t> seen;
            flat.each([&](const uint64_t& k2, uint64_t& v) { seen[k2] = v; });
            REQUIRE(seen == ref);
        }
    }
}

} // namespace

TEST_CASE("FlatMap: the same entries as std::map through inserts and erases", "[flat_map]") {
    against_std_map<std::hash<uint64_t>>(5000, 20000, 1);
    against_std_map<FewHashes>(300, 6000, 2);
    against_std_map<SameHash>(100, 3000, 3);
}

TEST_CASE("FlatMap: an erase in a run that wraps past the end keeps the entries after it reachable", "[flat_map]") {
    FlatMap<uint64_t, int, SameHash> m;  // every key probes from the same home slot
    for (uint64_t k = 0; k < 40; ++k) m.insert(k, int(k));
    for (uint64_t k = 0; k < 40; k += 3) m.erase(k);
    for (uint64_t k = 0; k < 40; ++k) {
        INFO(k);
        if (k % 3 == 0) CHECK(m.find(k) == nullptr);
        else REQUIRE((m.find(k) && *m.find(k) == int(k)));
    }
    CHECK(m.size() == 26);
}
