// ptxsim e2e: host callbacks ordered with kernels and copies on several streams.
//   - cudaStreamAddCallback and cudaLaunchHostFunc on three streams: each callback reads pinned
//     memory that the stream's previous copy filled (so it observes the kernels before it) and
//     appends to an ordering log; cross-stream dependencies through cudaStreamWaitEvent; the log
//     is checked for per-stream order and for every cross-stream edge
//   - callbacks get their stream and cudaSuccess; flags other than 0 are refused
//   - the legacy default stream and cudaStreamPerThread with callbacks
//   - four host threads each driving their own stream with kernels, copies and callbacks
//   - stream priorities: cudaDeviceGetStreamPriorityRange, cudaStreamCreateWithPriority (out of
//     range values are clamped), cudaStreamGetPriority, cudaStreamGetFlags, cudaStreamGetId
//   - cudaStreamSynchronize, cudaStreamQuery, events (query, synchronize, elapsed time, timing
//     disabled), cudaStreamWaitEvent on an event never recorded
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
static const char *kName = "stream_callbacks";
#include "../kernels/test_common.h"

__global__ void step(int *data, int n, int mul, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * mul + add;
}
__global__ void combine(int *dst, const int *src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

// ---- the ordering log ---------------------------------------------------------------------------
struct Entry { int stream, seq; long long observed; };
static std::mutex g_logMu;
static std::vector<Entry> g_log;

struct Probe {
    int stream, seq;
    const int *pinned;  // what the stream copied just before the callback
    int n;
    cudaStream_t expectStream;
    int badCalls;
};
static long long sumOf(const int *p, int n) {
    long long s = 0;
    for (int i = 0; i < n; ++i) s += p[i];
    return s;
}
static void CUDART_CB streamCallback(cudaStream_t s, cudaError_t status, void *user) {
    Probe *p = (Probe *)user;
    if (s != p->expectStream || status != cudaSuccess) ++p->badCalls;
    std::lock_guard<std::mutex> lock(g_logMu);
    g_log.push_back({p->stream, p->seq, sumOf(p->pinned, p->n)});
}
static void CUDART_CB hostFunc(void *user) {
    Probe *p = (Probe *)user;
    std::lock_guard<std::mutex> lock(g_logMu);
    g_log.push_back({p->stream, p->seq, sumOf(p->pinned, p->n)});
}

static void orderedCallbacks() {
    const int n = 256, S = 3, steps = 6;
    int *data[S], *pinned[S * steps];
    cudaStream_t st[S];
    cudaEvent_t ev[S][steps];
    for (int s = 0; s < S; ++s) {
        CK(cudaMalloc(&data[s], n * sizeof(int)));
        CK(cudaMemset(data[s], 0, n * sizeof(int)));
        CK(cudaStreamCreateWithFlags(&st[s], s == 0 ? cudaStreamDefault : cudaStreamNonBlocking));
        for (int k = 0; k < steps; ++k) CK(cudaEventCreateWithFlags(&ev[s][k], cudaEventDisableTiming));
    }
    for (int i = 0; i < S * steps; ++i) CK(cudaMallocHost(&pinned[i], n * sizeof(int)));
    std::vector<Probe> probes(S * steps);
    // host model of each stream's data, updated in the order the work is issued (each stream
    // runs its work in order; a wait makes stream s see stream s-1's data of the same step)
    std::vector<std::vector<long long>> model(S, std::vector<long long>(n, 0));
    std::vector<std::vector<long long>> expectSum(S, std::vector<long long>(steps));
    for (int k = 0; k < steps; ++k)
        for (int s = 0; s < S; ++s) {
            int mul = 1 + (s + k) % 3, add = s * 10 + k;
            if (s > 0) {  // stream s waits for stream s-1's step k, then adds its data
                CK(cudaStreamWaitEvent(st[s], ev[s - 1][k], 0));
                combine<<<(n + 63) / 64, 64, 0, st[s]>>>(data[s], data[s - 1], n);
                for (int i = 0; i < n; ++i) model[s][i] += model[s - 1][i];
            }
            step<<<(n + 63) / 64, 64, 0, st[s]>>>(data[s], n, mul, add);
            for (int i = 0; i < n; ++i) model[s][i] = (long long)(int)(model[s][i] * mul + add);
            CK(cudaEventRecord(ev[s][k], st[s]));
            int *pin = pinned[s * steps + k];
            CK(cudaMemcpyAsync(pin, data[s], n * sizeof(int), cudaMemcpyDeviceToHost, st[s]));
            Probe &p = probes[s * steps + k];
            p = {s, k, pin, n, st[s], 0};
            if ((s + k) % 2) CK(cudaStreamAddCallback(st[s], streamCallback, &p, 0));
            else CK(cudaLaunchHostFunc(st[s], hostFunc, &p));
            long long sum = 0;
            for (int i = 0; i < n; ++i) sum += (int)model[s][i];
            expectSum[s][k] = sum;
        }
    for (int s = 0; s < S; ++s) CK(cudaStreamSynchronize(st[s]));
    for (int s = 0; s < S; ++s) EXPECT(cudaStreamQuery(st[s]) == cudaSuccess, "stream %d query after synchronize", s);
    EXPECT((int)g_log.size() == S * steps, "log has %zu entries, expected %d", g_log.size(), S * steps);
    std::vector<std::vector<int>> pos(S, std::vector<int>(steps, -1));
    for (size_t i = 0; i < g_log.size(); ++i) {
        const Entry &e = g_log[i];
        pos[e.stream][e.seq] = (int)i;
        EXPECT(e.observed == expectSum[e.stream][e.seq], "callback stream %d step %d observed sum %lld, expected %lld", e.stream,
               e.seq, e.observed, expectSum[e.stream][e.seq]);
    }
    for (int s = 0; s < S; ++s)
        for (int k = 0; k < steps; ++k) {
            EXPECT(pos[s][k] >= 0, "callback stream %d step %d missing", s, k);
            if (k) EXPECT(pos[s][k] > pos[s][k - 1], "stream %d: step %d logged before step %d", s, k, k - 1);
        }
    for (auto &p : probes) EXPECT(p.badCalls == 0, "callback of stream %d step %d got the wrong stream or status", p.stream, p.seq);
    // flags must be 0
    EXPECT(cudaStreamAddCallback(st[0], streamCallback, &probes[0], 1) == cudaErrorInvalidValue, "callback flags 1 refused");
    cudaGetLastError();
    for (int s = 0; s < S; ++s) {
        for (int k = 0; k < steps; ++k) CK(cudaEventDestroy(ev[s][k]));
        CK(cudaStreamDestroy(st[s]));
        CK(cudaFree(data[s]));
    }
    for (int i = 0; i < S * steps; ++i) CK(cudaFreeHost(pinned[i]));
}

// ---- default streams -------------------------------------------------------------------------------
static void defaultStreams() {
    const int n = 64;
    int *d, *pin;
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMallocHost(&pin, n * sizeof(int)));
    CK(cudaMemsetAsync(d, 0, n * sizeof(int), 0));
    g_log.clear();
    Probe p0{0, 0, pin, n, 0, 0}, p1{1, 1, pin, n, cudaStreamPerThread, 0};
    step<<<1, n>>>(d, n, 1, 3);
    CK(cudaMemcpyAsync(pin, d, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
    CK(cudaStreamAddCallback(0, streamCallback, &p0, 0));
    step<<<1, n, 0, cudaStreamPerThread>>>(d, n, 2, 0);
    CK(cudaMemcpyAsync(pin, d, n * sizeof(int), cudaMemcpyDeviceToHost, cudaStreamPerThread));
    CK(cudaStreamAddCallback(cudaStreamPerThread, streamCallback, &p1, 0));
    CK(cudaStreamSynchronize(cudaStreamPerThread));
    CK(cudaDeviceSynchronize());
    EXPECT(g_log.size() == 2 && g_log[0].observed == 3 * n && g_log[1].observed == 6 * n, "default-stream callbacks: %zu entries", g_log.size());
    EXPECT(p0.badCalls == 0 && p1.badCalls == 0, "default-stream callbacks got their stream");
    CK(cudaFree(d));
    CK(cudaFreeHost(pin));
}

// ---- host threads ---------------------------------------------------------------------------------
static void hostThreads() {
    const int T = 4, n = 128, rounds = 25;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    std::vector<std::vector<long long>> seen(T);
    for (int t = 0; t < T; ++t)
        threads.emplace_back([&, t] {
            cudaStream_t s;
            int *d, *pin;
            if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) || cudaMalloc(&d, n * sizeof(int)) ||
                cudaMallocHost(&pin, n * sizeof(int)) || cudaMemsetAsync(d, 0, n * sizeof(int), s)) {
                ++failures;
                return;
            }
            struct Ctx { const int *pin; int n; std::vector<long long> *out; } c{pin, n, &seen[t]};
            auto cb = [](void *u) { Ctx *c = (Ctx *)u; c->out->push_back(sumOf(c->pin, c->n)); };
            for (int r = 0; r < rounds; ++r) {
                step<<<2, 64, 0, s>>>(d, n, 1, t + 1);
                if (cudaMemcpyAsync(pin, d, n * sizeof(int), cudaMemcpyDeviceToHost, s) || cudaLaunchHostFunc(s, cb, &c)) ++failures;
            }
            if (cudaStreamSynchronize(s) || cudaStreamDestroy(s) || cudaFree(d) || cudaFreeHost(pin)) ++failures;
        });
    for (auto &th : threads) th.join();
    EXPECT(failures == 0, "%d CUDA calls failed in host threads", failures.load());
    for (int t = 0; t < T; ++t) {
        EXPECT((int)seen[t].size() == rounds, "thread %d: %zu callbacks", t, seen[t].size());
        for (int r = 0; r < (int)seen[t].size(); ++r)
            EXPECT(seen[t][r] == (long long)(r + 1) * (t + 1) * n, "thread %d round %d: callback saw %lld", t, r, seen[t][r]);
    }
}

// ---- priorities, flags, ids, events ------------------------------------------------------------
static void prioritiesAndEvents() {
    int least = 99, greatest = 99;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EXPECT(greatest <= least && least == 0, "priority range least %d greatest %d", least, greatest);
    int want[5] = {least, greatest, (least + greatest) / 2, least + 7, greatest - 7};
    int clamped[5] = {least, greatest, (least + greatest) / 2, least, greatest};
    cudaStream_t s[5];
    for (int i = 0; i < 5; ++i) {
        CK(cudaStreamCreateWithPriority(&s[i], i % 2 ? cudaStreamNonBlocking : cudaStreamDefault, want[i]));
        int p = 1234;
        unsigned flags = 99;
        CK(cudaStreamGetPriority(s[i], &p));
        CK(cudaStreamGetFlags(s[i], &flags));
        EXPECT(p == clamped[i], "stream created with priority %d reports %d, expected %d", want[i], p, clamped[i]);
        EXPECT(flags == (i % 2 ? cudaStreamNonBlocking : cudaStreamDefault), "stream %d flags %u", i, flags);
    }
    unsigned long long ids[5];
    for (int i = 0; i < 5; ++i) CK(cudaStreamGetId(s[i], &ids[i]));
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < i; ++j) EXPECT(ids[i] != ids[j], "streams %d and %d share id %llu", i, j, ids[i]);
    unsigned long long legacyId = 0, ptId = 0;
    CK(cudaStreamGetId(0, &legacyId));
    CK(cudaStreamGetId(cudaStreamPerThread, &ptId));
    EXPECT(legacyId != ptId, "legacy and per-thread stream ids differ");
    int dev = -1;
    CK(cudaStreamGetDevice(s[0], &dev));
    EXPECT(dev == 0, "stream device %d", dev);
    int p0 = 99;
    CK(cudaStreamGetPriority(0, &p0));
    EXPECT(p0 == 0, "default stream priority %d", p0);
    EXPECT(cudaStreamCreateWithPriority(&s[0], 0x80, 0) == cudaErrorInvalidValue, "bad stream flags refused");
    cudaGetLastError();

    // work on a high-priority stream while a low-priority one waits on it
    const int n = 512;
    int *a;
    CK(cudaMalloc(&a, n * sizeof(int)));
    CK(cudaMemsetAsync(a, 0, n * sizeof(int), s[0]));
    cudaEvent_t start, stop, plain, never;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    CK(cudaEventCreateWithFlags(&plain, cudaEventDisableTiming));
    CK(cudaEventCreate(&never));
    CK(cudaEventRecord(start, s[0]));
    for (int k = 0; k < 10; ++k) step<<<(n + 127) / 128, 128, 0, s[0]>>>(a, n, 1, 1);
    CK(cudaEventRecord(plain, s[0]));
    CK(cudaStreamWaitEvent(s[1], plain, 0));
    step<<<(n + 127) / 128, 128, 0, s[1]>>>(a, n, 3, 0);
    CK(cudaEventRecord(stop, s[1]));
    CK(cudaStreamWaitEvent(s[2], never, 0));  // never recorded: nothing to wait for
    step<<<(n + 127) / 128, 128, 0, s[2]>>>(a, n, 1, 0);
    CK(cudaEventSynchronize(stop));
    EXPECT(cudaEventQuery(stop) == cudaSuccess && cudaEventQuery(plain) == cudaSuccess, "events complete");
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0, "elapsed time %g ms", ms);
    EXPECT(cudaEventElapsedTime(&ms, start, plain) == cudaErrorInvalidResourceHandle, "elapsed time with a timing-disabled event fails");
    cudaGetLastError();
    EXPECT(cudaEventElapsedTime(&ms, start, never) != cudaSuccess, "elapsed time with an unrecorded event fails");
    cudaGetLastError();
    CK(cudaDeviceSynchronize());
    std::vector<int> h(n);
    CK(cudaMemcpy(h.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 30, "priority streams: a[%d] = %d, expected 30", i, h[i]);
    for (int i = 0; i < 5; ++i) {
        CK(cudaStreamSynchronize(s[i]));
        EXPECT(cudaStreamQuery(s[i]) == cudaSuccess, "stream %d idle", i);
    }
    for (int i = 0; i < 5; ++i) CK(cudaStreamDestroy(s[i]));
    CK(cudaEventDestroy(start)); CK(cudaEventDestroy(stop)); CK(cudaEventDestroy(plain)); CK(cudaEventDestroy(never));
    CK(cudaFree(a));
}

int main() {
    orderedCallbacks();
    defaultStreams();
    hostThreads();
    prioritiesAndEvents();
    return finish();
}
