#pragma once
// A small loader for the JIT's cached object files (docs/executor.md, "Disk cache"): maps the
// relocatable x86-64 ELF object that the LLVM backend made for one function into executable
// memory and applies its relocations itself, so that a run whose kernels are all in the disk
// cache never loads LLVM (the JIT module and libLLVM cost about 70 ms to load and start).
//
// Contract: it accepts only what the backend emits (sections, symbols defined in them, the
// absolute and PC-relative relocation types of x86-64) and names what it does not accept; the
// caller then lets LLVM link the object. The code is used only when identity() matches the one
// recorded when it was compiled: the same JIT module build (hence the same LLVM and code
// generator) on a CPU that answers CPUID the same way (hence the same target features).

#include <string>

namespace ptxsim::ptx::jit::loader {

/// Maps `object` and returns the address of its global function `symbol`; null with `err` set
/// (naming the section, symbol or relocation type) when the object is not one it can load.
/// The mapping lives as long as the process, like the code LLVM links.
void *load(const std::string &object, const char *symbol, std::string &err);

/// What makes code loadable here: the JIT module's build (read from `moduleFile`, its GNU build
/// id, else its size and modification time) and the host CPU's CPUID signature and feature
/// words. Empty when this loader cannot run code on this host (not x86-64, no module file).
std::string identity(const std::string &moduleFile);

} // namespace ptxsim::ptx::jit::loader
