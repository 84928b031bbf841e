// spu.h: CUDA intrinsics for ptxsim's Stencil Processing Unit extension (docs/spu.md).
//
// Each intrinsic is one inline-asm PTX instruction of the SPU extension, so an SPU kernel is
// ordinary CUDA. ptxas does not know these instructions: build SPU programs with PTX only, for
// example `nvcc -cudart shared -gencode arch=compute_75,code=compute_75 -I isa_ext/spu/include`,
// and run them under ptxsim with the SPU enabled (configs/spu-gtx480.config in timing mode, or
// PTXSIM_SPU=1 in functional mode). On a GPU without an SPU every intrinsic faults.
//
// Communication buffers (CBs) are addressed in bytes from 0, like shared memory; an access must
// be aligned to its size. A unit reads its north and west CBs and writes its south and east
// CBs; what is written during time step t is read by the neighbour during step t+1. A time step
// ends at spu_block_sync(), which every thread of every running unit (SMs and IUs) calls the same
// number of times, or leaves by exiting.
#pragma once

#ifdef __CUDACC__

/// Roles (%spu_role) and IU directions (%spu_dir), in the report's order.
enum SpuRole : unsigned { SPU_SM = 0, SPU_IU = 1, SPU_VIU = 2 };
enum SpuDir : unsigned { SPU_NORTH = 0, SPU_EAST = 1, SPU_WEST = 2, SPU_SOUTH = 3 };

#define SPU_SREG_(name)                                                                            \
  __device__ __forceinline__ unsigned spu_##name() {                                              \
    unsigned v;                                                                                    \
    asm volatile("mov.u32 %0, %%spu_" #name ";" : "=r"(v));                                        \
    return v;                                                                                      \
  }
SPU_SREG_(role)     ///< SPU_SM, SPU_IU (SPU_VIU units run the simulator's code, never yours)
SPU_SREG_(dir)      ///< an IU's side: SPU_NORTH, SPU_EAST, SPU_WEST or SPU_SOUTH
SPU_SREG_(id)       ///< an IU's id: the block column (north/south) or row (east/west) it serves
SPU_SREG_(pass)     ///< the pass number k of figure 5
SPU_SREG_(i)        ///< row of the block in its pass
SPU_SREG_(j)        ///< column of the block in its pass
SPU_SREG_(step)     ///< time step: block synchronizations completed in this pass
SPU_SREG_(last)     ///< 1 once every block of the pass has finished (LAST)
SPU_SREG_(regstart) ///< 1 once data has started to flow in this pass (regstart)
SPU_SREG_(rows)     ///< SM grid rows
SPU_SREG_(cols)     ///< SM grid columns
#undef SPU_SREG_

/// SM-wide barrier, then SPU-wide barrier: the end of a time step (CBs switch halves).
__device__ __forceinline__ void spu_block_sync() { asm volatile("spu.sync;" ::: "memory"); }

namespace spu_detail {
template <class T> struct Cb;
#define SPU_CB_SCALAR_(T, ptx, cons)                                                               \
  template <> struct Cb<T> {                                                                       \
    __device__ __forceinline__ static T north(unsigned off) {                                      \
      T v;                                                                                         \
      asm volatile("ld.cb.north." ptx " %0, [%1];" : "=" cons(v) : "r"(off) : "memory");           \
      return v;                                                                                    \
    }                                                                                              \
    __device__ __forceinline__ static T west(unsigned off) {                                       \
      T v;                                                                                         \
      asm volatile("ld.cb.west." ptx " %0, [%1];" : "=" cons(v) : "r"(off) : "memory");            \
      return v;                                                                                    \
    }                                                                                              \
    __device__ __forceinline__ static void south(unsigned off, T v) {                              \
      asm volatile("st.cb.south." ptx " [%0], %1;" ::"r"(off), cons(v) : "memory");                \
    }                                                                                              \
    __device__ __forceinline__ static void east(unsigned off, T v) {                               \
      asm volatile("st.cb.east." ptx " [%0], %1;" ::"r"(off), cons(v) : "memory");                 \
    }                                                                                              \
  };
SPU_CB_SCALAR_(float, "f32", "f")
SPU_CB_SCALAR_(double, "f64", "d")
SPU_CB_SCALAR_(int, "s32", "r")
SPU_CB_SCALAR_(unsigned, "u32", "r")
SPU_CB_SCALAR_(long long, "s64", "l")
SPU_CB_SCALAR_(unsigned long long, "u64", "l")
#undef SPU_CB_SCALAR_

#define SPU_CB_VEC2_(T, ptx, cons)                                                                 \
  template <> struct Cb<T> {                                                                       \
    __device__ __forceinline__ static T north(unsigned off) {                                      \
      T v;                                                                                         \
      asm volatile("ld.cb.north.v2." ptx " {%0, %1}, [%2];"                                        \
                   : "=" cons(v.x), "=" cons(v.y) : "r"(off) : "memory");                          \
      return v;                                                                                    \
    }                                                                                              \
    __device__ __forceinline__ static T west(unsigned off) {                                       \
      T v;                                                                                         \
      asm volatile("ld.cb.west.v2." ptx " {%0, %1}, [%2];"                                         \
                   : "=" cons(v.x), "=" cons(v.y) : "r"(off) : "memory");                          \
      return v;                                                                                    \
    }                                                                                              \
    __device__ __forceinline__ static void south(unsigned off, T v) {                              \
      asm volatile("st.cb.south.v2." ptx " [%0], {%1, %2};" ::"r"(off), cons(v.x), cons(v.y)       \
                   : "memory");                                                                    \
    }                                                                                              \
    __device__ __forceinline__ static void east(unsigned off, T v) {                               \
      asm volatile("st.cb.east.v2." ptx " [%0], {%1, %2};" ::"r"(off), cons(v.x), cons(v.y)        \
                   : "memory");                                                                    \
    }                                                                                              \
  };
#define SPU_CB_VEC4_(T, ptx, cons)                                                                 \
  template <> struct Cb<T> {                                                                       \
    __device__ __forceinline__ static T north(unsigned off) {                                      \
      T v;                                                                                         \
      asm volatile("ld.cb.north.v4." ptx " {%0, %1, %2, %3}, [%4];"                                \
                   : "=" cons(v.x), "=" cons(v.y), "=" cons(v.z), "=" cons(v.w)                    \
                   : "r"(off) : "memory");                                                         \
      return v;                                                                                    \
    }                                                                                              \
    __device__ __forceinline__ static T west(unsigned off) {                                       \
      T v;                                                                                         \
      asm volatile("ld.cb.west.v4." ptx " {%0, %1, %2, %3}, [%4];"                                 \
                   : "=" cons(v.x), "=" cons(v.y), "=" cons(v.z), "=" cons(v.w)                    \
                   : "r"(off) : "memory");                                                         \
      return v;                                                                                    \
    }                                                                                              \
    __device__ __forceinline__ static void south(unsigned off, T v) {                              \
      asm volatile("st.cb.south.v4." ptx " [%0], {%1, %2, %3, %4};"                                \
                   ::"r"(off), cons(v.x), cons(v.y), cons(v.z), cons(v.w) : "memory");             \
    }                                                                                              \
    __device__ __forceinline__ static void east(unsigned off, T v) {                               \
      asm volatile("st.cb.east.v4." ptx " [%0], {%1, %2, %3, %4};"                                 \
                   ::"r"(off), cons(v.x), cons(v.y), cons(v.z), cons(v.w) : "memory");             \
    }                                                                                              \
  };
// vectors: one instruction per access, aligned to the whole vector (8 or 16 bytes)
SPU_CB_VEC2_(float2, "f32", "f")
SPU_CB_VEC2_(int2, "s32", "r")
SPU_CB_VEC2_(uint2, "u32", "r")
SPU_CB_VEC2_(double2, "f64", "d")
SPU_CB_VEC2_(longlong2, "s64", "l")
SPU_CB_VEC2_(ulonglong2, "u64", "l")
SPU_CB_VEC4_(float4, "f32", "f")
SPU_CB_VEC4_(int4, "s32", "r")
SPU_CB_VEC4_(uint4, "u32", "r")
#undef SPU_CB_VEC2_
#undef SPU_CB_VEC4_
} // namespace spu_detail

/// Reads a T at byte `offset` of the north (west) CB: what the neighbour wrote last time step.
/// T is float, double, int, unsigned, long long, unsigned long long, or one of the vectors
/// float2, float4, int2, int4, uint2, uint4, double2, longlong2, ulonglong2 (one vector access:
/// `offset` must be a multiple of sizeof(T)). Another T does not compile (Cb<T> is undefined).
template <class T> __device__ __forceinline__ T spu_cb_load_north(unsigned offset) {
  return spu_detail::Cb<T>::north(offset);
}
template <class T> __device__ __forceinline__ T spu_cb_load_west(unsigned offset) {
  return spu_detail::Cb<T>::west(offset);
}
/// Writes a T at byte `offset` of the south (east) CB, for the neighbour's next time step.
template <class T> __device__ __forceinline__ void spu_cb_store_south(unsigned offset, T v) {
  spu_detail::Cb<T>::south(offset, v);
}
template <class T> __device__ __forceinline__ void spu_cb_store_east(unsigned offset, T v) {
  spu_detail::Cb<T>::east(offset, v);
}

#endif // __CUDACC__
