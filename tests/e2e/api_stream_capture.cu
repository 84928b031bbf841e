// ptxsim e2e: stream capture: a multi-kernel sequence with async copies, memsets and a host
// function is recorded (not run) while the stream captures, then replayed as a graph; capture
// status queries and misuse errors.
static const char *kName = "api_stream_capture";
#include <vector>
#include "../kernels/test_common.h"

__global__ void scale(float *x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= f;
}

__global__ void addVec(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += x[i];
}

__device__ int d_sym[8];

__global__ void symAdd(int v) { d_sym[threadIdx.x] += v; }

static void CUDART_CB onCallback(cudaStream_t, cudaError_t, void *) {}

static int g_hostCalls = 0;
static void CUDART_CB onHost(void *p) { g_hostCalls += *(int *)p; }

int main() {
  const int n = 1000;
  float *x, *y;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMemset(y, 0, n * sizeof(float)));
  std::vector<float> hx(n), hy(n, -1.0f);
  for (int i = 0; i < n; ++i)
    hx[i] = float(i);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  cudaStreamCaptureStatus st;
  CK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "status before capture %d", (int)st);

  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusActive, "status during capture %d", (int)st);
  int one = 1;
  CK(cudaMemcpyAsync(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, n);
  CK(cudaGetLastError());
  addVec<<<(n + 255) / 256, 256, 0, s>>>(y, x, n);
  CK(cudaGetLastError());
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, 0.5f, n);
  CK(cudaMemsetAsync(x, 0, 16 * sizeof(float), s));
  CK(cudaLaunchHostFunc(s, onHost, &one));
  CK(cudaMemcpyAsync(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, s));

  cudaStreamCaptureStatus st2;
  unsigned long long id = 0;
  cudaGraph_t during = nullptr;
  const cudaGraphNode_t *deps = nullptr;
  size_t ndeps = 0;
  CK(cudaStreamGetCaptureInfo(s, &st2, &id, &during, &deps, nullptr, &ndeps));
  EXPECT(st2 == cudaStreamCaptureStatusActive && id != 0 && during && ndeps == 1 && deps,
         "capture info: status %d id %llu deps %zu", (int)st2, id, ndeps);

  // nothing ran yet
  EXPECT(g_hostCalls == 0, "host function ran during capture");
  EXPECT(hy[0] == -1.0f && hy[n - 1] == -1.0f, "copy ran during capture");

  cudaGraph_t g = nullptr;
  CK(cudaStreamEndCapture(s, &g));
  EXPECT(g == during, "captured graph handle");
  size_t count = 0;
  CK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 7, "captured %zu nodes", count);
  CK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "status after capture %d", (int)st);
  std::vector<float> dy(n);
  CK(cudaMemcpy(dy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(dy[5] == 0.0f, "kernel ran during capture: y[5] = %f", dy[5]);

  cudaGraphExec_t ge;
  CK(cudaGraphInstantiate(&ge, g, 0));
  for (int r = 1; r <= 10; ++r) {
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i)
      EXPECT(hy[i] == float(2 * i * r), "replay %d: y[%d] = %f", r, i, hy[i]);
  }
  EXPECT(g_hostCalls == 10, "host function ran %d times", g_hostCalls);
  std::vector<float> back(n);
  CK(cudaMemcpy(back.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(back[i] == (i < 16 ? 0.0f : float(i)), "x[%d] = %f", i, back[i]);

  // a graph launch cannot be captured (CUDA 13 on an H100: cudaErrorStreamCaptureUnsupported,
  // and the capture is invalidated, as by a synchronising call)
  cudaGraph_t g2 = nullptr;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  EXPECT(cudaGraphLaunch(ge, s) == cudaErrorStreamCaptureUnsupported, "graph launch captured");
  CK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusInvalidated, "status after a graph launch %d", (int)st);
  EXPECT(cudaStreamEndCapture(s, &g2) == cudaErrorStreamCaptureInvalidated && !g2,
         "end of a capture with a graph launch");
  cudaGetLastError();
  EXPECT(g_hostCalls == 10, "graph launch ran during capture");
  // a graph joins a capture as a child graph node, added after the capture's current nodes
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  for (int k = 0; k < 2; ++k) {
    cudaStreamCaptureStatus cs;
    cudaGraph_t cg = nullptr;
    const cudaGraphNode_t *cdeps = nullptr;
    size_t cnd = 0;
    CK(cudaStreamGetCaptureInfo(s, &cs, nullptr, &cg, &cdeps, nullptr, &cnd));
    cudaGraphNode_t child;
    CK(cudaGraphAddChildGraphNode(&child, cg, cdeps, cnd, g));
    CK(cudaStreamUpdateCaptureDependencies(s, &child, nullptr, 1, cudaStreamSetCaptureDependencies));
  }
  CK(cudaStreamEndCapture(s, &g2));
  CK(cudaGraphGetNodes(g2, nullptr, &count));
  EXPECT(count == 2, "child-graph capture: %zu nodes", count);
  EXPECT(g_hostCalls == 10, "child graph ran during capture");
  cudaGraphExec_t ge2;
  CK(cudaGraphInstantiate(&ge2, g2, 0));
  CK(cudaGraphLaunch(ge2, s));
  CK(cudaStreamSynchronize(s));
  EXPECT(g_hostCalls == 12, "nested graph host calls %d", g_hostCalls);
  EXPECT(hy[7] == float(2 * 7 * 12), "nested replay y[7] = %f", hy[7]);

  // fork/join across streams through events: s forks s2, both add work, s joins s2 back
  cudaStream_t s2;
  // non-blocking, like s: a legacy-stream copy while a blocking stream captures would join the
  // capture (an H200 refuses it with cudaErrorStreamCaptureImplicit and invalidates the capture)
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  float *z;
  CK(cudaMalloc(&z, n * sizeof(float)));
  CK(cudaMemset(y, 0, n * sizeof(float)));
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaMemcpyAsync(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  CK(cudaEventRecord(fork, s));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  CK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusActive, "forked stream status %d", (int)st);
  addVec<<<(n + 255) / 256, 256, 0, s2>>>(y, x, n); // y += x on s2
  CK(cudaEventRecord(join, s2));
  // meanwhile on s: z = 3x (independent of s2's branch, which only reads x)
  CK(cudaMemcpyAsync(z, x, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
  scale<<<(n + 255) / 256, 256, 0, s>>>(z, 3.0f, n);
  CK(cudaStreamWaitEvent(s, join, 0));
  addVec<<<(n + 255) / 256, 256, 0, s>>>(y, z, n); // y += z after both branches
  CK(cudaMemcpyAsync(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  // nothing ran on s2 either
  CK(cudaMemcpy(dy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT(dy[9] == 0.0f, "forked stream work ran during capture: %f", dy[9]);
  cudaGraph_t fj;
  CK(cudaStreamEndCapture(s, &fj));
  CK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "forked stream after end %d", (int)st);
  CK(cudaGraphGetNodes(fj, nullptr, &count));
  EXPECT(count == 6, "fork/join graph has %zu nodes", count);
  // the join node depends on both branches
  std::vector<cudaGraphNode_t> nodes(count);
  CK(cudaGraphGetNodes(fj, nodes.data(), &count));
  size_t nd = 0;
  CK(cudaGraphNodeGetDependencies(nodes[4], nullptr, nullptr, &nd));
  EXPECT(nd == 2, "join node has %zu dependencies", nd);
  cudaGraphNode_t dd[2];
  CK(cudaGraphNodeGetDependencies(nodes[4], dd, nullptr, &nd));
  EXPECT(nd == 2 && dd[0] == nodes[3] && dd[1] == nodes[1], "join node dependencies");
  CK(cudaGraphNodeGetDependentNodes(nodes[0], nullptr, nullptr, &nd));
  EXPECT(nd == 2, "fork node has %zu dependents", nd);
  cudaGraphExec_t fjx;
  CK(cudaGraphInstantiate(&fjx, fj, 0));
  CK(cudaGraphLaunch(fjx, s));
  CK(cudaStreamSynchronize(s));
  // y = x + 3x
  for (int i = 0; i < n; ++i)
    EXPECT(hy[i] == 4.0f * i, "fork/join y[%d] = %f", i, hy[i]);
  // a forked stream that is not joined back: cudaErrorStreamCaptureUnjoined
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaEventRecord(fork, s));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  CK(cudaMemsetAsync(x, 0, 4, s2));
  EXPECT(cudaStreamEndCapture(s, &fj) == cudaErrorStreamCaptureUnjoined, "unjoined fork");
  CK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "unjoined stream after end %d", (int)st);
  cudaGetLastError();
  // ending on a stream that joined fails and invalidates the whole capture (an H200: the origin's
  // end then answers StreamCaptureInvalidated with no graph, tools/hw/data/h200-2026-11-26b)
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaEventRecord(fork, s));
  CK(cudaStreamWaitEvent(s2, fork, 0));
  addVec<<<(n + 255) / 256, 256, 0, s2>>>(y, x, n);
  CK(cudaEventRecord(join, s2));
  CK(cudaStreamWaitEvent(s, join, 0));
  cudaGraph_t bad = nullptr;
  EXPECT(cudaStreamEndCapture(s2, &bad) == cudaErrorStreamCaptureUnmatched, "end on a forked stream");
  cudaError_t be = cudaStreamEndCapture(s, &bad);
  EXPECT(be == cudaErrorStreamCaptureInvalidated && bad == nullptr,
         "end after ending on a forked stream: %s", cudaGetErrorName(be));
  EXPECT(cudaGetLastError() == cudaErrorStreamCaptureInvalidated, "invalidation not recorded");
  CK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "forked stream after the failed end %d", (int)st);
  CK(cudaGraphExecDestroy(fjx));
  CK(cudaEventDestroy(fork));
  CK(cudaEventDestroy(join));
  CK(cudaStreamDestroy(s2));
  CK(cudaFree(z));

  // 2D copies and memsets, symbol copies
  {
    const int w = 5, hgt = 4;
    size_t pitch;
    float *m;
    CK(cudaMallocPitch((void **)&m, &pitch, w * sizeof(float), hgt));
    std::vector<float> src(w * hgt), dst(w * hgt, -1.0f);
    for (int i = 0; i < w * hgt; ++i)
      src[i] = float(i + 1);
    int hs[8] = {1, 2, 3, 4, 5, 6, 7, 8}, hb[8] = {0};
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMemset2DAsync(m, pitch, 0, w * sizeof(float), hgt, s));
    CK(cudaMemcpy2DAsync(m, pitch, src.data(), w * sizeof(float), 3 * sizeof(float), hgt,
                         cudaMemcpyHostToDevice, s));
    CK(cudaMemcpy2DAsync(dst.data(), w * sizeof(float), m, pitch, w * sizeof(float), hgt,
                         cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyToSymbolAsync(d_sym, hs, sizeof hs, 0, cudaMemcpyHostToDevice, s));
    symAdd<<<1, 8, 0, s>>>(10);
    CK(cudaMemcpyFromSymbolAsync(hb, d_sym, 4 * sizeof(int), 4 * sizeof(int),
                                 cudaMemcpyDeviceToHost, s));
    void *p = nullptr;
    CK(cudaMallocAsync(&p, 64, s)); // an allocation node and a free node
    EXPECT(p != nullptr, "cudaMallocAsync in capture returned no address");
    CK(cudaMemsetAsync(p, 0, 64, s));
    CK(cudaFreeAsync(p, s));
    cudaGraph_t g3;
    CK(cudaStreamEndCapture(s, &g3));
    EXPECT(dst[0] == -1.0f && hb[0] == 0, "2D/symbol work ran during capture");
    cudaGraphExec_t g3x;
    CK(cudaGraphInstantiate(&g3x, g3, 0));
    CK(cudaGraphLaunch(g3x, s));
    CK(cudaStreamSynchronize(s));
    for (int r = 0; r < hgt; ++r)
      for (int c = 0; c < w; ++c)
        EXPECT(dst[r * w + c] == (c < 3 ? float(r * w + c + 1) : 0.0f), "2D [%d][%d] = %f", r, c,
               dst[r * w + c]);
    for (int i = 0; i < 4; ++i)
      EXPECT(hb[i] == 15 + i, "symbol copy %d = %d", i, hb[i]);
    CK(cudaGraphExecDestroy(g3x));
    CK(cudaGraphDestroy(g3));
    CK(cudaFree(m));
    // stream callbacks cannot be captured
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT(cudaStreamAddCallback(s, onCallback, nullptr, 0) == cudaErrorStreamCaptureUnsupported,
           "callback in capture");
    EXPECT(cudaStreamEndCapture(s, &g3) == cudaErrorStreamCaptureInvalidated, "callback invalidates");
    cudaGetLastError();
  }

  // misuse
  cudaGraph_t none = nullptr;
  EXPECT(cudaStreamEndCapture(s, &none) == cudaErrorIllegalState, "end without begin");
  EXPECT(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) ==
             cudaErrorStreamCaptureUnsupported,
         "capture of the legacy stream");
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  EXPECT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState,
         "begin twice");
  EXPECT(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported, "sync while capturing");
  CK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusInvalidated, "status after sync %d", (int)st);
  EXPECT(cudaMemsetAsync(x, 0, 4, s) == cudaErrorStreamCaptureInvalidated,
         "work after invalidation");
  cudaGraph_t inval = (cudaGraph_t)1;
  EXPECT(cudaStreamEndCapture(s, &inval) == cudaErrorStreamCaptureInvalidated && !inval,
         "end of an invalidated capture");
  CK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "status after invalidated end %d", (int)st);
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  EXPECT(cudaStreamQuery(s) == cudaErrorStreamCaptureUnsupported, "query while capturing");
  EXPECT(cudaStreamEndCapture(s, &inval) == cudaErrorStreamCaptureInvalidated, "query invalidates");
  EXPECT(cudaStreamBeginCapture(s, (cudaStreamCaptureMode)7) == cudaErrorInvalidValue, "bad mode");
  EXPECT(cudaStreamIsCapturing(s, nullptr) == cudaErrorInvalidValue, "null status");
  cudaGetLastError();
  // the stream works normally again
  CK(cudaMemsetAsync(x, 0, n * sizeof(float), s));
  CK(cudaStreamSynchronize(s));

  CK(cudaGraphExecDestroy(ge));
  CK(cudaGraphExecDestroy(ge2));
  CK(cudaGraphDestroy(g));
  CK(cudaGraphDestroy(g2));
  CK(cudaStreamDestroy(s));
  CK(cudaFree(x));
  CK(cudaFree(y));
  // cudaDeviceReset ends a capture with its stream
  cudaStream_t r1, r2;
  CK(cudaStreamCreate(&r1));
  CK(cudaStreamBeginCapture(r1, cudaStreamCaptureModeGlobal));
  CK(cudaDeviceReset());
  CK(cudaStreamCreate(&r2));
  CK(cudaStreamIsCapturing(r2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "capture survived a device reset: %d", (int)st);
  CK(cudaStreamDestroy(r2));
  return finish();
}
