#include "core/output_block.h"

#include <cstdlib>
#include <new>

namespace envpool_core {

namespace {
constexpr std::size_t kAlign = 64;
std::size_t AlignUp(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

BlockLayout::BlockLayout(std::vector<ArraySpec> cols, int batch)
    : columns(std::move(cols)), batch_size(batch) {
  for (const auto& spec : columns) {
    row_bytes.push_back(spec.NumBytes());
    offsets.push_back(block_bytes);
    block_bytes += AlignUp(spec.NumBytes() * static_cast<std::size_t>(batch_size));
  }
  if (block_bytes == 0) block_bytes = kAlign;
}

OutputBlock::OutputBlock(const BlockLayout& layout) {
  data_ = static_cast<std::uint8_t*>(std::aligned_alloc(kAlign, layout.block_bytes));
  if (data_ == nullptr) throw std::bad_alloc();
  for (std::size_t off : layout.offsets) columns_.push_back(data_ + off);
}

OutputBlock::~OutputBlock() { std::free(data_); }

void OutputBlock::Release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::shared_ptr<OutputBlockPool> home = std::move(home_);
  home->Recycle(this);
}

OutputBlockPool::~OutputBlockPool() {
  for (OutputBlock* b : free_) delete b;
}

OutputBlock* OutputBlockPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      OutputBlock* b = free_.back();
      free_.pop_back();
      return b;
    }
  }
  return new OutputBlock(layout_);
}

void OutputBlockPool::HandOut(OutputBlock* block) {
  block->home_ = shared_from_this();
  block->refs_.store(1, std::memory_order_relaxed);
}

void OutputBlockPool::Trim() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (OutputBlock* b : free_) delete b;
  free_.clear();
  free_.shrink_to_fit();
}

void OutputBlockPool::Recycle(OutputBlock* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(block);
}

}  // namespace envpool_core
