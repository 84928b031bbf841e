// ptxsim test kernel: atomics_int
// Self-checking: prints PASS atomics_int / FAIL atomics_int.
static const char* kName = "atomics_int";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Integer atomics on global memory: int, unsigned, unsigned long long, long long.
// All final values are order-independent; exchange results are checked as a multiset.
struct Acc {
    int i_add, i_sub, i_min, i_max, i_and, i_or, i_xor, i_exch, i_cas;
    unsigned u_add, u_sub, u_min, u_max, u_and, u_or, u_xor, u_exch, u_cas, u_inc, u_dec;
    unsigned long long l_add, l_min, l_max, l_and, l_or, l_xor, l_exch, l_cas;
    long long s_min, s_max;
    unsigned slot_counter;
};

__global__ void atomics(Acc* a, int* slots, long long* exch_old_i, unsigned long long* exch_old_l) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int sv = (t * 37) % 1001 - 500;          // signed values
    unsigned uv = (unsigned)t * 2654435761u;  // scrambled unsigned
    unsigned long long lv = ((unsigned long long)uv << 29) ^ (unsigned long long)t;

    atomicAdd(&a->i_add, sv);
    atomicSub(&a->i_sub, sv);
    atomicMin(&a->i_min, sv);
    atomicMax(&a->i_max, sv);
    atomicAnd(&a->i_and, ~(1 << (t % 20)));
    atomicOr(&a->i_or, 1 << (t % 24));
    atomicXor(&a->i_xor, (int)uv);
    exch_old_i[t] = atomicExch(&a->i_exch, t + 1);
    // CAS loop implementing add
    int old = a->i_cas, assumed;
    do { assumed = old; old = atomicCAS(&a->i_cas, assumed, assumed + sv); } while (old != assumed);

    atomicAdd(&a->u_add, uv);
    atomicSub(&a->u_sub, (unsigned)t);
    atomicMin(&a->u_min, uv | 0x100u);
    atomicMax(&a->u_max, uv >> 1);
    atomicAnd(&a->u_and, uv | 0xff00ff00u);
    atomicOr(&a->u_or, uv & 0x00f000f0u);
    atomicXor(&a->u_xor, uv);
    atomicExch(&a->u_exch, 5u);
    unsigned uo = a->u_cas, ua;
    do { ua = uo; uo = atomicCAS(&a->u_cas, ua, ua ^ uv); } while (uo != ua);
    atomicInc(&a->u_inc, 100u);
    atomicDec(&a->u_dec, 77u);

    atomicAdd(&a->l_add, lv);
    atomicMin(&a->l_min, lv | 1ull);
    atomicMax(&a->l_max, lv);
    atomicAnd(&a->l_and, ~(1ull << (t % 50)));
    atomicOr(&a->l_or, 1ull << (t % 61));
    atomicXor(&a->l_xor, lv);
    exch_old_l[t] = atomicExch(&a->l_exch, (unsigned long long)t + 1);
    unsigned long long lo = a->l_cas, la;
    do { la = lo; lo = atomicCAS(&a->l_cas, la, la + lv); } while (lo != la);
    atomicMin(&a->s_min, (long long)sv * 1000000007LL);
    atomicMax(&a->s_max, (long long)sv * 1000000007LL);

    // slot allocation via returned old value
    unsigned s = atomicAdd(&a->slot_counter, 1u);
    slots[s] = t;
}

int main() {
    const int B = 128, G = 4, n = B * G;
    Acc init = {};
    init.i_sub = 1000; init.i_min = 0x7fffffff; init.i_max = -0x7fffffff - 1; init.i_and = -1; init.i_or = 0;
    init.i_xor = 0x5a5a5a5a; init.i_exch = 0; init.i_cas = 3;
    init.u_add = 7; init.u_sub = 0; init.u_min = 0xffffffffu; init.u_max = 0; init.u_and = 0xffffffffu;
    init.u_or = 1; init.u_xor = 0; init.u_exch = 0; init.u_cas = 0x12345678u; init.u_inc = 50; init.u_dec = 10;
    init.l_add = 1ull << 40; init.l_min = ~0ull; init.l_max = 0; init.l_and = ~0ull; init.l_or = 0;
    init.l_xor = 0; init.l_exch = 0; init.l_cas = 9;
    init.s_min = 0x7fffffffffffffffLL; init.s_max = -0x7fffffffffffffffLL - 1;
    init.slot_counter = 0;
    Acc* da; int* dslots; long long* deo; unsigned long long* delo;
    CK(cudaMalloc(&da, sizeof(Acc))); CK(cudaMalloc(&dslots, n * sizeof(int)));
    CK(cudaMalloc(&deo, n * sizeof(long long))); CK(cudaMalloc(&delo, n * sizeof(unsigned long long)));
    CK(cudaMemcpy(da, &init, sizeof(Acc), cudaMemcpyHostToDevice));
    atomics<<<G, B>>>(da, dslots, deo, delo);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    Acc r; int slots[n]; long long eo[n]; unsigned long long elo[n];
    CK(cudaMemcpy(&r, da, sizeof(Acc), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(slots, dslots, sizeof(slots), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(eo, deo, sizeof(eo), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(elo, delo, sizeof(elo), cudaMemcpyDeviceToHost));

    Acc e = init;
    for (int t = 0; t < n; ++t) {
        int sv = (t * 37) % 1001 - 500;
        unsigned uv = (unsigned)t * 2654435761u;
        unsigned long long lv = ((unsigned long long)uv << 29) ^ (unsigned long long)t;
        e.i_add += sv; e.i_sub -= sv; e.i_min = sv < e.i_min ? sv : e.i_min; e.i_max = sv > e.i_max ? sv : e.i_max;
        e.i_and &= ~(1 << (t % 20)); e.i_or |= 1 << (t % 24); e.i_xor ^= (int)uv; e.i_cas += sv;
        e.u_add += uv; e.u_sub -= (unsigned)t;
        unsigned m1 = uv | 0x100u; e.u_min = m1 < e.u_min ? m1 : e.u_min;
        unsigned m2 = uv >> 1; e.u_max = m2 > e.u_max ? m2 : e.u_max;
        e.u_and &= uv | 0xff00ff00u; e.u_or |= uv & 0x00f000f0u; e.u_xor ^= uv; e.u_cas ^= uv;
        e.u_inc = (e.u_inc >= 100u) ? 0 : e.u_inc + 1;
        e.u_dec = (e.u_dec == 0 || e.u_dec > 77u) ? 77u : e.u_dec - 1;
        e.l_add += lv;
        unsigned long long l1 = lv | 1ull; e.l_min = l1 < e.l_min ? l1 : e.l_min;
        e.l_max = lv > e.l_max ? lv : e.l_max;
        e.l_and &= ~(1ull << (t % 50)); e.l_or |= 1ull << (t % 61); e.l_xor ^= lv; e.l_cas += lv;
        long long s = (long long)sv * 1000000007LL;
        e.s_min = s < e.s_min ? s : e.s_min; e.s_max = s > e.s_max ? s : e.s_max;
    }
    EXPECT(r.i_add == e.i_add, "i_add %d vs %d", r.i_add, e.i_add);
    EXPECT(r.i_sub == e.i_sub, "i_sub %d vs %d", r.i_sub, e.i_sub);
    EXPECT(r.i_min == e.i_min, "i_min %d vs %d", r.i_min, e.i_min);
    EXPECT(r.i_max == e.i_max, "i_max %d vs %d", r.i_max, e.i_max);
    EXPECT(r.i_and == e.i_and, "i_and %x vs %x", r.i_and, e.i_and);
    EXPECT(r.i_or == e.i_or, "i_or %x vs %x", r.i_or, e.i_or);
    EXPECT(r.i_xor == e.i_xor, "i_xor %x vs %x", r.i_xor, e.i_xor);
    EXPECT(r.i_cas == e.i_cas, "i_cas %d vs %d", r.i_cas, e.i_cas);
    EXPECT(r.u_add == e.u_add, "u_add %u vs %u", r.u_add, e.u_add);
    EXPECT(r.u_sub == e.u_sub, "u_sub %u vs %u", r.u_sub, e.u_sub);
    EXPECT(r.u_min == e.u_min, "u_min %u vs %u", r.u_min, e.u_min);
    EXPECT(r.u_max == e.u_max, "u_max %u vs %u", r.u_max, e.u_max);
    EXPECT(r.u_and == e.u_and, "u_and %x vs %x", r.u_and, e.u_and);
    EXPECT(r.u_or == e.u_or, "u_or %x vs %x", r.u_or, e.u_or);
    EXPECT(r.u_xor == e.u_xor, "u_xor %x vs %x", r.u_xor, e.u_xor);
    EXPECT(r.u_exch == 5u, "u_exch %u", r.u_exch);
    EXPECT(r.u_cas == e.u_cas, "u_cas %x vs %x", r.u_cas, e.u_cas);
    EXPECT(r.u_inc == e.u_inc, "u_inc %u vs %u", r.u_inc, e.u_inc);
    EXPECT(r.u_dec == e.u_dec, "u_dec %u vs %u", r.u_dec, e.u_dec);
    EXPECT(r.l_add == e.l_add, "l_add %llx vs %llx", r.l_add, e.l_add);
    EXPECT(r.l_min == e.l_min, "l_min %llx vs %llx", r.l_min, e.l_min);
    EXPECT(r.l_max == e.l_max, "l_max %llx vs %llx", r.l_max, e.l_max);
    EXPECT(r.l_and == e.l_and, "l_and %llx vs %llx", r.l_and, e.l_and);
    EXPECT(r.l_or == e.l_or, "l_or %llx vs %llx", r.l_or, e.l_or);
    EXPECT(r.l_xor == e.l_xor, "l_xor %llx vs %llx", r.l_xor, e.l_xor);
    EXPECT(r.l_cas == e.l_cas, "l_cas %llx vs %llx", r.l_cas, e.l_cas);
    EXPECT(r.s_min == e.s_min, "s_min %lld vs %lld", r.s_min, e.s_min);
    EXPECT(r.s_max == e.s_max, "s_max %lld vs %lld", r.s_max, e.s_max);
    EXPECT(r.slot_counter == (unsigned)n, "slot_counter %u", r.slot_counter);
    // exchange: returned old values + final value must be exactly {0..n}
    {
        static int seen[n + 1]; static int seenl[n + 1];
        for (int t = 0; t < n; ++t) {
            if (eo[t] >= 0 && eo[t] <= n) seen[eo[t]]++;
            if (elo[t] <= (unsigned long long)n) seenl[elo[t]]++;
        }
        if (r.i_exch >= 0 && r.i_exch <= n) seen[r.i_exch]++;
        if (r.l_exch <= (unsigned long long)n) seenl[r.l_exch]++;
        for (int k = 0; k <= n; ++k) {
            EXPECT(seen[k] == 1, "int exch value %d seen %d times", k, seen[k]);
            EXPECT(seenl[k] == 1, "ull exch value %d seen %d times", k, seenl[k]);
        }
        static int slotseen[n];
        for (int k = 0; k < n; ++k) if (slots[k] >= 0 && slots[k] < n) slotseen[slots[k]]++;
        for (int k = 0; k < n; ++k) EXPECT(slotseen[k] == 1, "slot thread %d seen %d times", k, slotseen[k]);
    }
    cudaFree(da); cudaFree(dslots); cudaFree(deo); cudaFree(delo);
    return finish();
}
