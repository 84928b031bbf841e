// ptxsim e2e: CUDA graphs replayed many times with their parameters changed between replays,
// checked against accumulated host-side expectations.
//   - a captured graph (two streams forked and joined with events, kernels, a device-to-device
//     copy, a copy to pinned memory and a host function that reads it) replayed 120 times, its
//     kernel node's scale changed every 10 replays with cudaGraphExecKernelNodeSetParams
//   - an explicit graph with memset, kernel, child-graph, memcpy, host, event record and event
//     wait nodes replayed 100 times; between replays: kernel parameters (exec), memset value
//     (exec), the host node's function (exec), the child graph
//     (cudaGraphExecChildGraphNodeSetParams), the fill kernel and the copy disabled and re-enabled
//     (cudaGraphNodeSetEnabled: a disabled copy leaves stale data), and the whole graph replaced
//     with cudaGraphExecUpdate; an update with a changed topology fails and leaves the exec usable
//   - graph queries: node types, edges, dependencies, cudaGraphNodeFindInClone, exec flags,
//     event node get/set, memcpy node parameters
//   - a captured graph with external event record/wait nodes (cudaEventRecordWithFlags /
//     cudaStreamWaitEvent with the External flags)
#include <cstdint>
#include <cstring>
#include <vector>
static const char *kName = "graph_replay";
#include "../kernels/test_common.h"

__global__ void addScaled(long long *acc, const int *x, int alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += (long long)alpha * x[i];
}
__global__ void countCall(unsigned *counter) {
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(counter, 1u);
}
__global__ void fillSeq(int *buf, int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] += seed * (i % 17);  // buf was just memset: buf = memset value + seed * (i % 17)
}
__global__ void mulBy(int *buf, int m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] *= m;
}
__global__ void addConst(int *buf, int c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] += c;
}

// ---- part A: a captured graph --------------------------------------------------------------
struct HostProbe {
    const long long *pinned;  // copied from the device just before the host node runs
    int n;
    long long lastSum;
    int calls;
};
static void CUDART_CB probeSum(void *p) {
    HostProbe *h = (HostProbe *)p;
    long long s = 0;
    for (int i = 0; i < h->n; ++i) s += h->pinned[i];
    h->lastSum = s;
    ++h->calls;
}

static void capturedGraph() {
    const int n = 300;
    int *x;
    long long *acc, *snap, *pinned;
    unsigned *counter;
    CK(cudaMalloc(&x, n * sizeof(int)));
    CK(cudaMalloc(&acc, n * sizeof(long long)));
    CK(cudaMalloc(&snap, n * sizeof(long long)));
    CK(cudaMalloc(&counter, sizeof(unsigned)));
    CK(cudaMallocHost(&pinned, n * sizeof(long long)));
    std::vector<int> hx(n);
    long long sumX = 0;
    for (int i = 0; i < n; ++i) { hx[i] = i % 23 - 11; sumX += hx[i]; }
    CK(cudaMemcpy(x, hx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(acc, 0, n * sizeof(long long)));
    CK(cudaMemset(counter, 0, sizeof(unsigned)));

    cudaStream_t s1, s2;
    cudaEvent_t fork, join;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    HostProbe probe{pinned, n, 0, 0};
    int alpha = 3;
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    addScaled<<<(n + 127) / 128, 128, 0, s1>>>(acc, x, alpha, n);
    CK(cudaEventRecord(fork, s1));
    CK(cudaStreamWaitEvent(s2, fork, 0));
    countCall<<<1, 32, 0, s2>>>(counter);                                                  // branch
    CK(cudaMemcpyAsync(snap, acc, n * sizeof(long long), cudaMemcpyDeviceToDevice, s1));   // branch
    CK(cudaEventRecord(join, s2));
    CK(cudaStreamWaitEvent(s1, join, 0));
    CK(cudaMemcpyAsync(pinned, snap, n * sizeof(long long), cudaMemcpyDeviceToHost, s1));
    CK(cudaLaunchHostFunc(s1, probeSum, &probe));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s1, &g));

    size_t numNodes = 0;
    CK(cudaGraphGetNodes(g, nullptr, &numNodes));
    EXPECT(numNodes == 5, "captured graph has %zu nodes, expected 5", numNodes);
    std::vector<cudaGraphNode_t> nodes(numNodes);
    CK(cudaGraphGetNodes(g, nodes.data(), &numNodes));
    cudaGraphNode_t scaleNode = nullptr;
    int kernels = 0, copies = 0, hosts = 0;
    for (auto nd : nodes) {
        cudaGraphNodeType t;
        CK(cudaGraphNodeGetType(nd, &t));
        if (t == cudaGraphNodeTypeKernel) {
            ++kernels;
            cudaKernelNodeParams p;
            CK(cudaGraphKernelNodeGetParams(nd, &p));
            if (p.gridDim.x == (n + 127) / 128) scaleNode = nd;
        }
        copies += t == cudaGraphNodeTypeMemcpy;
        hosts += t == cudaGraphNodeTypeHost;
    }
    EXPECT(kernels == 2 && copies == 2 && hosts == 1, "captured node kinds: %d kernels, %d copies, %d host", kernels, copies, hosts);
    EXPECT(scaleNode != nullptr, "the addScaled node is found");
    size_t numEdges = 0;
    CK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &numEdges));
    // addScaled -> countCall, addScaled -> snap copy, countCall -> pinned copy, snap copy ->
    // pinned copy, pinned copy -> host
    EXPECT(numEdges == 5, "captured graph has %zu edges, expected 5", numEdges);

    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    long long expectAcc = 0;  // the accumulated alpha
    for (int r = 0; r < 120; ++r) {
        if (r % 10 == 0 && r) {
            alpha = (r / 10) % 5 - 2;  // -2 .. 2
            void *args[] = {&acc, &x, &alpha, (void *)&n};
            cudaKernelNodeParams p{};
            p.func = (void *)addScaled;
            p.gridDim = dim3((n + 127) / 128);
            p.blockDim = dim3(128);
            p.kernelParams = args;
            CK(cudaGraphExecKernelNodeSetParams(ge, scaleNode, &p));
        }
        CK(cudaGraphLaunch(ge, s1));
        expectAcc += alpha;
        if (r % 7 == 0) {
            CK(cudaStreamSynchronize(s1));
            EXPECT(probe.calls == r + 1, "replay %d: host node ran %d times", r, probe.calls);
            EXPECT(probe.lastSum == expectAcc * sumX, "replay %d: host node saw sum %lld, expected %lld", r, probe.lastSum, expectAcc * sumX);
        }
    }
    CK(cudaStreamSynchronize(s1));
    std::vector<long long> hacc(n);
    unsigned calls = 0;
    CK(cudaMemcpy(hacc.data(), acc, n * sizeof(long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&calls, counter, sizeof calls, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        EXPECT(hacc[i] == expectAcc * hx[i], "captured: acc[%d] = %lld, expected %lld", i, hacc[i], expectAcc * hx[i]);
    EXPECT(calls == 120, "countCall ran %u times, expected 120", calls);
    EXPECT(probe.calls == 120 && probe.lastSum == expectAcc * sumX, "host node: %d calls, last sum %lld", probe.calls, probe.lastSum);
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaEventDestroy(fork)); CK(cudaEventDestroy(join));
    CK(cudaStreamDestroy(s1)); CK(cudaStreamDestroy(s2));
    CK(cudaFree(x)); CK(cudaFree(acc)); CK(cudaFree(snap)); CK(cudaFree(counter)); CK(cudaFreeHost(pinned));
}

// ---- part B: an explicit graph ------------------------------------------------------------------
struct Tally {
    const int *out;  // pinned copy of the buffer
    int n;
    long long total;
    int calls;
};
static void tallyWeighted(Tally *t, int weight) {
    long long s = 0;
    for (int i = 0; i < t->n; ++i) s += t->out[i];
    t->total += s * weight;
    ++t->calls;
}
static void CUDART_CB tally(void *p) { tallyWeighted((Tally *)p, 1); }
static void CUDART_CB tallyTwice(void *p) { tallyWeighted((Tally *)p, 2); }

struct Built {
    cudaGraph_t g;
    cudaGraphNode_t memset, fill, child, copy, host, record, wait, join;
};

static cudaGraph_t makeChild(int *buf, int n, int mul, int add) {
    cudaGraph_t c;
    CK(cudaGraphCreate(&c, 0));
    cudaGraphNode_t a, b;
    cudaKernelNodeParams p{};
    void *argsA[] = {&buf, &mul, &n};
    p.func = (void *)mulBy; p.gridDim = dim3((n + 63) / 64); p.blockDim = dim3(64); p.kernelParams = argsA;
    CK(cudaGraphAddKernelNode(&a, c, nullptr, 0, &p));
    void *argsB[] = {&buf, &add, &n};
    p.func = (void *)addConst; p.kernelParams = argsB;
    CK(cudaGraphAddKernelNode(&b, c, &a, 1, &p));
    return c;
}

static Built buildGraph(int *buf, int *pinned, int n, int seed, int memsetByte, Tally *t, cudaEvent_t ev, int childMul) {
    Built b;
    CK(cudaGraphCreate(&b.g, 0));
    cudaMemsetParams mp{};
    mp.dst = buf; mp.value = (unsigned)memsetByte; mp.elementSize = 1; mp.width = n * sizeof(int); mp.height = 1;
    CK(cudaGraphAddMemsetNode(&b.memset, b.g, nullptr, 0, &mp));
    cudaKernelNodeParams kp{};
    void *args[] = {&buf, &seed, &n};
    kp.func = (void *)fillSeq; kp.gridDim = dim3((n + 63) / 64); kp.blockDim = dim3(64); kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&b.fill, b.g, &b.memset, 1, &kp));
    cudaGraph_t child = makeChild(buf, n, childMul, 1);
    CK(cudaGraphAddChildGraphNode(&b.child, b.g, &b.fill, 1, child));
    CK(cudaGraphDestroy(child));  // the node holds its own copy
    CK(cudaGraphAddMemcpyNode1D(&b.copy, b.g, &b.child, 1, pinned, buf, n * sizeof(int), cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp{tally, t};
    CK(cudaGraphAddHostNode(&b.host, b.g, &b.copy, 1, &hp));
    CK(cudaGraphAddEventRecordNode(&b.record, b.g, &b.fill, 1, ev));
    CK(cudaGraphAddEventWaitNode(&b.wait, b.g, &b.record, 1, ev));
    cudaGraphNode_t joinDeps[2] = {b.host, b.wait};
    CK(cudaGraphAddEmptyNode(&b.join, b.g, joinDeps, 2));
    return b;
}

// the host model of one replay: the sum over the buffer after memset, fill and the child graph
static long long replaySum(int n, int seed, int memsetByte, int mul, int add) {
    int base = memsetByte * 0x01010101;
    long long s = 0;
    for (int i = 0; i < n; ++i) {
        long long v = (long long)(int)(base + seed * (i % 17)) * mul + add;
        s += (int)v;
    }
    return s;
}

static void explicitGraph() {
    const int n = 200;
    int *buf, *pinned;
    CK(cudaMalloc(&buf, n * sizeof(int)));
    CK(cudaMallocHost(&pinned, n * sizeof(int)));
    cudaEvent_t ev, ev2;
    CK(cudaEventCreate(&ev));
    CK(cudaEventCreate(&ev2));
    Tally t{pinned, n, 0, 0};
    Built b = buildGraph(buf, pinned, n, 1, 0, &t, ev, 2);

    // queries on the built graph
    size_t numEdges = 0;
    CK(cudaGraphGetEdges(b.g, nullptr, nullptr, nullptr, &numEdges));
    EXPECT(numEdges == 8, "explicit graph has %zu edges, expected 8", numEdges);
    std::vector<cudaGraphNode_t> from(numEdges), to(numEdges);
    CK(cudaGraphGetEdges(b.g, from.data(), to.data(), nullptr, &numEdges));
    bool sawFillRecord = false;
    for (size_t i = 0; i < numEdges; ++i) sawFillRecord |= from[i] == b.fill && to[i] == b.record;
    EXPECT(sawFillRecord, "edge fill -> record is listed");
    cudaEvent_t got = nullptr;
    CK(cudaGraphEventRecordNodeGetEvent(b.record, &got));
    EXPECT(got == ev, "event record node's event");
    CK(cudaGraphEventWaitNodeGetEvent(b.wait, &got));
    EXPECT(got == ev, "event wait node's event");
    cudaGraphNodeType ty;
    CK(cudaGraphNodeGetType(b.record, &ty));
    EXPECT(ty == cudaGraphNodeTypeEventRecord, "record node type %d", (int)ty);
    CK(cudaGraphNodeGetType(b.wait, &ty));
    EXPECT(ty == cudaGraphNodeTypeWaitEvent, "wait node type %d", (int)ty);
    cudaMemcpy3DParms cp{};
    CK(cudaGraphMemcpyNodeGetParams(b.copy, &cp));
    EXPECT(cp.dstPtr.ptr == pinned && cp.srcPtr.ptr == buf && cp.extent.width == n * sizeof(int) && cp.extent.height == 1 &&
           cp.extent.depth == 1 && cp.kind == cudaMemcpyDeviceToHost, "memcpy node parameters");
    cudaGraph_t clone;
    CK(cudaGraphClone(&clone, b.g));
    cudaGraphNode_t inClone = nullptr;
    CK(cudaGraphNodeFindInClone(&inClone, b.fill, clone));
    cudaKernelNodeParams kq{};
    CK(cudaGraphKernelNodeGetParams(inClone, &kq));
    EXPECT(inClone && inClone != b.fill && kq.func == (void *)fillSeq, "cudaGraphNodeFindInClone finds the fill node");
    EXPECT(cudaGraphNodeFindInClone(&inClone, b.fill, b.g) == cudaErrorInvalidValue, "FindInClone of a non-clone fails");
    cudaGetLastError();
    CK(cudaGraphDestroy(clone));

    cudaGraphExec_t ge;
    CK(cudaGraphInstantiateWithFlags(&ge, b.g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    unsigned long long flags = 0;
    CK(cudaGraphExecGetFlags(ge, &flags));
    EXPECT(flags == cudaGraphInstantiateFlagAutoFreeOnLaunch, "exec flags %llu", flags);

    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int seed = 1, memsetByte = 0, mul = 2, weight = 1;
    bool copyEnabled = true;
    long long expectTotal = 0, copied = 0;
    cudaGraph_t childGraphs[2] = {makeChild(buf, n, 3, 1), makeChild(buf, n, 2, 1)};
    // only kernel, memset and memcpy nodes can be disabled
    EXPECT(cudaGraphNodeSetEnabled(ge, b.child, 0) == cudaErrorInvalidValue, "disabling a child graph node fails");
    EXPECT(cudaGraphNodeSetEnabled(ge, b.host, 0) == cudaErrorInvalidValue, "disabling a host node fails");
    cudaGetLastError();
    for (int r = 0; r < 100; ++r) {
        if (r % 3 == 1) {  // kernel parameters of the exec
            seed = r % 11 - 5;
            void *args[] = {&buf, &seed, (void *)&n};
            cudaKernelNodeParams kp{};
            kp.func = (void *)fillSeq; kp.gridDim = dim3((n + 63) / 64); kp.blockDim = dim3(64); kp.kernelParams = args;
            CK(cudaGraphExecKernelNodeSetParams(ge, b.fill, &kp));
        }
        if (r % 5 == 2) {  // memset value
            memsetByte = r % 4;
            cudaMemsetParams mp{};
            mp.dst = buf; mp.value = (unsigned)memsetByte; mp.elementSize = 1; mp.width = n * sizeof(int); mp.height = 1;
            CK(cudaGraphExecMemsetNodeSetParams(ge, b.memset, &mp));
        }
        if (r % 8 == 3) {  // the child graph
            mul = r % 16 == 3 ? 3 : 2;
            CK(cudaGraphExecChildGraphNodeSetParams(ge, b.child, childGraphs[mul == 3 ? 0 : 1]));
        }
        if (r % 9 == 4) {  // the host node's function
            weight = weight == 1 ? 2 : 1;
            cudaHostNodeParams hp{weight == 2 ? tallyTwice : tally, &t};
            CK(cudaGraphExecHostNodeSetParams(ge, b.host, &hp));
        }
        if (r == 40 || r == 45) {  // the copy to pinned memory disabled for replays 40..44
            copyEnabled = r == 45;
            CK(cudaGraphNodeSetEnabled(ge, b.copy, copyEnabled ? 1 : 0));
        }
        if (r == 50) {  // disable the fill kernel for one replay
            CK(cudaGraphNodeSetEnabled(ge, b.fill, 0));
            unsigned en = 1;
            CK(cudaGraphNodeGetEnabled(ge, b.fill, &en));
            EXPECT(en == 0, "fill node reported enabled after disabling");
        }
        if (r == 70) {  // replace everything: a new graph of the same shape, then exec update
            int seed2 = 7, byte2 = 1;
            Built nb = buildGraph(buf, pinned, n, seed2, byte2, &t, ev2, 3);
            cudaGraphExecUpdateResultInfo info{};
            CK(cudaGraphExecUpdate(ge, nb.g, &info));
            EXPECT(info.result == cudaGraphExecUpdateSuccess, "exec update result %d", (int)info.result);
            seed = seed2; memsetByte = byte2; mul = 3;
            CK(cudaGraphDestroy(nb.g));
            // a graph of another shape cannot update the exec
            cudaGraph_t other;
            CK(cudaGraphCreate(&other, 0));
            cudaGraphNode_t e1;
            CK(cudaGraphAddEmptyNode(&e1, other, nullptr, 0));
            EXPECT(cudaGraphExecUpdate(ge, other, &info) == cudaErrorGraphExecUpdateFailure, "update with another topology fails");
            EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged, "update failure result %d", (int)info.result);
            cudaGetLastError();
            CK(cudaGraphDestroy(other));
        }
        CK(cudaGraphLaunch(ge, s));
        long long sum = replaySum(n, r == 50 ? 0 : seed, memsetByte, mul, 1);
        if (copyEnabled) copied = sum;  // a disabled copy leaves the last replay's data
        expectTotal += weight * copied;
        if (r == 50) CK(cudaGraphNodeSetEnabled(ge, b.fill, 1));
    }
    CK(cudaStreamSynchronize(s));
    EXPECT(t.calls == 100, "host node ran %d times, expected 100", t.calls);
    EXPECT(t.total == expectTotal, "accumulated total %lld, expected %lld", t.total, expectTotal);
    // the source graph was not changed by the exec-level updates: a fresh exec replays seed 1
    cudaGraphExec_t fresh;
    CK(cudaGraphInstantiate(&fresh, b.g, 0));
    t.total = 0;
    CK(cudaGraphLaunch(fresh, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(t.total == replaySum(n, 1, 0, 2, 1), "fresh exec of the original graph: %lld, expected %lld", t.total, replaySum(n, 1, 0, 2, 1));
    CK(cudaGraphExecDestroy(fresh));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(b.g));
    CK(cudaGraphDestroy(childGraphs[0])); CK(cudaGraphDestroy(childGraphs[1]));
    CK(cudaStreamDestroy(s));
    CK(cudaEventDestroy(ev)); CK(cudaEventDestroy(ev2));
    CK(cudaFree(buf)); CK(cudaFreeHost(pinned));
}

// ---- part C: external event nodes from capture ---------------------------------------------------
static void externalEvents() {
    const int n = 64;
    int *buf;
    CK(cudaMalloc(&buf, n * sizeof(int)));
    CK(cudaMemset(buf, 0, n * sizeof(int)));
    cudaStream_t s;
    cudaEvent_t done, gate;
    CK(cudaStreamCreate(&s));
    CK(cudaEventCreate(&done));
    CK(cudaEventCreate(&gate));
    CK(cudaEventRecord(gate, 0));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaStreamWaitEvent(s, gate, cudaEventWaitExternal));
    addConst<<<1, n, 0, s>>>(buf, 5, n);
    CK(cudaEventRecordWithFlags(done, s, cudaEventRecordExternal));
    mulBy<<<1, n, 0, s>>>(buf, 2, n);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    size_t num = 0;
    CK(cudaGraphGetNodes(g, nullptr, &num));
    std::vector<cudaGraphNode_t> nodes(num);
    CK(cudaGraphGetNodes(g, nodes.data(), &num));
    int waits = 0, records = 0, kernels = 0;
    for (auto nd : nodes) {
        cudaGraphNodeType t;
        CK(cudaGraphNodeGetType(nd, &t));
        waits += t == cudaGraphNodeTypeWaitEvent;
        records += t == cudaGraphNodeTypeEventRecord;
        kernels += t == cudaGraphNodeTypeKernel;
    }
    EXPECT(num == 4 && waits == 1 && records == 1 && kernels == 2, "external event capture: %zu nodes, %d waits, %d records, %d kernels", num, waits, records, kernels);
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 10; ++r) CK(cudaGraphLaunch(ge, s));
    CK(cudaEventSynchronize(done));
    CK(cudaStreamSynchronize(s));
    int h[n];
    CK(cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost));
    long long v = 0;
    for (int r = 0; r < 10; ++r) v = (v + 5) * 2;
    for (int i = 0; i < n; ++i) EXPECT(h[i] == v, "external events: buf[%d] = %d, expected %lld", i, h[i], v);
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaEventDestroy(done)); CK(cudaEventDestroy(gate));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(buf));
}

int main() {
    capturedGraph();
    explicitGraph();
    externalEvents();
    return finish();
}
