// Conditional graph nodes (CUDA 12.4+): a while loop whose body kernel decides, with the
// device-side cudaGraphSetConditional, whether to run again (a Newton iteration for square
// roots until every element has converged), an if/else node, a switch node picking one of four
// bodies, a conditional nested in a while body, handles with and without
// cudaGraphCondAssignDefault, nodes made with cudaGraphAddNode, bodies filled by
// cudaStreamBeginCaptureToGraph and a conditional node added to a capture in progress. The
// graphs are launched several times and every result is checked on the host; so are the
// errors CUDA returns for malformed conditional nodes and handles.
static const char *kName = "graph_conditional_nodes";
#include "../kernels/test_common.h"

#include <cmath>
#include <vector>

// One Newton step x <- (x + a/x)/2 per element; the last block to finish decides whether the
// loop goes on (any element still moving).
__global__ void newtonStep(const float *a, float *x, int n, int *moving, unsigned *done,
                           int *iterations, cudaGraphConditionalHandle h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float next = 0.5f * (x[i] + a[i] / x[i]);
        if (fabsf(next - x[i]) > 1e-6f * next) atomicAdd(moving, 1);
        x[i] = next;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(done, 1) == gridDim.x - 1) {
            // last block: every block's atomics are visible
            int m = atomicExch(moving, 0);
            *done = 0;
            *iterations += 1;
            cudaGraphSetConditional(h, m > 0 && *iterations < 100 ? 1 : 0);
        }
    }
}

__global__ void setFromValue(cudaGraphConditionalHandle h, const int *v) {
    if (threadIdx.x == 0 && blockIdx.x == 0) cudaGraphSetConditional(h, (unsigned)*v);
}

__global__ void addValue(int *out, int v) { atomicAdd(out, v); }

// A counter loop: the body adds to *count and keeps looping while *count < limit.
__global__ void countBody(int *count, int limit, cudaGraphConditionalHandle h) {
    if (threadIdx.x == 0) {
        int c = ++*count;
        cudaGraphSetConditional(h, c < limit);
    }
}

static cudaGraphNode_t addKernel(cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                 const void *func, dim3 grid, dim3 block, void **args) {
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = const_cast<void *>(func);
    p.kernel.gridDim = grid;
    p.kernel.blockDim = block;
    p.kernel.kernelParams = args;
    cudaGraphNode_t node;
    CK(cudaGraphAddNode(&node, g, deps, nullptr, nd, &p));
    return node;
}

// Adds a conditional node and returns its body graphs.
static cudaGraphNode_t addConditional(cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                      cudaGraphConditionalHandle h, cudaGraphConditionalNodeType t,
                                      unsigned size, std::vector<cudaGraph_t> &bodies) {
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = t;
    p.conditional.size = size;
    cudaGraphNode_t node;
    CK(cudaGraphAddNode(&node, g, deps, nullptr, nd, &p));
    bodies.assign(p.conditional.phGraph_out, p.conditional.phGraph_out + size);
    return node;
}

static void testWhileNewton() {
    const int n = 5000, threads = 128, blocks = (n + threads - 1) / threads;
    std::vector<float> ha(n), hx(n);
    for (int i = 0; i < n; ++i) { ha[i] = 1.0f + (float)(i * 37 % 1000); hx[i] = ha[i]; }
    float *a, *x;
    int *moving, *iterations;
    unsigned *done;
    CK(cudaMalloc(&a, n * sizeof(float)));
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&moving, sizeof(int)));
    CK(cudaMalloc(&iterations, sizeof(int)));
    CK(cudaMalloc(&done, sizeof(unsigned)));
    CK(cudaMemcpy(a, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    // x = a; counters zero; then while (h) newtonStep
    cudaGraphNode_t copy, z1, z2, z3;
    CK(cudaGraphAddMemcpyNode1D(&copy, g, nullptr, 0, x, a, n * sizeof(float),
                                cudaMemcpyDeviceToDevice));
    auto zero = [](void *dst) {
        cudaMemsetParams m = {};
        m.dst = dst;
        m.elementSize = 4;
        m.width = 1;
        m.height = 1;
        return m;
    };
    cudaMemsetParams m1 = zero(moving), m2 = zero(iterations), m3 = zero(done);
    CK(cudaGraphAddMemsetNode(&z1, g, &copy, 1, &m1));
    CK(cudaGraphAddMemsetNode(&z2, g, &z1, 1, &m2));
    CK(cudaGraphAddMemsetNode(&z3, g, &z2, 1, &m3));
    std::vector<cudaGraph_t> body;
    cudaGraphNode_t loop = addConditional(g, &z3, 1, h, cudaGraphCondTypeWhile, 1, body);
    int nn = n;
    void *args[] = {&a, &x, &nn, &moving, &done, &iterations, &h};
    addKernel(body[0], nullptr, 0, (const void *)newtonStep, dim3(blocks), dim3(threads), args);
    cudaGraphNodeType type;
    CK(cudaGraphNodeGetType(loop, &type));
    EXPECT(type == cudaGraphNodeTypeConditional, "conditional node type %d", (int)type);

    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    for (int launch = 0; launch < 3; ++launch) {
        CK(cudaGraphLaunch(exec, s));
        CK(cudaStreamSynchronize(s));
        std::vector<float> got(n);
        int iters = 0;
        CK(cudaMemcpy(got.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&iters, iterations, sizeof(int), cudaMemcpyDeviceToHost));
        // the host runs the same iteration count: every element must match sqrt
        EXPECT(iters > 3 && iters < 100, "launch %d: %d Newton iterations", launch, iters);
        for (int i = 0; i < n; ++i)
            EXPECT(fabsf(got[i] - sqrtf(ha[i])) <= 1e-4f * sqrtf(ha[i]),
                   "launch %d: sqrt(%g) = %g, got %g", launch, ha[i], sqrtf(ha[i]), got[i]);
    }
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(a)); CK(cudaFree(x)); CK(cudaFree(moving)); CK(cudaFree(iterations));
    CK(cudaFree(done));
}

// if/else and switch driven by a value in device memory, set by a kernel node before them.
static void testIfSwitch() {
    int *value, *out;
    CK(cudaMalloc(&value, sizeof(int)));
    CK(cudaMalloc(&out, sizeof(int)));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle hIf, hSw;
    CK(cudaGraphConditionalHandleCreate(&hIf, g, 0, 0));
    CK(cudaGraphConditionalHandleCreate(&hSw, g, 0, 0));
    void *a1[] = {&hIf, &value};
    cudaGraphNode_t set1 = addKernel(g, nullptr, 0, (const void *)setFromValue, 1, 32, a1);
    void *a2[] = {&hSw, &value};
    cudaGraphNode_t set2 = addKernel(g, &set1, 1, (const void *)setFromValue, 1, 32, a2);
    std::vector<cudaGraph_t> ifBodies, swBodies;
    cudaGraphNode_t ifNode = addConditional(g, &set2, 1, hIf, cudaGraphCondTypeIf, 2, ifBodies);
    int thenAdd = 1000, elseAdd = 2000;
    void *t[] = {&out, &thenAdd};
    void *e[] = {&out, &elseAdd};
    addKernel(ifBodies[0], nullptr, 0, (const void *)addValue, 1, 1, t);
    addKernel(ifBodies[1], nullptr, 0, (const void *)addValue, 1, 1, e);
    addConditional(g, &ifNode, 1, hSw, cudaGraphCondTypeSwitch, 4, swBodies);
    int adds[4] = {1, 10, 100, 7};
    for (int i = 0; i < 4; ++i) {
        void *args[] = {&out, &adds[i]};
        // body 3: an empty node then the kernel, to check a body with edges
        cudaGraphNode_t first = nullptr;
        if (i == 3) CK(cudaGraphAddEmptyNode(&first, swBodies[i], nullptr, 0));
        addKernel(swBodies[i], first ? &first : nullptr, first ? 1 : 0, (const void *)addValue,
                  1, 1, args);
    }
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int v = 0; v < 6; ++v) {
        CK(cudaMemcpy(value, &v, sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemset(out, 0, sizeof(int)));
        CK(cudaGraphLaunch(exec, 0));
        CK(cudaDeviceSynchronize());
        int got = 0;
        CK(cudaMemcpy(&got, out, sizeof(int), cudaMemcpyDeviceToHost));
        int want = (v ? thenAdd : elseAdd) + (v < 4 ? adds[v] : 0);
        EXPECT(got == want, "if/switch with value %d: got %d, want %d", v, got, want);
    }
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(value));
    CK(cudaFree(out));
}

// A while loop whose body holds another while loop (with its own handle, reset to its default
// at each launch of the graph, not at each execution of the body) and counters checked on the
// host.
static void testNested() {
    int *outer, *inner;
    CK(cudaMalloc(&outer, sizeof(int)));
    CK(cudaMalloc(&inner, sizeof(int)));
    CK(cudaMemset(outer, 0, sizeof(int)));
    CK(cudaMemset(inner, 0, sizeof(int)));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle ho;
    CK(cudaGraphConditionalHandleCreate(&ho, g, 1, cudaGraphCondAssignDefault));
    std::vector<cudaGraph_t> ob, ib;
    addConditional(g, nullptr, 0, ho, cudaGraphCondTypeWhile, 1, ob);
    cudaGraphConditionalHandle hi;
    CK(cudaGraphConditionalHandleCreate(&hi, ob[0], 1, cudaGraphCondAssignDefault));
    cudaGraphNode_t innerLoop = addConditional(ob[0], nullptr, 0, hi, cudaGraphCondTypeWhile, 1, ib);
    int innerLimit = 1 << 30; // changed to 3 below
    void *ia[] = {&inner, &innerLimit, &hi};
    addKernel(ib[0], nullptr, 0, (const void *)countBody, 1, 32, ia);
    int outerLimit = 4;
    void *oa[] = {&outer, &outerLimit, &ho};
    addKernel(ob[0], &innerLoop, 1, (const void *)countBody, 1, 32, oa);
    // give the inner body a finite limit through cudaGraphNodeSetParams
    cudaGraphNode_t innerKernel;
    size_t count = 1;
    CK(cudaGraphGetNodes(ib[0], &innerKernel, &count));
    EXPECT(count == 1, "inner body has %zu nodes", count);
    innerLimit = 3;
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = (void *)countBody;
    p.kernel.gridDim = dim3(1);
    p.kernel.blockDim = dim3(32);
    p.kernel.kernelParams = ia;
    CK(cudaGraphNodeSetParams(innerKernel, &p));
    p.type = cudaGraphNodeTypeMemset;
    EXPECT(cudaGraphNodeSetParams(innerKernel, &p) == cudaErrorInvalidValue,
           "node parameters of another type accepted");
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    CK(cudaGraphLaunch(exec, 0));
    CK(cudaDeviceSynchronize());
    int o = 0, i = 0;
    CK(cudaMemcpy(&o, outer, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&i, inner, sizeof(int), cudaMemcpyDeviceToHost));
    // outer runs 4 times; the inner handle gets its default (1) once per launch, not at each
    // execution of the outer body (as on an H100): the first outer iteration counts the inner
    // loop to 3 and clears its handle, and the later ones skip it
    EXPECT(o == 4, "outer loop ran %d times, want 4", o);
    EXPECT(i == 3, "inner loop counted %d, want 3", i);
    // a second launch puts both handles back to 1: one more outer iteration (5 stops it) and
    // one more inner one (4 stops it)
    CK(cudaGraphLaunch(exec, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&o, outer, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&i, inner, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(o == 5 && i == 4, "second launch: outer %d, inner %d, want 5 and 4", o, i);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(outer));
    CK(cudaFree(inner));
}

// Bodies filled by stream capture (cudaStreamBeginCaptureToGraph), and a conditional node added
// to a stream capture in progress (cudaStreamGetCaptureInfo + cudaStreamUpdateCaptureDependencies),
// as NVIDIA's documentation builds them.
static void testCaptured() {
    int *count, *value, *out;
    CK(cudaMalloc(&count, sizeof(int)));
    CK(cudaMalloc(&value, sizeof(int)));
    CK(cudaMalloc(&out, sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // a while loop whose body is captured: count to 5
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    std::vector<cudaGraph_t> body;
    addConditional(g, nullptr, 0, h, cudaGraphCondTypeWhile, 1, body);
    CK(cudaStreamBeginCaptureToGraph(s, body[0], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
    countBody<<<1, 32, 0, s>>>(count, 5, h);
    cudaGraph_t captured = nullptr;
    CK(cudaStreamEndCapture(s, &captured));
    EXPECT(captured == body[0], "capture to a graph returned another graph");
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int launch = 0; launch < 2; ++launch) {
        CK(cudaMemsetAsync(count, 0, sizeof(int), s));
        CK(cudaGraphLaunch(exec, s));
        int c = 0;
        CK(cudaMemcpyAsync(&c, count, sizeof(int), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        EXPECT(c == 5, "captured while body counted to %d, want 5", c);
    }
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));

    // capture: set value -> [if value: out += 100] -> out += 1
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    cudaGraph_t capGraph;
    const cudaGraphNode_t *deps = nullptr;
    size_t numDeps = 0;
    CK(cudaStreamGetCaptureInfo(s, &status, nullptr, &capGraph, &deps, nullptr, &numDeps));
    cudaGraphConditionalHandle hIf;
    CK(cudaGraphConditionalHandleCreate(&hIf, capGraph, 0, cudaGraphCondAssignDefault));
    setFromValue<<<1, 32, 0, s>>>(hIf, value);
    CK(cudaStreamGetCaptureInfo(s, &status, nullptr, &capGraph, &deps, nullptr, &numDeps));
    EXPECT(status == cudaStreamCaptureStatusActive && numDeps == 1, "capture info: %d, %zu deps",
           (int)status, numDeps);
    std::vector<cudaGraph_t> ifBody;
    cudaGraphNode_t ifNode = addConditional(capGraph, deps, numDeps, hIf, cudaGraphCondTypeIf, 1, ifBody);
    CK(cudaStreamUpdateCaptureDependencies(s, &ifNode, nullptr, 1, cudaStreamSetCaptureDependencies));
    int hundred = 100, one = 1;
    void *a100[] = {&out, &hundred};
    addKernel(ifBody[0], nullptr, 0, (const void *)addValue, 1, 1, a100);
    addValue<<<1, 1, 0, s>>>(out, one);
    EXPECT(cudaStreamUpdateCaptureDependencies(s, &ifNode, nullptr, 1, 7) == cudaErrorInvalidValue,
           "unknown capture-dependency flag accepted");
    CK(cudaStreamEndCapture(s, &g));
    EXPECT(cudaStreamUpdateCaptureDependencies(s, &ifNode, nullptr, 1, 0) == cudaErrorIllegalState,
           "capture dependencies updated on a stream that does not capture");
    cudaGetLastError();
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int v = 0; v < 2; ++v) {
        CK(cudaMemcpyAsync(value, &v, sizeof(int), cudaMemcpyHostToDevice, s));
        CK(cudaMemsetAsync(out, 0, sizeof(int), s));
        CK(cudaGraphLaunch(exec, s));
        int got = 0;
        CK(cudaMemcpyAsync(&got, out, sizeof(int), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        EXPECT(got == (v ? 101 : 1), "captured if with value %d: %d", v, got);
    }
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(count));
    CK(cudaFree(value));
    CK(cudaFree(out));
}

static void testErrors() {
    cudaGraph_t g, other;
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphCreate(&other, 0));
    cudaGraphConditionalHandle h;
    EXPECT(cudaGraphConditionalHandleCreate(nullptr, g, 0, 0) == cudaErrorInvalidValue,
           "null handle pointer accepted");
    EXPECT(cudaGraphConditionalHandleCreate(&h, g, 0, 2) == cudaErrorInvalidValue,
           "unknown handle flag accepted");
    CK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    cudaGraphNode_t node;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 2;
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaErrorInvalidValue,
           "while node with two bodies accepted");
    p.conditional.type = cudaGraphCondTypeIf;
    p.conditional.size = 3;
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaErrorInvalidValue,
           "if node with three bodies accepted");
    p.conditional.type = cudaGraphCondTypeSwitch;
    p.conditional.size = 0;
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaErrorInvalidValue,
           "switch node without bodies accepted");
    p.conditional.size = 1;
    p.conditional.handle = 12345;
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaErrorInvalidValue,
           "conditional node with a bogus handle accepted");
    p.conditional.handle = h;
    p.reserved0[1] = 1;
    EXPECT(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p) == cudaErrorInvalidValue,
           "non-zero reserved field accepted");
    p.reserved0[1] = 0;
    CK(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p));
    // CUDA owns the bodies; graphs with conditional nodes are not cloned nor used as children
    EXPECT(cudaGraphDestroy(p.conditional.phGraph_out[0]) == cudaErrorInvalidValue,
           "a conditional body graph was destroyed by the user");
    cudaGraph_t clone;
    EXPECT(cudaGraphClone(&clone, g) == cudaErrorNotSupported, "graph with conditional cloned");
    cudaGraphNode_t child;
    // (an H200 answers NotSupported)
    cudaError_t ce = cudaGraphAddChildGraphNode(&child, other, nullptr, 0, g);
    EXPECT(ce == cudaErrorNotSupported, "graph with conditional added as a child: %s",
           cudaGetErrorName(ce));
    EXPECT(cudaGetLastError() != cudaSuccess, "errors not recorded");
    CK(cudaGetLastError());
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(other));
}

// After cudaDeviceReset the handles of the old context are gone; new graphs work as before.
static void testAfterReset() {
    CK(cudaDeviceReset());
    int *count;
    CK(cudaMalloc(&count, sizeof(int)));
    CK(cudaMemset(count, 0, sizeof(int)));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    std::vector<cudaGraph_t> body;
    addConditional(g, nullptr, 0, h, cudaGraphCondTypeWhile, 1, body);
    int limit = 7;
    void *args[] = {&count, &limit, &h};
    addKernel(body[0], nullptr, 0, (const void *)countBody, 1, 32, args);
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    CK(cudaGraphLaunch(exec, 0));
    CK(cudaDeviceSynchronize());
    int c = 0;
    CK(cudaMemcpy(&c, count, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(c == 7, "while loop after a reset counted to %d, want 7", c);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(count));
}

int main() {
    testWhileNewton();
    testIfSwitch();
    testNested();
    testCaptured();
    testErrors();
    testAfterReset();
    return finish();
}
