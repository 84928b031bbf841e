// hwapi probe: cudaGraphLaunch into a capturing stream (relaxed, global and thread-local
// modes): its result, the capture status afterwards, what later captured work and
// cudaStreamEndCapture return, cudaGetLastError, and that the stream works afterwards.
// Also a child graph added to a capture with cudaStreamGetCaptureInfo +
// cudaGraphAddChildGraphNode + cudaStreamUpdateCaptureDependencies.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void inc(int *p) { atomicAdd(p, 1); }
static int g_host = 0;
static void CUDART_CB onHost(void *) { ++g_host; }
#define R(call) do { cudaError_t e_ = (call); printf("  %-66s -> %s\n", #call, cudaGetErrorName(e_)); } while (0)

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int *d;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  // the graph to launch: a kernel and a host node, captured
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  inc<<<1, 1, 0, s>>>(d);
  cudaLaunchHostFunc(s, onHost, nullptr);
  cudaStreamEndCapture(s, &g);
  cudaGraphExec_t ge;
  cudaGraphInstantiate(&ge, g, 0);
  cudaStreamCaptureMode modes[3] = {cudaStreamCaptureModeRelaxed, cudaStreamCaptureModeGlobal,
                                    cudaStreamCaptureModeThreadLocal};
  for (int m = 0; m < 3; ++m) {
    printf("== mode %d\n", int(modes[m]));
    R(cudaStreamBeginCapture(s, modes[m]));
    cudaError_t e = cudaGraphLaunch(ge, s);
    printf("  cudaGraphLaunch(ge, capturing s) -> %s\n", cudaGetErrorName(e));
    cudaStreamCaptureStatus st;
    R(cudaStreamIsCapturing(s, &st));
    printf("  status after: %d (0 none, 1 active, 2 invalidated)\n", int(st));
    e = cudaGraphLaunch(ge, s);
    printf("  second cudaGraphLaunch -> %s\n", cudaGetErrorName(e));
    inc<<<1, 1, 0, s>>>(d);
    printf("  kernel launch after -> %s\n", cudaGetErrorName(cudaGetLastError()));
    cudaGraph_t g2 = (cudaGraph_t)1;
    e = cudaStreamEndCapture(s, &g2);
    printf("  cudaStreamEndCapture -> %s, graph %s\n", cudaGetErrorName(e), g2 == (cudaGraph_t)1 ? "untouched" : g2 ? "set" : "null");
    if (e == cudaSuccess && g2 && g2 != (cudaGraph_t)1) {
      size_t count = 0;
      cudaGraphGetNodes(g2, nullptr, &count);
      printf("  captured nodes %zu\n", count);
    }
    printf("  cudaGetLastError -> %s, then %s\n", cudaGetErrorName(cudaGetLastError()), cudaGetErrorName(cudaGetLastError()));
    R(cudaStreamIsCapturing(s, &st));
    printf("  status after end: %d\n", int(st));
  }
  R(cudaGraphLaunch(ge, s));
  R(cudaStreamSynchronize(s));
  int h = -1;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("counter %d host calls %d (the stream works)\n", h, g_host);

  // a graph launch on another stream joined into the capture through an event
  {
    printf("== graph launch on a forked stream\n");
    cudaStream_t s2;
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEvent_t ev;
    cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    R(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    R(cudaEventRecord(ev, s));
    R(cudaStreamWaitEvent(s2, ev, 0));
    R(cudaGraphLaunch(ge, s2));
    cudaGraph_t g3 = nullptr;
    R(cudaStreamEndCapture(s, &g3));
    cudaGetLastError();
    cudaStreamCaptureStatus st;
    R(cudaStreamIsCapturing(s2, &st));
    printf("  s2 status %d\n", int(st));
    cudaStreamDestroy(s2);
  }
  // a child graph node added to the capture by hand
  {
    printf("== child graph node added to a capture\n");
    R(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    inc<<<1, 1, 0, s>>>(d);
    cudaStreamCaptureStatus st;
    cudaGraph_t cg = nullptr;
    const cudaGraphNode_t *deps = nullptr;
    size_t nd = 0;
    R(cudaStreamGetCaptureInfo(s, &st, nullptr, &cg, &deps, nullptr, &nd));
    cudaGraphNode_t child;
    R(cudaGraphAddChildGraphNode(&child, cg, deps, nd, g));
    R(cudaStreamUpdateCaptureDependencies(s, &child, nullptr, 1, cudaStreamSetCaptureDependencies));
    inc<<<1, 1, 0, s>>>(d);
    cudaGraph_t g4 = nullptr;
    R(cudaStreamEndCapture(s, &g4));
    size_t count = 0;
    cudaGraphGetNodes(g4, nullptr, &count);
    printf("  nodes %zu\n", count);
    cudaGraphExec_t x4;
    R(cudaGraphInstantiate(&x4, g4, 0));
    cudaMemset(d, 0, sizeof(int));
    g_host = 0;
    R(cudaGraphLaunch(x4, s));
    R(cudaStreamSynchronize(s));
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("  counter %d (want 3) host calls %d (want 1)\n", h, g_host);
  }
  printf("DONE\n");
  return 0;
}
