// The files transport writes the reference document's formats byte for byte: data files
// buffer_<dx>_<dy>_<sx>_<sy> (one decimal word per line, emptied by the reader), traces
// bench.<x>.<y> (`T sx sy dx dy n`), and the synchronization file (cycle, window, `x, y` lines).

#include "isa_ext/chiplet/tools/runtime/Endpoint.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace ptxsim::chiplet;

namespace {

std::string slurp(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

EndpointConfig config(const std::string &dir, unsigned x) {
  EndpointConfig c;
  c.x = x;
  c.y = 0;
  c.width = 2;
  c.height = 1;
  c.dir = dir;
  c.timeoutSec = 20;
  c.net.radix = 2;
  return c;
}

} // namespace

TEST(ChipletFiles, FormatsAreTheDocumentsByteForByte) {
  std::string dir = ::testing::TempDir() + "/chiplet_formats_" + std::to_string(getpid());
  std::string cmd = "rm -rf " + dir;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  Endpoint a(config(dir, 0), makeFilesTransport()), b(config(dir, 1), makeFilesTransport());
  std::string err;
  ASSERT_TRUE(a.start(err)) << err;
  ASSERT_TRUE(b.start(err)) << err;
  uint64_t w = a.window();
  EXPECT_EQ(slurp(dir + "/synchronization"), std::to_string(w) + "\n" + std::to_string(w) + "\n");

  uint32_t words[3] = {199, 2003, (uint32_t)-5};
  ASSERT_TRUE(a.send(1, 0, words, 3, 0, err)) << err;
  EXPECT_EQ(slurp(dir + "/buffer_1_0_0_0"), "199\n2003\n-5\n");
  EXPECT_EQ(slurp(dir + "/bench.0.0"), "0 0 0 1 0 12\n");

  // (0,0) waits for (1,0): it arrives at the first barrier and names itself there.
  uint32_t got[2] = {0, 0};
  std::string errA;
  bool okA = false;
  std::thread t([&] { okA = a.receive(1, 0, got, 2, 0, errA); });
  for (int i = 0; i < 2000 && slurp(dir + "/synchronization").find("0, 0") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(slurp(dir + "/synchronization"),
            std::to_string(w) + "\n" + std::to_string(w) + "\n0, 0\n");

  uint32_t reply[2] = {4447, 3330};
  ASSERT_TRUE(b.send(0, 0, reply, 2, 16788, err)) << err;
  EXPECT_EQ(slurp(dir + "/bench.1.0"), "16788 1 0 0 0 8\n");
  uint32_t mine[3];
  ASSERT_TRUE(b.receive(0, 0, mine, 3, 0, err)) << err;
  EXPECT_EQ(mine[0], 199u);
  EXPECT_EQ(mine[2], (uint32_t)-5);
  EXPECT_EQ(slurp(dir + "/buffer_1_0_0_0"), ""); // the reader empties what it read
  ASSERT_TRUE(b.finish(b.clock(), err)) << err;
  t.join();
  ASSERT_TRUE(okA) << errA;
  EXPECT_EQ(got[0], 4447u);
  EXPECT_EQ(got[1], 3330u);
  // a message sent at 16788 arrives after the network's delay, not before
  EXPECT_GE(a.clock(), 16788 + a.window());
  ASSERT_TRUE(a.finish(a.clock(), err)) << err;
  std::system(cmd.c_str());
}

TEST(ChipletFiles, ReceiveNobodySendsIsADeadlockNamingTheChiplets) {
  std::string dir = ::testing::TempDir() + "/chiplet_deadlock_" + std::to_string(getpid());
  std::string cmd = "rm -rf " + dir;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  Endpoint a(config(dir, 0), makeFilesTransport()), b(config(dir, 1), makeFilesTransport());
  std::string err, errA;
  ASSERT_TRUE(a.start(err) && b.start(err)) << err;
  uint32_t x;
  bool okA = true;
  std::thread t([&] { okA = a.receive(1, 0, &x, 1, 0, errA); });
  // Whichever of the two completes the barrier finds the deadlock; the other hears of it.
  b.finish(50, err);
  t.join();
  EXPECT_FALSE(okA);
  EXPECT_NE(errA.find("(0,0) waits for 4 more bytes from (1,0) on channel 0"), std::string::npos) << errA;
  std::system(cmd.c_str());
}

TEST(ChipletFiles, ChannelsAreSeparateAndAReceiveTakesWholeMessages) {
  std::string dir = ::testing::TempDir() + "/chiplet_channels_" + std::to_string(getpid());
  std::string cmd = "rm -rf " + dir;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  Endpoint a(config(dir, 0), makeFilesTransport()), b(config(dir, 1), makeFilesTransport());
  std::string err;
  ASSERT_TRUE(a.start(err) && b.start(err)) << err;
  // (0,0) sends on channels 3, 0, 3 and a 2-word message on channel 0, in that order
  uint32_t w1 = 31, w2 = 1, w3 = 32, w4[2] = {2, 3};
  ASSERT_TRUE(a.send(1, 0, &w1, 1, 0, err, 3, "send A")) << err;
  ASSERT_TRUE(a.send(1, 0, &w2, 1, 0, err, 0, "send B")) << err;
  ASSERT_TRUE(a.send(1, 0, &w3, 1, 0, err, 3, "send C")) << err;
  ASSERT_TRUE(a.send(1, 0, w4, 2, 0, err, 0, "send D")) << err;
  std::string errA;
  bool okA = false;
  std::thread t([&] { okA = a.finish(a.clock(), errA); });
  // channel 0 first: its messages, in order, whatever channel 3 holds before them
  uint32_t got = 0, two[2] = {0, 0};
  ASSERT_TRUE(b.receive(0, 0, &got, 1, 0, err, 0, true, "recv 1")) << err;
  EXPECT_EQ(got, 1u);
  ASSERT_TRUE(b.receive(0, 0, &got, 1, 0, err, 3, true, "recv 2")) << err;
  EXPECT_EQ(got, 31u);
  // a 1-word receive of the 2-word message is an error naming both sides, not data
  EXPECT_FALSE(b.receive(0, 0, &got, 1, 0, err, 0, true, "recv 3"));
  EXPECT_NE(err.find("recv 3 on this chiplet takes 1 word from (0,0) on channel 0, but the next "
                     "message it sent there has 2 words"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("by send D"), std::string::npos) << err;
  ASSERT_TRUE(b.receive(0, 0, two, 2, 0, err, 0, true, "recv 4")) << err;
  EXPECT_EQ(two[0], 2u);
  EXPECT_EQ(two[1], 3u);
  ASSERT_TRUE(b.receive(0, 0, &got, 1, 0, err, 3, true, "recv 5")) << err;
  EXPECT_EQ(got, 32u);
  ASSERT_TRUE(b.finish(b.clock(), err)) << err;
  t.join();
  ASSERT_TRUE(okA) << errA;
  std::system(cmd.c_str());
}
