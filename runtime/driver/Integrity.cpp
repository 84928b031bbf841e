// The runtime's integrity check of the driver (private export table d4082055-...): NVIDIA's
// static runtime sends a version and the time, and expects a keyed hash over the process, the
// thread, the addresses of two driver tables and every device's UUID and PCI location. The
// hash is HMAC over MD2 (RFC 1319; 16-byte blocks, so a 16-byte key block) with a fixed key.

#include "runtime/driver/DriverApi.h"
#include "runtime/driver/Md2.h"

#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

namespace ptxsim::driver {
namespace {

const uint8_t kKey[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                          0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};

/// What the hash covers, in this layout.
struct Message {
  uint32_t driverVersion, version, pid, tid;
  const void *runtimeTable, *integrityTable, *function;
  uint64_t unixSeconds;
};
struct DeviceIdentity {
  uint8_t uuid[16];
  int32_t pciDomain, pciBus, pciDevice;
};

} // namespace

CUresult integrityCheck(const void *runtimeTable, const void *integrityTable, const void *function,
                        uint32_t version, uint64_t unixSeconds, uint64_t result[2]) {
  // Versions ending in 0 or 1 expect fixed answers.
  if (version % 10 == 0 || version % 10 == 1) {
    result[0] = version % 10 == 0 ? 0x3341181c03cb675cull : 0x1841181c03cb675cull;
    result[1] = 0x8ed383aa1f4cd1e8ull;
    return CUDA_SUCCESS;
  }
  int driver = 0;
  cuDriverGetVersion(&driver);
  Message m{uint32_t(driver),  version,        uint32_t(getpid()), uint32_t(pthread_self()),
            runtimeTable,      integrityTable, function,           unixSeconds};
  Md2 inner;
  inner.update(kKey, 16, 0x36);
  inner.update(&m, sizeof m);
  int devices = 0;
  cuDeviceGetCount(&devices);
  for (int d = 0; d < devices; ++d) {
    DeviceIdentity id{};
    CUuuid uuid;
    cuDeviceGetUuid_v2(&uuid, d);
    std::memcpy(id.uuid, uuid.bytes, 16);
    cuDeviceGetAttribute(&id.pciDomain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d);
    cuDeviceGetAttribute(&id.pciBus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d);
    cuDeviceGetAttribute(&id.pciDevice, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d);
    inner.update(&id, sizeof id);
  }
  uint8_t innerHash[16];
  inner.finish(innerHash);
  Md2 outer;
  outer.update(kKey, 16, 0x5c);
  outer.update(innerHash, 16);
  uint8_t out[16];
  outer.finish(out);
  std::memcpy(result, out, 16);
  return CUDA_SUCCESS;
}

} // namespace ptxsim::driver
