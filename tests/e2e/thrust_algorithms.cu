// Thrust and CUB as real programs use them (their kernels run under the simulator; CUB picks
// its tuning from cudaFuncGetAttributes' ptxVersion and its radix sort and scans use
// decoupled look-back between thread blocks): sort of 32-bit keys, 64-bit keys and key/value
// pairs, floats with a comparator, reduce, inclusive/exclusive scan, transform, copy_if,
// unique, count_if and a reduce_by_key, each checked against the C++ standard library.
static const char *kName = "thrust_algorithms";
#include "../kernels/test_common.h"

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

struct SquareMod {
    __host__ __device__ int operator()(int x) const { return (int)((long long)x * x % 1000); }
};
struct IsOdd {
    __host__ __device__ bool operator()(int x) const { return x & 1; }
};
struct Above {
    float t;
    __host__ __device__ bool operator()(float x) const { return x > t; }
};

static uint32_t g_seed = 2024;
static uint32_t rnd() { return g_seed = g_seed * 1664525u + 1013904223u; }

int main() {
    // THRUST_N: fewer elements for the three timing-mode runs of e2e_same_cycles (16384 still
    // span several thread blocks: multi-block radix sort and decoupled look-back scans)
    const char *env = std::getenv("THRUST_N");
    const int n = env && std::atoi(env) > 0 ? std::atoi(env) : 60000;
    // 32-bit keys, with many duplicates
    std::vector<int> h(n);
    for (int &x : h) x = (int)(rnd() >> 8) % 50000;
    thrust::device_vector<int> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());
    std::vector<int> ref = h, got(n);
    std::sort(ref.begin(), ref.end());
    thrust::copy(d.begin(), d.end(), got.begin());
    EXPECT(got == ref, "sort of int keys differs");

    long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
    EXPECT(sum == std::accumulate(h.begin(), h.end(), 0LL), "reduce %lld", sum);

    // transform + inclusive and exclusive scans
    thrust::device_vector<int> t(n), s(n);
    thrust::transform(d.begin(), d.end(), t.begin(), SquareMod());
    thrust::inclusive_scan(t.begin(), t.end(), s.begin());
    std::vector<int> sh(n);
    thrust::copy(s.begin(), s.end(), sh.begin());
    long long acc = 0;
    for (int i = 0; i < n; ++i) {
        acc += (long long)ref[i] * ref[i] % 1000;
        EXPECT((int)acc == sh[i], "inclusive_scan[%d] = %d, want %d", i, sh[i], (int)acc);
    }
    thrust::exclusive_scan(t.begin(), t.end(), s.begin(), 7);
    thrust::copy(s.begin(), s.end(), sh.begin());
    acc = 7;
    for (int i = 0; i < n; ++i) {
        EXPECT((int)acc == sh[i], "exclusive_scan[%d] = %d, want %d", i, sh[i], (int)acc);
        acc += (long long)ref[i] * ref[i] % 1000;
    }

    // unique and count_if on the sorted keys
    int odd = (int)thrust::count_if(d.begin(), d.end(), IsOdd());
    EXPECT(odd == (int)std::count_if(h.begin(), h.end(), [](int x) { return x & 1; }), "count_if %d", odd);
    auto end = thrust::unique(d.begin(), d.end());
    std::vector<int> u = ref;
    u.erase(std::unique(u.begin(), u.end()), u.end());
    EXPECT((size_t)(end - d.begin()) == u.size(), "unique kept %d of %zu", (int)(end - d.begin()), u.size());

    // 64-bit keys sorted by key with 32-bit values (stable: equal keys keep their order)
    std::vector<unsigned long long> k64(n);
    std::vector<int> vals(n);
    for (int i = 0; i < n; ++i) {
        k64[i] = ((unsigned long long)rnd() << 32 | rnd()) % 4000000000000ull;
        if (i % 5 == 0 && i) k64[i] = k64[i - 1];
        vals[i] = i;
    }
    thrust::device_vector<unsigned long long> dk(k64.begin(), k64.end());
    thrust::device_vector<int> dv(vals.begin(), vals.end());
    thrust::stable_sort_by_key(dk.begin(), dk.end(), dv.begin());
    std::vector<std::pair<unsigned long long, int>> pairs(n);
    for (int i = 0; i < n; ++i) pairs[i] = {k64[i], i};
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<unsigned long long> gk(n);
    std::vector<int> gv(n);
    thrust::copy(dk.begin(), dk.end(), gk.begin());
    thrust::copy(dv.begin(), dv.end(), gv.begin());
    for (int i = 0; i < n; ++i)
        EXPECT(gk[i] == pairs[i].first && gv[i] == pairs[i].second, "sort_by_key[%d]: (%llu,%d) want (%llu,%d)",
               i, gk[i], gv[i], pairs[i].first, pairs[i].second);

    // floats sorted descending with a comparator (a merge sort, not the radix path), copy_if
    std::vector<float> f(n / 4);
    for (float &x : f) x = (float)(int)(rnd() % 20001 - 10000) / 16.0f;
    thrust::device_vector<float> df(f.begin(), f.end());
    thrust::sort(df.begin(), df.end(), thrust::greater<float>());
    std::vector<float> fr = f, fg(f.size());
    std::sort(fr.begin(), fr.end(), std::greater<float>());
    thrust::copy(df.begin(), df.end(), fg.begin());
    EXPECT(fg == fr, "sort of floats with greater<> differs");
    thrust::device_vector<float> sel(f.size());
    auto selEnd = thrust::copy_if(df.begin(), df.end(), sel.begin(), Above{100.0f});
    size_t want = (size_t)std::count_if(f.begin(), f.end(), [](float x) { return x > 100.0f; });
    EXPECT((size_t)(selEnd - sel.begin()) == want, "copy_if kept %d, want %zu", (int)(selEnd - sel.begin()), want);

    // reduce_by_key over runs of equal sorted keys
    thrust::device_vector<int> keys(ref.begin(), ref.end()), ones(n, 1), ok(n), ov(n);
    auto rb = thrust::reduce_by_key(keys.begin(), keys.end(), ones.begin(), ok.begin(), ov.begin());
    int runs = (int)(rb.first - ok.begin());
    std::map<int, int> counts;
    for (int x : h) counts[x]++;
    EXPECT(runs == (int)counts.size(), "reduce_by_key: %d runs, want %zu", runs, counts.size());
    std::vector<int> hk(runs), hv(runs);
    thrust::copy(ok.begin(), ok.begin() + runs, hk.begin());
    thrust::copy(ov.begin(), ov.begin() + runs, hv.begin());
    for (int i = 0; i < runs; ++i)
        EXPECT(counts[hk[i]] == hv[i], "count of %d is %d, want %d", hk[i], hv[i], counts[hk[i]]);

    CK(cudaDeviceSynchronize());
    return finish();
}
