// L2 persistence as a program sees it: the device reports a persisting-L2 limit and an
// access-policy window size (consistent between cudaGetDeviceProperties and
// cudaDeviceGetAttribute), the persisting-L2 limit round-trips through cudaDeviceSetLimit, stream
// access-policy windows (and the other stream attributes) round-trip and bad ones are refused
// with cudaErrorInvalidValue, and kernels launched under a window (stream attribute or
// cudaLaunchKernelEx launch attribute, graph kernel-node attribute) compute what they would
// without one.
static const char *kName = "access_policy_window";
#include "../kernels/test_common.h"

#include <vector>

// Repeatedly reads a small lookup table (the persisting data) while streaming through `in`.
__global__ void lookup(const int *table, int tableSize, const int *in, int *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = table[in[i] % tableSize] + i;
}

static cudaError_t setWindow(cudaStream_t s, void *base, size_t bytes, float ratio,
                             cudaAccessProperty hit, cudaAccessProperty miss) {
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = base;
    v.accessPolicyWindow.num_bytes = bytes;
    v.accessPolicyWindow.hitRatio = ratio;
    v.accessPolicyWindow.hitProp = hit;
    v.accessPolicyWindow.missProp = miss;
    return cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
}

static void checkResult(const std::vector<int> &table, const std::vector<int> &in, int *dout,
                        const char *what) {
    std::vector<int> out(in.size());
    CK(cudaMemcpy(out.data(), dout, in.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < in.size(); ++i) {
        int want = table[in[i] % table.size()] + int(i);
        EXPECT(out[i] == want, "%s: out[%zu] = %d, want %d", what, i, out[i], want);
        if (out[i] != want) break;
    }
}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int persistAttr = -1, windowAttr = -1, l2Attr = -1;
    CK(cudaDeviceGetAttribute(&persistAttr, cudaDevAttrMaxPersistingL2CacheSize, 0));
    CK(cudaDeviceGetAttribute(&windowAttr, cudaDevAttrMaxAccessPolicyWindowSize, 0));
    CK(cudaDeviceGetAttribute(&l2Attr, cudaDevAttrL2CacheSize, 0));
    printf("%s: cc %d.%d, L2 %d bytes, persisting L2 up to %d, window up to %d\n", prop.name,
           prop.major, prop.minor, prop.l2CacheSize, prop.persistingL2CacheMaxSize,
           prop.accessPolicyMaxWindowSize);
    // the persistence features exist from compute capability 8.0 on
    EXPECT(prop.major >= 8, "compute capability %d.%d", prop.major, prop.minor);
    EXPECT(persistAttr == prop.persistingL2CacheMaxSize && windowAttr == prop.accessPolicyMaxWindowSize &&
           l2Attr == prop.l2CacheSize, "attributes %d/%d/%d vs properties %d/%d/%d", persistAttr,
           windowAttr, l2Attr, prop.persistingL2CacheMaxSize, prop.accessPolicyMaxWindowSize, prop.l2CacheSize);
    EXPECT(prop.persistingL2CacheMaxSize > 0 && prop.persistingL2CacheMaxSize < prop.l2CacheSize,
           "persisting L2 %d of an L2 of %d", prop.persistingL2CacheMaxSize, prop.l2CacheSize);
    EXPECT(prop.accessPolicyMaxWindowSize >= (64 << 20), "window size %d", prop.accessPolicyMaxWindowSize);

    // the set-aside: 3/16 of the L2 from the start (9830400 bytes of an H100's 50 MiB, 11796480 of
    // an H200's 60 MiB), round-trips, and one larger than the device allows is refused, leaving
    // the old one
    size_t limit = 0;
    CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    EXPECT(limit <= size_t(prop.persistingL2CacheMaxSize), "initial persisting L2 limit %zu", limit);
    EXPECT(limit == size_t(prop.l2CacheSize) / 16 * 3, "initial persisting L2 limit %zu", limit);
    size_t want = size_t(prop.persistingL2CacheMaxSize) / 2;
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want));
    CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    EXPECT(limit == want, "persisting L2 limit %zu, want %zu", limit, want);
    EXPECT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, size_t(prop.l2CacheSize) * 4) ==
               cudaErrorInvalidValue, "a set-aside of four times the L2 accepted");
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "last error after a refused set-aside");
    CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    EXPECT(limit == want, "limit after a refused set-aside %zu, want %zu", limit, want);
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, size_t(prop.persistingL2CacheMaxSize)));
    CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    EXPECT(limit == size_t(prop.persistingL2CacheMaxSize), "limit at the maximum %zu", limit);
    // the set-aside is whole sixteenths of the L2, rounded up (H100 and H200)
    size_t sixteenth = size_t(prop.l2CacheSize) / 16;
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1));
    CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    EXPECT(limit == sixteenth, "a set-aside of 1 byte reads back %zu, want %zu", limit, sixteenth);
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want + 1));
    CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    EXPECT(limit == (want + sixteenth) / sixteenth * sixteenth, "a set-aside of %zu reads back %zu",
           want + 1, limit);

    const int n = 1 << 16, tableSize = 4096;
    std::vector<int> table(tableSize), in(n);
    for (int i = 0; i < tableSize; ++i) table[i] = i * 7 - 1000;
    for (int i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 7;
    int *dtable, *din, *dout;
    CK(cudaMalloc(&dtable, tableSize * sizeof(int)));
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dout, n * sizeof(int)));
    CK(cudaMemcpy(dtable, table.data(), tableSize * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    cudaStream_t s, s2;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamCreate(&s2));
    // a fresh stream has an empty window
    cudaStreamAttrValue got;
    memset(&got, 0xab, sizeof got);
    CK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got));
    EXPECT(got.accessPolicyWindow.base_ptr == nullptr && got.accessPolicyWindow.num_bytes == 0,
           "fresh stream window %p + %zu", got.accessPolicyWindow.base_ptr, got.accessPolicyWindow.num_bytes);

    // the table persists, 60% of its lines as hits
    CK(setWindow(s, dtable, tableSize * sizeof(int), 0.6f, cudaAccessPropertyPersisting,
                 cudaAccessPropertyStreaming));
    CK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got));
    EXPECT(got.accessPolicyWindow.base_ptr == dtable &&
           got.accessPolicyWindow.num_bytes == tableSize * sizeof(int) &&
           got.accessPolicyWindow.hitRatio == 0.6f &&
           got.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
           got.accessPolicyWindow.missProp == cudaAccessPropertyStreaming,
           "window read back: %p + %zu, ratio %f, props %d/%d", got.accessPolicyWindow.base_ptr,
           got.accessPolicyWindow.num_bytes, got.accessPolicyWindow.hitRatio,
           int(got.accessPolicyWindow.hitProp), int(got.accessPolicyWindow.missProp));
    for (int it = 0; it < 4; ++it)
        lookup<<<64, 128, 0, s>>>(dtable, tableSize, din, dout, n);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    checkResult(table, in, dout, "with a stream window");

    // another stream is unaffected until the attributes are copied over
    CK(cudaStreamGetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &got));
    EXPECT(got.accessPolicyWindow.num_bytes == 0, "second stream window %zu bytes", got.accessPolicyWindow.num_bytes);
    CK(cudaStreamCopyAttributes(s2, s));
    CK(cudaStreamGetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &got));
    EXPECT(got.accessPolicyWindow.base_ptr == dtable && got.accessPolicyWindow.hitRatio == 0.6f,
           "copied window %p ratio %f", got.accessPolicyWindow.base_ptr, got.accessPolicyWindow.hitRatio);

    // bad windows are refused and leave the old one in place
    struct Bad { size_t bytes; float ratio; cudaAccessProperty hit, miss; const char *why; } bad[] = {
        {size_t(prop.accessPolicyMaxWindowSize) + 4096, 0.5f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming, "too large"},
        {4096, 1.5f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming, "hit ratio above 1"},
        {4096, -0.1f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming, "negative hit ratio"},
        {4096, 0.5f, cudaAccessPropertyPersisting, cudaAccessPropertyPersisting, "persisting miss property"},
    };
    for (const Bad &b : bad) {
        cudaError_t e = setWindow(s, dtable, b.bytes, b.ratio, b.hit, b.miss);
        EXPECT(e == cudaErrorInvalidValue, "%s: %s", b.why, cudaGetErrorName(e));
        cudaGetLastError();
    }
    CK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got));
    EXPECT(got.accessPolicyWindow.base_ptr == dtable && got.accessPolicyWindow.hitRatio == 0.6f,
           "window after refused updates: %p ratio %f", got.accessPolicyWindow.base_ptr, got.accessPolicyWindow.hitRatio);
    // the hit property is not checked (an H200 takes an unknown one); the old window comes back
    CK(setWindow(s, dtable, 4096, 0.5f, cudaAccessProperty(7), cudaAccessPropertyNormal));
    CK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &got));
    EXPECT(got.accessPolicyWindow.num_bytes == 4096 && got.accessPolicyWindow.hitRatio == 0.5f,
           "window with an unknown hit property: %zu bytes, ratio %f",
           got.accessPolicyWindow.num_bytes, got.accessPolicyWindow.hitRatio);
    CK(setWindow(s, dtable, tableSize * sizeof(int), 0.6f, cudaAccessPropertyPersisting,
                 cudaAccessPropertyStreaming));
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    // (no call with a null value: NVIDIA's runtime reads the value itself and crashes, as its
    // static build run on ptxsim's libcuda.so.1 shows, so the GPU gives no error code to expect)
    cudaError_t e;

    // the other stream attributes
    v.syncPolicy = cudaSyncPolicyYield;
    CK(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
    CK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &got));
    EXPECT(got.syncPolicy == cudaSyncPolicyYield, "sync policy %d", int(got.syncPolicy));
    v.syncPolicy = cudaSynchronizationPolicy(99);
    e = cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v);
    EXPECT(e == cudaErrorInvalidValue, "bad sync policy: %s", cudaGetErrorName(e));
    cudaGetLastError();
    v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    CK(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomain, &v));
    CK(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomain, &got));
    EXPECT(got.memSyncDomain == cudaLaunchMemSyncDomainRemote, "mem sync domain %d", int(got.memSyncDomain));
    int prio = 1;
    CK(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &got));
    CK(cudaStreamGetPriority(s, &prio));
    EXPECT(got.priority == prio, "priority attribute %d, cudaStreamGetPriority %d", got.priority, prio);

    // the default stream has attributes too
    CK(setWindow(0, din, n * sizeof(int), 0.25f, cudaAccessPropertyNormal, cudaAccessPropertyStreaming));
    CK(cudaStreamGetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &got));
    EXPECT(got.accessPolicyWindow.base_ptr == din && got.accessPolicyWindow.hitRatio == 0.25f,
           "default stream window %p ratio %f", got.accessPolicyWindow.base_ptr, got.accessPolicyWindow.hitRatio);
    CK(cudaMemset(dout, 0, n * sizeof(int)));
    lookup<<<32, 256>>>(dtable, tableSize, din, dout, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    checkResult(table, in, dout, "default stream with a window");

    // a launch attribute window (cudaLaunchKernelEx), then a bad one
    CK(cudaMemset(dout, 0, n * sizeof(int)));
    cudaLaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributeAccessPolicyWindow;
    attr.val.accessPolicyWindow.base_ptr = dtable;
    attr.val.accessPolicyWindow.num_bytes = tableSize * sizeof(int);
    attr.val.accessPolicyWindow.hitRatio = 1.0f;
    attr.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.val.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = dim3(48);
    cfg.blockDim = dim3(96);
    cfg.stream = s2;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, lookup, (const int *)dtable, tableSize, (const int *)din, dout, n));
    CK(cudaStreamSynchronize(s2));
    checkResult(table, in, dout, "launch attribute window");
    attr.val.accessPolicyWindow.hitRatio = 2.0f;
    e = cudaLaunchKernelEx(&cfg, lookup, (const int *)dtable, tableSize, (const int *)din, dout, n);
    EXPECT(e == cudaErrorInvalidValue, "launch with a bad window: %s", cudaGetErrorName(e));
    cudaGetLastError();

    // a kernel node's window (cudaGraphKernelNodeSetAttribute), copied to a second node
    {
        CK(cudaMemset(dout, 0, n * sizeof(int)));
        cudaGraph_t g;
        CK(cudaGraphCreate(&g, 0));
        int ts = tableSize, nn = n;
        const int *ctable = dtable, *cin = din;
        void *args[] = {&ctable, &ts, &cin, &dout, &nn};
        cudaKernelNodeParams kp;
        memset(&kp, 0, sizeof kp);
        kp.func = (void *)lookup;
        kp.gridDim = dim3(40);
        kp.blockDim = dim3(128);
        kp.kernelParams = args;
        cudaGraphNode_t k1, k2;
        CK(cudaGraphAddKernelNode(&k1, g, nullptr, 0, &kp));
        CK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp));
        cudaKernelNodeAttrValue kv;
        memset(&kv, 0, sizeof kv);
        kv.accessPolicyWindow.base_ptr = dtable;
        kv.accessPolicyWindow.num_bytes = tableSize * sizeof(int);
        kv.accessPolicyWindow.hitRatio = 0.75f;
        kv.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        kv.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        CK(cudaGraphKernelNodeSetAttribute(k1, cudaKernelNodeAttributeAccessPolicyWindow, &kv));
        cudaKernelNodeAttrValue kg;
        memset(&kg, 0, sizeof kg);
        CK(cudaGraphKernelNodeGetAttribute(k2, cudaKernelNodeAttributeAccessPolicyWindow, &kg));
        EXPECT(kg.accessPolicyWindow.num_bytes == 0, "second node's window before the copy: %zu bytes", kg.accessPolicyWindow.num_bytes);
        CK(cudaGraphKernelNodeCopyAttributes(k2, k1));
        CK(cudaGraphKernelNodeGetAttribute(k2, cudaKernelNodeAttributeAccessPolicyWindow, &kg));
        EXPECT(kg.accessPolicyWindow.base_ptr == dtable && kg.accessPolicyWindow.hitRatio == 0.75f &&
               kg.accessPolicyWindow.missProp == cudaAccessPropertyStreaming,
               "node window read back: %p ratio %f", kg.accessPolicyWindow.base_ptr, kg.accessPolicyWindow.hitRatio);
        kv.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
        e = cudaGraphKernelNodeSetAttribute(k1, cudaKernelNodeAttributeAccessPolicyWindow, &kv);
        EXPECT(e == cudaErrorInvalidValue, "node window with a persisting miss property: %s", cudaGetErrorName(e));
        cudaGetLastError();
        cudaGraphExec_t ge;
        CK(cudaGraphInstantiate(&ge, g, 0));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        checkResult(table, in, dout, "graph kernel nodes with windows");
        CK(cudaGraphExecDestroy(ge));
        CK(cudaGraphDestroy(g));
    }

    // reset: windows off, persisting lines back to normal
    CK(setWindow(s, nullptr, 0, 0.0f, cudaAccessPropertyNormal, cudaAccessPropertyNormal));
    CK(cudaCtxResetPersistingL2Cache());
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    EXPECT(limit == 0, "limit after reset %zu", limit);

    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(s2));
    CK(cudaFree(dtable));
    CK(cudaFree(din));
    CK(cudaFree(dout));
    return finish();
}
