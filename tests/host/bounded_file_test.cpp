// Reading untrusted paths (core/bounded_file.h): special files are refused without blocking or reading,
// large files by their size, and links out of a data folder are not followed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/bounded_file.h"
#include "core/contract_file.h"
#include "protocol/cases_manifest.h"
#include "protocol/npy.h"
#include "test_support.h"

namespace ordo {
namespace {

namespace fs = std::filesystem;

class BoundedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test and run: ctest runs the tests of this fixture in parallel processes.
    dir_ = ordo::testing::test_temp_dir("bounded-files");
    fs::create_directories(dir_ / "data");
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST_F(BoundedFiles, AFifoIsRefusedAtOnceWhereverAFileIsRead) {
  const std::string fifo = path("data/pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(refusal([&] { (void)read_bounded_file(fifo, 1024, "notes"); }),
            fifo + ": a FIFO, not a regular file (ordo reads notes only from regular files)");
  EXPECT_NE(refusal([&] { (void)protocol::read_npy(fifo); }).find(fifo + ": a FIFO"), std::string::npos);
  EXPECT_NE(refusal([&] { (void)load_contract_file(fifo); }).find(fifo + ": a FIFO"), std::string::npos);
  fs::create_directories(dir_ / "cases");
  ASSERT_EQ(::mkfifo(path("cases/manifest.json").c_str(), 0600), 0);
  EXPECT_NE(refusal([&] { (void)protocol::read_manifest(path("cases")); }).find("manifest.json: a FIFO"), std::string::npos);
  // No read blocked waiting for a writer.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(BoundedFiles, DevicesAndFoldersAreRefusedUnread) {
  EXPECT_EQ(refusal([] { (void)read_bounded_file("/dev/zero", 1 << 20, "manifests"); }),
            "/dev/zero: a character device, not a regular file (ordo reads manifests only from regular files)");
  EXPECT_EQ(refusal([&] { (void)read_bounded_file(path("data"), 1 << 20, "manifests"); }),
            path("data") + ": a directory, not a regular file (ordo reads manifests only from regular files)");
  EXPECT_NE(refusal([] { (void)load_contract_file("/dev/zero"); }).find("a character device"), std::string::npos);
}

TEST_F(BoundedFiles, AFileLargerThanItsKindIsRefusedByItsSize) {
  const std::string big = path("data/big.json");
  std::ofstream(big) << "{}";
  fs::resize_file(big, (std::size_t{1} << 20) + 1);  // sparse
  EXPECT_EQ(refusal([&] { (void)read_bounded_file(big, std::size_t{1} << 20, "contract files"); }),
            big + ": the file is 1048577 bytes; ordo reads contract files of at most 1 MiB");
  EXPECT_NE(refusal([&] { (void)load_contract_file(big); }).find("ordo reads contract files of at most 1 MiB"),
            std::string::npos);
  std::ofstream(path("data/small.txt")) << "hello";
  EXPECT_EQ(read_bounded_file(path("data/small.txt"), 5, "notes"), "hello");
}

TEST_F(BoundedFiles, ALinkOutOfAFolderIsRefusedAndOneInsideIsFollowed) {
  std::ofstream(path("outside.npy")) << "x";
  std::ofstream(path("data/inside.npy")) << "x";
  fs::create_symlink(path("outside.npy"), path("data/out-link.npy"));
  fs::create_symlink("inside.npy", path("data/in-link.npy"));
  fs::create_symlink(dir_, path("data/up"));
  EXPECT_EQ(path_inside(path("data"), "inside.npy"), path("data") + "/inside.npy");
  EXPECT_EQ(path_inside(path("data"), "in-link.npy"), path("data") + "/in-link.npy");
  EXPECT_NE(refusal([&] { (void)path_inside(path("data"), "out-link.npy"); }).find("leads outside"), std::string::npos);
  EXPECT_NE(refusal([&] { (void)path_inside(path("data"), "up/outside.npy"); }).find("leads outside"), std::string::npos);
  EXPECT_NE(refusal([&] { (void)path_inside(path("data"), "../outside.npy"); }).find("leads outside"), std::string::npos);
  // A file not written yet is judged by its folder.
  EXPECT_EQ(path_inside(path("data"), "c0001/y.npy"), path("data") + "/c0001/y.npy");
}

}  // namespace
}  // namespace ordo
