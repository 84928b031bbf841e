// SPU options as PTXSIM_SPU gives them: values, implied enabling, and errors naming the option.

#include "isa_ext/spu/SpuExtension.h"

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

TEST(SpuOptions, ErrorsNameTheOption) {
  Config c;
  EXPECT_EQ(parseOptions("-spu_rows 0", c), "option '-spu_rows' must be between 1 and 64");
  EXPECT_EQ(parseOptions("-spu_regstart 2", c), "option '-spu_regstart' is 0 or 1");
  EXPECT_EQ(parseOptions("-spu_cols", c), "option '-spu_cols' needs a value");
  EXPECT_EQ(parseOptions("-spu_cols x", c), "option '-spu_cols' needs an unsigned number, not 'x'");
  EXPECT_EQ(parseOptions("-spu_colz 4", c), "unknown SPU option '-spu_colz'");
}

} // namespace
} // namespace ptxsim::spu
