// NVRTC flow: CUDA C++ compiled to PTX at run time by the toolkit's libnvrtc, the PTX loaded with
// cuModuleLoadDataEx and launched (a template instantiated by name expression, a __constant__
// set through cuModuleGetGlobal). A second module is PTX text the program writes itself.
static const char *kName = "drv_nvrtc";
#include "drv_common.h"
#include <nvrtc.h>
#include <cstring>
#include <string>
#include <vector>

#define NV(call) do { nvrtcResult r_ = (call); if (r_ != NVRTC_SUCCESS) { \
    printf("nvrtc error '%s': %s\nFAIL %s\n", #call, nvrtcGetErrorString(r_), kName); exit(1); } } while (0)

static const char *kSource = R"(
__constant__ int cOffset;
template <typename T> __global__ void axpb(T a, const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + T(cOffset);
}
)";

int main() {
  nvrtcProgram prog;
  NV(nvrtcCreateProgram(&prog, kSource, "axpb.cu", 0, nullptr, nullptr));
  NV(nvrtcAddNameExpression(prog, "axpb<int>"));
  NV(nvrtcAddNameExpression(prog, "axpb<double>"));
  const char *opts[] = {"--gpu-architecture=compute_80", "-default-device"};
  nvrtcResult cr = nvrtcCompileProgram(prog, 2, opts);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  if (cr != NVRTC_SUCCESS) {
    std::string log(logSize, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    printf("compile failed:\n%s\nFAIL %s\n", log.c_str(), kName);
    return 1;
  }
  size_t ptxSize = 0;
  NV(nvrtcGetPTXSize(prog, &ptxSize));
  std::string ptx(ptxSize, '\0');
  NV(nvrtcGetPTX(prog, &ptx[0]));
  const char *intName = nullptr, *dblName = nullptr;
  NV(nvrtcGetLoweredName(prog, "axpb<int>", &intName));
  NV(nvrtcGetLoweredName(prog, "axpb<double>", &dblName));
  std::string intKernel = intName, dblKernel = dblName; // valid until the program is destroyed

  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUmodule m;
  CU(cuModuleLoadDataEx(&m, ptx.c_str(), 0, nullptr, nullptr));
  NV(nvrtcDestroyProgram(&prog));
  CUfunction fInt, fDbl;
  CU(cuModuleGetFunction(&fInt, m, intKernel.c_str()));
  CU(cuModuleGetFunction(&fDbl, m, dblKernel.c_str()));
  CUdeviceptr dOffset;
  size_t sz;
  CU(cuModuleGetGlobal(&dOffset, &sz, m, "cOffset"));
  int offset = 5;
  CU(cuMemcpyHtoD(dOffset, &offset, sizeof offset));

  const int n = 300;
  std::vector<int> xi(n), yi(n);
  std::vector<double> xd(n), yd(n);
  for (int i = 0; i < n; ++i) { xi[i] = i; xd[i] = i * 0.25; }
  CUdeviceptr dxi, dyi, dxd, dyd;
  CU(cuMemAlloc(&dxi, n * sizeof(int)));
  CU(cuMemAlloc(&dyi, n * sizeof(int)));
  CU(cuMemAlloc(&dxd, n * sizeof(double)));
  CU(cuMemAlloc(&dyd, n * sizeof(double)));
  CU(cuMemcpyHtoD(dxi, xi.data(), n * sizeof(int)));
  CU(cuMemcpyHtoD(dxd, xd.data(), n * sizeof(double)));
  int ai = 3, nn = n;
  double ad = 1.5;
  void *argsI[] = {&ai, &dxi, &dyi, &nn};
  void *argsD[] = {&ad, &dxd, &dyd, &nn};
  CU(cuLaunchKernel(fInt, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, argsI, nullptr));
  CU(cuLaunchKernel(fDbl, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, argsD, nullptr));
  CU(cuMemcpyDtoH(yi.data(), dyi, n * sizeof(int)));
  CU(cuMemcpyDtoH(yd.data(), dyd, n * sizeof(double)));
  for (int i = 0; i < n; ++i) {
    EXPECT(yi[i] == 3 * i + 5, "int[%d] = %d", i, yi[i]);
    EXPECT(yd[i] == 1.5 * i * 0.25 + 5, "double[%d] = %f", i, yd[i]);
  }

  // PTX text written by the program at run time: y[i] = i * k, k chosen now.
  int k = 11;
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry fill(.param .u64 y, .param .u32 n)\n{\n"
                     "  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p;\n"
                     "  ld.param.u64 %rd1, [y];\n  ld.param.u32 %r1, [n];\n"
                     "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
                     "  mad.lo.s32 %r2, %r2, %r3, %r4;\n  setp.ge.s32 %p, %r2, %r1;\n"
                     "  @%p bra DONE;\n"
                     "  mul.lo.s32 %r5, %r2, " + std::to_string(k) + ";\n"
                     "  cvta.to.global.u64 %rd1, %rd1;\n  mul.wide.s32 %rd2, %r2, 4;\n"
                     "  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r5;\n"
                     "DONE:\n  ret;\n}\n";
  CUmodule m2;
  CU(cuModuleLoadData(&m2, text.c_str()));
  CUfunction fill;
  CU(cuModuleGetFunction(&fill, m2, "fill"));
  void *argsF[] = {&dyi, &nn};
  CU(cuLaunchKernel(fill, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, argsF, nullptr));
  CU(cuMemcpyDtoH(yi.data(), dyi, n * sizeof(int)));
  for (int i = 0; i < n; ++i)
    EXPECT(yi[i] == i * k, "fill[%d] = %d", i, yi[i]);

  CU(cuModuleUnload(m));
  CU(cuModuleUnload(m2));
  CU(cuDevicePrimaryCtxRelease(dev));
  return finish();
}
