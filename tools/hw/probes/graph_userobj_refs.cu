// hwapi probe: cudaGraphReleaseUserObject with more references than the graph holds, and
// reference counting of user objects between program, graph and executable graph (when do the
// destructors run). Destructors run on a driver thread: the probe waits and re-reads.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

static std::atomic<int> g_destroyed{0};
static void onDestroy(void *p) { g_destroyed += *(int *)p; }
static int settle() {
  cudaDeviceSynchronize();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return g_destroyed.load();
}
#define R(call) do { cudaError_t e_ = (call); printf("  %-62s -> %s\n", #call, cudaGetErrorName(e_)); cudaGetLastError(); } while (0)

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  static int wA = 1, wB = 100, wC = 10000, wD = 7;
  cudaGraph_t g;
  R(cudaGraphCreate(&g, 0));
  cudaUserObject_t a, b, c;
  R(cudaUserObjectCreate(&a, &wA, onDestroy, 1, 0));
  R(cudaUserObjectCreate(&a, &wA, onDestroy, 1, cudaUserObjectNoDestructorSync));
  R(cudaUserObjectCreate(&b, &wB, onDestroy, 2, cudaUserObjectNoDestructorSync));
  R(cudaGraphRetainUserObject(g, a, 1, cudaGraphUserObjectMove));
  R(cudaGraphRetainUserObject(g, b, 2, 0));
  R(cudaUserObjectRelease(b, 2));
  printf("graph holds 2 of b; destroyed so far %d\n", settle());
  R(cudaGraphReleaseUserObject(g, b, 3));
  printf("after releasing 3 of the graph's 2: destroyed %d\n", settle());
  R(cudaGraphReleaseUserObject(g, b, 1));
  printf("after releasing 1 more: destroyed %d\n", settle());
  R(cudaGraphReleaseUserObject(g, b, 0));
  R(cudaGraphReleaseUserObject(g, a, 2));
  printf("after releasing 2 of the graph's 1 of a: destroyed %d\n", settle());
  // an object the graph never retained
  R(cudaUserObjectCreate(&c, &wC, onDestroy, 1, cudaUserObjectNoDestructorSync));
  R(cudaGraphReleaseUserObject(g, c, 1));
  printf("after releasing from a graph that never retained c: destroyed %d\n", settle());
  R(cudaUserObjectRelease(c, 1));
  printf("after the program's release of c: destroyed %d\n", settle());
  // program over-release
  cudaUserObject_t d;
  R(cudaUserObjectCreate(&d, &wD, onDestroy, 1, cudaUserObjectNoDestructorSync));
  R(cudaUserObjectRetain(d, 2));
  R(cudaUserObjectRelease(d, 5));
  printf("after the program released 5 of 3 references of d: destroyed %d\n", settle());
  // exec graph references
  {
    static int wE = 1000000;
    cudaUserObject_t e;
    cudaGraph_t h;
    R(cudaGraphCreate(&h, 0));
    cudaGraphNode_t n;
    R(cudaGraphAddEmptyNode(&n, h, nullptr, 0));
    R(cudaUserObjectCreate(&e, &wE, onDestroy, 1, cudaUserObjectNoDestructorSync));
    R(cudaGraphRetainUserObject(h, e, 1, cudaGraphUserObjectMove));
    cudaGraphExec_t x;
    R(cudaGraphInstantiate(&x, h, 0));
    R(cudaGraphLaunch(x, 0));
    R(cudaGraphDestroy(h));
    printf("graph destroyed, exec alive: destroyed %d\n", settle());
    R(cudaGraphExecDestroy(x));
    printf("exec destroyed: destroyed %d\n", settle());
  }
  R(cudaGraphDestroy(g));
  printf("graph g destroyed: destroyed %d\n", settle());
  printf("DONE\n");
  return 0;
}
