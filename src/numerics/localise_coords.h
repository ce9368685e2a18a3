// Coordinates of an output element by what they mean, for the localiser: the sequence
// (batch entry or varlen sequence), query row within it, head, channel, GEMM m and n,
// and that sequence's query and key lengths, from the output's layout. Also the unit an
// element belongs to (one softmax row of one head: the element with its channel left
// out), the unit hints are tested over. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace av {

// What each axis of an output means.
enum class AxisRole { kBatch, kRow, kHead, kChannel, kToken, kM, kN, kOther };

struct LocaliseLayout {
  std::vector<AxisRole> axes;  // one per axis of the output
  // Per sequence (batch entry, or varlen sequence): query rows and keys. Empty: unknown.
  std::vector<int64_t> q_lens;
  std::vector<int64_t> k_lens;
  bool causal = false;
  int64_t window_left = -1, window_right = -1;  // -1 unbounded
  int64_t h_q = 0, h_kv = 0;                    // 0: unknown (no GQA analysis)
  // The kernel's tiles the hints speak of (shapes.json "tile"): query rows and keys per
  // tile for attention, rows m and columns n per tile for GEMMs.
  int64_t tile_rows = 64, tile_keys = 64;
  int64_t tile_m = 128, tile_n = 128;
};

// What one element is, whatever the output's layout; -1 where the layout has no such axis
// (s_q, s_k: unknown).
struct Coord {
  int64_t seq = -1;  // batch entry or varlen sequence
  int64_t row = -1;  // query row within its sequence
  int64_t head = -1, channel = -1, m = -1, n = -1;
  int64_t s_q = -1, s_k = -1;  // of its sequence
};

// Keys that row `c` sees under `layout`'s mask (bottom-right aligned: row i of s_q sees
// keys j <= i + s_k - s_q when causal), or -1 when its key length is unknown.
int64_t VisibleKeys(const Coord& c, const LocaliseLayout& layout);

class CoordMap {
 public:
  // `layout.axes` must have one entry per axis of `shape`.
  CoordMap(const LocaliseLayout& layout, const Shape& shape);

  Coord At(const std::vector<int64_t>& index) const;
  // The element's coordinates by name, in axis order ("batch", "row", "head", "channel";
  // "sequence" and "position" for a packed token axis; "m", "n").
  std::vector<std::pair<std::string, int64_t>> Named(const std::vector<int64_t>& index) const;

  int64_t VisibleKeys(const Coord& c) const { return av::VisibleKeys(c, layout_); }

  // Units: elements with the channel axis left out (each softmax row of each head is
  // computed on its own; its channels share every error). Without a channel axis a unit
  // is an element.
  int64_t units() const { return units_; }
  int64_t channels() const { return channel_axis_ >= 0 ? channel_size_ : 0; }
  // The channel of element `linear` (-1: no channel axis).
  int64_t ChannelOf(int64_t linear) const {
    return channel_axis_ >= 0 ? linear / channel_inner_ % channel_size_ : -1;
  }
  int64_t UnitOf(int64_t linear) const;
  // The index of the unit's first element (channel 0).
  std::vector<int64_t> UnitIndex(int64_t unit) const;

  const LocaliseLayout& layout() const { return layout_; }
  const Shape& shape() const { return shape_; }
  bool varlen() const { return varlen_; }
  bool gemm() const { return m_size_ >= 0; }
  bool has_rows() const { return rows_axis_ >= 0 || varlen_; }
  bool has_keys() const { return !layout_.k_lens.empty(); }
  int64_t batch() const { return batch_; }          // -1: no batch axis
  int64_t rows_axis() const { return rows_axis_; }  // size of the row axis, -1: none
  int64_t heads() const { return heads_; }          // -1: no head axis
  int64_t m_size() const { return m_size_; }        // -1: not a GEMM
  int64_t n_size() const { return n_size_; }
  int64_t sequences() const;                     // batch entries or varlen sequences
  int64_t tokens() const { return cu_.back(); }  // varlen: packed tokens
  int64_t token_start(int64_t seq) const { return cu_[static_cast<size_t>(seq)]; }
  int64_t max_rows() const;  // longest sequence's query rows

 private:
  LocaliseLayout layout_;
  Shape shape_;
  bool varlen_ = false;
  std::vector<int64_t> cu_{0};  // varlen: token offsets of the sequences
  int64_t rows_axis_ = -1, heads_ = -1, batch_ = -1, m_size_ = -1, n_size_ = -1;
  int channel_axis_ = -1;
  int64_t channel_size_ = 1, channel_inner_ = 1;  // the channel axis' size, elements after it
  int64_t units_ = 0;
};

}  // namespace av
