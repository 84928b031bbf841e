// SPU options as PTXSIM_SPU gives them: values, implied enabling, and errors naming the option.

#include "isa_ext/spu/SpuExtension.h"

#include "base/ExtensionOptions.h"

#include <gtest/gtest.h>

namespace ptxsim::spu {
namespace {

TEST(SpuOptions, ParsesValuesAndEnables) {
  Config c;
  EXPECT_EQ(parseOptions("-spu_rows 3 -spu_cols 5 -spu_regstart 0 -spu_cb_bytes 4096", c), "");
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(c.machine.shape.rows, 3u);
  EXPECT_EQ(c.machine.shape.cols, 5u);
  EXPECT_FALSE(c.machine.regstart);
  EXPECT_EQ(c.machine.cbBytes, 4096u);
  Config d;
  EXPECT_EQ(parseOptions("1", d), "");
  EXPECT_TRUE(d.enabled);
  EXPECT_EQ(d.machine.shape.rows, 4u);
}

TEST(SpuOptions, PowerConventionAndDmaIus) {
  Config c;
  EXPECT_FALSE(c.powerPairs);
  EXPECT_FALSE(c.dmaIus);
  EXPECT_EQ(parseOptions("-spu_power_pairs 1 -spu_dma_ius 1", c), "");
  EXPECT_TRUE(c.powerPairs);
  EXPECT_TRUE(c.dmaIus);
  EXPECT_EQ(parseOptions("-spu_dma_ius 2", c), "option '-spu_dma_ius' is 0 or 1");
}

TEST(SpuOptions, VirtualCbsCarvedFromSharedMemory) {
  Config c;
  EXPECT_EQ(virtualCbBytesPerSm(c), 0u); // one block per SM: no virtual CB
  c.machine.blocksPerSm = 2;
  c.machine.cbBytes = 4096;
  EXPECT_EQ(virtualCbBytesPerSm(c), 2u * 2 * 4096); // the extra south and east CB, both halves
  c.machine.blocksPerSm = 3;
  EXPECT_EQ(virtualCbBytesPerSm(c), 4u * 2 * 4096);
  c.machine.oneD = true; // a chain: only the east CBs between the SM's blocks
  EXPECT_EQ(virtualCbBytesPerSm(c), 2u * 2 * 4096);
}

TEST(SpuOptions, ErrorsNameTheOption) {
  Config c;
  EXPECT_EQ(parseOptions("-spu_rows 0", c), "option '-spu_rows' must be between 1 and 64");
  EXPECT_EQ(parseOptions("-spu_regstart 2", c), "option '-spu_regstart' is 0 or 1");
  EXPECT_EQ(parseOptions("-spu_cols", c), "option '-spu_cols' needs a value");
  EXPECT_EQ(parseOptions("-spu_cols x", c), "option '-spu_cols' needs an unsigned number, not 'x'");
  EXPECT_EQ(parseOptions("-spu_colz 4", c), "unknown SPU option '-spu_colz'");
}

// PTXSIM_SPU and the configuration file read one table of options: the same ranges
TEST(SpuOptions, SameRangesAsTheConfigurationFile) {
  registerSpuExtension(); // registers the options the configuration loader checks
  Config c;
  EXPECT_EQ(parseOptions("-spu_cb_bytes 1", c),
            "option '-spu_cb_bytes' must be between 4 and 1048576");
  EXPECT_EQ(parseOptions("-spu_cb_bytes 4", c), "");
  EXPECT_EQ(c.machine.cbBytes, 4u);
  EXPECT_EQ(parseOptions("-spu_sync_latency 100001", c),
            "option '-spu_sync_latency' must be between 0 and 100000");
  EXPECT_EQ(parseOptions("-spu_sync_latency 0", c), "");
  EXPECT_EQ(parseOptions("-spu_blocks_per_sm 9", c),
            "option '-spu_blocks_per_sm' must be between 1 and 8");
  // the defaults PTXSIM_SPU starts from are the registered options' defaults
  Config d;
  EXPECT_EQ(parseOptions("1", d), "");
  EXPECT_EQ(d.machine.cbBytes, (uint32_t)option("-spu_cb_bytes"));
  EXPECT_EQ(d.syncLatency, (uint32_t)option("-spu_sync_latency"));
}

} // namespace
} // namespace ptxsim::spu
