#include "stream/release_queue.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace weir::stream {
namespace {

// Records the thread that freed it.
struct Owner {
  Owner(std::mutex* m, std::vector<std::thread::id>* f) : mutex(m), freed_on(f) {}
  Owner(const Owner&) = delete;
  std::mutex* mutex;
  std::vector<std::thread::id>* freed_on;
  ~Owner() {
    std::lock_guard<std::mutex> lock(*mutex);
    freed_on->push_back(std::this_thread::get_id());
  }
};

columnar::Batch BatchOwning(std::shared_ptr<const Owner> owner) {
  columnar::Batch batch(columnar::Schema{{{"s", columnar::DataType::String(), true}}});
  batch.columns[0].AddBufferOwner(std::move(owner));
  return batch;
}

TEST(ReleaseQueueTest, BatchesPutOnOneThreadAreFreedByTheDrainingOne) {
  std::mutex mutex;
  std::vector<std::thread::id> freed_on;
  ReleaseQueue queue;
  std::thread putter([&] {
    for (int i = 0; i < 3; ++i) queue.Put(BatchOwning(std::make_shared<Owner>(&mutex, &freed_on)));
  });
  putter.join();
  EXPECT_TRUE(freed_on.empty());  // held until drained
  queue.Drain();
  ASSERT_EQ(freed_on.size(), 3u);
  for (std::thread::id id : freed_on) EXPECT_EQ(id, std::this_thread::get_id());
  queue.Drain();  // nothing left
  EXPECT_EQ(freed_on.size(), 3u);
}

// A batch shared with another holder is freed by whichever lets go last.
TEST(ReleaseQueueTest, ASharedBufferOutlivesTheDrain) {
  std::mutex mutex;
  std::vector<std::thread::id> freed_on;
  auto owner = std::make_shared<Owner>(&mutex, &freed_on);
  columnar::Batch kept = BatchOwning(owner);
  ReleaseQueue queue;
  queue.Put(BatchOwning(owner));
  owner.reset();
  queue.Drain();
  EXPECT_TRUE(freed_on.empty());
  kept = columnar::Batch();
  EXPECT_EQ(freed_on.size(), 1u);
}

}  // namespace
}  // namespace weir::stream
