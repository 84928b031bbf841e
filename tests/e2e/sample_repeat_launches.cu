// 300 launches of one kernel and shape: integer heat diffusion on a 64 x 64 grid (each step a
// launch, ping-pong buffers), with a checksum kernel every 50 steps. The result is checked
// exactly against the same computation on the host. In timing mode this is the program kernel
// sampling is for (docs/sampling.md): the sampling_repeat_* tests compare its sampled cycles
// with the full simulation's.
static const char *kName = "sample_repeat_launches";
#include "../kernels/test_common.h"

#include <vector>

static const int kN = 64, kSteps = 300, kCheckEvery = 50;

// One step: each interior cell becomes the average of its four neighbours and itself (weights
// 4, 1, 1, 1, 1 over 8, rounded down); border cells keep their value.
__global__ void diffuse(const int *in, int *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n)
        return;
    int i = y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = (4 * in[i] + in[i - 1] + in[i + 1] + in[i - n] + in[i + n]) >> 3;
}

// The sum of all cells, into *sum (one atomic per block after a shared-memory reduction).
__global__ void checksum(const int *a, int count, unsigned long long *sum) {
    __shared__ unsigned long long part[256];
    unsigned long long s = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        s += (unsigned long long)a[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(sum, part[0]);
}

static void hostStep(const std::vector<int> &in, std::vector<int> &out) {
    for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x) {
            int i = y * kN + x;
            if (x == 0 || y == 0 || x == kN - 1 || y == kN - 1)
                out[i] = in[i];
            else
                out[i] = (4 * in[i] + in[i - 1] + in[i + 1] + in[i - kN] + in[i + kN]) >> 3;
        }
}

int main() {
    const int cells = kN * kN;
    std::vector<int> h(cells);
    for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x)
            h[y * kN + x] = (x * 7919 + y * 104729) % 100000 + (x == 0 || y == 0 ? 500000 : 0);
    int *a, *b;
    unsigned long long *sum;
    CK(cudaMalloc(&a, cells * sizeof(int)));
    CK(cudaMalloc(&b, cells * sizeof(int)));
    CK(cudaMalloc(&sum, sizeof(unsigned long long)));
    CK(cudaMemcpy(a, h.data(), cells * sizeof(int), cudaMemcpyHostToDevice));

    std::vector<int> ref = h, tmp(cells);
    std::vector<unsigned long long> sums, refSums;
    dim3 block(16, 16), grid(kN / 16, kN / 16);
    for (int step = 1; step <= kSteps; ++step) {
        diffuse<<<grid, block>>>(a, b, kN);
        CK(cudaGetLastError());
        int *t = a;
        a = b;
        b = t;
        hostStep(ref, tmp);
        ref.swap(tmp);
        if (step % kCheckEvery == 0) {
            CK(cudaMemset(sum, 0, sizeof(unsigned long long)));
            checksum<<<64, 256>>>(a, cells, sum);
            CK(cudaGetLastError());
            unsigned long long s = 0;
            CK(cudaMemcpy(&s, sum, sizeof s, cudaMemcpyDeviceToHost));
            sums.push_back(s);
            unsigned long long r = 0;
            for (int v : ref)
                r += (unsigned long long)v;
            refSums.push_back(r);
        }
    }
    CK(cudaMemcpy(h.data(), a, cells * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < cells; ++i)
        EXPECT(h[i] == ref[i], "cell %d: %d, expected %d", i, h[i], ref[i]);
    for (size_t i = 0; i < sums.size(); ++i)
        EXPECT(sums[i] == refSums[i], "checksum after step %d: %llu, expected %llu",
               int(i + 1) * kCheckEvery, sums[i], refSums[i]);
    printf("%d steps, final checksum %llu\n", kSteps, sums.empty() ? 0ULL : sums.back());
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(sum));
    return finish();
}
