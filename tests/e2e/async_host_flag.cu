// ptxsim e2e: a kernel launch returns before the kernel has run, as on a GPU.
//   - a kernel spins on a flag in mapped pinned host memory that the host sets only after the
//     launch returned (a synchronous launch would never return)
//   - host work overlaps the kernel: the host counts while cudaStreamQuery and cudaEventQuery
//     answer cudaErrorNotReady (which is not recorded as the last error), and
//     cudaEventElapsedTime answers cudaErrorNotReady for a record the device has not reached
//   - work queued behind the kernel on the same stream, on a blocking stream (which waits for
//     the legacy default stream) and on the legacy stream is not done before the flag is set;
//     cudaStreamSynchronize, cudaEventSynchronize and cudaDeviceSynchronize wait for it all,
//     and every query then says cudaSuccess
//   - a pinned-memory cudaMemcpyAsync queued behind the kernel copies what the kernel wrote
// Every check holds on a GPU: nothing is asked to finish before the flag it waits for is set.
#include <atomic>
#include <cstdint>
static const char *kName = "async_host_flag";
#include "../kernels/test_common.h"

// One thread waits until the host writes `expect` into the flag, then records what it saw.
__global__ void waitFlag(volatile int *flag, int expect, int *out) {
    while (*flag != expect) {
    }
    out[0] = *flag * 10;
}
__global__ void addOne(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

static void setFlag(volatile int *flag, int v) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *flag = v;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

int main() {
    volatile int *flag;
    int *pinnedOut;
    CK(cudaHostAlloc((void **)&flag, sizeof(int), cudaHostAllocMapped));
    CK(cudaHostAlloc((void **)&pinnedOut, 4 * sizeof(int), cudaHostAllocDefault));
    *flag = 0;
    int *out, *data;
    const int n = 1000;
    CK(cudaMalloc(&out, sizeof(int)));
    CK(cudaMalloc(&data, n * sizeof(int)));
    CK(cudaMemset(out, 0, sizeof(int)));
    CK(cudaMemset(data, 0, n * sizeof(int)));
    CK(cudaDeviceSynchronize());

    cudaStream_t s, blocking;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreate(&blocking));
    cudaEvent_t start, afterKernel;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&afterKernel));

    // 1. the launch returns while the kernel waits for the host
    CK(cudaEventRecord(start, s));
    waitFlag<<<1, 1, 0, s>>>(flag, 1, out);
    CK(cudaGetLastError());
    CK(cudaEventRecord(afterKernel, s));
    CK(cudaMemcpyAsync(pinnedOut, out, sizeof(int), cudaMemcpyDeviceToHost, s));
    // the host goes on: the kernel cannot have finished, nothing behind it either
    long polls = 0;
    for (int i = 0; i < 200; ++i) {
        cudaError_t q = cudaStreamQuery(s);
        EXPECT(q == cudaErrorNotReady, "cudaStreamQuery while the kernel waits: %s", cudaGetErrorName(q));
        cudaError_t e = cudaEventQuery(afterKernel);
        EXPECT(e == cudaErrorNotReady, "cudaEventQuery while the kernel waits: %s", cudaGetErrorName(e));
        ++polls;
    }
    EXPECT(cudaGetLastError() == cudaSuccess, "cudaErrorNotReady was recorded as the last error");
    float ms = -1;
    cudaError_t et = cudaEventElapsedTime(&ms, start, afterKernel);
    EXPECT(et == cudaErrorNotReady, "cudaEventElapsedTime before the record ran: %s", cudaGetErrorName(et));
    cudaGetLastError();
    setFlag(flag, 1);
    CK(cudaStreamSynchronize(s));
    EXPECT(cudaStreamQuery(s) == cudaSuccess, "cudaStreamQuery after cudaStreamSynchronize");
    EXPECT(cudaEventQuery(afterKernel) == cudaSuccess, "cudaEventQuery after cudaStreamSynchronize");
    EXPECT(pinnedOut[0] == 10, "the queued copy after the kernel read %d, want 10", pinnedOut[0]);
    CK(cudaEventElapsedTime(&ms, start, afterKernel));
    EXPECT(ms >= 0, "elapsed time %f", ms);
    EXPECT(polls == 200, "polls %ld", polls);

    // 2. the legacy default stream: a kernel waiting there holds back a blocking stream's work
    //    and later legacy-stream work; all of it runs once the flag is set
    *flag = 0;
    CK(cudaMemset(out, 0, sizeof(int)));
    waitFlag<<<1, 1>>>(flag, 2, out);                // legacy stream
    addOne<<<(n + 255) / 256, 256, 0, blocking>>>(data, n); // waits for the legacy stream
    cudaEvent_t blockingDone;
    CK(cudaEventCreateWithFlags(&blockingDone, cudaEventDisableTiming));
    CK(cudaEventRecord(blockingDone, blocking));
    addOne<<<(n + 255) / 256, 256>>>(data, n);       // legacy again: after the blocking stream
    for (int i = 0; i < 50; ++i) {
        EXPECT(cudaStreamQuery(blocking) == cudaErrorNotReady, "blocking stream done before the legacy kernel");
        EXPECT(cudaStreamQuery(0) == cudaErrorNotReady, "legacy stream done before its kernel");
        EXPECT(cudaEventQuery(blockingDone) == cudaErrorNotReady, "event done before the legacy kernel");
    }
    setFlag(flag, 2);
    CK(cudaEventSynchronize(blockingDone));
    EXPECT(cudaStreamQuery(blocking) == cudaSuccess, "blocking stream after its event");
    CK(cudaDeviceSynchronize());
    EXPECT(cudaStreamQuery(0) == cudaSuccess, "legacy stream after cudaDeviceSynchronize");
    int h[n], o = 0;
    CK(cudaMemcpy(h, data, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&o, out, sizeof o, cudaMemcpyDeviceToHost));
    EXPECT(o == 20, "the legacy kernel wrote %d, want 20", o);
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 2, "data[%d] = %d, want 2", i, h[i]);

    // 3. many launches queued back to back behind a waiting kernel, then one synchronize
    *flag = 0;
    CK(cudaMemset(data, 0, n * sizeof(int)));
    waitFlag<<<1, 1, 0, s>>>(flag, 3, out);
    const int reps = 64;
    for (int r = 0; r < reps; ++r) addOne<<<(n + 255) / 256, 256, 0, s>>>(data, n);
    CK(cudaMemcpyAsync(pinnedOut + 1, data + n - 1, sizeof(int), cudaMemcpyDeviceToHost, s));
    EXPECT(cudaStreamQuery(s) == cudaErrorNotReady, "64 launches done before the kernel they follow");
    setFlag(flag, 3);
    CK(cudaDeviceSynchronize());
    EXPECT(pinnedOut[1] == reps, "after %d queued launches: %d", reps, pinnedOut[1]);
    CK(cudaMemcpy(h, data, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == reps, "data[%d] = %d, want %d", i, h[i], reps);

    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(afterKernel));
    CK(cudaEventDestroy(blockingDone));
    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(blocking));
    CK(cudaFree(out));
    CK(cudaFree(data));
    CK(cudaFreeHost((void *)flag));
    CK(cudaFreeHost(pinnedOut));
    return finish();
}
