// The driver API on its own: a context, modules from PTX text (memory and file) and from a fat
// binary (module and library APIs), globals, launches (kernel parameters, a parameter buffer,
// cuLaunchKernelEx, cooperative), memory in every form, a CUDA array, streams, events,
// occupancy, function attributes, errors and cuGetProcAddress.
static const char *kName = "drv_api";
#include "drv_common.h"
#include <cstring>
#include <vector>

static int hostFnRuns = 0;
static void CUDA_CB hostFn(void *arg) { ++*static_cast<int *>(arg); }

int main() {
  CU(cuInit(0));
  int version = 0, count = 0;
  CU(cuDriverGetVersion(&version));
  EXPECT(version >= 13000, "driver version %d", version);
  CU(cuDeviceGetCount(&count));
  EXPECT(count == 1, "device count %d", count);
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  EXPECT(cuDeviceGet(&dev, 1) == CUDA_ERROR_INVALID_DEVICE, "device 1 exists");
  char name[256] = {};
  CU(cuDeviceGetName(name, sizeof name, dev));
  EXPECT(name[0] != 0, "empty device name");
  int sms = 0, major = 0, warp = 0;
  CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
  EXPECT(sms > 0 && major >= 7 && warp == 32, "sms %d major %d warp %d", sms, major, warp);
  size_t total = 0;
  CU(cuDeviceTotalMem(&total, dev));
  EXPECT(total > 0, "no device memory");

  // Contexts: an explicit one is current after creation; push/pop; the primary is another.
  CUcontext ctx, cur, primary, popped;
  CU(cuCtxCreate(&ctx, nullptr, 0, dev));
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == ctx, "created context not current");
  CU(cuDevicePrimaryCtxRetain(&primary, dev));
  EXPECT(primary != ctx, "primary == explicit context");
  CU(cuCtxPushCurrent(primary));
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == primary, "pushed context not current");
  CU(cuCtxPopCurrent(&popped));
  EXPECT(popped == primary, "popped the wrong context");
  CU(cuCtxGetCurrent(&cur));
  EXPECT(cur == ctx, "pop did not restore");
  CUdevice ctxDev = -1;
  CU(cuCtxGetDevice(&ctxDev));
  EXPECT(ctxDev == 0, "context device %d", ctxDev);
  unsigned api = 0;
  CU(cuCtxGetApiVersion(ctx, &api));
  EXPECT(api >= 3020, "api version %u", api);

  // Errors and entry points.
  const char *s = nullptr;
  CU(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
  EXPECT(std::strcmp(s, "CUDA_ERROR_INVALID_VALUE") == 0, "name %s", s);
  CU(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
  EXPECT(std::strcmp(s, "out of memory") == 0, "string %s", s);
  EXPECT(cuGetErrorName(CUresult(12345), &s) == CUDA_ERROR_INVALID_VALUE, "unknown error named");
  void *fn = nullptr;
  CUdriverProcAddressQueryResult q;
  CU(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &q));
  EXPECT(fn == reinterpret_cast<void *>(&cuMemAlloc_v2) && q == CU_GET_PROC_ADDRESS_SUCCESS,
         "cuMemAlloc at 13.0 is not cuMemAlloc_v2");
  // a symbol the driver lacks (at that version) is not an error: a null pointer and a status
  // that says why (CUDA's documentation, and an H100 with driver 580)
  fn = &fn;
  EXPECT(cuGetProcAddress("cuNoSuchCall", &fn, 13000, 0, &q) == CUDA_SUCCESS && !fn &&
         q == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, "unknown symbol found");
  fn = &fn;
  EXPECT(cuGetProcAddress("cuLaunchKernelEx", &fn, 11000, 0, &q) == CUDA_SUCCESS && !fn &&
         q == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, "cuLaunchKernelEx found for 11.0");
  CU(cuGetProcAddress("cuLaunchKernel", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                      &q));
  EXPECT(fn != nullptr, "no per-thread cuLaunchKernel");

  // Modules from PTX text in memory: functions, a missing one, globals.
  std::string ptx = readAll(besideMe("drv_kernels.ptx"));
  CUmodule m;
  CU(cuModuleLoadData(&m, ptx.data()));
  CUfunction saxpy, scaleConst, mixed, gridTotal, reverse;
  CU(cuModuleGetFunction(&saxpy, m, "saxpy"));
  CU(cuModuleGetFunction(&scaleConst, m, "scaleConst"));
  CU(cuModuleGetFunction(&reverse, m, "_Z12reverseBlockIiEvPT_"));
  CUfunction none;
  EXPECT(cuModuleGetFunction(&none, m, "nope") == CUDA_ERROR_NOT_FOUND, "missing kernel found");
  const char *fname = nullptr;
  CU(cuFuncGetName(&fname, saxpy));
  EXPECT(std::strcmp(fname, "saxpy") == 0, "function name %s", fname);
  CUdeviceptr dScale, dCounter;
  size_t bytes = 0;
  CU(cuModuleGetGlobal(&dScale, &bytes, m, "cScale"));
  EXPECT(bytes == 4, "cScale size %zu", bytes);
  CU(cuModuleGetGlobal(&dCounter, &bytes, m, "gCounter"));
  EXPECT(cuModuleGetGlobal(&dCounter, &bytes, m, "nope") == CUDA_ERROR_NOT_FOUND, "missing global");
  CU(cuModuleGetGlobal(&dCounter, &bytes, m, "gCounter"));

  // Bad images say why.
  CUmodule bad;
  EXPECT(cuModuleLoadData(&bad, ".version 8.0\n.target sm_90\n.address_size 64\nbogus;\n") ==
             CUDA_ERROR_INVALID_PTX, "bad PTX loaded");

  // Memory and a launch with kernel parameters.
  const int n = 1000;
  std::vector<float> hx(n), hy(n), out(n);
  for (int i = 0; i < n; ++i) { hx[i] = float(i); hy[i] = float(2 * i); }
  CUdeviceptr dx, dy;
  CU(cuMemAlloc(&dx, n * sizeof(float)));
  CU(cuMemAlloc(&dy, n * sizeof(float)));
  CU(cuMemcpyHtoD(dx, hx.data(), n * sizeof(float)));
  CU(cuMemcpyHtoD(dy, hy.data(), n * sizeof(float)));
  float a = 3.0f;
  int nn = n;
  void *args[] = {&a, &dx, &dy, &nn};
  CU(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    EXPECT(out[i] == 3.0f * i + 2.0f * i, "saxpy[%d] = %f", i, out[i]);

  // Globals written through their device addresses, then used by a kernel.
  float scale = 0.5f;
  CU(cuMemcpyHtoD(dScale, &scale, sizeof scale));
  CU(cuMemsetD32(dCounter, 0, 1));
  void *args2[] = {&dy, &nn};
  CU(cuLaunchKernel(scaleConst, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, args2, nullptr));
  std::vector<float> out2(n);
  CU(cuMemcpyDtoH(out2.data(), dy, n * sizeof(float)));
  int counter = 0;
  CU(cuMemcpyDtoH(&counter, dCounter, sizeof counter));
  EXPECT(counter == n, "gCounter %d", counter);
  for (int i = 0; i < n; ++i)
    EXPECT(out2[i] == out[i] * 0.5f * float(i % 4 + 1), "scaleConst[%d] = %f", i, out2[i]);

  // Dynamic shared memory on a mangled template kernel.
  std::vector<int> hv(256), rv(256);
  for (int i = 0; i < 256; ++i) hv[i] = i * 7;
  CUdeviceptr dv;
  CU(cuMemAlloc(&dv, 256 * sizeof(int)));
  CU(cuMemcpyHtoD(dv, hv.data(), 256 * sizeof(int)));
  void *args3[] = {&dv};
  CU(cuLaunchKernel(reverse, 2, 1, 1, 128, 1, 1, 128 * sizeof(int), nullptr, args3, nullptr));
  CU(cuMemcpyDtoH(rv.data(), dv, 256 * sizeof(int)));
  for (int i = 0; i < 256; ++i)
    EXPECT(rv[i] == hv[(i / 128) * 128 + 127 - i % 128], "reverse[%d] = %d", i, rv[i]);

  // A fat binary through the library API; a parameter buffer; cuLaunchKernelEx; cooperative.
  std::string fatbin = readAll(besideMe("drv_kernels.fatbin"));
  CUlibrary lib;
  CU(cuLibraryLoadData(&lib, fatbin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kMixed, kGrid;
  CU(cuLibraryGetKernel(&kMixed, lib, "mixedParams"));
  CU(cuLibraryGetKernel(&kGrid, lib, "gridTotal"));
  CU(cuKernelGetFunction(&mixed, kMixed));
  CU(cuKernelGetFunction(&gridTotal, kGrid));
  size_t off = 0, psize = 0;
  CU(cuFuncGetParamInfo(mixed, 1, &off, &psize));
  EXPECT(off == 8 && psize == 8, "param 1 at %zu size %zu", off, psize);
  CUdeviceptr dOut;
  CU(cuMemAlloc(&dOut, 8 * sizeof(int)));
  struct { char c; char pad0[7]; double d; short s; char pad1[6]; long long q; CUdeviceptr out; } pb;
  std::memset(&pb, 0, sizeof pb);
  pb.c = 'x'; pb.d = 2.5; pb.s = -7; pb.q = (5ll << 32) | 9; pb.out = dOut;
  size_t pbSize = sizeof pb;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &pb, CU_LAUNCH_PARAM_BUFFER_SIZE, &pbSize,
                   CU_LAUNCH_PARAM_END};
  CU(cuLaunchKernel(mixed, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra));
  int mo[5] = {};
  CU(cuMemcpyDtoH(mo, dOut, sizeof mo));
  EXPECT(mo[0] == 'x' && mo[1] == 10 && mo[2] == -7 && mo[3] == 5 && mo[4] == 9,
         "mixedParams %d %d %d %d %d", mo[0], mo[1], mo[2], mo[3], mo[4]);
  CUdeviceptr dPartial;
  CU(cuMemAlloc(&dPartial, 64 * sizeof(int)));
  void *args4[] = {&dPartial, &dOut};
  CU(cuLaunchCooperativeKernel(gridTotal, 8, 1, 1, 64, 1, 1, 0, nullptr, args4));
  int totalBlocks = 0;
  CU(cuMemcpyDtoH(&totalBlocks, dOut, sizeof totalBlocks));
  EXPECT(totalBlocks == 36, "cooperative total %d", totalBlocks);
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attr.value.cooperative = 1;
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.gridDimX = 6; cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 32; cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CU(cuLaunchKernelEx(&cfg, gridTotal, args4, nullptr));
  CU(cuMemcpyDtoH(&totalBlocks, dOut, sizeof totalBlocks));
  EXPECT(totalBlocks == 21, "cuLaunchKernelEx total %d", totalBlocks);

  // A module from a file, with JIT options (logs come back empty).
  CUmodule fm;
  CU(cuModuleLoad(&fm, besideMe("drv_kernels.ptx").c_str()));
  CUfunction saxpy2;
  CU(cuModuleGetFunction(&saxpy2, fm, "saxpy"));
  EXPECT(cuModuleLoad(&fm, "/nonexistent.ptx") == CUDA_ERROR_FILE_NOT_FOUND, "missing file");
  char log[64] = "junk";
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {log, reinterpret_cast<void *>(sizeof log)};
  CUmodule em;
  CU(cuModuleLoadDataEx(&em, ptx.data(), 2, opts, vals));
  EXPECT(log[0] == 0, "error log not emptied");

  // Function attributes and occupancy.
  int regs = -1, maxThreads = 0, blocks = 0, minGrid = 0, blockSize = 0;
  CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, saxpy));
  CU(cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, saxpy));
  EXPECT(regs > 0 && maxThreads == 1024, "regs %d maxThreads %d", regs, maxThreads);
  CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 128, 0));
  EXPECT(blocks > 0, "occupancy %d", blocks);
  CU(cuOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, saxpy, nullptr, 0, 0));
  EXPECT(blockSize > 0 && blockSize % 32 == 0 && minGrid >= sms, "block %d grid %d", blockSize, minGrid);
  CU(cuFuncSetAttribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
  int dyn = 0;
  CU(cuFuncGetAttribute(&dyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, reverse));
  EXPECT(dyn == 64 * 1024, "max dynamic shared %d", dyn);

  // Memsets of every width, 2D copies and sets, pitched memory, ranges and pointer attributes.
  CUdeviceptr d8;
  CU(cuMemAlloc(&d8, 64));
  CU(cuMemsetD8(d8, 0xab, 64));
  CU(cuMemsetD16(d8 + 16, 0x1234, 8));
  CU(cuMemsetD32(d8 + 32, 0xdeadbeef, 4));
  unsigned char h8[64];
  CU(cuMemcpyDtoH(h8, d8, 64));
  EXPECT(h8[0] == 0xab && h8[16] == 0x34 && h8[17] == 0x12 && h8[32] == 0xef && h8[35] == 0xde &&
         h8[48] == 0xab, "memsets %x %x %x %x", h8[0], h8[16], h8[32], h8[48]);
  EXPECT(cuMemsetD32(d8 + 60, 0, 2) == CUDA_ERROR_INVALID_VALUE, "memset past the end");
  CUdeviceptr base = 0;
  size_t rsize = 0;
  CU(cuMemGetAddressRange(&base, &rsize, d8 + 10));
  EXPECT(base == d8 && rsize == 64, "range %zu", rsize);
  unsigned memType = 0;
  CU(cuPointerGetAttribute(&memType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d8));
  EXPECT(memType == CU_MEMORYTYPE_DEVICE, "memory type %u", memType);
  size_t pitch = 0;
  CUdeviceptr dp;
  CU(cuMemAllocPitch(&dp, &pitch, 10 * sizeof(int), 6, 4));
  EXPECT(pitch >= 40, "pitch %zu", pitch);
  CU(cuMemsetD2D32(dp, pitch, 7, 10, 6));
  int grid2[6][10];
  CUDA_MEMCPY2D c2;
  std::memset(&c2, 0, sizeof c2);
  c2.srcMemoryType = CU_MEMORYTYPE_DEVICE; c2.srcDevice = dp; c2.srcPitch = pitch;
  c2.srcXInBytes = 4; c2.srcY = 1;
  c2.dstMemoryType = CU_MEMORYTYPE_HOST; c2.dstHost = grid2; c2.dstPitch = sizeof grid2[0];
  c2.WidthInBytes = 9 * sizeof(int); c2.Height = 5;
  std::memset(grid2, 0, sizeof grid2);
  CU(cuMemcpy2D(&c2));
  EXPECT(grid2[0][0] == 7 && grid2[4][8] == 7 && grid2[0][9] == 0 && grid2[5][0] == 0,
         "2D copy %d %d %d %d", grid2[0][0], grid2[4][8], grid2[0][9], grid2[5][0]);
  CU(cuMemcpyDtoD(dx, dy, n * sizeof(float)));
  std::vector<float> out3(n);
  CU(cuMemcpy(reinterpret_cast<CUdeviceptr>(out3.data()), dx, n * sizeof(float)));
  EXPECT(out3[5] == out2[5], "DtoD/unified copy");

  // Pinned, mapped and managed memory used by a kernel.
  float *pinned = nullptr, *managedHost = nullptr;
  CU(cuMemHostAlloc(reinterpret_cast<void **>(&pinned), n * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr dPinned;
  CU(cuMemHostGetDevicePointer(&dPinned, pinned, 0));
  CUdeviceptr dManaged;
  CU(cuMemAllocManaged(&dManaged, n * sizeof(float), CU_MEM_ATTACH_GLOBAL));
  managedHost = reinterpret_cast<float *>(dManaged);
  for (int i = 0; i < n; ++i) { pinned[i] = 1.0f; managedHost[i] = float(i); }
  void *args5[] = {&a, &dPinned, &dManaged, &nn};
  CU(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args5, nullptr));
  CU(cuCtxSynchronize());
  EXPECT(managedHost[10] == 13.0f, "managed saxpy %f", managedHost[10]);
  size_t freeB = 0, totalB = 0;
  CU(cuMemGetInfo(&freeB, &totalB));
  EXPECT(freeB > 0 && freeB <= totalB, "mem info");

  // Streams, events, host functions and callbacks.
  CUstream st;
  CU(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
  CUevent e0, e1;
  CU(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  CU(cuEventRecord(e0, st));
  CU(cuMemcpyHtoDAsync(dy, hy.data(), n * sizeof(float), st));
  CU(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, st, args, nullptr));
  CU(cuLaunchHostFunc(st, hostFn, &hostFnRuns));
  CU(cuEventRecord(e1, st));
  CU(cuStreamWaitEvent(nullptr, e1, 0));
  CU(cuMemcpyDtoHAsync(out.data(), dy, n * sizeof(float), st));
  CU(cuStreamSynchronize(st));
  CU(cuEventSynchronize(e1));
  float ms = -1;
  CU(cuEventElapsedTime(&ms, e0, e1));
  EXPECT(ms >= 0, "elapsed %f", ms);
  EXPECT(cuStreamQuery(st) == CUDA_SUCCESS && cuEventQuery(e1) == CUDA_SUCCESS, "not idle");
  EXPECT(hostFnRuns == 1, "host function ran %d times", hostFnRuns);
  for (int i = 0; i < n; ++i) // dx holds out3 since the device-to-device copy
    EXPECT(out[i] == 3.0f * out3[i] + hy[i], "stream saxpy[%d] %f", i, out[i]);
  unsigned long long sid = 0;
  CU(cuStreamGetId(st, &sid));
  CU(cuEventDestroy(e0));
  CU(cuEventDestroy(e1));
  CU(cuStreamDestroy(st));

  // A CUDA array: descriptor round trip, a 2D copy in and a 1D copy out.
  CUarray arr;
  CUDA_ARRAY_DESCRIPTOR ad;
  std::memset(&ad, 0, sizeof ad);
  ad.Width = 4; ad.Height = 4; ad.Format = CU_AD_FORMAT_FLOAT; ad.NumChannels = 1;
  CU(cuArrayCreate(&arr, &ad));
  CUDA_ARRAY_DESCRIPTOR back;
  CU(cuArrayGetDescriptor(&back, arr));
  EXPECT(back.Width == 4 && back.Height == 4 && back.Format == CU_AD_FORMAT_FLOAT &&
         back.NumChannels == 1, "array descriptor");
  float tile[4][4], row[4] = {};
  for (int i = 0; i < 16; ++i) tile[i / 4][i % 4] = float(i);
  CUDA_MEMCPY2D ca;
  std::memset(&ca, 0, sizeof ca);
  ca.srcMemoryType = CU_MEMORYTYPE_HOST; ca.srcHost = tile; ca.srcPitch = sizeof tile[0];
  ca.dstMemoryType = CU_MEMORYTYPE_ARRAY; ca.dstArray = arr;
  ca.WidthInBytes = sizeof tile[0]; ca.Height = 4;
  CU(cuMemcpy2D(&ca));
  CU(cuMemcpyAtoH(row, arr, 0, sizeof row));
  EXPECT(row[0] == 0.0f && row[3] == 3.0f, "array row %f %f", row[0], row[3]);
  CU(cuArrayDestroy(arr));

  // Virtual memory management: an allocation property with no type or location is refused (as
  // on an H200); the rest of the VMM API is tested in drv_vmm.cpp.
  CUmemGenericAllocationHandle vmm;
  CUmemAllocationProp prop;
  std::memset(&prop, 0, sizeof prop);
  CUresult cr = cuMemCreate(&vmm, 1 << 21, &prop, 0);
  EXPECT(cr == CUDA_ERROR_INVALID_VALUE, "cuMemCreate with a zeroed property: %d", int(cr));

  CU(cuMemFree(dx));
  CU(cuMemFree(dy));
  CU(cuMemFreeHost(pinned));
  CU(cuMemFree(dManaged));
  CU(cuModuleUnload(m));
  EXPECT(cuModuleGetFunction(&none, m, "saxpy") == CUDA_ERROR_INVALID_HANDLE, "unloaded module");
  CU(cuLibraryUnload(lib));
  CU(cuDevicePrimaryCtxRelease(dev));
  CU(cuCtxDestroy(ctx));
  return finish();
}
