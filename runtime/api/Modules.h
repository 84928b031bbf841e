#pragma once
// The module registry of the runtime: the fat binaries, kernels and variables the program
// registers (__cudaRegisterFatBinary and friends) or loads (cuModuleLoadData, cuLibraryLoadData),
// their PTX loaded into the engine lazily, and PTXSIM_PTX_OVERRIDE.
//
// Contract: called under the context mutex. Loading goes through the engine the Context hands
// in (created at first use); `beforeLoad` runs before a module is loaded into it (the Context
// drains its stream queue: nothing may run while the engine's modules change). Entries are never
// freed: the program holds their addresses as handles for the process's lifetime.

#include "ptx/exec/Engine.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ptxsim::runtime {

struct KernelEntry;

/// One registered fat binary: the PTX we chose from it and, once loaded, its engine module id.
struct FatbinModule {
  std::string ptx;       ///< newest PTX entry; empty when the binary has none
  uint32_t ptxArch = 0;  ///< its virtual architecture (80 for compute_80)
  std::string name;      ///< file name used in diagnostics, e.g. "app.sm_75.ptx"
  std::string loadError; ///< why it has no PTX or failed to load
  /// Translation units: (diagnostic name, PTX). One, or several for `-rdc=true` programs.
  std::vector<std::pair<std::string, std::string>> units;
  int module = -1;          ///< engine module id of the first unit once loaded
  std::vector<int> modules; ///< engine module ids of every unit
  /// ptxas's registers per thread of each kernel, from the binary's newest SASS (if any).
  std::map<std::string, uint32_t> sassRegs;
  /// ptxas's local-memory frame per thread of each function (EIATTR_FRAME_SIZE), likewise.
  std::map<std::string, uint32_t> sassFrames;
  bool loadTried = false;
  bool unregistered = false;
  /// Loaded through the driver API (cuModuleLoadData, cuLibraryLoadData, NVIDIA's static
  /// runtime): its kernels are looked up by name, one KernelEntry per name.
  bool driver = false;
  std::map<std::string, KernelEntry *> functions;
};

/// A host stub registered with __cudaRegisterFunction; also the cudaKernel_t handed out.
struct KernelEntry {
  FatbinModule *fatbin = nullptr;
  std::string deviceName;
  const ptx::exec::Kernel *kernel = nullptr; ///< resolved when the module loads
  int maxDynamicShared = -1;                 ///< cudaFuncAttributeMaxDynamicSharedMemorySize
  int carveout = -1; ///< cudaFuncAttributePreferredSharedMemoryCarveout (-1: no preference)
  bool overrideError = false; ///< PTXSIM_PTX_OVERRIDE has this kernel with other parameters
};

/// A `__device__`, `__constant__` or `__managed__` variable registered by the host.
struct VarEntry {
  FatbinModule *fatbin = nullptr;
  std::string deviceName;
  size_t size = 0;
  bool isConst = false;
  void **managedHostPtr = nullptr; ///< for managed variables: where the host reads the address
  const ptx::exec::GlobalSymbol *symbol = nullptr;
};

class ModuleRegistry {
public:
  ModuleRegistry(std::function<ptx::exec::Engine &()> engine, std::function<void()> beforeLoad);

  FatbinModule *registerFatbin(const void *wrapper);
  void registerFunction(FatbinModule *fb, const void *hostStub, const char *deviceName);
  void registerVar(FatbinModule *fb, const void *hostVar, const char *deviceName, size_t size,
                   bool isConst, void **managedHostPtr);
  /// Loads every registered module not yet loaded (Context::ensureLoaded).
  cudaError_t ensureLoaded();
  KernelEntry *findKernel(const void *func);
  VarEntry *findVar(const void *hostVar);
  // driver API modules (Context.h says what each does)
  FatbinModule *loadImage(const void *image, cudaError_t &err, bool lazy);
  cudaError_t ensureModule(FatbinModule *fb);
  KernelEntry *moduleFunction(FatbinModule *fb, const char *name);
  const ptx::exec::GlobalSymbol *moduleGlobal(FatbinModule *fb, const char *name);
  bool validModule(const FatbinModule *fb) const;

  /// cudaDeviceReset: the engine is gone; every module loads again at its next use.
  void forgetLoads();
  /// Whether the program registered a `__managed__` variable.
  bool hasManagedVars() const;
  /// At the end of the run: prints an error for each override none of whose kernels replaced
  /// one of the program's (`engine`: null when no engine was made). True when there was one.
  bool reportUnusedOverrides(ptx::exec::Engine *engine) const;

private:
  void loadModule(FatbinModule &fb);
  void bindSymbols(FatbinModule &fb);
  void bindKernel(KernelEntry &k);
  FatbinModule *loadImageHere(const void *image, cudaError_t &err, bool lazy);
  /// Loads the PTXSIM_PTX_OVERRIDE file(s) into the engine once; returns their module ids.
  const std::vector<int> &overrideModules();

  std::function<ptx::exec::Engine &()> engine_;
  std::function<void()> beforeLoad_;
  std::vector<std::unique_ptr<FatbinModule>> fatbins_;
  std::unordered_map<const void *, std::unique_ptr<KernelEntry>> kernels_; ///< by host stub
  std::unordered_set<const KernelEntry *> kernelHandles_;
  std::unordered_map<const void *, VarEntry> vars_; ///< by host variable address
  std::vector<int> overrideIds_;
  bool overridesLoaded_ = false;
  /// Override modules (PTXSIM_PTX_OVERRIDE) one of whose kernels named a kernel of the program.
  std::unordered_set<int> overridesUsed_;
};

} // namespace ptxsim::runtime
