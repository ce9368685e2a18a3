#include "numerics/localise_patterns.h"

namespace av {
namespace {

std::string Num(int64_t v) { return std::to_string(v); }

// What the table's predicates read besides the coordinates.
struct Ctx {
  LocaliseLayout layout;  // its mask, for VisibleKeys (lengths cleared: the Coord has them)
  bool causal = false;
  int64_t window_left = -1, window_right = -1;
  int64_t tile_rows = 64, tile_keys = 64, tile_m = 128, tile_n = 128;
  int64_t group = 1, h_kv = 0;  // GQA: query heads per kv head
  int64_t m_size = -1, n_size = -1;
  bool rows = false, keys = false, gemm = false, gqa = false;
};

// The last key row i may see under a bottom-right aligned causal mask.
int64_t Diagonal(const Coord& c) { return c.row + c.s_k - c.s_q; }

// The row block DeepGEMM's per-token scales belong to in a buggy kernel (the 128 of its
// 1x128 scale groups, taken as rows).
constexpr int64_t kScaleBlock = 128;

struct PatternDef {
  PatternAxis axis;
  bool (*applies)(const Ctx&);
  std::string (*text)(const Ctx&);
  bool (*in)(const Coord&, const Ctx&);
};

// The catalogue, in the order hints are preferred. Phrases the report's attribution keys
// on (doc/report.md): "causal mask is misaligned", "window edge", "window is clipped",
// "key length is not a multiple of", "partial T-key tile", "empty sequences".
const PatternDef kPatterns[] = {
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows; },
     [](const Ctx& x) {
       return std::string("in query rows i < s_q - 1 (not the last query row of each sequence)") +
              (x.causal ? ": the causal mask is misaligned for s_q > 1 (row i must see keys "
                          "j <= i + s_k - s_q, bottom-right aligned)"
                        : "");
     },
     [](const Coord& c, const Ctx&) { return c.row < c.s_q - 1; }},
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows; },
     [](const Ctx&) { return std::string("in the last query row of sequences with s_q > 1"); },
     [](const Coord& c, const Ctx&) { return c.s_q > 1 && c.row == c.s_q - 1; }},
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows && x.keys; },
     [](const Ctx&) {
       return std::string(
           "in rows with no visible key (s_k = 0, or i + s_k - s_q outside the mask): they must "
           "give O = 0 and LSE = -inf (FlashMLA: +inf)");
     },
     [](const Coord& c, const Ctx& x) { return VisibleKeys(c, x.layout) == 0; }},
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows && x.keys && x.window_left >= 0; },
     [](const Ctx& x) {
       return "in rows whose window starts inside the sequence (i + s_k - s_q >= window_left = " +
              Num(x.window_left) +
              "): the left window edge j >= i + s_k - s_q - window_left is off";
     },
     [](const Coord& c, const Ctx& x) { return c.s_k >= 0 && Diagonal(c) >= x.window_left; }},
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows && x.keys && x.window_left >= 0; },
     [](const Ctx& x) {
       return "in rows where i + s_k - s_q is within the window edge (i + s_k - s_q < "
              "window_left = " +
              Num(x.window_left) + "): the window is clipped at key 0";
     },
     [](const Coord& c, const Ctx& x) { return c.s_k >= 0 && Diagonal(c) < x.window_left; }},
    {PatternAxis::kQueryRow,
     [](const Ctx& x) { return x.rows && x.keys && x.window_right > 0 && !x.causal; },
     [](const Ctx&) {
       return std::string(
           "in rows whose window ends inside the sequence (i + s_k - s_q + window_right <= "
           "s_k - 1): the right window edge is off");
     },
     [](const Coord& c, const Ctx& x) {
       return c.s_k >= 0 && Diagonal(c) + x.window_right <= c.s_k - 1;
     }},
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows && x.keys && x.causal; },
     [](const Ctx& x) {
       return "in rows whose last visible key ends a partial " + Num(x.tile_keys) +
              "-key tile ((i + s_k - s_q + 1) mod " + Num(x.tile_keys) + " != 0)";
     },
     [](const Coord& c, const Ctx& x) {
       return c.s_k >= 0 && Diagonal(c) >= 0 && (Diagonal(c) + 1) % x.tile_keys != 0;
     }},
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows; },
     [](const Ctx& x) {
       return "in query rows i >= " + Num(x.tile_rows) + " (the second and later " +
              Num(x.tile_rows) + "-row tiles)";
     },
     [](const Coord& c, const Ctx& x) { return c.row >= x.tile_rows; }},
    {PatternAxis::kQueryRow, [](const Ctx& x) { return x.rows; },
     [](const Ctx& x) {
       return "in the last, partial " + Num(x.tile_rows) + "-row tile of sequences whose s_q " +
              "is not a multiple of " + Num(x.tile_rows);
     },
     [](const Coord& c, const Ctx& x) {
       return c.s_q % x.tile_rows != 0 && c.row >= c.s_q / x.tile_rows * x.tile_rows;
     }},
    // An empty sequence is no multiple of a tile either way: it is left out of both.
    {PatternAxis::kSequence, [](const Ctx& x) { return x.keys; },
     [](const Ctx& x) {
       return "in sequences whose key length is not a multiple of " + Num(x.tile_keys);
     },
     [](const Coord& c, const Ctx& x) { return c.s_k > 0 && c.s_k % x.tile_keys != 0; }},
    {PatternAxis::kSequence, [](const Ctx& x) { return x.keys; },
     [](const Ctx& x) {
       return "in sequences whose key length is a non-zero multiple of " + Num(x.tile_keys);
     },
     [](const Coord& c, const Ctx& x) { return c.s_k > 0 && c.s_k % x.tile_keys == 0; }},
    {PatternAxis::kSequence, [](const Ctx& x) { return x.keys; },
     [](const Ctx&) {
       return std::string(
           "in empty sequences (s_k = 0): they must give O = 0 and LSE = -inf (FlashMLA: +inf)");
     },
     [](const Coord& c, const Ctx&) { return c.s_k == 0; }},
    {PatternAxis::kSequence, [](const Ctx& x) { return x.keys; },
     [](const Ctx& x) {
       return "in sequences longer than one " + Num(x.tile_keys) + "-key tile (s_k > " +
              Num(x.tile_keys) + ")";
     },
     [](const Coord& c, const Ctx& x) { return c.s_k > x.tile_keys; }},
    {PatternAxis::kHead, [](const Ctx& x) { return x.gqa; },
     [](const Ctx& x) {
       return "in heads h whose kv head h / " + Num(x.group) + " differs from h mod " +
              Num(x.h_kv) +
              ": the GQA mapping looks wrong (head h must read kv head h / (h_q / h_kv))";
     },
     [](const Coord& c, const Ctx& x) { return c.head / x.group != c.head % x.h_kv; }},
    {PatternAxis::kN,
     [](const Ctx& x) { return x.gemm && x.n_size > x.tile_n && x.n_size % x.tile_n != 0; },
     [](const Ctx& x) {
       return "in columns n >= " + Num(x.n_size / x.tile_n * x.tile_n) +
              " (the tail after the last full " + Num(x.tile_n) +
              "-column tile): the tail tile is missing or wrong";
     },
     [](const Coord& c, const Ctx& x) { return c.n >= x.n_size / x.tile_n * x.tile_n; }},
    {PatternAxis::kM,
     [](const Ctx& x) { return x.gemm && x.m_size > x.tile_m && x.m_size % x.tile_m != 0; },
     [](const Ctx& x) {
       return "in rows m >= " + Num(x.m_size / x.tile_m * x.tile_m) +
              " (the tail after the last full " + Num(x.tile_m) + "-row tile)";
     },
     [](const Coord& c, const Ctx& x) { return c.m >= x.m_size / x.tile_m * x.tile_m; }},
    {PatternAxis::kM, [](const Ctx& x) { return x.gemm && x.m_size > 1; },
     [](const Ctx&) {
       return "in rows m with m mod " + Num(kScaleBlock) +
              " != 0: per-token scales look applied per " + Num(kScaleBlock) + " rows";
     },
     [](const Coord& c, const Ctx&) { return c.m % kScaleBlock != 0; }},
};

Ctx MakeCtx(const CoordMap& map) {
  const LocaliseLayout& l = map.layout();
  Ctx x;
  x.layout.causal = l.causal;
  x.layout.window_left = l.window_left;
  x.layout.window_right = l.window_right;
  x.causal = l.causal;
  x.window_left = l.window_left;
  x.window_right = l.window_right;
  x.tile_rows = std::max<int64_t>(l.tile_rows, 1);
  x.tile_keys = std::max<int64_t>(l.tile_keys, 1);
  x.tile_m = std::max<int64_t>(l.tile_m, 1);
  x.tile_n = std::max<int64_t>(l.tile_n, 1);
  x.m_size = map.m_size();
  x.n_size = map.n_size();
  x.rows = map.has_rows();
  x.keys = map.has_keys();
  x.gemm = map.gemm();
  x.gqa = map.heads() > 0 && l.h_kv > 1 && l.h_q % l.h_kv == 0 && l.h_q / l.h_kv > 1;
  if (x.gqa) {
    x.group = l.h_q / l.h_kv;
    x.h_kv = l.h_kv;
  }
  return x;
}

}  // namespace

int64_t AxisValue(PatternAxis axis, const Coord& c, const LocaliseLayout& layout) {
  switch (axis) {
    case PatternAxis::kQueryRow:
      return (c.seq + 1) * (int64_t{1} << 32) + c.row;
    case PatternAxis::kRowIndex:
      return c.row;
    case PatternAxis::kSequence:
      return c.seq;
    case PatternAxis::kHead:
      return c.head;
    case PatternAxis::kKvGroup:
      return layout.h_kv > 1 && layout.h_q % layout.h_kv == 0 ? c.head / (layout.h_q / layout.h_kv)
                                                              : c.head;
    case PatternAxis::kChannel:
      return c.channel;
    case PatternAxis::kM:
      return c.m;
    case PatternAxis::kN:
      return c.n;
  }
  return -1;
}

std::vector<Pattern> CataloguePatterns(const CoordMap& map) {
  const Ctx x = MakeCtx(map);
  std::vector<Pattern> out;
  for (const PatternDef& def : kPatterns) {
    if (!def.applies(x)) continue;
    Pattern p;
    p.text = def.text(x);
    p.axis = def.axis;
    p.in = [in = def.in, x](const Coord& c) { return in(c, x); };
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<AxisSpan> NamedAxes(const CoordMap& map) {
  std::vector<AxisSpan> out;
  const LocaliseLayout& l = map.layout();
  if (map.sequences() > 0) {
    out.push_back(
        {map.varlen() ? "sequences" : "batch entries", PatternAxis::kSequence, map.sequences()});
  }
  if (map.has_rows()) out.push_back({"query rows i", PatternAxis::kRowIndex, map.max_rows()});
  if (map.heads() > 0) {
    out.push_back({"heads", PatternAxis::kHead, map.heads()});
    if (l.h_kv > 1 && l.h_q % l.h_kv == 0) {
      out.push_back({"kv-head groups (heads h / " + Num(l.h_q / l.h_kv) + ")",
                     PatternAxis::kKvGroup, l.h_kv});
    }
  }
  for (size_t d = 0; d < l.axes.size() && d < map.shape().size(); ++d) {
    const int64_t size = map.shape()[d];
    if (l.axes[d] == AxisRole::kChannel) out.push_back({"channels", PatternAxis::kChannel, size});
    if (l.axes[d] == AxisRole::kM) out.push_back({"rows m", PatternAxis::kM, size});
    if (l.axes[d] == AxisRole::kN) out.push_back({"columns n", PatternAxis::kN, size});
  }
  return out;
}

std::vector<Pattern> RangePatterns(const std::vector<AxisSpan>& spans, const CoordMap& map) {
  std::vector<Pattern> out;
  const LocaliseLayout layout = map.layout();
  auto add = [&](const AxisSpan& s, const std::string& op, int64_t v,
                 std::function<bool(int64_t)> keep) {
    Pattern p;
    p.text = "in " + s.plural + " " + op + " " + Num(v) + " only";
    p.axis = s.axis;
    p.fitted = true;
    p.in = [axis = s.axis, layout, keep](const Coord& c) {
      return keep(AxisValue(axis, c, layout));
    };
    out.push_back(std::move(p));
  };
  for (const AxisSpan& s : spans) {
    if (s.err_max < 0) continue;
    const int64_t lo = s.err_min, hi = s.err_max;
    if (lo == hi) {
      add(s, "=", lo, [lo](int64_t v) { return v == lo; });
      continue;
    }
    if (lo > 0) add(s, ">=", lo, [lo](int64_t v) { return v >= lo; });
    if (hi < s.size - 1) add(s, "<=", hi, [hi](int64_t v) { return v <= hi; });
  }
  return out;
}

}  // namespace av
