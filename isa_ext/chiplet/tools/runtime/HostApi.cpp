// The process's endpoint (created from the environment when the library loads, finished when
// the process exits) and the C host API on top of it.

#include "isa_ext/chiplet/tools/runtime/Endpoint.h"
#include "isa_ext/chiplet/include/ptxsim_chiplet_host.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

namespace ptxsim::chiplet {
namespace {

Endpoint *gEndpoint = nullptr;
bool gTried = false;

const char *env(const char *n) {
  const char *v = std::getenv(n);
  return v && *v ? v : nullptr;
}

void atExit() {
  if (!gEndpoint)
    return;
  std::string err;
  if (!gEndpoint->finish(gEndpoint->clock(), err))
    fatalAt(&gEndpoint->config(), err);
  gEndpoint->close();
}

Endpoint *create() {
  const char *grid = env("PTXSIM_CHIPLET_GRID");
  if (!grid)
    return nullptr;
  EndpointConfig cfg;
  if (std::sscanf(grid, "%ux%u", &cfg.width, &cfg.height) != 2 || cfg.width == 0 ||
      cfg.height == 0 || cfg.width > 64 || cfg.height > 64)
    fatalAt(nullptr, std::string("PTXSIM_CHIPLET_GRID='") + grid + "' is not WxH");
  std::string transport = env("PTXSIM_CHIPLET_TRANSPORT") ? env("PTXSIM_CHIPLET_TRANSPORT") : "files";
  const char *xs = env("PTXSIM_CHIPLET_X"), *ys = env("PTXSIM_CHIPLET_Y");
  if (transport == "mpi" && (!xs || !ys)) {
    // run directly under mpirun: the rank is the chiplet index
    const char *rank = env("OMPI_COMM_WORLD_RANK") ? env("OMPI_COMM_WORLD_RANK")
                       : env("PMIX_RANK")          ? env("PMIX_RANK")
                       : env("PMI_RANK")           ? env("PMI_RANK")
                                                   : env("SLURM_PROCID");
    if (!rank)
      fatalAt(nullptr, "transport mpi without PTXSIM_CHIPLET_X/Y needs mpirun (no rank found)");
    unsigned r = (unsigned)std::atoi(rank);
    cfg.x = r % cfg.width;
    cfg.y = r / cfg.width;
  } else {
    if (!xs || !ys)
      fatalAt(nullptr, "PTXSIM_CHIPLET_X and PTXSIM_CHIPLET_Y must give this chiplet's coordinates");
    cfg.x = (unsigned)std::atoi(xs);
    cfg.y = (unsigned)std::atoi(ys);
  }
  if (cfg.x >= cfg.width || cfg.y >= cfg.height)
    fatalAt(nullptr, "chiplet (" + std::to_string(cfg.x) + "," + std::to_string(cfg.y) +
                         ") is outside the " + grid + " grid");
  if (const char *d = env("PTXSIM_CHIPLET_DIR"))
    cfg.dir = d;
  if (const char *t = env("PTXSIM_CHIPLET_TIMEOUT"))
    cfg.timeoutSec = std::atof(t);
  cfg.net.radix = std::max(cfg.width, cfg.height);
  std::string err;
  if (const char *n = env("PTXSIM_CHIPLET_NET"))
    if (!parseNetOptions(n, cfg.net, err))
      fatalAt(&cfg, "PTXSIM_CHIPLET_NET: " + err);
  if (cfg.net.dims != 2 || cfg.net.radix < std::max(cfg.width, cfg.height))
    fatalAt(&cfg, "the network must be 2D with at least " +
                      std::to_string(std::max(cfg.width, cfg.height)) + " nodes per dimension");
  std::unique_ptr<Transport> t;
  if (transport == "files")
    t = makeFilesTransport();
  else if (transport == "mpi") {
    t = makeMpiTransport(err);
    if (!t)
      fatalAt(&cfg, err);
  } else
    fatalAt(&cfg, "unknown PTXSIM_CHIPLET_TRANSPORT '" + transport + "' (files or mpi)");
  auto *ep = new Endpoint(cfg, std::move(t));
  if (!ep->start(err))
    fatalAt(&cfg, err);
  std::atexit(atExit);
  return ep;
}

/// Every chiplet process joins at load time, so one that never sends still takes part in the
/// synchronization (and its exit counts as finishing).
__attribute__((constructor)) void joinAtLoad() { processEndpoint(); }

} // namespace

std::unique_ptr<Transport> makeMpiTransport(std::string &err) {
  std::string path;
  if (const char *p = env("PTXSIM_CHIPLET_MPI_PLUGIN"))
    path = p;
  else {
    Dl_info info;
    if (dladdr((void *)&makeMpiTransport, &info) && info.dli_fname) {
      path = info.dli_fname;
      path = path.substr(0, path.rfind('/') + 1);
    }
    path += "libptxsim_chiplet_mpi.so";
  }
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    err = std::string("cannot load the mpi transport: ") + dlerror() +
          " (build with libopenmpi-dev installed)";
    return nullptr;
  }
  auto make = (Transport * (*)()) dlsym(h, "ptxsimChipletMakeMpiTransport");
  if (!make) {
    err = path + " has no ptxsimChipletMakeMpiTransport";
    return nullptr;
  }
  return std::unique_ptr<Transport>(make());
}

Endpoint *processEndpoint() {
  if (!gTried) {
    gTried = true;
    gEndpoint = create();
  }
  return gEndpoint;
}

} // namespace ptxsim::chiplet

using namespace ptxsim::chiplet;

namespace {

Endpoint &need(const char *fn) {
  Endpoint *ep = processEndpoint();
  if (!ep)
    fatalAt(nullptr, std::string(fn) +
                         ": not a chiplet run (start the program with `ptxsim chiplets`)");
  return *ep;
}

void checkSelf(Endpoint &ep, const char *fn, int x, int y) {
  if ((unsigned)x != ep.config().x || (unsigned)y != ep.config().y)
    fatalAt(&ep.config(), std::string(fn) + ": this chiplet is (" + std::to_string(ep.config().x) +
                              "," + std::to_string(ep.config().y) + "), the call says (" +
                              std::to_string(x) + "," + std::to_string(y) + ")");
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void sendGpuMessage(int dstX, int dstY, int srcX, int srcY,
                                                            const int *data, int dataSize) {
  Endpoint &ep = need("sendGpuMessage");
  checkSelf(ep, "sendGpuMessage", srcX, srcY);
  std::string err;
  if (dstX < 0 || dstY < 0 || dataSize < 0 ||
      !ep.send((unsigned)dstX, (unsigned)dstY, (const uint32_t *)data, (size_t)dataSize, 0, err, 0,
               "sendGpuMessage (host code)"))
    fatalAt(&ep.config(), "sendGpuMessage: " + (err.empty() ? "bad arguments" : err));
}

__attribute__((visibility("default"))) void passGpuMessage(int dstX, int dstY, int srcX, int srcY,
                                                            const int *data, int dataSize) {
  sendGpuMessage(dstX, dstY, srcX, srcY, data, dataSize);
}

__attribute__((visibility("default"))) void readGpuMessage(int srcX, int srcY, int dstX, int dstY,
                                                            int *data, int dataSize) {
  Endpoint &ep = need("readGpuMessage");
  checkSelf(ep, "readGpuMessage", dstX, dstY);
  std::string err;
  if (srcX < 0 || srcY < 0 || dataSize < 0 ||
      !ep.receive((unsigned)srcX, (unsigned)srcY, (uint32_t *)data, (size_t)dataSize, 0, err, 0,
                  false, "readGpuMessage (host code)"))
    fatalAt(&ep.config(), "readGpuMessage: " + (err.empty() ? "bad arguments" : err));
}

__attribute__((visibility("default"))) int ptxsimChipletSelf(int *x, int *y, int *w, int *h) {
  Endpoint *ep = processEndpoint();
  if (!ep)
    return 0;
  if (x)
    *x = (int)ep->config().x;
  if (y)
    *y = (int)ep->config().y;
  if (w)
    *w = (int)ep->config().width;
  if (h)
    *h = (int)ep->config().height;
  return 1;
}

__attribute__((visibility("default"))) void ptxsimChipletAdvance(uint64_t cycles) {
  Endpoint &ep = need("ptxsimChipletAdvance");
  ep.advanceClock(ep.clock() + cycles);
}

__attribute__((visibility("default"))) uint64_t ptxsimChipletClock(void) {
  Endpoint *ep = processEndpoint();
  return ep ? ep->clock() : 0;
}

} // extern "C"

// --- entry points for the simulator's chiplet instructions (isa_ext/chiplet/ChipletIsa.cpp) ---
// libcudart finds them with dlsym: the launcher preloads this library into every chiplet.
// Return 0, or 1 with `err` for a bad argument (the instruction faults); synchronization and
// transport failures end the process (fatalAt), as for the host API.

namespace {
void copyErr(const std::string &e, char *err, size_t len) {
  if (err && len) {
    std::snprintf(err, len, "%s", e.c_str());
  }
}
} // namespace

extern "C" {

__attribute__((visibility("default"))) int ptxsimChipletDeviceSelf(unsigned *x, unsigned *y) {
  Endpoint *ep = processEndpoint();
  if (!ep)
    return 0;
  *x = ep->config().x;
  *y = ep->config().y;
  return 1;
}

/// Sends one message of `n` words on `channel` (the sending warp's); `site` names the
/// instruction in errors.
__attribute__((visibility("default"))) int
ptxsimChipletDeviceSendMsg(unsigned dx, unsigned dy, const uint32_t *words, size_t n, uint64_t at,
                           uint32_t channel, const char *site, char *err, size_t errLen) {
  Endpoint *ep = processEndpoint();
  if (!ep) {
    copyErr("this process is not a chiplet (run the program with `ptxsim chiplets`)", err, errLen);
    return 1;
  }
  if (dx >= ep->config().width || dy >= ep->config().height) {
    copyErr("destination chiplet (" + std::to_string(dx) + "," + std::to_string(dy) +
                ") is outside the " + std::to_string(ep->config().width) + "x" +
                std::to_string(ep->config().height) + " grid",
            err, errLen);
    return 1;
  }
  std::string e;
  if (!ep->send(dx, dy, words, n, at, e, channel, site ? site : ""))
    fatalAt(&ep->config(), "chiplet send: " + e);
  return 0;
}

/// Receives `n` words from (sx,sy) on `channel`: with `whole`, exactly the next message (a
/// different size is an error naming both sites), otherwise from the channel's word stream.
__attribute__((visibility("default"))) int
ptxsimChipletDeviceRecvMsg(unsigned sx, unsigned sy, uint32_t *words, size_t n, uint64_t at,
                           uint32_t channel, int whole, const char *site, uint64_t *doneAt,
                           char *err, size_t errLen) {
  Endpoint *ep = processEndpoint();
  if (!ep) {
    copyErr("this process is not a chiplet (run the program with `ptxsim chiplets`)", err, errLen);
    return 1;
  }
  if (sx >= ep->config().width || sy >= ep->config().height) {
    copyErr("source chiplet (" + std::to_string(sx) + "," + std::to_string(sy) +
                ") is outside the " + std::to_string(ep->config().width) + "x" +
                std::to_string(ep->config().height) + " grid",
            err, errLen);
    return 1;
  }
  std::string e;
  if (!ep->receive(sx, sy, words, n, at, e, channel, whole != 0, site ? site : ""))
    fatalAt(&ep->config(), "chiplet receive: " + e);
  *doneAt = ep->clock();
  return 0;
}

} // extern "C"
