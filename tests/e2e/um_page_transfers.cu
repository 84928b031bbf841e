// A unified-memory benchmark in small steps: managed memory touched by the host and the device
// in turn, moved one 4 KiB page at a time with cudaMemPrefetchAsync (to the device and back),
// and pages copied with cudaMemcpy/cudaMemcpyAsync between managed, device and pinned memory,
// with a small kernel per round. Many page-sized operations, little computation: the cost is
// the runtime's per-call overhead. Results are checked on the host after every round.
static const char *kName = "um_page_transfers";
#include "../kernels/test_common.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

__global__ void bump(unsigned *p, size_t n, unsigned round) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = p[i] * 3u + round;
}

__global__ void bumpPage(unsigned *page, unsigned add) {
    page[threadIdx.x] += add; // one 4 KiB page: 1024 words, one block
}

int main() {
    const char *env = getenv("UM_PAGES");
    const int pages = env ? atoi(env) : 512;
    const int rounds = 4;
    const size_t pageBytes = 4096, words = pages * pageBytes / 4, perPage = pageBytes / 4;
    int device = 0;
    CK(cudaGetDevice(&device));
    int managed = 0, concurrent = 0;
    CK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, device));
    CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
    if (!managed) { printf("no managed memory\n"); printf("FAIL %s\n", kName); return 1; }

    unsigned *um, *dev, *pinned;
    CK(cudaMallocManaged(&um, words * 4));
    CK(cudaMalloc(&dev, words * 4));
    CK(cudaMallocHost(&pinned, pageBytes * 2));
    std::vector<unsigned> want(words), pageBuf(perPage);
    for (size_t i = 0; i < words; ++i) want[i] = um[i] = (unsigned)(i * 2654435761u);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaMemLocation toDev = {}, toHost = {};
    toDev.type = cudaMemLocationTypeDevice;
    toDev.id = device;
    toHost.type = cudaMemLocationTypeHost;
    toHost.id = 0;

    for (unsigned round = 1; round <= (unsigned)rounds; ++round) {
        // every page to the device, one prefetch each (a hint: results never depend on it)
        for (int p = 0; p < pages && concurrent; ++p)
            CK(cudaMemPrefetchAsync((char *)um + p * pageBytes, pageBytes, toDev, 0, s));
        bump<<<(unsigned)((words + 255) / 256), 256, 0, s>>>(um, words, round);
        CK(cudaGetLastError());
        // a per-page kernel on every 8th page
        for (int p = 0; p < pages; p += 8)
            bumpPage<<<1, (unsigned)perPage, 0, s>>>(um + p * perPage, (unsigned)p);
        CK(cudaGetLastError());
        for (int p = 0; p < pages && concurrent; ++p)
            CK(cudaMemPrefetchAsync((char *)um + p * pageBytes, pageBytes, toHost, 0, s));
        CK(cudaStreamSynchronize(s));
        for (size_t i = 0; i < words; ++i) {
            want[i] = want[i] * 3u + round;
            if ((i / perPage) % 8 == 0) want[i] += (unsigned)(i / perPage);
        }
        // the host reads and writes every page
        for (size_t i = 0; i < words; ++i) {
            EXPECT(um[i] == want[i], "round %u: um[%zu] = %u, expected %u", round, i, um[i], want[i]);
            um[i] ^= round;
            want[i] ^= round;
        }
        // page-sized copies: managed -> device, device -> pinned, pinned -> pageable host
        for (int p = 0; p < pages; ++p)
            CK(cudaMemcpy(dev + p * perPage, um + p * perPage, pageBytes, cudaMemcpyDefault));
        for (int p = 0; p < pages; ++p) {
            CK(cudaMemcpyAsync(pinned + (p & 1) * perPage, dev + p * perPage, pageBytes,
                               cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            std::memcpy(pageBuf.data(), pinned + (p & 1) * perPage, pageBytes);
            for (size_t j = 0; j < perPage; j += 97)
                EXPECT(pageBuf[j] == want[p * perPage + j], "round %u: copied page %d word %zu = %u, expected %u",
                       round, p, j, pageBuf[j], want[p * perPage + j]);
        }
        // and back: pageable host -> managed, one page at a time
        for (int p = 0; p < pages; p += 2) {
            for (size_t j = 0; j < perPage; ++j) pageBuf[j] = want[p * perPage + j] + 1u;
            CK(cudaMemcpy(um + p * perPage, pageBuf.data(), pageBytes, cudaMemcpyHostToDevice));
            for (size_t j = 0; j < perPage; ++j) want[p * perPage + j] += 1u;
        }
    }
    CK(cudaDeviceSynchronize());
    for (size_t i = 0; i < words; ++i)
        EXPECT(um[i] == want[i], "end: um[%zu] = %u, expected %u", i, um[i], want[i]);
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(pinned));
    CK(cudaFree(dev));
    CK(cudaFree(um));
    return finish();
}
