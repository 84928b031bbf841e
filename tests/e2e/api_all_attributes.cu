// ptxsim e2e: every cudaDeviceAttr answers (cudaSuccess), consistently with
// cudaGetDeviceProperties where the properties hold the same fact.
static const char *kName = "api_all_attributes";
#include "../kernels/test_common.h"

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int answered = 0;
  for (int a = 1; a <= 150; ++a) {
    int v = -12345;
    cudaError_t e = cudaDeviceGetAttribute(&v, (cudaDeviceAttr)a, 0);
    if (e == cudaSuccess)
      ++answered;
    else
      cudaGetLastError();
  }
  EXPECT(answered >= 137, "only %d attributes answered", answered);
  struct { cudaDeviceAttr a; long long want; const char *what; } checks[] = {
      {cudaDevAttrMaxTexture1DWidth, p.maxTexture1D, "maxTexture1D"},
      {cudaDevAttrMaxTexture2DWidth, p.maxTexture2D[0], "maxTexture2D[0]"},
      {cudaDevAttrMaxTexture2DHeight, p.maxTexture2D[1], "maxTexture2D[1]"},
      {cudaDevAttrMaxTexture3DDepth, p.maxTexture3D[2], "maxTexture3D[2]"},
      {cudaDevAttrMaxSurface2DLayeredLayers, p.maxSurface2DLayered[2], "maxSurface2DLayered[2]"},
      {cudaDevAttrSurfaceAlignment, (long long)p.surfaceAlignment, "surfaceAlignment"},
      {cudaDevAttrTexturePitchAlignment, (long long)p.texturePitchAlignment, "texturePitchAlignment"},
      {cudaDevAttrPciBusId, p.pciBusID, "pciBusID"},
      {cudaDevAttrHostRegisterSupported, p.hostRegisterSupported, "hostRegisterSupported"},
      {cudaDevAttrMemoryPoolsSupported, p.memoryPoolsSupported, "memoryPoolsSupported"},
      {cudaDevAttrMultiProcessorCount, p.multiProcessorCount, "multiProcessorCount"},
      {cudaDevAttrL2CacheSize, p.l2CacheSize, "l2CacheSize"},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor, (long long)p.sharedMemPerMultiprocessor, "sharedMemPerMultiprocessor"},
      {cudaDevAttrCooperativeLaunch, p.cooperativeLaunch, "cooperativeLaunch"},
      {cudaDevAttrClusterLaunch, p.clusterLaunch, "clusterLaunch"},
  };
  for (auto &c : checks) {
    int v = -1;
    CK(cudaDeviceGetAttribute(&v, c.a, 0));
    EXPECT(v == c.want, "attribute for %s is %d, properties say %lld", c.what, v, c.want);
  }
  EXPECT(p.maxTexture2D[0] > 0 && p.maxSurface3D[2] > 0, "texture/surface limits are filled in");
  return finish();
}
