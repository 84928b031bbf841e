// Halo exchange across a grid of GPU chiplets (3x3 in the tests; any WxH works): a 2D Jacobi
// stencil on a (W*T) x (H*T) domain, one T x T tile per chiplet. Every iteration each chiplet sends its edge rows and
// columns to its four neighbours with chiplet.send (ptxsim_chiplet.cuh) and receives theirs
// with chiplet.recv, then updates its tile. Chiplet (0,0) gathers the tiles at the end and
// checks the whole domain against a host reference:
//   ptxsim chiplets --grid 3x3 -- ./chiplet_stencil
// Built PTX-only (ptxas does not know the chiplet instructions).

#include "../common/sample.h"
#include "ptxsim_chiplet.cuh"
#include "ptxsim_chiplet_host.h"

#include <cmath>
#include <vector>

constexpr int T = 16;     // tile edge
constexpr int kIters = 4;

// Tile with a one-cell halo: (T+2) x (T+2) floats, interior at [1..T][1..T].
__device__ __host__ inline int at(int r, int c) { return r * (T + 2) + c; }

/// One warp sends the four edges (lane i handles element i of each edge) and receives the
/// neighbours' edges into the halo. Missing neighbours (the domain boundary) keep halo = 0.
__global__ void exchangeHalo(float *tile, int x, int y, int w, int h) {
  int lane = threadIdx.x;
  for (int i = lane; i < T; i += 32) {
    if (y > 0)
      chipletSend(x, y - 1, __float_as_int(tile[at(1, 1 + i)]));      // top row up
    if (y < h - 1)
      chipletSend(x, y + 1, __float_as_int(tile[at(T, 1 + i)]));      // bottom row down
    if (x > 0)
      chipletSend(x - 1, y, __float_as_int(tile[at(1 + i, 1)]));      // left column left
    if (x < w - 1)
      chipletSend(x + 1, y, __float_as_int(tile[at(1 + i, T)]));      // right column right
  }
  for (int i = lane; i < T; i += 32) {
    if (y > 0)
      tile[at(0, 1 + i)] = __int_as_float(chipletRecv(x, y - 1));
    if (y < h - 1)
      tile[at(T + 1, 1 + i)] = __int_as_float(chipletRecv(x, y + 1));
    if (x > 0)
      tile[at(1 + i, 0)] = __int_as_float(chipletRecv(x - 1, y));
    if (x < w - 1)
      tile[at(1 + i, T + 1)] = __int_as_float(chipletRecv(x + 1, y));
  }
}

__global__ void jacobi(const float *in, float *out) {
  int r = 1 + blockIdx.y * blockDim.y + threadIdx.y, c = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (r > T || c > T)
    return;
  out[at(r, c)] = 0.2f * (in[at(r, c)] + in[at(r - 1, c)] + in[at(r + 1, c)] + in[at(r, c - 1)] +
                          in[at(r, c + 1)]);
}

/// Sends the interior (T*T words) to (0,0) / receives a tile's interior from (sx,sy).
__global__ void sendTile(const float *tile) {
  for (int i = threadIdx.x; i < T * T; i += 32)
    chipletSend(0, 0, __float_as_int(tile[at(1 + i / T, 1 + i % T)]));
}
__global__ void recvTile(float *dst, int sx, int sy) {
  for (int i = threadIdx.x; i < T * T; i += 32)
    dst[i] = __int_as_float(chipletRecv(sx, sy));
}

static float initial(int gr, int gc) { return (float)((gr * 7 + gc * 13) % 17); }

int main() {
  int x, y, w, h;
  if (!ptxsimChipletSelf(&x, &y, &w, &h)) {
    std::printf("run it with: ptxsim chiplets --grid 3x3 -- ./chiplet_stencil\nFAIL\n");
    return 2;
  }
  const size_t bytes = sizeof(float) * (T + 2) * (T + 2);
  std::vector<float> host((T + 2) * (T + 2), 0.0f);
  for (int r = 0; r < T; ++r)
    for (int c = 0; c < T; ++c)
      host[at(1 + r, 1 + c)] = initial(y * T + r, x * T + c);
  float *a, *b;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));
  for (int it = 0; it < kIters; ++it) {
    exchangeHalo<<<1, 32>>>(a, x, y, w, h);
    jacobi<<<dim3(T / 16, T / 16), dim3(16, 16)>>>(a, b);
    std::swap(a, b);
  }
  CHECK(cudaDeviceSynchronize());
  if (x != 0 || y != 0) {
    sendTile<<<1, 32>>>(a);
    CHECK(cudaDeviceSynchronize());
    std::printf("chiplet (%d,%d): tile sent\n", x, y);
    return 0;
  }
  // chiplet (0,0): gather and check the whole domain
  const int G = w * T, GH = h * T; // columns, rows
  std::vector<float> dom(G * GH);
  CHECK(cudaMemcpy(host.data(), a, bytes, cudaMemcpyDeviceToHost));
  float *dtile;
  CHECK(cudaMalloc(&dtile, sizeof(float) * T * T));
  std::vector<float> tile(T * T);
  for (int ty = 0; ty < h; ++ty)
    for (int tx = 0; tx < w; ++tx) {
      if (tx == 0 && ty == 0)
        for (int i = 0; i < T * T; ++i)
          tile[i] = host[at(1 + i / T, 1 + i % T)];
      else {
        recvTile<<<1, 32>>>(dtile, tx, ty);
        CHECK(cudaMemcpy(tile.data(), dtile, sizeof(float) * T * T, cudaMemcpyDeviceToHost));
      }
      for (int i = 0; i < T * T; ++i)
        dom[(ty * T + i / T) * G + tx * T + i % T] = tile[i];
    }
  std::vector<float> ref((GH + 2) * (G + 2), 0.0f), nxt;
  auto R = [&](int r, int c) -> float & { return ref[r * (G + 2) + c]; };
  for (int r = 0; r < GH; ++r)
    for (int c = 0; c < G; ++c)
      R(1 + r, 1 + c) = initial(r, c);
  for (int it = 0; it < kIters; ++it) {
    nxt = ref;
    for (int r = 1; r <= GH; ++r)
      for (int c = 1; c <= G; ++c)
        nxt[r * (G + 2) + c] = 0.2f * (R(r, c) + R(r - 1, c) + R(r + 1, c) + R(r, c - 1) + R(r, c + 1));
    ref.swap(nxt);
  }
  int bad = 0;
  double maxErr = 0;
  for (int r = 0; r < GH; ++r)
    for (int c = 0; c < G; ++c) {
      double e = std::fabs(dom[r * G + c] - R(1 + r, 1 + c));
      maxErr = std::max(maxErr, e);
      bad += e > 1e-4;
    }
  std::printf("chiplet stencil %dx%d on %dx%d chiplets, %d iterations: max error %.2g, %d wrong\n%s\n",
              G, GH, w, h, kIters, maxErr, bad, bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
