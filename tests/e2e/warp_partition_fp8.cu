// ptxsim e2e: warp-level cooperative-group partitions and fp8 conversions.
//   - cg::labeled_partition of full and divergent (coalesced) warps by a per-lane label:
//     group size, thread_rank, meta ranks, cg::reduce, shfl from the group leader, sync
//   - cg::binary_partition of a 32-thread tile and of an 8-thread tile
//   - cuda_fp8.h: float, float2, half2 and bfloat16 conversions to e4m3/e5m2 (saturating and
//     not) and back; on sm_89+ targets they are the cvt.*.e4m3x2/e5m2x2 instructions, elsewhere
//     the header's software path; the host runs the header's software path as the reference
//   - __nv_fp8_e4m3 / __nv_fp8x2_e5m2 objects: construction, conversion operators
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
static const char *kName = "warp_partition_fp8";
#include "../kernels/test_common.h"
namespace cg = cooperative_groups;

// ---- partitions ---------------------------------------------------------------------------------
// Record per thread: label, group size, thread_rank, the group's sum of values, the leader's
// value (shfl 0) and the binary partition's size and rank.
struct PartOut { int label, size, rank, sum, leader, bsize, brank, b8size; };

__device__ int labelOf(int lane) { return (lane * 7) % 5; }

__global__ void partitions(PartOut *out, int divergent) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    PartOut r{-1, -1, -1, -1, -1, -1, -1, -1};
#if __CUDA_ARCH__ >= 700
    int value = lane * lane + 3;
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    if (!divergent || lane % 3 != 0) {  // divergent: lanes 0, 3, 6, ... sit out
        cg::coalesced_group active = cg::coalesced_threads();
        int label = labelOf(lane);
        cg::coalesced_group g = cg::labeled_partition(active, label);
        r.label = label;
        r.size = (int)g.size();
        r.rank = (int)g.thread_rank();
        r.sum = cg::reduce(g, value, cg::plus<int>());
        r.leader = g.shfl(value, 0);
        g.sync();
    }
    if (!divergent) {
        cg::thread_block_tile<32> t32 = tile;
        auto b = cg::binary_partition(t32, lane % 4 == 1);
        r.bsize = (int)b.size();
        r.brank = (int)b.thread_rank();
        auto t8 = cg::tiled_partition<8>(tile);
        auto b8 = cg::binary_partition(t8, (lane & 7) < 3);
        r.b8size = (int)b8.size();
    }
#else
    (void)divergent; (void)lane;
#endif
    out[t] = r;
}

static void checkPartitions() {
    const int threads = 64;
    PartOut *out;
    CK(cudaMallocManaged(&out, 2 * threads * sizeof(PartOut)));
    for (int divergent = 0; divergent < 2; ++divergent) {
        partitions<<<1, threads>>>(out + divergent * threads, divergent);
        CK(cudaDeviceSynchronize());
    }
    if (out[0].label == -1) {
        printf("  labeled/binary partitions: skipped (need sm_70)\n");
    } else {
        for (int divergent = 0; divergent < 2; ++divergent)
            for (int t = 0; t < threads; ++t) {
                const PartOut &r = out[divergent * threads + t];
                int lane = t % 32;
                bool in = !divergent || lane % 3 != 0;
                if (!in) {
                    EXPECT(r.label == -1, "divergent lane %d took part", lane);
                    continue;
                }
                int label = (lane * 7) % 5, size = 0, rank = 0, sum = 0, leader = -1;
                for (int l = 0; l < 32; ++l) {
                    bool lin = !divergent || l % 3 != 0;
                    if (!lin || (l * 7) % 5 != label) continue;
                    if (leader < 0) leader = l * l + 3;
                    rank += l < lane;
                    ++size;
                    sum += l * l + 3;
                }
                EXPECT(r.label == label && r.size == size && r.rank == rank && r.sum == sum && r.leader == leader,
                       "%s lane %d: label %d size %d rank %d sum %d leader %d, expected %d %d %d %d %d",
                       divergent ? "divergent" : "full", lane, r.label, r.size, r.rank, r.sum, r.leader, label, size, rank, sum,
                       leader);
                if (!divergent) {
                    bool p = lane % 4 == 1;
                    int bsize = p ? 8 : 24, brank = 0;
                    for (int l = 0; l < lane; ++l) brank += (l % 4 == 1) == p;
                    int b8size = (lane & 7) < 3 ? 3 : 5;
                    EXPECT(r.bsize == bsize && r.brank == brank && r.b8size == b8size, "binary partition lane %d: %d %d %d", lane,
                           r.bsize, r.brank, r.b8size);
                }
            }
    }
    CK(cudaFree(out));
}

// ---- fp8 -------------------------------------------------------------------------------------
constexpr int kConv = 12;  // results per input

__host__ __device__ void fp8Conversions(float x, float y, unsigned short *o) {
    o[0] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    o[1] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
    o[2] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3);
    o[3] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2);
    o[4] = __nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_SATFINITE, __NV_E4M3);
    o[5] = __nv_cvt_float2_to_fp8x2(make_float2(y, x), __NV_SATFINITE, __NV_E5M2);
    __half2_raw h2;
    __half2 hh = __floats2half2_rn(x, y);
    memcpy(&h2, &hh, sizeof h2);
    o[6] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_SATFINITE, __NV_E4M3);
    o[7] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_SATFINITE, __NV_E5M2);
    __nv_bfloat16_raw b;
    __nv_bfloat16 bb = __float2bfloat16(x);
    memcpy(&b, &bb, sizeof b);
    o[8] = __nv_cvt_bfloat16raw_to_fp8(b, __NV_SATFINITE, __NV_E4M3);
    // back to half: every fp8 value is exact in half
    __half_raw back = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)o[0], __NV_E4M3);
    o[9] = back.x;
    __half2_raw back2 = __nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)o[5], __NV_E5M2);
    o[10] = (unsigned short)(back2.x ^ back2.y);
    __nv_fp8_e4m3 obj(x);
    __nv_fp8x2_e5m2 pair(make_float2(x, y));
    float2 f2 = (float2)pair;
    o[11] = (unsigned short)(obj.__x | (__nv_cvt_float_to_fp8(f2.x + f2.y, __NV_SATFINITE, __NV_E5M2) << 8));
}

__global__ void fp8Kernel(const float *in, unsigned short *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) fp8Conversions(in[i], in[(i + 1) % n], out + i * kConv);
}

static void checkFp8() {
    std::vector<float> in = {0.0f, -0.0f, 1.0f, -1.5f, 448.0f, 449.0f, 464.0f, 465.0f, 480.0f, 500.0f, -1e6f,
                             57344.0f, 61440.0f, 61441.0f, 65504.0f, 1e10f, INFINITY, -INFINITY, NAN,
                             0.001953125f /* 2^-9 */, 0.0009765625f /* 2^-10: tie to 0 */, 0.00146484375f /* 1.5 * 2^-10 */,
                             1.52587890625e-05f /* 2^-16 */, 2.0e-5f, 0.0625f, 0.1f, 0.3333f, 3.14159f, -2.71828f,
                             240.0f, 248.0f, 256.0f, 0.017578125f, 7.62939453125e-06f};
    uint32_t s = 5;
    for (int i = 0; i < 90; ++i) {
        s = s * 1664525u + 1013904223u;
        float v = ldexpf((float)(s >> 8) / 16777216.0f + 0.5f, (int)(s % 40) - 24);
        in.push_back(s & 1 ? -v : v);
    }
    const int n = (int)in.size();
    float *dIn;
    unsigned short *dOut;
    CK(cudaMalloc(&dIn, n * 4));
    CK(cudaMalloc(&dOut, n * kConv * 2));
    CK(cudaMemcpy(dIn, in.data(), n * 4, cudaMemcpyHostToDevice));
    fp8Kernel<<<(n + 63) / 64, 64>>>(dIn, dOut, n);
    CK(cudaGetLastError());
    std::vector<unsigned short> out(n * kConv);
    CK(cudaMemcpy(out.data(), dOut, out.size() * 2, cudaMemcpyDeviceToHost));
    const char *what[kConv] = {"f32->e4m3 sat", "f32->e5m2 sat", "f32->e4m3", "f32->e5m2", "float2->e4m3x2",
                               "float2->e5m2x2", "half2->e4m3x2", "half2->e5m2x2", "bf16->e4m3", "e4m3->half",
                               "e5m2x2->half2", "objects"};
    for (int i = 0; i < n; ++i) {
        unsigned short want[kConv];
        fp8Conversions(in[i], in[(i + 1) % n], want);
        for (int k = 0; k < kConv; ++k)
            EXPECT(out[i * kConv + k] == want[k], "%s of %.9g (and %.9g): 0x%04x, expected 0x%04x", what[k], in[i], in[(i + 1) % n],
                   out[i * kConv + k], want[k]);
    }
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
}

int main() {
    checkPartitions();
    checkFp8();
    return finish();
}
