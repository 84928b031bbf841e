// A Thrust radix sort of one million 32-bit key/value pairs, the way benchmark programs use it:
// thrust::sort_by_key on device vectors (CUB's onesweep radix sort: a histogram kernel, then
// one pass per 8-bit digit whose blocks chain their digit counts by decoupled look-back),
// repeated over iterations (two by default) on freshly copied input and timed with events. Every
// iteration is checked against std::stable_sort of the same pairs on the host; the host sort's
// time is printed next to the device's. RADIX_SORT_N overrides the element count (the timing
// mode tests use fewer elements) and RADIX_SORT_ITERS the iteration count.
static const char *kName = "thrust_radix_sort_1m";
#include "../kernels/test_common.h"

#include <thrust/device_vector.h>
#include <thrust/sort.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <vector>

static uint32_t g_seed = 12345;
static uint32_t rnd() {
    g_seed ^= g_seed << 13;
    g_seed ^= g_seed >> 17;
    g_seed ^= g_seed << 5;
    return g_seed;
}

static size_t envSize(const char *name, size_t def) {
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, nullptr, 10) : def;
}

int main() {
    const size_t n = envSize("RADIX_SORT_N", size_t(1) << 20);
    const int iters = (int)envSize("RADIX_SORT_ITERS", 2);
    std::vector<uint32_t> keys(n), vals(n);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = rnd();
        vals[i] = (uint32_t)i;
    }
    // a few runs of equal keys, so stability is visible
    for (size_t i = 0; i + 8 < n; i += n / 64 + 1)
        for (int j = 1; j < 8; ++j) keys[i + j] = keys[i];

    // host reference: a stable sort of (key, value) by key
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    auto h0 = std::chrono::steady_clock::now();
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    auto h1 = std::chrono::steady_clock::now();
    std::vector<uint32_t> hk = keys;
    auto s0 = std::chrono::steady_clock::now();
    std::sort(hk.begin(), hk.end());
    auto s1 = std::chrono::steady_clock::now();

    thrust::device_vector<uint32_t> dk(n), dv(n);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float totalMs = 0;
    std::vector<uint32_t> gk(n), gv(n);
    for (int it = 0; it < iters; ++it) {
        thrust::copy(keys.begin(), keys.end(), dk.begin());
        thrust::copy(vals.begin(), vals.end(), dv.begin());
        CK(cudaEventRecord(e0));
        thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        totalMs += ms;
        thrust::copy(dk.begin(), dk.end(), gk.begin());
        thrust::copy(dv.begin(), dv.end(), gv.begin());
        for (size_t i = 0; i < n; ++i) {
            EXPECT(gk[i] == keys[order[i]] && gv[i] == vals[order[i]],
                   "iteration %d element %zu: got (%u, %u), want (%u, %u)", it, i, gk[i], gv[i],
                   keys[order[i]], vals[order[i]]);
        }
    }
    printf("%zu pairs, %d iterations: device %.3f ms per sort (simulated clock); host "
           "std::stable_sort %.3f ms, std::sort of the keys %.3f ms\n",
           n, iters, totalMs / iters,
           std::chrono::duration<double, std::milli>(h1 - h0).count(),
           std::chrono::duration<double, std::milli>(s1 - s0).count());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return finish();
}
