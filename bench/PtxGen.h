#pragma once
// Deterministic generator of large, valid PTX modules for front-end benchmarks. The kernels
// follow the shape nvcc -O3 emits (parameter loads, address arithmetic, predicated branches,
// loops, global and shared memory, shuffles, atomics, calls), so the token and instruction mix
// is realistic.

#include <string>

namespace ptxsim::bench {

/// A module of about `targetBytes` bytes.
inline std::string generatePtx(size_t targetBytes) {
  std::string s = ".version 9.0\n.target sm_80\n.address_size 64\n\n"
                  ".global .align 4 .b8 table[64] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
                  ".func (.param .b32 rv) helper(.param .b32 a)\n{\n"
                  "\t.reg .b32 %r<4>;\n\tld.param.b32 %r1, [a];\n\tmul.lo.s32 %r2, %r1, 3;\n"
                  "\tst.param.b32 [rv], %r2;\n\tret;\n}\n\n";
  for (int k = 0; s.size() < targetBytes; ++k) {
    std::string n = "kernel_" + std::to_string(k);
    s += ".visible .entry " + n + "(\n\t.param .u64 " + n + "_param_0,\n\t.param .u64 " + n +
         "_param_1,\n\t.param .u32 " + n + "_param_2\n)\n.maxntid 256, 1, 1\n{\n"
         "\t.reg .pred \t%p<64>;\n\t.reg .b32 \t%r<256>;\n\t.reg .f32 \t%f<128>;\n"
         "\t.reg .b64 \t%rd<64>;\n\t.shared .align 4 .b8 smem[1024];\n\n"
         "\tld.param.u64 \t%rd1, [" + n + "_param_0];\n\tld.param.u64 \t%rd2, [" + n +
         "_param_1];\n\tld.param.u32 \t%r1, [" + n + "_param_2];\n"
         "\tmov.u32 \t%r2, %ntid.x;\n\tmov.u32 \t%r3, %ctaid.x;\n\tmov.u32 \t%r4, %tid.x;\n"
         "\tmad.lo.s32 \t%r5, %r3, %r2, %r4;\n\tcvta.to.global.u64 \t%rd3, %rd1;\n"
         "\tcvta.to.global.u64 \t%rd4, %rd2;\n";
    for (int b = 0; b < 40; ++b) {
      std::string B = std::to_string(b);
      std::string r = std::to_string(10 + (b % 200));
      std::string f = std::to_string(1 + (b % 100));
      s += "$L__BB" + std::to_string(k) + "_" + B + ":\n"
           "\tsetp.ge.s32 \t%p" + std::to_string(1 + b % 60) + ", %r5, %r1;\n"
           "\t@%p" + std::to_string(1 + b % 60) + " bra \t$L__BB" + std::to_string(k) + "_" +
           std::to_string(b + 1) + ";\n"
           "\tmul.wide.s32 \t%rd5, %r5, 4;\n\tadd.s64 \t%rd6, %rd3, %rd5;\n"
           "\tld.global.nc.f32 \t%f" + f + ", [%rd6+" + std::to_string(4 * b) + "];\n"
           "\tfma.rn.f32 \t%f" + f + ", %f" + f + ", 0f3F800000, %f" + f + ";\n"
           "\tshfl.sync.down.b32 \t%r" + r + "|%p62, %r5, 1, 31, -1;\n"
           "\tadd.s32 \t%r" + r + ", %r" + r + ", %r5;\n"
           "\tst.shared.u32 \t[smem+" + std::to_string(4 * (b % 64)) + "], %r" + r + ";\n"
           "\tbar.sync \t0;\n"
           "\tadd.s64 \t%rd7, %rd4, %rd5;\n\tst.global.f32 \t[%rd7], %f" + f + ";\n"
           "\tatom.global.add.u32 \t%r" + r + ", [%rd7], 1;\n"
           "\t{ // callseq\n\t.param .b32 param0;\n\tst.param.b32 \t[param0], %r" + r + ";\n"
           "\t.param .b32 retval0;\n\tcall.uni (retval0), helper, (param0);\n"
           "\tld.param.b32 \t%r" + r + ", [retval0];\n\t}\n";
    }
    s += "$L__BB" + std::to_string(k) + "_40:\n\tret;\n\n}\n";
  }
  return s;
}

} // namespace ptxsim::bench
