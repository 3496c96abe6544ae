// Unit tests of the output blocks (core/output_block.h): layout, recycling,
// reference counting, blocks outliving their pool, and concurrent use.
// Built with engine_stress (ENVPOOL_CORE_STRESS=ON) and run by tests/test_engine_stress.py;
// the TSan build (ENVPOOL_CORE_TSAN=ON) runs them under ThreadSanitizer.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/output_block.h"
#include "tests/check.h"

using namespace envpool_core;

namespace {

constexpr int kBatch = 5;

std::vector<ArraySpec> Columns() {
  // Odd sizes, so that packing columns back to back would misalign them.
  return {MakeArraySpec<std::int32_t>("env_id", {}), MakeArraySpec<bool>("done", {}),
          MakeArraySpec<double>("qpos", {3}), MakeArraySpec<std::uint8_t>("obs", {3, 7, 5}),
          MakeArraySpec<float>("reward", {})};
}

std::shared_ptr<OutputBlockPool> MakePool() {
  return std::make_shared<OutputBlockPool>(BlockLayout(Columns(), kBatch));
}

std::size_t ColumnBytes(const BlockLayout& lay, std::size_t c) {
  return lay.row_bytes[c] * static_cast<std::size_t>(lay.batch_size);
}

// Every column starts 64-byte aligned, holds batch_size rows, and no two overlap.
void TestLayout() {
  BlockLayout lay(Columns(), kBatch);
  std::vector<ArraySpec> cols = Columns();
  ENVPOOL_CHECK(lay.columns.size() == cols.size());
  for (std::size_t c = 0; c < cols.size(); ++c) {
    ENVPOOL_CHECK(lay.row_bytes[c] == cols[c].NumBytes());
    ENVPOOL_CHECK(lay.offsets[c] % 64 == 0);
    std::size_t end = c + 1 < cols.size() ? lay.offsets[c + 1] : lay.block_bytes;
    ENVPOOL_CHECK(lay.offsets[c] + ColumnBytes(lay, c) <= end);
  }
  // A layout with no columns still allocates something (aligned_alloc(64, 0) may fail).
  ENVPOOL_CHECK(BlockLayout({}, kBatch).block_bytes > 0);
}

// A block's columns are where the layout says, aligned, and each can be written
// whole without touching another.
void TestBlockColumns() {
  auto pool = MakePool();
  const BlockLayout& lay = pool->layout();
  OutputBlock* block = pool->Acquire();
  for (std::size_t c = 0; c < lay.columns.size(); ++c) {
    int ci = static_cast<int>(c);
    ENVPOOL_CHECK(block->column(ci) == block->columns()[c]);
    ENVPOOL_CHECK(reinterpret_cast<std::uintptr_t>(block->column(ci)) % 64 == 0);
    ENVPOOL_CHECK(static_cast<std::size_t>(block->column(ci) - block->column(0)) ==
                  lay.offsets[c]);
    std::memset(block->column(ci), static_cast<int>(c + 1), ColumnBytes(lay, c));
  }
  for (std::size_t c = 0; c < lay.columns.size(); ++c) {
    const std::uint8_t* p = block->column(static_cast<int>(c));
    for (std::size_t i = 0; i < ColumnBytes(lay, c); ++i) ENVPOOL_CHECK(p[i] == c + 1);
  }
  pool->Recycle(block);
}

// A block whose last reference goes returns to its pool and is handed out again:
// steady-state stepping allocates no new blocks.
void TestRecycling() {
  auto pool = MakePool();
  OutputBlock* a = pool->Acquire();
  OutputBlock* b = pool->Acquire();
  ENVPOOL_CHECK(a != b);
  pool->HandOut(a);
  a->Release();
  ENVPOOL_CHECK(pool->Acquire() == a);
  pool->Recycle(b);  // never handed out: back to the pool directly
  ENVPOOL_CHECK(pool->Acquire() == b);
  pool->Recycle(a);
  pool->Recycle(b);
  // Trim frees the idle blocks; the pool still hands out working ones after.
  pool->Trim();
  OutputBlock* c = pool->Acquire();
  std::memset(c->column(0), 0, pool->layout().block_bytes);
  pool->Recycle(c);
}

// Each Retain() needs its Release(): the block returns only after the last one.
void TestReferenceCounting() {
  auto pool = MakePool();
  OutputBlock* block = pool->Acquire();
  pool->HandOut(block);  // one reference
  block->Retain();
  block->Retain();
  block->Release();
  block->Release();
  OutputBlock* other = pool->Acquire();  // `block` is still referenced: not this one
  ENVPOOL_CHECK(other != block);
  pool->Recycle(other);
  block->Release();  // the last reference
  ENVPOOL_CHECK(pool->Acquire() == block);
  pool->Recycle(block);
}

// Results outlive the pool: a handed-out block keeps its pool alive until its
// last reference goes, then both are freed.
void TestBlockOutlivesPool() {
  auto pool = MakePool();
  std::weak_ptr<OutputBlockPool> weak = pool;
  OutputBlock* block = pool->Acquire();
  pool->HandOut(block);
  pool.reset();
  ENVPOOL_CHECK(!weak.expired());
  std::memset(block->column(0), 1, sizeof(std::int32_t) * kBatch);  // still valid memory
  block->Release();
  ENVPOOL_CHECK(weak.expired());
}

// Threads acquire, fill, hand out and release blocks at once (more threads than
// the 2 cores of CI): a block has one owner at a time, and blocks are reused, so
// no more are ever allocated than can be held at once.
void TestConcurrentUse() {
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  auto pool = MakePool();
  const std::size_t bytes = pool->layout().block_bytes;
  std::mutex seen_mutex;
  std::set<OutputBlock*> seen;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::set<OutputBlock*> mine;
      auto tag = static_cast<std::uint8_t>(t + 1);
      for (int r = 0; r < kRounds; ++r) {
        OutputBlock* block = pool->Acquire();
        mine.insert(block);
        std::uint8_t* data = block->column(0);
        std::memset(data, tag, bytes);
        if (r % 64 == 0) std::this_thread::yield();
        // Another owner of the same block would have overwritten the tag.
        for (std::size_t i = 0; i < bytes; i += 61) ENVPOOL_CHECK(data[i] == tag);
        pool->HandOut(block);
        block->Retain();  // two numpy views of the batch
        block->Release();
        block->Release();
      }
      std::lock_guard<std::mutex> lock(seen_mutex);
      seen.insert(mine.begin(), mine.end());
    });
  }
  for (auto& th : threads) th.join();
  ENVPOOL_CHECK(seen.size() <= static_cast<std::size_t>(kThreads));
}

}  // namespace

int main() {
  TestLayout();
  TestBlockColumns();
  TestRecycling();
  TestReferenceCounting();
  TestBlockOutlivesPool();
  TestConcurrentUse();
  std::puts("output_block_test: ok");
  return 0;
}
