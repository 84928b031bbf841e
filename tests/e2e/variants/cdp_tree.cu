// Dynamic parallelism semantics, one check per kernel family:
//  - parents launching child grids of varying sizes with struct, pointer and scalar parameters;
//  - a tree of grids (children of children) with a different fan-out per level;
//  - launches from one block into its default stream run in order;
//  - a cudaStreamTailLaunch grid runs after every other grid its parent launched (from any block);
//  - cudaStreamFireAndForget and created (non-blocking) streams, device cudaMemcpyAsync/MemsetAsync
//    in order with a launch in the same stream;
//  - device cudaGetLastError/cudaPeekAtLastError after an invalid launch, cudaGetErrorString,
//    cudaGetDevice, cudaDeviceGetAttribute;
//  - the nesting depth limit (cudaErrorLaunchMaxDepthExceeded) and the pending launch limit
//    (cudaErrorLaunchPendingCountExceeded after cudaDeviceSetLimit).
static const char *kName = "cdp_tree";
#include "../../kernels/test_common.h"
#include <cstring>

// --- parameters of every kind ---------------------------------------------------------------

struct Slice {
  int *base;
  int offset;
  char tag;
  double scale;
  short count;
};
struct Table {
  int weights[16];
  float bias;
};

__global__ void fillSlice(Slice s, Table t, int *counter, long long salt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.count)
    s.base[s.offset + i] = int(s.scale * t.weights[i % 16]) + s.tag + int(salt % 1000) + int(t.bias);
  if (threadIdx.x == 0)
    atomicAdd(counter, 1);
}

// Every 16th thread of each block launches a grid of a size that depends on who it is.
__global__ void spawnSlices(int *out, int *counter, int perLauncher) {
  int launcher = (blockIdx.x * blockDim.x + threadIdx.x) / 16;
  if (threadIdx.x % 16 != 0)
    return;
  Slice s;
  s.base = out;
  s.offset = launcher * perLauncher;
  s.tag = char(launcher + 1);
  s.scale = 0.5 * (launcher % 4 + 1);
  s.count = short(1 + (launcher * 7) % perLauncher);
  Table t;
  for (int k = 0; k < 16; ++k)
    t.weights[k] = k * (launcher + 1);
  t.bias = 2.0f;
  int block = 32 * (1 + launcher % 3);
  int grid = (s.count + block - 1) / block;
  fillSlice<<<grid, block>>>(s, t, counter, 1000LL * launcher + 7);
}

static int sliceValue(int launcher, int i, int perLauncher) {
  double scale = 0.5 * (launcher % 4 + 1);
  return int(scale * (i % 16) * (launcher + 1)) + char(launcher + 1) + (1000 * launcher + 7) % 1000 + 2;
}

// --- a tree of grids -----------------------------------------------------------------------------

constexpr int kLevels = 4;

__global__ void branch(int level, int *visits, int *sumIds, int id) {
  if (threadIdx.x != 0)
    return;
  int me = id * gridDim.x + blockIdx.x;
  atomicAdd(&visits[level], 1);
  atomicAdd(&sumIds[level], me);
  if (level + 1 < kLevels)
    branch<<<level + 3, 32>>>(level + 1, visits, sumIds, me);
}

// --- stream order, tail launch, fire-and-forget, created streams ----------------------------

__global__ void writeValue(int *p, int v) { *p = v; }
__global__ void addTo(int *p, int v) { *p += v; }
__global__ void readInto(const int *from, int *to) { *to = *from; }
__global__ void countChild(int *counter) { atomicAdd(counter, 1); }
__global__ void tailCheck(const int *counter, int *seen, int *tailRuns) {
  *seen = *counter;
  atomicAdd(tailRuns, 1);
}
__global__ void fillArray(int *a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = v + i;
}

__global__ void streams(int *cells, int *counter, int *arrays, int n) {
  // children of every block count themselves; one tail launch (block 0) must see them all
  countChild<<<1, 1>>>(counter);
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0)
    tailCheck<<<1, 1, 0, cudaStreamTailLaunch>>>(counter, &cells[0], &cells[1]);
  if (blockIdx.x != 1)
    return;
  // in-order NULL stream: write, add, add, then read
  writeValue<<<1, 1>>>(&cells[2], 10);
  addTo<<<1, 1>>>(&cells[2], 5);
  addTo<<<1, 1>>>(&cells[2], 100);
  readInto<<<1, 1>>>(&cells[2], &cells[3]);
  // fire-and-forget
  writeValue<<<1, 1, 0, cudaStreamFireAndForget>>>(&cells[4], 77);
  // a created stream: produce, then copy and set in the same stream
  cudaStream_t s;
  cells[5] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fillArray<<<(n + 63) / 64, 64, 0, s>>>(arrays, n, 1000);
  cells[6] = cudaMemcpyAsync(arrays + n, arrays, n * sizeof(int), cudaMemcpyDeviceToDevice, s);
  cells[7] = cudaMemsetAsync(arrays + 2 * n, 0x01, n * sizeof(int), s);
  cells[8] = cudaStreamDestroy(s);
  cells[9] = cudaGetLastError();
}

// --- errors and queries --------------------------------------------------------------------------

__global__ void nothing() {}

__global__ void errors(int *res, char *text, int textBytes) {
  if (threadIdx.x == 1) { // another thread's last error is its own
    res[10] = cudaPeekAtLastError();
    return;
  }
  if (threadIdx.x != 0)
    return;
  nothing<<<1, 2048>>>(); // too many threads per block
  res[0] = cudaPeekAtLastError();
  res[1] = cudaGetLastError();
  res[2] = cudaGetLastError(); // cleared by the previous read
  nothing<<<dim3(1, 70000), 1>>>(); // grid y too large
  res[3] = cudaGetLastError();
  nothing<<<1, 1>>>(); // a good launch still works
  res[4] = cudaGetLastError();
  int dev = -1, sms = -1, warp = -1;
  res[5] = cudaGetDevice(&dev);
  res[6] = dev;
  res[7] = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  res[8] = sms;
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
  res[9] = warp;
  const char *msg = cudaGetErrorString(cudaErrorInvalidConfiguration);
  int i = 0;
  for (; msg[i] && i + 1 < textBytes; ++i)
    text[i] = msg[i];
  text[i] = 0;
  cudaStream_t bad;
  res[11] = cudaStreamCreateWithFlags(&bad, cudaStreamNonBlocking) == cudaSuccess &&
            cudaStreamDestroy(bad) == cudaSuccess;
}

// Launches itself until a launch fails; records the deepest depth that ran and the error.
__global__ void chain(int depth, int *deepest, int *error) {
  atomicMax(deepest, depth);
  chain<<<1, 1>>>(depth + 1, deepest, error);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    *error = e;
}

// One thread launches `n` grids while none of them can start.
__global__ void manyLaunches(int n, int *counter, int *ok, int *pendingErrors, int *otherErrors) {
  for (int i = 0; i < n; ++i) {
    countChild<<<1, 1>>>(counter);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
      ++*ok;
    else if (e == cudaErrorLaunchPendingCountExceeded)
      ++*pendingErrors;
    else
      ++*otherErrors;
  }
}

int main() {
  // parameters of every kind
  {
    const int blocks = 3, threads = 64, launchers = blocks * threads / 16, per = 40;
    int *out, *counter;
    CK(cudaMalloc(&out, launchers * per * sizeof(int)));
    CK(cudaMalloc(&counter, sizeof(int)));
    CK(cudaMemset(out, 0xff, launchers * per * sizeof(int)));
    CK(cudaMemset(counter, 0, sizeof(int)));
    spawnSlices<<<blocks, threads>>>(out, counter, per);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h[launchers * per], childBlocks = 0, wantBlocks = 0;
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&childBlocks, counter, sizeof(int), cudaMemcpyDeviceToHost));
    for (int l = 0; l < launchers; ++l) {
      int count = 1 + (l * 7) % per, block = 32 * (1 + l % 3);
      wantBlocks += (count + block - 1) / block;
      for (int i = 0; i < per; ++i) {
        int want = i < count ? sliceValue(l, i, per) : -1;
        EXPECT(h[l * per + i] == want, "slice %d element %d = %d, expected %d", l, i,
               h[l * per + i], want);
      }
    }
    EXPECT(childBlocks == wantBlocks, "child blocks %d, expected %d", childBlocks, wantBlocks);
    CK(cudaFree(out));
    CK(cudaFree(counter));
  }
  // a tree of grids
  {
    int *visits, *sumIds;
    CK(cudaMalloc(&visits, kLevels * sizeof(int)));
    CK(cudaMalloc(&sumIds, kLevels * sizeof(int)));
    CK(cudaMemset(visits, 0, kLevels * sizeof(int)));
    CK(cudaMemset(sumIds, 0, kLevels * sizeof(int)));
    branch<<<2, 32>>>(0, visits, sumIds, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int v[kLevels], s[kLevels];
    CK(cudaMemcpy(v, visits, sizeof v, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(s, sumIds, sizeof s, cudaMemcpyDeviceToHost));
    // level l has blocks(l) = 2 * 3 * ... * (l + 2) nodes, numbered 0..blocks(l)-1
    int nodes = 1;
    for (int l = 0; l < kLevels; ++l) {
      nodes *= l + 2;
      EXPECT(v[l] == nodes, "level %d: %d blocks ran, expected %d", l, v[l], nodes);
      EXPECT(s[l] == nodes * (nodes - 1) / 2, "level %d: block ids sum to %d", l, s[l]);
    }
    CK(cudaFree(visits));
    CK(cudaFree(sumIds));
  }
  // stream order, tail launch, fire-and-forget, created streams, device copies
  {
    const int blocks = 4, threads = 32, n = 100;
    int *cells, *counter, *arrays;
    CK(cudaMalloc(&cells, 16 * sizeof(int)));
    CK(cudaMalloc(&counter, sizeof(int)));
    CK(cudaMalloc(&arrays, 3 * n * sizeof(int)));
    CK(cudaMemset(cells, 0xff, 16 * sizeof(int)));
    CK(cudaMemset(cells + 1, 0, sizeof(int))); // the tail launch's run count
    CK(cudaMemset(counter, 0, sizeof(int)));
    CK(cudaMemset(arrays, 0, 3 * n * sizeof(int)));
    streams<<<blocks, threads>>>(cells, counter, arrays, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int c[16], count = 0, a[3 * n];
    CK(cudaMemcpy(c, cells, sizeof c, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(a, arrays, sizeof a, cudaMemcpyDeviceToHost));
    EXPECT(count == blocks * threads, "%d children counted, expected %d", count, blocks * threads);
    EXPECT(c[0] == blocks * threads, "tail launch saw %d children, expected %d", c[0], blocks * threads);
    EXPECT(c[1] == 1, "tail launch ran %d times", c[1]);
    EXPECT(c[2] == 115 && c[3] == 115, "in-order stream gave %d and read %d, expected 115", c[2], c[3]);
    EXPECT(c[4] == 77, "fire-and-forget child wrote %d", c[4]);
    for (int k = 5; k <= 9; ++k)
      EXPECT(c[k] == cudaSuccess, "streams: device call %d returned %d", k, c[k]);
    for (int i = 0; i < n; ++i) {
      EXPECT(a[i] == 1000 + i, "array[%d] = %d", i, a[i]);
      EXPECT(a[n + i] == 1000 + i, "copied array[%d] = %d", i, a[n + i]);
      EXPECT(a[2 * n + i] == 0x01010101, "set array[%d] = %#x", i, a[2 * n + i]);
    }
    CK(cudaFree(cells));
    CK(cudaFree(counter));
    CK(cudaFree(arrays));
  }
  // errors and queries
  {
    int *res;
    char *text;
    CK(cudaMalloc(&res, 16 * sizeof(int)));
    CK(cudaMalloc(&text, 256));
    CK(cudaMemset(res, 0xff, 16 * sizeof(int)));
    errors<<<1, 32>>>(res, text, 256);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int r[16], sms = 0;
    char t[256];
    CK(cudaMemcpy(r, res, sizeof r, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(t, text, sizeof t, cudaMemcpyDeviceToHost));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    EXPECT(r[0] == cudaErrorInvalidConfiguration, "peek after a bad launch: %d", r[0]);
    EXPECT(r[1] == cudaErrorInvalidConfiguration, "get after a bad launch: %d", r[1]);
    EXPECT(r[2] == cudaSuccess, "second get: %d", r[2]);
    EXPECT(r[3] == cudaErrorInvalidConfiguration, "grid too large: %d", r[3]);
    EXPECT(r[4] == cudaSuccess, "good launch: %d", r[4]);
    EXPECT(r[5] == cudaSuccess && r[6] == 0, "cudaGetDevice: %d, device %d", r[5], r[6]);
    EXPECT(r[7] == cudaSuccess && r[8] == sms, "SM count on the device %d (%d), host %d", r[8], r[7], sms);
    EXPECT(r[9] == 32, "warp size %d", r[9]);
    EXPECT(r[10] == cudaSuccess, "thread 1's last error: %d", r[10]);
    EXPECT(r[11] == 1, "stream create/destroy failed");
    EXPECT(std::strcmp(t, cudaGetErrorString(cudaErrorInvalidConfiguration)) == 0,
           "device error string '%s'", t);
    CK(cudaFree(res));
    CK(cudaFree(text));
  }
  // nesting depth limit
  {
    int *vals;
    CK(cudaMalloc(&vals, 2 * sizeof(int)));
    CK(cudaMemset(vals, 0, 2 * sizeof(int)));
    chain<<<1, 1>>>(0, vals, vals + 1);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int v[2];
    CK(cudaMemcpy(v, vals, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(v[0] == 24, "deepest grid at depth %d, expected 24", v[0]);
    EXPECT(v[1] == cudaErrorLaunchMaxDepthExceeded, "launch below the limit returned %d", v[1]);
    CK(cudaFree(vals));
  }
  // pending launch limit: under ptxsim children start only after their parent ends, so exactly
  // `limit` launches are pending when the next one is refused (hardware may start some earlier)
  {
    const size_t limit = 24;
    const int n = 30;
    size_t before = 0, now = 0;
    CK(cudaDeviceGetLimit(&before, cudaLimitDevRuntimePendingLaunchCount));
    EXPECT(before == 2048, "default pending launch count %zu", before);
    CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, limit));
    CK(cudaDeviceGetLimit(&now, cudaLimitDevRuntimePendingLaunchCount));
    EXPECT(now == limit, "pending launch count %zu after setting %zu", now, limit);
    int *vals;
    CK(cudaMalloc(&vals, 4 * sizeof(int)));
    CK(cudaMemset(vals, 0, 4 * sizeof(int)));
    manyLaunches<<<1, 1>>>(n, vals, vals + 1, vals + 2, vals + 3);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int v[4];
    CK(cudaMemcpy(v, vals, sizeof v, cudaMemcpyDeviceToHost));
    EXPECT(v[1] == int(limit) && v[0] == int(limit), "%d launches accepted, %d ran, expected %zu",
           v[1], v[0], limit);
    EXPECT(v[2] == n - int(limit), "%d launches refused for the pending count, expected %d", v[2],
           n - int(limit));
    EXPECT(v[3] == 0, "%d other launch errors", v[3]);
    CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, before));
    CK(cudaFree(vals));
  }
  return finish();
}
