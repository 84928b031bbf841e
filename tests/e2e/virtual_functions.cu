// ptxsim e2e: C++ virtual functions and function pointers on the device, against a CPU model.
//   - a Shape hierarchy (abstract base, three levels, a qualified call of the base's override)
//     constructed with placement new in a kernel into a global-memory arena, used by a later
//     kernel through base pointers (every warp mixes all types: divergent virtual calls) and
//     destroyed through the virtual destructor, which counts each level it runs
//   - multiple inheritance: calls through the second base (this-adjusting thunks) and a cast
//     back with dynamic type checks done by virtual calls
//   - objects built in shared memory by each block and called from other threads of the block
//   - new/delete of polymorphic objects on the device heap (the deleting destructor)
//   - recursive virtual calls: expression trees built per thread and evaluated recursively
//   - a __device__ table of function pointers with a static initializer (.global initializer
//     holding function addresses), a const table, a struct with function-pointer members, and a
//     table entry replaced from the host with a pointer read by cudaMemcpyFromSymbol
#include <cstdint>
#include <cstring>
#include <new>
static const char *kName = "virtual_functions";
#include "../kernels/test_common.h"

// ---- the hierarchy ---------------------------------------------------------------------------
enum { kBase, kCircle, kRect, kSquare, kTri, kKinds };
__device__ int g_dtorCount[kKinds];

struct Shape {
    int id;
    __device__ explicit Shape(int i) : id(i) {}
    __device__ virtual ~Shape() { atomicAdd(&g_dtorCount[kBase], 1); }
    __device__ virtual float area() const = 0;
    __device__ virtual float perimeter() const = 0;
    __device__ virtual int kind() const { return kBase; }
    __device__ virtual void scale(float s) = 0;
    // a non-virtual member that makes virtual calls
    __device__ float describe() const { return area() * 1000.0f + perimeter() + kind() * 0.125f; }
};

struct Circle : Shape {
    float r;
    __device__ Circle(int i, float r_) : Shape(i), r(r_) {}
    __device__ ~Circle() override { atomicAdd(&g_dtorCount[kCircle], 1); }
    __device__ float area() const override { return 3.0f * r * r; }  // pi = 3 keeps it exact
    __device__ float perimeter() const override { return 6.0f * r; }
    __device__ int kind() const override { return kCircle; }
    __device__ void scale(float s) override { r *= s; }
};

struct Rect : Shape {
    float w, h;
    __device__ Rect(int i, float w_, float h_) : Shape(i), w(w_), h(h_) {}
    __device__ ~Rect() override { atomicAdd(&g_dtorCount[kRect], 1); }
    __device__ float area() const override { return w * h; }
    __device__ float perimeter() const override { return 2.0f * (w + h); }
    __device__ int kind() const override { return kRect; }
    __device__ void scale(float s) override { w *= s; h *= s; }
};

struct Square final : Rect {
    __device__ Square(int i, float s) : Rect(i, s, s) {}
    __device__ ~Square() override { atomicAdd(&g_dtorCount[kSquare], 1); }
    __device__ float area() const override { return Rect::area() + 0.5f; }  // qualified: no dispatch
    __device__ int kind() const override { return kSquare; }
};

struct Tri : Shape {
    float a, b, c;  // right triangle legs a, b and hypotenuse c
    __device__ Tri(int i, float a_, float b_, float c_) : Shape(i), a(a_), b(b_), c(c_) {}
    __device__ ~Tri() override { atomicAdd(&g_dtorCount[kTri], 1); }
    __device__ float area() const override { return 0.5f * a * b; }
    __device__ float perimeter() const override { return a + b + c; }
    __device__ int kind() const override { return kTri; }
    __device__ void scale(float s) override { a *= s; b *= s; c *= s; }
};

// host model of the same values
static void hostShape(int i, int &kind, float &area, float &perim, float s) {
    float x = (float)(i % 7 + 1);
    switch (i % 4) {
    case 0: kind = kCircle; { float r = x * s; area = 3 * r * r; perim = 6 * r; } break;
    case 1: kind = kRect; { float w = x * s, h = (x + 2) * s; area = w * h; perim = 2 * (w + h); } break;
    case 2: kind = kSquare; { float q = x * s; area = q * q + 0.5f; perim = 4 * q; } break;
    default: kind = kTri; { float a = 3 * x * s, b = 4 * x * s, c = 5 * x * s; area = 0.5f * a * b; perim = a + b + c; } break;
    }
}

constexpr int kSlot = 32;  // bytes per object slot: the largest object (Tri) fits
static_assert(sizeof(void *) == 8, "64-bit");

__device__ Shape *construct(void *mem, int i) {
    float x = (float)(i % 7 + 1);
    switch (i % 4) {
    case 0: return new (mem) Circle(i, x);
    case 1: return new (mem) Rect(i, x, x + 2);
    case 2: return new (mem) Square(i, x);
    default: return new (mem) Tri(i, 3 * x, 4 * x, 5 * x);
    }
}

__global__ void buildShapes(char *arena, Shape **ptrs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ptrs[i] = construct(arena + (size_t)i * kSlot, i);
}

// Every thread calls through a pointer to another thread's object (a permutation), so each warp
// dispatches to all four types.
__global__ void useShapes(Shape **ptrs, int n, float scale, int *kinds, float *areas, float *perims, float *desc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Shape *s = ptrs[(i * 7 + 3) % n];
    if (s->id % 3 == 0) s->scale(scale);  // divergent mutation through a virtual call
    kinds[i] = s->kind();
    areas[i] = s->area();
    perims[i] = s->perimeter();
    desc[i] = s->describe();
}

__global__ void destroyShapes(Shape **ptrs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ptrs[i]->~Shape();  // virtual destructor: runs the whole chain
}

// ---- multiple inheritance ----------------------------------------------------------------------
struct Named {
    int tag;
    __device__ Named(int t) : tag(t) {}
    __device__ virtual ~Named() {}
    __device__ virtual int nameLength() const { return 0; }
    __device__ virtual int code() const { return tag; }
};

struct NamedCircle : Circle, Named {
    __device__ NamedCircle(int i, float r) : Circle(i, r), Named(100 + i) {}
    __device__ int nameLength() const override { return 6 + id % 5; }
    __device__ int code() const override { return tag * 2 + (int)r; }
    __device__ int kind() const override { return 10; }
};

struct NamedRect : Rect, Named {
    __device__ NamedRect(int i, float w) : Rect(i, w, 1.0f), Named(200 + i) {}
    __device__ int nameLength() const override { return 4; }
    __device__ int kind() const override { return 20; }
};

__global__ void multipleInheritance(int n, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    alignas(16) char buf[64];  // per-thread object in local memory
    Shape *s;
    Named *nm;
    if (i % 2) { NamedCircle *o = new (buf) NamedCircle(i, (float)(i % 4)); s = o; nm = o; }
    else { NamedRect *o = new (buf) NamedRect(i, (float)(i % 9)); s = o; nm = o; }
    // the Named subobject lies after the Shape one; calls through it adjust `this`
    int sameObject = (char *)nm != (char *)s;
    out[i * 4 + 0] = nm->nameLength();
    out[i * 4 + 1] = nm->code();
    out[i * 4 + 2] = s->kind() + (int)s->area();
    out[i * 4 + 3] = sameObject;
    nm->~Named();  // virtual destructor through the second base
}

// ---- objects in shared memory --------------------------------------------------------------------
__global__ void sharedObjects(float *out) {
    __shared__ __align__(16) char pool[4][kSlot];
    __shared__ Shape *objs[4];
    int t = threadIdx.x;
    if (t < 4) objs[t] = construct(pool[t], blockIdx.x * 4 + t);
    __syncthreads();
    Shape *s = objs[(t + blockIdx.x) % 4];  // called by 32 threads each, from every warp
    out[blockIdx.x * blockDim.x + t] = s->area() + s->perimeter() * (t % 3);
    __syncthreads();
    if (t < 4) objs[t]->~Shape();
}

// ---- device heap: new / virtual delete --------------------------------------------------------
__global__ void heapObjects(int n, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Shape *s;
    float x = (float)(i % 5 + 1);
    if (i % 3 == 0) s = new Circle(i, x);
    else if (i % 3 == 1) s = new Square(i, x);
    else s = new Tri(i, 3 * x, 4 * x, 5 * x);
    if (!s) { out[i] = -1; return; }
    out[i] = s->area() - s->perimeter();
    delete s;  // deleting destructor through the vtable
}

// ---- expression trees: recursive virtual calls ------------------------------------------------
struct Expr {
    __device__ virtual ~Expr() {}
    __device__ virtual long long eval(long long x) const = 0;
    __device__ virtual int depth() const { return 1; }
};
struct Const : Expr {
    long long v;
    __device__ Const(long long v_) : v(v_) {}
    __device__ long long eval(long long) const override { return v; }
};
struct Var : Expr {
    __device__ long long eval(long long x) const override { return x; }
};
struct Bin : Expr {
    const Expr *l, *r;
    __device__ Bin(const Expr *a, const Expr *b) : l(a), r(b) {}
    __device__ int depth() const override { int a = l->depth(), b = r->depth(); return 1 + (a > b ? a : b); }
};
struct Add : Bin {
    __device__ Add(const Expr *a, const Expr *b) : Bin(a, b) {}
    __device__ long long eval(long long x) const override { return l->eval(x) + r->eval(x); }
};
struct Mul : Bin {
    __device__ Mul(const Expr *a, const Expr *b) : Bin(a, b) {}
    __device__ long long eval(long long x) const override { return l->eval(x) * r->eval(x); }
};
struct Sub : Bin {
    __device__ Sub(const Expr *a, const Expr *b) : Bin(a, b) {}
    __device__ long long eval(long long x) const override { return l->eval(x) - r->eval(x); }
};

// Thread i builds the polynomial (((x * x + c1) * x - c2) * x + ...) with i % 6 + 2 levels in a
// local arena and evaluates it at x = i % 11 - 5.
__global__ void exprTrees(int n, long long *val, int *depth) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    alignas(16) char arena[24 * 32];
    int used = 0;
    auto alloc = [&](size_t bytes) { void *p = arena + used; used += (int)((bytes + 15) & ~15); return p; };
    const Expr *x = new (alloc(sizeof(Var))) Var();
    const Expr *e = x;
    int levels = i % 6 + 2;
    for (int l = 0; l < levels; ++l) {
        const Expr *c = new (alloc(sizeof(Const))) Const(l * 3 + i % 4);
        const Expr *m = new (alloc(sizeof(Mul))) Mul(e, x);
        if ((l + i) % 2) e = new (alloc(sizeof(Add))) Add(m, c);
        else e = new (alloc(sizeof(Sub))) Sub(m, c);
    }
    val[i] = e->eval(i % 11 - 5);
    depth[i] = e->depth();
}

static long long hostExpr(int i, int &depth) {
    long long x = i % 11 - 5, e = x;
    int levels = i % 6 + 2;
    for (int l = 0; l < levels; ++l) {
        long long c = l * 3 + i % 4;
        e = (l + i) % 2 ? e * x + c : e * x - c;
    }
    depth = 1 + 2 * levels;
    return e;
}

// ---- function-pointer tables -------------------------------------------------------------------
typedef int (*IntOp)(int, int);
__device__ int opAdd(int a, int b) { return a + b; }
__device__ int opSub(int a, int b) { return a - b; }
__device__ int opMul(int a, int b) { return a * b; }
__device__ int opMax(int a, int b) { return a > b ? a : b; }
__device__ int opXor(int a, int b) { return a ^ b; }
__device__ int opShl(int a, int b) { return a << (b & 7); }

__device__ IntOp g_ops[4] = {opAdd, opSub, opMul, opMax};  // writable table with an initializer
__device__ const IntOp g_constOps[2] = {opXor, opShl};
struct OpPair { IntOp first; int bias; IntOp second; };
__device__ OpPair g_pairs[2] = {{opMul, 7, opAdd}, {opSub, -3, opMax}};
__device__ IntOp g_spare = opXor;  // read by the host, then stored into g_ops[3]

__global__ void tableCalls(int n, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = i % 13 - 6, b = i % 5 + 1;
    const OpPair &p = g_pairs[i % 2];
    out[i * 3 + 0] = g_ops[i % 4](a, b);           // divergent indirect calls
    out[i * 3 + 1] = g_constOps[(i / 3) % 2](a, b);
    out[i * 3 + 2] = p.second(p.first(a, b), p.bias);
}

static int hostOp(int which, int a, int b, bool replaced) {
    switch (which) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    default: return replaced ? (a ^ b) : (a > b ? a : b);
    }
}

// -------------------------------------------------------------------------------------------------
int main() {
    const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
    char *arena;
    Shape **ptrs;
    int *kinds;
    float *areas, *perims, *desc;
    CK(cudaMalloc(&arena, (size_t)n * kSlot));
    CK(cudaMalloc(&ptrs, n * sizeof(Shape *)));
    CK(cudaMallocManaged(&kinds, n * sizeof(int)));
    CK(cudaMallocManaged(&areas, n * sizeof(float)));
    CK(cudaMallocManaged(&perims, n * sizeof(float)));
    CK(cudaMallocManaged(&desc, n * sizeof(float)));
    buildShapes<<<blocks, threads>>>(arena, ptrs, n);
    CK(cudaGetLastError());
    for (int round = 0; round < 2; ++round) {
        useShapes<<<blocks, threads>>>(ptrs, n, 2.0f, kinds, areas, perims, desc);
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < n; ++i) {
            int j = (i * 7 + 3) % n, kind;
            float area, perim;
            // objects with id % 3 == 0 were scaled by 2 in this and every earlier round (each
            // object is visited once per round)
            hostShape(j, kind, area, perim, j % 3 == 0 ? (float)(1 << (round + 1)) : 1.0f);
            EXPECT(kinds[i] == kind, "round %d: kind of object %d = %d, expected %d", round, j, kinds[i], kind);
            EXPECT(areas[i] == area, "round %d: area of object %d = %g, expected %g", round, j, areas[i], area);
            EXPECT(perims[i] == perim, "round %d: perimeter of object %d = %g, expected %g", round, j, perims[i], perim);
            float d = area * 1000.0f + perim + kind * 0.125f;
            EXPECT(desc[i] == d, "round %d: describe() of object %d = %g, expected %g", round, j, desc[i], d);
        }
    }
    destroyShapes<<<blocks, threads>>>(ptrs, n);
    CK(cudaDeviceSynchronize());
    int dtors[kKinds];
    CK(cudaMemcpyFromSymbol(dtors, g_dtorCount, sizeof dtors));
    int per = n / 4;  // n is a multiple of 4
    EXPECT(dtors[kBase] == n, "~Shape ran %d times, expected %d", dtors[kBase], n);
    EXPECT(dtors[kCircle] == per && dtors[kTri] == per, "~Circle/~Tri ran %d/%d times, expected %d", dtors[kCircle], dtors[kTri], per);
    EXPECT(dtors[kRect] == 2 * per, "~Rect ran %d times, expected %d (Rect and Square)", dtors[kRect], 2 * per);
    EXPECT(dtors[kSquare] == per, "~Square ran %d times, expected %d", dtors[kSquare], per);

    // multiple inheritance
    int *mi;
    const int m = 96;
    CK(cudaMallocManaged(&mi, m * 4 * sizeof(int)));
    multipleInheritance<<<3, 32>>>(m, mi);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < m; ++i) {
        int len, code, ka;
        if (i % 2) { float r = (float)(i % 4); len = 6 + i % 5; code = (100 + i) * 2 + (int)r; ka = 10 + (int)(3 * r * r); }
        else { float w = (float)(i % 9); len = 4; code = 200 + i; ka = 20 + (int)w; }
        EXPECT(mi[i * 4] == len && mi[i * 4 + 1] == code && mi[i * 4 + 2] == ka && mi[i * 4 + 3] == 1,
               "multiple inheritance %d: %d %d %d %d, expected %d %d %d 1", i, mi[i * 4], mi[i * 4 + 1], mi[i * 4 + 2], mi[i * 4 + 3], len, code, ka);
    }

    // shared-memory objects
    float *so;
    CK(cudaMallocManaged(&so, 4 * 64 * sizeof(float)));
    sharedObjects<<<4, 64>>>(so);
    CK(cudaDeviceSynchronize());
    for (int b = 0; b < 4; ++b)
        for (int t = 0; t < 64; ++t) {
            int kind;
            float area, perim;
            hostShape(b * 4 + (t + b) % 4, kind, area, perim, 1.0f);
            float want = area + perim * (t % 3);
            EXPECT(so[b * 64 + t] == want, "shared object block %d thread %d: %g, expected %g", b, t, so[b * 64 + t], want);
        }

    // heap objects
    float *ho;
    CK(cudaMallocManaged(&ho, 300 * sizeof(float)));
    heapObjects<<<3, 100>>>(300, ho);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 300; ++i) {
        float x = (float)(i % 5 + 1), want;
        if (i % 3 == 0) want = 3 * x * x - 6 * x;
        else if (i % 3 == 1) want = x * x + 0.5f - 4 * x;
        else want = 0.5f * 3 * x * 4 * x - 12 * x;
        EXPECT(ho[i] == want, "heap object %d: %g, expected %g", i, ho[i], want);
    }

    // expression trees
    long long *ev;
    int *ed;
    CK(cudaMallocManaged(&ev, 256 * sizeof(long long)));
    CK(cudaMallocManaged(&ed, 256 * sizeof(int)));
    // Recursive virtual calls whose depth the compiler cannot bound: the stack must hold the
    // 768-byte arena and up to 14 nested eval() frames. The default 1 KiB stack overflows on an
    // H100 (an illegal address; ptxas gives each eval 48 bytes of spills), so the program asks
    // for a larger one, as CUDA requires of recursion.
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    exprTrees<<<2, 128>>>(256, ev, ed);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 256; ++i) {
        int d;
        long long v = hostExpr(i, d);
        EXPECT(ev[i] == v && ed[i] == d, "expression %d: %lld depth %d, expected %lld depth %d", i, ev[i], ed[i], v, d);
    }

    // function-pointer tables, before and after replacing g_ops[3] from the host
    int *to;
    const int nt = 200;
    CK(cudaMallocManaged(&to, nt * 3 * sizeof(int)));
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            IntOp spare;
            CK(cudaMemcpyFromSymbol(&spare, g_spare, sizeof spare));
            CK(cudaMemcpyToSymbol(g_ops, &spare, sizeof spare, 3 * sizeof(IntOp)));
        }
        tableCalls<<<2, 100>>>(nt, to);
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < nt; ++i) {
            int a = i % 13 - 6, b = i % 5 + 1;
            int w0 = hostOp(i % 4, a, b, pass == 1);
            int w1 = (i / 3) % 2 ? a << (b & 7) : a ^ b;
            int w2 = i % 2 ? ((a - b) > -3 ? (a - b) : -3) : a * b + 7;
            EXPECT(to[i * 3] == w0 && to[i * 3 + 1] == w1 && to[i * 3 + 2] == w2,
                   "table pass %d, %d: %d %d %d, expected %d %d %d", pass, i, to[i * 3], to[i * 3 + 1], to[i * 3 + 2], w0, w1, w2);
        }
    }
    CK(cudaFree(arena)); CK(cudaFree(ptrs)); CK(cudaFree(kinds)); CK(cudaFree(areas)); CK(cudaFree(perims));
    CK(cudaFree(desc)); CK(cudaFree(mi)); CK(cudaFree(so)); CK(cudaFree(ho)); CK(cudaFree(ev)); CK(cudaFree(ed)); CK(cudaFree(to));
    return finish();
}
