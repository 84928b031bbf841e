// Graph pieces that the other graph programs do not use: memcpy nodes to and from
// `__device__`/`__constant__` variables (cudaGraphAddMemcpyNodeToSymbol/FromSymbol, their
// SetParams and exec SetParams), user objects whose destructors run when the last reference
// (the program's, a graph's, a clone's or an executable graph's) goes away, and
// cudaGraphDebugDotPrint; with the errors CUDA returns for misuse.
static const char *kName = "graph_symbols_userobj";
#include "../kernels/test_common.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>

__constant__ float c_scale[4];
__device__ int d_result[8];
__device__ int d_other[8];

__global__ void apply(const int *in) {
    int i = threadIdx.x;
    if (i < 8) d_result[i] = (int)(in[i] * c_scale[i % 4]);
}

// Destructors run on a thread of CUDA's own, some time after the last reference goes (on an H200
// not yet when cudaGraphExecDestroy returns): the program waits for them.
static std::atomic<int> g_destroyed{0};
static void onDestroy(void *p) { g_destroyed += *(int *)p; }
static int destroyedAfterWaitingFor(int want) {
    for (int i = 0; i < 1000 && g_destroyed.load() != want; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return g_destroyed.load();
}

int main() {
    int *in;
    CK(cudaMalloc(&in, 8 * sizeof(int)));
    int hin[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    float scale[4] = {1, 2, 3, 4};
    int out[8] = {0};

    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t toSym, kern, fromSym;
    CK(cudaGraphAddMemcpyNodeToSymbol(&toSym, g, nullptr, 0, c_scale, scale, sizeof scale, 0,
                                      cudaMemcpyHostToDevice));
    cudaKernelNodeParams kp = {};
    kp.func = (void *)apply;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    void *args[] = {&in};
    kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&kern, g, &toSym, 1, &kp));
    CK(cudaGraphAddMemcpyNodeFromSymbol(&fromSym, g, &kern, 1, out, d_result, sizeof out, 0,
                                        cudaMemcpyDeviceToHost));
    cudaGraphNode_t bad;
    EXPECT(cudaGraphAddMemcpyNodeToSymbol(&bad, g, nullptr, 0, c_scale, scale, sizeof scale, 4,
                                          cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
           "copy past the end of a symbol accepted");
    EXPECT(cudaGraphAddMemcpyNodeToSymbol(&bad, g, nullptr, 0, c_scale, scale, 4, 0,
                                          cudaMemcpyDeviceToHost) == cudaErrorInvalidMemcpyDirection,
           "device-to-host copy to a symbol accepted");
    EXPECT(cudaGraphAddMemcpyNodeFromSymbol(&bad, g, nullptr, 0, out, &g_destroyed, 4, 0,
                                            cudaMemcpyDeviceToHost) == cudaErrorInvalidSymbol,
           "copy from a host variable accepted");
    cudaGetLastError();

    // user objects: one owned by the program and moved to the graph, one retained twice
    int weightA = 1, weightB = 100;
    cudaUserObject_t a, b;
    EXPECT(cudaUserObjectCreate(&a, &weightA, onDestroy, 1, 0) == cudaErrorInvalidValue,
           "user object without cudaUserObjectNoDestructorSync accepted");
    cudaGetLastError();
    CK(cudaUserObjectCreate(&a, &weightA, onDestroy, 1, cudaUserObjectNoDestructorSync));
    CK(cudaUserObjectCreate(&b, &weightB, onDestroy, 2, cudaUserObjectNoDestructorSync));
    CK(cudaGraphRetainUserObject(g, a, 1, cudaGraphUserObjectMove)); // the program's reference
    CK(cudaGraphRetainUserObject(g, b, 2, 0));
    CK(cudaUserObjectRelease(b, 2)); // the graph still holds two
    // releasing more than the graph holds is not checked (an H200 returns cudaSuccess) and
    // changes nothing
    EXPECT(cudaGraphReleaseUserObject(g, b, 3) == cudaSuccess, "over-release from a graph");
    EXPECT(cudaGraphReleaseUserObject(g, b, 0) == cudaErrorInvalidValue, "release of 0 references");
    cudaGetLastError();
    CK(cudaGraphReleaseUserObject(g, b, 1));
    EXPECT(g_destroyed == 0, "destructor ran while references remain (%d)", g_destroyed.load());

    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    for (int it = 0; it < 3; ++it) {
        for (float &s : scale) s += 1.0f;
        CK(cudaGraphLaunch(exec, 0));
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < 8; ++i)
            EXPECT(out[i] == (int)(hin[i] * scale[i % 4]), "iteration %d: out[%d] = %d, want %d",
                   it, i, out[i], (int)(hin[i] * scale[i % 4]));
    }
    // exec-level symbol update: read d_other instead
    int other[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    CK(cudaMemcpyToSymbol(d_other, other, sizeof other));
    CK(cudaGraphExecMemcpyNodeSetParamsFromSymbol(exec, fromSym, out, d_other, sizeof out, 0,
                                                  cudaMemcpyDeviceToHost));
    CK(cudaGraphLaunch(exec, 0));
    CK(cudaDeviceSynchronize());
    EXPECT(out[0] == 9 && out[7] == 9, "exec symbol update: out = %d .. %d", out[0], out[7]);
    CK(cudaGraphDestroy(g)); // the executable graph keeps its own references
    EXPECT(g_destroyed == 0, "destructor ran while the exec graph holds references (%d)",
           g_destroyed.load());
    CK(cudaGraphExecDestroy(exec));
    int destroyed = destroyedAfterWaitingFor(101);
    EXPECT(destroyed == 101, "destructors after the last reference: %d, want 101", destroyed);

    // DOT output of a graph with a child graph
    cudaGraph_t outer, inner;
    CK(cudaGraphCreate(&outer, 0));
    CK(cudaGraphCreate(&inner, 0));
    cudaGraphNode_t e1, e2, child;
    CK(cudaGraphAddEmptyNode(&e1, inner, nullptr, 0));
    CK(cudaGraphAddKernelNode(&e2, outer, nullptr, 0, &kp));
    CK(cudaGraphAddChildGraphNode(&child, outer, &e2, 1, inner));
    char path[] = "/tmp/ptxsim_graph_dot_XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0, "mkstemp");
    CK(cudaGraphDebugDotPrint(outer, path, cudaGraphDebugDotFlagsVerbose));
    FILE *f = fopen(path, "r");
    std::string dot;
    char buf[512];
    size_t nread;
    while (f && (nread = fread(buf, 1, sizeof buf, f)) > 0) dot.append(buf, nread);
    if (f) fclose(f);
    unlink(path);
    EXPECT(dot.find("digraph") == 0 && dot.find("apply") != std::string::npos &&
               dot.find("->") != std::string::npos && dot.find("cluster_") != std::string::npos,
           "DOT output: %s", dot.c_str());
    EXPECT(cudaGraphDebugDotPrint(outer, "/nonexistent-dir/x.dot", 0) == cudaErrorOperatingSystem,
           "DOT output to an unwritable path");
    cudaGetLastError();
    CK(cudaGraphDestroy(outer));
    CK(cudaGraphDestroy(inner));
    CK(cudaFree(in));
    return finish();
}
