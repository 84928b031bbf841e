// ptxsim multi-chiplet simulation: device intrinsics for GPU chiplets (docs/chiplets.md).
//
// Each wraps one chiplet instruction in inline PTX. Every active thread sends (or receives) its
// own message; threads of a warp act in lane order. A receive waits until the message has
// arrived in simulated time. Compile chiplet programs to PTX only, e.g.
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 app.cu
// (ptxas does not know the chiplet instructions; ptxsim runs the PTX). Host code finds its own
// coordinates with ptxsimChipletSelf() (ptxsim_chiplet_host.h) or PTXSIM_CHIPLET_X/Y.
#pragma once

/// Sends one word to chiplet (dx, dy).
__device__ __forceinline__ void chipletSend(int dx, int dy, int v) {
  asm volatile("chiplet.send.b32 %0, %1, %2;" ::"r"(dx), "r"(dy), "r"(v) : "memory");
}
/// Sends two words as one message.
__device__ __forceinline__ void chipletSend2(int dx, int dy, int a, int b) {
  asm volatile("chiplet.send.v2.b32 %0, %1, {%2, %3};" ::"r"(dx), "r"(dy), "r"(a), "r"(b)
               : "memory");
}
/// Sends four words as one message.
__device__ __forceinline__ void chipletSend4(int dx, int dy, int4 v) {
  asm volatile("chiplet.send.v4.b32 %0, %1, {%2, %3, %4, %5};" ::"r"(dx), "r"(dy), "r"(v.x),
               "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}
/// Receives one word from chiplet (sx, sy).
__device__ __forceinline__ int chipletRecv(int sx, int sy) {
  int v;
  asm volatile("chiplet.recv.b32 %0, %1, %2;" : "=r"(v) : "r"(sx), "r"(sy) : "memory");
  return v;
}
/// Receives a four-word message.
__device__ __forceinline__ int4 chipletRecv4(int sx, int sy) {
  int4 v;
  asm volatile("chiplet.recv.v4.b32 {%0, %1, %2, %3}, %4, %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(sx), "r"(sy)
               : "memory");
  return v;
}
/// Sends n words of data (one message per group of four, then single words).
__device__ __forceinline__ void chipletSendArray(int dx, int dy, const int *data, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4)
    chipletSend4(dx, dy, make_int4(data[i], data[i + 1], data[i + 2], data[i + 3]));
  for (; i < n; ++i)
    chipletSend(dx, dy, data[i]);
}
/// Receives n words sent with chipletSendArray.
__device__ __forceinline__ void chipletRecvArray(int sx, int sy, int *data, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    int4 v = chipletRecv4(sx, sy);
    data[i] = v.x;
    data[i + 1] = v.y;
    data[i + 2] = v.z;
    data[i + 3] = v.w;
  }
  for (; i < n; ++i)
    data[i] = chipletRecv(sx, sy);
}
