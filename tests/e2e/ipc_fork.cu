// CUDA IPC between two processes: the program forks before any CUDA call (a child of a process
// that has used CUDA may not use it on a GPU), the parent allocates and fills a buffer and sends
// its cudaIpcMemHandle_t through a pipe; the child opens it (its address may differ from the
// parent's), checks the parent's data, rewrites it with a kernel, synchronises, closes the
// handle and says so through a second pipe; the parent then sees the child's data. Bad handles
// are refused in the child; the parent's buffer stays usable and is freed at the end.
static const char *kName = "ipc_fork";
#include "../kernels/test_common.h"

#include <sys/wait.h>
#include <unistd.h>

static const int kN = 1 << 20; // 4 MiB of ints: spans many pages

__global__ void init(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i;
}

// The child's kernel: counts the words that are not the parent's, then writes its own.
__global__ void rewrite(int *p, int n, unsigned *bad) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (p[i] != i) atomicAdd(bad, 1u);
        p[i] = 3 * i + 1;
    }
}

static bool readAll(int fd, void *buf, size_t n) {
    char *c = (char *)buf;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r <= 0) return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

static bool writeAll(int fd, const void *buf, size_t n) {
    const char *c = (const char *)buf;
    while (n) {
        ssize_t r = write(fd, c, n);
        if (r <= 0) return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

static int child(int fromParent, int toParent) {
    cudaIpcMemHandle_t h;
    if (!readAll(fromParent, &h, sizeof h)) {
        printf("child: no handle from the parent\n");
        return 1;
    }
    // a handle that names nothing is refused
    cudaIpcMemHandle_t junk;
    memset(&junk, 0x5c, sizeof junk);
    int *bogus = nullptr;
    cudaError_t je = cudaIpcOpenMemHandle((void **)&bogus, junk, cudaIpcMemLazyEnablePeerAccess);
    EXPECT(je != cudaSuccess, "child: a junk IPC handle was opened at %p", (void *)bogus);
    cudaGetLastError();

    int *p = nullptr;
    CK(cudaIpcOpenMemHandle((void **)&p, h, cudaIpcMemLazyEnablePeerAccess));
    unsigned *bad;
    CK(cudaMalloc(&bad, sizeof(unsigned)));
    CK(cudaMemset(bad, 0, sizeof(unsigned)));
    rewrite<<<kN / 256, 256>>>(p, kN, bad);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned nbad = 0;
    CK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
    EXPECT(nbad == 0, "child: %u words of the opened buffer were not the parent's", nbad);
    // host copies through the opened pointer work too
    int first[4];
    CK(cudaMemcpy(first, p, sizeof first, cudaMemcpyDeviceToHost));
    EXPECT(first[3] == 10, "child: word 3 reads %d through cudaMemcpy", first[3]);
    CK(cudaIpcCloseMemHandle(p));
    CK(cudaFree(bad));
    char done = g_bad ? 'F' : 'D';
    writeAll(toParent, &done, 1);
    return g_bad ? 1 : 0;
}

int main() {
    int down[2], up[2];
    if (pipe(down) || pipe(up)) {
        printf("pipe failed\nFAIL %s\n", kName);
        return 1;
    }
    fflush(stdout);
    pid_t pid = fork(); // before any CUDA call, as CUDA requires
    if (pid < 0) {
        printf("fork failed\nFAIL %s\n", kName);
        return 1;
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        int rc = child(down[0], up[1]);
        fflush(stdout);
        _exit(rc);
    }
    close(down[0]);
    close(up[1]);
    int *d;
    CK(cudaMalloc(&d, kN * sizeof(int)));
    init<<<kN / 256, 256>>>(d, kN);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cudaIpcMemHandle_t h;
    CK(cudaIpcGetMemHandle(&h, d));
    EXPECT(writeAll(down[1], &h, sizeof h), "parent: cannot send the handle");
    char done = 0;
    bool got = readAll(up[0], &done, 1);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT(got && done == 'D', "parent: the child reported %c", got ? done : '?');
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "parent: child exit status %d", status);
    static int h2[kN];
    CK(cudaMemcpy(h2, d, kN * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < kN; ++i) wrong += h2[i] != 3 * i + 1;
    EXPECT(wrong == 0, "parent: %d words of the buffer are not what the child wrote", wrong);
    // the buffer is still the parent's own: a kernel and a free work
    init<<<kN / 256, 256>>>(d, kN);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h2, d, 16, cudaMemcpyDeviceToHost));
    EXPECT(h2[3] == 3, "parent: word 3 reads %d after its own kernel", h2[3]);
    CK(cudaFree(d));
    return finish();
}
