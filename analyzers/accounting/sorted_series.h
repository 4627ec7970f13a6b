#pragma once
// A sorted series with a few of its values replaced, in order, without
// sorting it again. The summary's what-if series are a call's latency (or
// its time as the client lives it) with a fix's saving taken off a few calls:
// their sorted order is the base's, those calls' old values taken out and
// their new ones merged in, O(n + k log k) against another O(n log n) sort.
#include <algorithm>
#include <cmath>
#include <vector>

namespace stallscope {

// Whether == tells x from every other value as its bits do: not NaN and not
// -0.0 (equal to +0.0, yet printed "-0"). A series of such values has one
// sorted order, whichever way it is sorted or merged.
inline bool plain_value(double x) { return !std::isnan(x) && !(x == 0 && std::signbit(x)); }

// Calls fn(x) in ascending order for every value of `base` (sorted, plain
// values), except one occurrence of each value of `out`, and for every value
// of `in` (plain values). Sorts `out` and `in`. Returns false, having called
// fn for an incomplete series, when some value of `out` is not in `base`.
template <class Fn>
bool each_replaced(const std::vector<double>& base, std::vector<double>& out, std::vector<double>& in, Fn&& fn) {
    std::sort(out.begin(), out.end());
    std::sort(in.begin(), in.end());
    size_t o = 0, i = 0;
    for (double x : base) {
        if (o < out.size() && out[o] == x) {
            ++o;
            continue;
        }
        while (i < in.size() && in[i] < x) fn(in[i++]);
        fn(x);
    }
    while (i < in.size()) fn(in[i++]);
    return o == out.size();
}

} // namespace stallscope
