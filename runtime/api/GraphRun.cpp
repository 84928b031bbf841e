// Graph execution: a launch queues its nodes on the stream one at a time, in a deterministic
// topological order (Kahn's algorithm, ties broken by node creation order); the lock is taken per
// node, so host nodes run without it (GraphObjects.h).

#include "runtime/api/GraphObjects.h"

#include <algorithm>
#include <cstring>

namespace ptxsim::runtime::graphs {

// --- execution (the lock is taken per node: host nodes run without it) -----------------------

cudaError_t runGraph(const GraphObj &g, cudaStream_t s);

cudaError_t runNode(const NodeObj &n, cudaStream_t s) {
  if (!n.enabled)
    return cudaSuccess; // a disabled node acts as an empty node
  switch (n.kind) {
  case NodeKind::Empty:
    return cudaSuccess;
  case NodeKind::EventRecord:
    return cudaEventRecord(n.event, s);
  case NodeKind::EventWait:
    return cudaStreamWaitEvent(s, n.event, 0);
  case NodeKind::Host: {
    // queued like cudaLaunchHostFunc: the device executor runs it when the stream gets there
    PTXSIM_LOCK_ASYNC;
    Work *w = ctx.newWork();
    w->kind = Work::Kind::HostFn;
    w->hostFn = n.host.fn;
    w->userData = n.host.userData;
    ctx.submit(w, s);
    return cudaSuccess;
  }
  case NodeKind::Child:
    return runGraph(*n.child, s);
  case NodeKind::MemAlloc: {
    PTXSIM_LOCK; // after the work queued before it (a free returns memory to the arena)
    GraphAlloc &a = gs().graphAllocs[n.memPtr];
    if (a.live)
      return cudaErrorInvalidValue; // still allocated from an earlier execution
    a.live = true;
    a.liveBytes = n.memBytes;
    gs().graphMem.live += a.liveBytes;
    gs().graphMem.pool = std::max(gs().graphMem.pool, graphPoolFor(gs().graphMem.live));
    gs().graphMem.usedHigh = std::max(gs().graphMem.usedHigh, gs().graphMem.pool);
    gs().graphMem.reservedHigh = std::max(gs().graphMem.reservedHigh, gs().graphMem.pool);
    return cudaSuccess;
  }
  case NodeKind::MemFree: {
    PTXSIM_LOCK; // after the work queued before it (a free returns memory to the arena)
    auto it = gs().graphAllocs.find(n.memPtr);
    if (it == gs().graphAllocs.end() || !it->second.live)
      return cudaErrorInvalidValue; // freed twice: CUDA leaves this undefined
    it->second.live = false;
    gs().graphMem.live -= it->second.liveBytes; // the pool keeps the memory
    maybeReleaseGraphAlloc(n.memPtr);
    return cudaSuccess;
  }
  case NodeKind::Conditional: {
    // the lock drains the queue: kernels before this node have finished, so the slot holds
    // the value they set
    {
      PTXSIM_LOCK;
      if (!gs().condHandles.count(n.condHandle))
        return cudaErrorInvalidValue; // its slot went with a cudaDeviceReset
    }
    auto value = [&] {
      PTXSIM_LOCK; // the body's kernels queued before this read have run
      uint32_t v;
      std::memcpy(&v, reinterpret_cast<const void *>(n.condHandle), sizeof v);
      return v;
    };
    switch (n.condType) {
    case cudaGraphCondTypeIf: {
      uint32_t v = value();
      if (v)
        return runGraph(*n.bodies[0], s);
      return n.bodies.size() > 1 ? runGraph(*n.bodies[1], s) : cudaSuccess;
    }
    case cudaGraphCondTypeWhile:
      while (value())
        if (cudaError_t e = runGraph(*n.bodies[0], s))
          return e;
      return cudaSuccess;
    case cudaGraphCondTypeSwitch: {
      uint32_t v = value();
      return v < n.bodies.size() ? runGraph(*n.bodies[v], s) : cudaSuccess;
    }
    }
    return cudaSuccess;
  }
  case NodeKind::Kernel: {
    PTXSIM_LOCK_ASYNC;
    void **args = const_cast<void **>(n.argPtrs.data());
    return ctx.launch(n.k, n.grid, n.block, args, n.shmem, s, n.cooperative);
  }
  case NodeKind::Memcpy: {
    if (n.height == 1 && n.depth == 1)
      return cudaMemcpyAsync(n.dst, n.src, n.width, n.copyKind, s);
    for (size_t z = 0; z < n.depth; ++z) {
      cudaError_t e = cudaMemcpy2DAsync(n.dst + z * n.dslice, n.dpitch, n.src + z * n.sslice,
                                        n.spitch, n.width, n.height, n.copyKind, s);
      if (e)
        return e;
    }
    return cudaSuccess;
  }
  case NodeKind::Memset: {
    const cudaMemsetParams &p = n.memset;
    size_t rows = p.height ? p.height : 1;
    size_t rowBytes = p.width * p.elementSize;
    if (p.elementSize == 1) {
      for (size_t r = 0; r < rows; ++r) {
        cudaError_t e =
            cudaMemsetAsync(static_cast<char *>(p.dst) + r * p.pitch, int(p.value), rowBytes, s);
        if (e)
          return e;
      }
      return cudaSuccess;
    }
    PTXSIM_LOCK_CHECKED;
    if (!ctx.validStream(s))
      return cudaErrorInvalidResourceHandle;
    auto &mem = ctx.engine().memory();
    for (size_t r = 0; r < rows; ++r) {
      char *row = static_cast<char *>(p.dst) + r * p.pitch;
      if (rowBytes && !mem.valid(reinterpret_cast<uint64_t>(row), rowBytes))
        return cudaErrorInvalidValue;
      for (size_t i = 0; i < p.width; ++i) {
        if (p.elementSize == 2) {
          uint16_t v = uint16_t(p.value);
          std::memcpy(row + i * 2, &v, 2);
        } else {
          uint32_t v = p.value;
          std::memcpy(row + i * 4, &v, 4);
        }
      }
    }
    return cudaSuccess;
  }
  }
  return cudaSuccess;
}

/// Stores the default of every cudaGraphCondAssignDefault handle of `g` and of the graphs nested
/// in it. A launch does this once, before any node runs: a handle created in a loop's body graph
/// is not put back at each iteration of the body (an H100 runs a while loop nested in a while
/// body only until its handle is first cleared; tools/hw/data/h100-2026-11-26).
void assignDefaults(const GraphObj &g) {
  for (const CondHandle &h : g.condHandles)
    if (h.flags & cudaGraphCondAssignDefault)
      std::memcpy(reinterpret_cast<void *>(h.handle), &h.defaultValue, sizeof h.defaultValue);
  for (const auto &n : g.nodes) {
    if (n->child)
      assignDefaults(*n->child);
    for (const auto &b : n->bodies)
      assignDefaults(*b);
  }
}

cudaError_t runGraph(const GraphObj &g, cudaStream_t s) {
  std::vector<NodeObj *> order;
  {
    PTXSIM_LOCK_ASYNC;
    if (!topoOrder(g, order))
      return cudaErrorInvalidValue;
  }
  for (NodeObj *n : order) {
    cudaError_t e = runNode(*n, s);
    if (e)
      return e;
  }
  return cudaSuccess;
}

} // namespace ptxsim::runtime::graphs
