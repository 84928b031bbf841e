// ptxsim test kernel: grid3d
// Self-checking: prints PASS grid3d / FAIL grid3d.
static const char* kName = "grid3d";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// 3D grids and 3D blocks: every thread computes its global (x, y, z) from all of
// threadIdx/blockIdx/blockDim/gridDim .x/.y/.z, writes a linear id and a value
// derived from neighbours in a 3D volume (7-point sum with bounds checks).

__global__ void ids3d(int* lin, int* coords, int X, int Y, int Z) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= X || y >= Y || z >= Z) return;
    int idx = (z * Y + y) * X + x;
    int block_linear = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    int thread_linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    lin[idx] = block_linear * (blockDim.x * blockDim.y * blockDim.z) + thread_linear;
    coords[idx * 3 + 0] = x; coords[idx * 3 + 1] = y; coords[idx * 3 + 2] = z;
}

__global__ void sum7(const int* in, int* out, int X, int Y, int Z) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= X || y >= Y || z >= Z) return;
    auto at = [&](int a, int b, int c) -> int {
        return (a < 0 || a >= X || b < 0 || b >= Y || c < 0 || c >= Z) ? 0 : in[(c * Y + b) * X + a];
    };
    out[(z * Y + y) * X + x] = 6 * at(x, y, z) - at(x - 1, y, z) - at(x + 1, y, z) - at(x, y - 1, z) - at(x, y + 1, z) -
                               at(x, y, z - 1) - at(x, y, z + 1);
}

int main() {
    const int X = 20, Y = 12, Z = 10, V = X * Y * Z;
    dim3 block(8, 4, 2), grid((X + 7) / 8, (Y + 3) / 4, (Z + 1) / 2);
    int *dlin, *dco, *din, *dout;
    CK(cudaMalloc(&dlin, V * 4)); CK(cudaMalloc(&dco, V * 12)); CK(cudaMalloc(&din, V * 4)); CK(cudaMalloc(&dout, V * 4));
    int* h = new int[V];
    for (int i = 0; i < V; ++i) h[i] = (i * 37) % 19 - 9;
    CK(cudaMemcpy(din, h, V * 4, cudaMemcpyHostToDevice));
    ids3d<<<grid, block>>>(dlin, dco, X, Y, Z);
    CK(cudaGetLastError());
    sum7<<<dim3(3, 2, 5), dim3(7, 6, 2)>>>(din, dout, X, Y, Z);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int* lin = new int[V]; int* co = new int[V * 3]; int* out = new int[V];
    CK(cudaMemcpy(lin, dlin, V * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(co, dco, V * 12, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out, dout, V * 4, cudaMemcpyDeviceToHost));
    auto at = [&](int a, int b, int c) -> int { return (a < 0 || a >= X || b < 0 || b >= Y || c < 0 || c >= Z) ? 0 : h[(c * Y + b) * X + a]; };
    for (int z = 0; z < Z; ++z)
        for (int y = 0; y < Y; ++y)
            for (int x = 0; x < X; ++x) {
                int idx = (z * Y + y) * X + x;
                int bx = x / 8, by = y / 4, bz = z / 2, tx = x % 8, ty = y % 4, tz = z % 2;
                int bl = (bz * grid.y + by) * grid.x + bx, tl = (tz * 4 + ty) * 8 + tx;
                EXPECT(lin[idx] == bl * 64 + tl, "lin (%d,%d,%d)=%d expected %d", x, y, z, lin[idx], bl * 64 + tl);
                EXPECT(co[idx * 3] == x && co[idx * 3 + 1] == y && co[idx * 3 + 2] == z, "coords (%d,%d,%d)", x, y, z);
                int e = 6 * at(x, y, z) - at(x - 1, y, z) - at(x + 1, y, z) - at(x, y - 1, z) - at(x, y + 1, z) - at(x, y, z - 1) - at(x, y, z + 1);
                EXPECT(out[idx] == e, "sum7 (%d,%d,%d)=%d expected %d", x, y, z, out[idx], e);
            }
    cudaFree(dlin); cudaFree(dco); cudaFree(din); cudaFree(dout); delete[] h; delete[] lin; delete[] co; delete[] out;
    return finish();
}
