// The driver's virtual memory management as a growable buffer uses it: reserve a range, back it
// with physical allocations one granule at a time, run a kernel over the whole range, move a
// physical allocation to another address (its contents follow it), release handles while they
// are mapped. Every expectation was checked on an H200 (tools/hw/data/h200-2026-11-26b).
static const char *kName = "drv_vmm";
#include "drv_common.h"
#include <cstring>
#include <vector>

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  std::string ptx = readAll(besideMe("drv_kernels.ptx"));
  CUmodule m;
  CU(cuModuleLoadData(&m, ptx.data()));
  CUfunction saxpy;
  CU(cuModuleGetFunction(&saxpy, m, "saxpy"));

  CUmemAllocationProp prop;
  std::memset(&prop, 0, sizeof prop);
  CUmemGenericAllocationHandle h[3];
  EXPECT(cuMemCreate(&h[0], 2 << 20, &prop, 0) == CUDA_ERROR_INVALID_VALUE, "zeroed property");
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0, rec = 0;
  CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CU(cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  EXPECT(gran == 2u << 20 && rec == 2u << 20, "granularity %zu / %zu", gran, rec);
  EXPECT(cuMemCreate(&h[0], 1, &prop, 0) == CUDA_ERROR_INVALID_VALUE, "a 1-byte allocation");
  for (CUmemGenericAllocationHandle &x : h)
    CU(cuMemCreate(&x, gran, &prop, 0));
  CUmemAllocationProp back;
  CU(cuMemGetAllocationPropertiesFromHandle(&back, h[1]));
  EXPECT(back.type == CU_MEM_ALLOCATION_TYPE_PINNED && back.location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
         back.location.id == 0, "properties from the handle");

  // Reserve room for 4 granules; back the first one and grant access.
  const size_t n1 = gran / sizeof(float); // floats per granule
  CUdeviceptr va = 0;
  CU(cuMemAddressReserve(&va, 4 * gran, 0, 0, 0));
  EXPECT(va % gran == 0, "reservation at %llx", (unsigned long long)va);
  CU(cuMemMap(va, gran, 0, h[0], 0));
  EXPECT(cuMemMap(va, gran, 0, h[1], 0) == CUDA_ERROR_INVALID_VALUE, "mapping over a mapping");
  EXPECT(cuMemsetD8(va, 1, 16) == CUDA_ERROR_INVALID_VALUE, "memset before cuMemSetAccess");
  CUmemAccessDesc acc;
  std::memset(&acc, 0, sizeof acc);
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(va, gran, &acc, 1));
  unsigned long long flags = 0;
  CU(cuMemGetAccess(&flags, &prop.location, va + 100));
  EXPECT(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "access flags %llu", flags);

  // Grow: a second granule right after the first, then one kernel over both (2 granules of y).
  CU(cuMemMap(va + gran, gran, 0, h[1], 0));
  CU(cuMemSetAccess(va + gran, gran, &acc, 1));
  const int n = int(2 * n1);
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = float(i % 1000);
    hy[i] = float(i % 7);
  }
  CUdeviceptr x;
  CU(cuMemAlloc(&x, n * sizeof(float)));
  CU(cuMemcpyHtoD(x, hx.data(), n * sizeof(float)));
  CU(cuMemcpyHtoD(va, hy.data(), n * sizeof(float))); // one copy across both mappings
  float a = 3.0f;
  CUdeviceptr y = va;
  int nn = n;
  void *args[] = {&a, &x, &y, &nn};
  CU(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CU(cuCtxSynchronize());
  std::vector<float> out(n);
  CU(cuMemcpyDtoH(out.data(), va, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    EXPECT(out[i] == 3.0f * hx[i] + hy[i], "saxpy over two mappings [%d] = %f", i, out[i]);
  CUdeviceptr base = 0;
  size_t size = 0;
  CU(cuMemGetAddressRange(&base, &size, va + gran + 8));
  EXPECT(base == va + gran && size == gran, "address range of the second mapping");

  // The handle of a mapped address, retained and released again.
  CUmemGenericAllocationHandle got = 0;
  CU(cuMemRetainAllocationHandle(&got, reinterpret_cast<void *>(va + gran + 64)));
  EXPECT(got == h[1], "retained handle");
  CU(cuMemRelease(got));

  // Move the first granule's physical memory to the end of the range: its contents follow.
  CU(cuMemUnmap(va, gran));
  CU(cuMemMap(va + 3 * gran, gran, 0, h[0], 0));
  CU(cuMemSetAccess(va + 3 * gran, gran, &acc, 1));
  std::vector<float> moved(n1);
  CU(cuMemcpyDtoH(moved.data(), va + 3 * gran, gran));
  for (size_t i = 0; i < n1; ++i)
    EXPECT(moved[i] == out[i], "moved granule [%zu] = %f", i, moved[i]);
  // A third physical allocation where the first was; a released handle stays mapped and usable.
  CU(cuMemMap(va, gran, 0, h[2], 0));
  CU(cuMemSetAccess(va, gran, &acc, 1));
  CU(cuMemsetD32(va, 0x40400000u, n1)); // 3.0f
  CU(cuMemRelease(h[2]));
  float three = 0;
  CU(cuMemcpyDtoH(&three, va + gran - sizeof(float), sizeof three));
  EXPECT(three == 3.0f, "released but mapped: %f", three);
  // A range that is not exactly whole mappings cannot be unmapped.
  EXPECT(cuMemUnmap(va, gran / 2) == CUDA_ERROR_INVALID_VALUE, "unmapping half a mapping");

  CU(cuMemUnmap(va, 2 * gran)); // h[2] and h[1]: two mappings at once
  CU(cuMemUnmap(va + 3 * gran, gran));
  CU(cuMemRelease(h[0]));
  CU(cuMemRelease(h[1]));
  EXPECT(cuMemRelease(h[1]) == CUDA_ERROR_INVALID_VALUE, "a handle released twice");
  CU(cuMemAddressFree(va, 4 * gran));
  CU(cuMemFree(x));
  CU(cuModuleUnload(m));
  CU(cuDevicePrimaryCtxRelease(dev));
  return finish();
}
