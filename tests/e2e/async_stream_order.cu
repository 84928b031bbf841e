// ptxsim e2e: CUDA's ordering of queued work over many streams, with the host running on.
//   - four streams (blocking and non-blocking), each a chain of kernels, pinned copies, host
//     functions (cudaLaunchHostFunc) and stream callbacks (cudaStreamAddCallback); stream s waits
//     (cudaStreamWaitEvent) for stream s-1's step before its own, and reads a snapshot stream
//     s-1 wrote
//   - all of it is queued behind a kernel that waits for a host flag: no host function has run
//     when the queuing calls return, the queries say cudaErrorNotReady; then the flag is set
//   - the log the host functions write is checked for each stream's order, every cross-stream
//     edge and the values each saw (the copy queued just before it), host functions run on a
//     thread other than the one that queued them, callbacks get their stream and cudaSuccess
//   - a host function's effect is seen by the stream's later work (a pinned copy after it)
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>
static const char *kName = "async_stream_order";
#include "../kernels/test_common.h"

__global__ void waitFlag(volatile int *flag, int expect) {
    while (*flag != expect) {
    }
}
__global__ void stepKernel(int *d, const int *prev, int *snap, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = d[i] * 2 + (prev ? prev[i] : 0) + k;
        d[i] = v;
        snap[i] = v;
    }
}

struct Entry { int stream, step; long long observed; };
static std::mutex g_mu;
static std::vector<Entry> g_log;
static std::thread::id g_mainThread;
static std::atomic<int> g_onMain{0}, g_badCallback{0};

struct Probe {
    int stream, step, n;
    const int *pinned;
    cudaStream_t expect;
};
static void record(const Probe *p) {
    if (std::this_thread::get_id() == g_mainThread) ++g_onMain;
    long long s = 0;
    for (int i = 0; i < p->n; ++i) s += p->pinned[i];
    std::lock_guard<std::mutex> l(g_mu);
    g_log.push_back({p->stream, p->step, s});
}
static void CUDART_CB hostFn(void *user) { record((const Probe *)user); }
static void CUDART_CB callback(cudaStream_t s, cudaError_t status, void *user) {
    const Probe *p = (const Probe *)user;
    if (s != p->expect || status != cudaSuccess) ++g_badCallback;
    record(p);
}
static void CUDART_CB setGate(void *user) { *(volatile int *)user = 777; }

int main() {
    g_mainThread = std::this_thread::get_id();
    const int S = 4, K = 5, n = 512;
    volatile int *flag;
    CK(cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped));
    *flag = 0;
    int *data[S], *snap[S][K], *pinned[S][K];
    cudaStream_t st[S];
    cudaEvent_t ev[S][K];
    std::vector<int> init(n);
    for (int i = 0; i < n; ++i) init[i] = i % 7;
    for (int s = 0; s < S; ++s) {
        CK(cudaMalloc(&data[s], n * sizeof(int)));
        CK(cudaMemcpy(data[s], init.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaStreamCreateWithFlags(&st[s], s % 2 ? cudaStreamNonBlocking : cudaStreamDefault));
        for (int k = 0; k < K; ++k) {
            CK(cudaMalloc(&snap[s][k], n * sizeof(int)));
            CK(cudaMallocHost(&pinned[s][k], n * sizeof(int)));
            CK(cudaEventCreateWithFlags(&ev[s][k], cudaEventDisableTiming));
        }
    }
    int *gatePinned, *gateResult, *gateDev;
    CK(cudaMallocHost(&gatePinned, sizeof(int)));
    CK(cudaMallocHost(&gateResult, sizeof(int)));
    CK(cudaMalloc(&gateDev, sizeof(int)));
    *gatePinned = 0;
    *gateResult = 0;
    CK(cudaDeviceSynchronize());

    // host model of every stream's data and of each probe's sum
    std::vector<std::vector<long long>> model(S, std::vector<long long>(init.begin(), init.end()));
    std::vector<std::vector<std::vector<long long>>> snapModel(S, std::vector<std::vector<long long>>(K));
    long long expectSum[S][K];
    for (int k = 0; k < K; ++k)
        for (int s = 0; s < S; ++s) {
            long long sum = 0;
            for (int i = 0; i < n; ++i) {
                long long v = model[s][i] * 2 + (s ? snapModel[s - 1][k][i] : 0) + k;
                model[s][i] = v;
                sum += v;
            }
            snapModel[s][k] = model[s];
            expectSum[s][k] = sum;
        }

    // queue everything behind a kernel that waits for the host
    waitFlag<<<1, 1, 0, st[0]>>>(flag, 1);
    cudaEvent_t gateEv;
    CK(cudaEventCreateWithFlags(&gateEv, cudaEventDisableTiming));
    CK(cudaEventRecord(gateEv, st[0]));
    for (int s = 1; s < S; ++s) CK(cudaStreamWaitEvent(st[s], gateEv, 0));
    std::vector<Probe> probes(S * K);
    for (int k = 0; k < K; ++k)
        for (int s = 0; s < S; ++s) {
            if (s) CK(cudaStreamWaitEvent(st[s], ev[s - 1][k], 0));
            stepKernel<<<(n + 127) / 128, 128, 0, st[s]>>>(data[s], s ? snap[s - 1][k] : nullptr,
                                                           snap[s][k], n, k);
            CK(cudaGetLastError());
            CK(cudaMemcpyAsync(pinned[s][k], data[s], n * sizeof(int), cudaMemcpyDeviceToHost, st[s]));
            Probe &p = probes[s * K + k];
            p = {s, k, n, pinned[s][k], st[s]};
            if ((s + k) % 2) CK(cudaStreamAddCallback(st[s], callback, &p, 0));
            else CK(cudaLaunchHostFunc(st[s], hostFn, &p));
            CK(cudaEventRecord(ev[s][k], st[s]));
        }
    // a host function's write is seen by the copies queued after it
    CK(cudaLaunchHostFunc(st[0], setGate, gatePinned));
    CK(cudaMemcpyAsync(gateDev, gatePinned, sizeof(int), cudaMemcpyHostToDevice, st[0]));
    CK(cudaMemcpyAsync(gateResult, gateDev, sizeof(int), cudaMemcpyDeviceToHost, st[0]));

    {
        std::lock_guard<std::mutex> l(g_mu);
        EXPECT(g_log.empty(), "%zu host functions ran before the flag was set", g_log.size());
    }
    for (int s = 0; s < S; ++s)
        EXPECT(cudaStreamQuery(st[s]) == cudaErrorNotReady, "stream %d done before the flag was set", s);
    EXPECT(cudaEventQuery(ev[S - 1][K - 1]) == cudaErrorNotReady, "last event done before the flag");
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *flag = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    CK(cudaStreamSynchronize(st[S - 1]));
    CK(cudaDeviceSynchronize());
    for (int s = 0; s < S; ++s)
        EXPECT(cudaStreamQuery(st[s]) == cudaSuccess, "stream %d not done after synchronize", s);

    EXPECT((int)g_log.size() == S * K, "%zu host functions ran, want %d", g_log.size(), S * K);
    EXPECT(g_onMain == 0, "%d host functions ran on the thread that queued them", g_onMain.load());
    EXPECT(g_badCallback == 0, "%d callbacks with a wrong stream or status", g_badCallback.load());
    std::vector<std::vector<int>> pos(S, std::vector<int>(K, -1));
    for (size_t i = 0; i < g_log.size(); ++i) {
        const Entry &e = g_log[i];
        pos[e.stream][e.step] = int(i);
        EXPECT(e.observed == expectSum[e.stream][e.step], "stream %d step %d saw %lld, want %lld",
               e.stream, e.step, e.observed, expectSum[e.stream][e.step]);
    }
    for (int s = 0; s < S; ++s)
        for (int k = 0; k < K; ++k) {
            EXPECT(pos[s][k] >= 0, "stream %d step %d never ran", s, k);
            if (k) EXPECT(pos[s][k] > pos[s][k - 1], "stream %d: step %d before step %d", s, k, k - 1);
            if (s) EXPECT(pos[s][k] > pos[s - 1][k], "step %d: stream %d before stream %d it waits for", k, s, s - 1);
        }
    EXPECT(*gateResult == 777, "the copy after a host function read %d, want 777", *gateResult);
    std::vector<int> h(n);
    for (int s = 0; s < S; ++s) {
        CK(cudaMemcpy(h.data(), data[s], n * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i)
            EXPECT(h[i] == (int)model[s][i], "stream %d data[%d] = %d, want %lld", s, i, h[i], model[s][i]);
    }

    for (int s = 0; s < S; ++s) {
        for (int k = 0; k < K; ++k) {
            CK(cudaFree(snap[s][k]));
            CK(cudaFreeHost(pinned[s][k]));
            CK(cudaEventDestroy(ev[s][k]));
        }
        CK(cudaFree(data[s]));
        CK(cudaStreamDestroy(st[s]));
    }
    CK(cudaEventDestroy(gateEv));
    CK(cudaFreeHost(gatePinned));
    CK(cudaFreeHost(gateResult));
    CK(cudaFree(gateDev));
    CK(cudaFreeHost((void *)flag));
    return finish();
}
