// A batched-scan benchmark as public programs write it: many independent arrays of 8,192
// integers, each scanned by its own small launches (an inclusive scan of 8 elements per thread
// in one 1,024-thread block, then a launch that adds a per-array offset), the whole batch timed
// with events and repeated. Many small launches: the cost is the per-launch overhead. Checked
// against the host.
static const char *kName = "scan_many_arrays";
#include "../kernels/test_common.h"

#include <cstdlib>
#include <vector>

const int kLen = 8192, kThreads = 1024, kPer = kLen / kThreads;

__global__ void scanBlock(const int *in, int *out) {
    __shared__ int sums[kThreads];
    int t = threadIdx.x;
    int v[kPer];
    int run = 0;
    for (int j = 0; j < kPer; ++j) {
        run += in[t * kPer + j];
        v[j] = run;
    }
    sums[t] = run;
    __syncthreads();
    for (int off = 1; off < kThreads; off *= 2) { // Hillis-Steele over the per-thread totals
        int add = t >= off ? sums[t - off] : 0;
        __syncthreads();
        sums[t] += add;
        __syncthreads();
    }
    int before = t ? sums[t - 1] : 0;
    for (int j = 0; j < kPer; ++j) out[t * kPer + j] = v[j] + before;
}

__global__ void addOffset(int *out, int offset) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < kLen) out[i] += offset;
}

int main() {
    const char *env = getenv("SCAN_ARRAYS");
    const int arrays = env ? atoi(env) : 832;
    const int reps = 2;
    std::vector<int> h((size_t)arrays * kLen), got((size_t)arrays * kLen);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (int)((i * 7919u) % 23u) - 11;
    int *in, *out;
    CK(cudaMalloc(&in, h.size() * sizeof(int)));
    CK(cudaMalloc(&out, h.size() * sizeof(int)));
    CK(cudaMemcpy(in, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(start));
        for (int a = 0; a < arrays; ++a) {
            scanBlock<<<1, kThreads>>>(in + (size_t)a * kLen, out + (size_t)a * kLen);
            addOffset<<<kLen / 256, 256>>>(out + (size_t)a * kLen, a + r);
        }
        CK(cudaGetLastError());
        CK(cudaEventRecord(stop));
        CK(cudaEventSynchronize(stop));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, start, stop));
        EXPECT(ms >= 0.0f, "negative elapsed time %g", ms);
        CK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
        for (int a = 0; a < arrays; ++a) {
            int run = 0;
            for (int i = 0; i < kLen; ++i) {
                size_t k = (size_t)a * kLen + i;
                run += h[k];
                EXPECT(got[k] == run + a + r, "rep %d array %d: out[%d] = %d, expected %d", r, a, i,
                       got[k], run + a + r);
            }
        }
    }
    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    CK(cudaFree(in));
    CK(cudaFree(out));
    return finish();
}
