// Output blocks: one pre-allocated batch of every output array.
//
// A block holds `batch_size` rows of each column (common columns, then obs,
// then info), each column 64-byte aligned inside one allocation. Workers write
// rows in place; recv() hands the whole block to the caller, who keeps it alive
// through a reference count (numpy arrays viewing it). When the last reference
// goes, the block returns to its pool and is reused, so steady-state stepping
// allocates nothing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/array_spec.h"

namespace envpool_core {

class OutputBlockPool;

// Column layout shared by all blocks of a pool.
struct BlockLayout {
  std::vector<ArraySpec> columns;      // per-env spec of every column, in order
  std::vector<std::size_t> row_bytes;  // bytes of one row of each column
  std::vector<std::size_t> offsets;    // byte offset of each column in a block
  std::size_t block_bytes = 0;
  int batch_size = 0;

  BlockLayout(std::vector<ArraySpec> columns, int batch_size);
};

class OutputBlock {
 public:
  std::uint8_t* const* columns() const { return columns_.data(); }
  std::uint8_t* column(int c) const { return columns_[static_cast<std::size_t>(c)]; }

  // Reference counting for the caller's views. Release() of the last one hands
  // the block back to its pool (or frees it when the pool is gone).
  void Retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release();

 private:
  friend class OutputBlockPool;
  explicit OutputBlock(const BlockLayout& layout);
  ~OutputBlock();

  std::uint8_t* data_ = nullptr;
  std::vector<std::uint8_t*> columns_;
  std::atomic<int> refs_{0};
  std::shared_ptr<OutputBlockPool> home_;  // set while handed out
};

class OutputBlockPool : public std::enable_shared_from_this<OutputBlockPool> {
 public:
  explicit OutputBlockPool(BlockLayout layout) : layout_(std::move(layout)) {}
  ~OutputBlockPool();
  OutputBlockPool(const OutputBlockPool&) = delete;
  OutputBlockPool& operator=(const OutputBlockPool&) = delete;

  const BlockLayout& layout() const { return layout_; }

  // A block for workers to fill (reused when one is free).
  OutputBlock* Acquire();
  // Marks `block` as owned by the caller, with one reference.
  void HandOut(OutputBlock* block);
  // Returns a block the engine no longer needs (never handed out).
  void Recycle(OutputBlock* block);
  // Frees the blocks that are not in use.
  void Trim();

 private:
  BlockLayout layout_;
  std::mutex mutex_;
  std::vector<OutputBlock*> free_;
};

}  // namespace envpool_core
