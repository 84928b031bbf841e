/* ptxsim multi-chiplet simulation: the CPU-chiplet (host) API.
 *
 * Host code acting as a CPU chiplet exchanges 32-bit words with the other chiplets through these
 * functions (link with -lptxsim_chiplet from ptxsim's build/lib). The names and argument orders
 * are the reference document's (sniper's interchiplet API); every send is traced like a GPU
 * chiplet's (`bench.<x>.<y>`, the network model sees it).
 *
 * Timing: ptxsim does not model CPU cores. A CPU chiplet's clock moves only by its messages (a
 * receive completes when the data arrives through the network model) and by
 * ptxsimChipletAdvance(), with which a program charges cycles for its own host work.
 *
 * Outside `ptxsim chiplets` (no PTXSIM_CHIPLET_GRID in the environment) every call fails with a
 * message. Errors (bad coordinates, a dead peer, a deadlock) print a message naming this chiplet
 * and exit the process with status 3.
 */
#ifndef PTXSIM_CHIPLET_HOST_H
#define PTXSIM_CHIPLET_HOST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sends data[0..dataSize) to chiplet (dstX,dstY). (srcX,srcY) is this chiplet: it must match
 * the coordinates the launcher gave it. */
void passGpuMessage(int dstX, int dstY, int srcX, int srcY, const int *data, int dataSize);
/* The same under the name the document's sample program uses. */
void sendGpuMessage(int dstX, int dstY, int srcX, int srcY, const int *data, int dataSize);
/* Receives dataSize words sent by chiplet (srcX,srcY) into data; (dstX,dstY) is this chiplet.
 * Blocks until the words have arrived in simulated time. */
void readGpuMessage(int srcX, int srcY, int dstX, int dstY, int *data, int dataSize);

/* This chiplet's coordinates and the grid (from the launcher). Returns 0 outside a chiplet run. */
int ptxsimChipletSelf(int *x, int *y, int *width, int *height);
/* Charges `cycles` of host work to this chiplet's clock. */
void ptxsimChipletAdvance(uint64_t cycles);
/* This chiplet's clock, in cycles. */
uint64_t ptxsimChipletClock(void);

#ifdef __cplusplus
} /* extern "C" */

/* The document's sample sends int64_t arrays: each element travels as one 32-bit word (its low
 * half; values must fit in int32). */
#include <vector>
inline void sendGpuMessage(int dstX, int dstY, int srcX, int srcY, const int64_t *data,
                           int dataSize) {
  std::vector<int> w(data, data + dataSize);
  sendGpuMessage(dstX, dstY, srcX, srcY, w.data(), dataSize);
}
inline void passGpuMessage(int dstX, int dstY, int srcX, int srcY, const int64_t *data,
                           int dataSize) {
  sendGpuMessage(dstX, dstY, srcX, srcY, data, dataSize);
}
inline void readGpuMessage(int srcX, int srcY, int dstX, int dstY, int64_t *data, int dataSize) {
  std::vector<int> w(dataSize > 0 ? dataSize : 0);
  readGpuMessage(srcX, srcY, dstX, dstY, w.data(), dataSize);
  for (int i = 0; i < dataSize; ++i)
    data[i] = w[i];
}
#endif

#endif /* PTXSIM_CHIPLET_HOST_H */
