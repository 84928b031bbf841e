// tests/kernels/01_vecadd.cu as a driver-API program: the same kernels (its fat binary, built with
// `nvcc -fatbin`), the same data, allocations, copies and launches in the same order, through
// cuLibraryLoadData and cuLaunchKernel. Prints PASS vecadd like the runtime version, and
// simulates the same cycles (ctest e2e_driver_same_cycles_vecadd).
static const char *kName = "vecadd";
#include "drv_common.h"
#include <vector>

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  std::string fatbin = readAll(besideMe("vecadd_kernels.fatbin"));
  CUlibrary lib;
  CU(cuLibraryLoadData(&lib, fatbin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));

  const int n = 3000;
  std::vector<float> ha(n), hb(n), hc(n);
  std::vector<int> ia(n), ib(n), ic(n);
  for (int i = 0; i < n; ++i) {
    ha[i] = i * 0.5f; hb[i] = 1000.0f - i * 0.25f;
    ia[i] = i * 3 - 700; ib[i] = -(i * i) % 1013;
  }
  CUdeviceptr da, db, dc, dia, dib, dic;
  CU(cuMemAlloc(&da, n * sizeof(float))); CU(cuMemAlloc(&db, n * sizeof(float)));
  CU(cuMemAlloc(&dc, n * sizeof(float)));
  CU(cuMemAlloc(&dia, n * sizeof(int))); CU(cuMemAlloc(&dib, n * sizeof(int)));
  CU(cuMemAlloc(&dic, n * sizeof(int)));
  CU(cuMemcpyHtoD(da, ha.data(), n * sizeof(float)));
  CU(cuMemcpyHtoD(db, hb.data(), n * sizeof(float)));
  CU(cuMemcpyHtoD(dia, ia.data(), n * sizeof(int)));
  CU(cuMemcpyHtoD(dib, ib.data(), n * sizeof(int)));
  CU(cuMemsetD8(dc, 0, n * sizeof(float)));
  CUkernel kf, ki;
  CU(cuLibraryGetKernel(&kf, lib, "_Z10vecadd_f32PKfS0_Pfi"));
  CU(cuLibraryGetKernel(&ki, lib, "_Z21vecadd_i32_gridstridePKiS0_Pii"));
  CUfunction ff, fi;
  CU(cuKernelGetFunction(&ff, kf));
  CU(cuKernelGetFunction(&fi, ki));
  int nn = n, block = 128, grid = (n + block - 1) / block;
  void *argsF[] = {&da, &db, &dc, &nn};
  CU(cuLaunchKernel(ff, grid, 1, 1, block, 1, 1, 0, nullptr, argsF, nullptr));
  void *argsI[] = {&dia, &dib, &dic, &nn};
  CU(cuLaunchKernel(fi, 5, 1, 1, 96, 1, 1, 0, nullptr, argsI, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(hc.data(), dc, n * sizeof(float)));
  CU(cuMemcpyDtoH(ic.data(), dic, n * sizeof(int)));
  for (int i = 0; i < n; ++i) {
    EXPECT(hc[i] == ha[i] + hb[i], "f32 c[%d]=%f", i, hc[i]);
    EXPECT(ic[i] == ia[i] + ib[i], "i32 c[%d]=%d", i, ic[i]);
  }
  CU(cuMemFree(da)); CU(cuMemFree(db)); CU(cuMemFree(dc));
  CU(cuMemFree(dia)); CU(cuMemFree(dib)); CU(cuMemFree(dic));
  CU(cuLibraryUnload(lib));
  CU(cuDevicePrimaryCtxRelease(dev));
  return finish();
}
