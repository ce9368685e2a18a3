// Forward epilogue of a varlen attention kernel: TMA store of O (attnverify fixture).
#pragma once

template <class Element, class TileShape>
struct FwdEpilogue {
  struct Arguments {
    Element* ptr_o;
    StrideO stride_o;
  };

  template <class ProblemShape>
  static Params to_params(ProblemShape const& problem_shape, Arguments const& args) {
    auto ptr_o = args.ptr_o;
    auto stride_o = args.stride_o;
    auto shape_o = select<0, 2, 3>(problem_shape);

    if constexpr (is_varlen_v<ProblemShape>) {
      auto cumulative_length_q = get<0>(problem_shape).cumulative_length;
      if (cumulative_length_q != nullptr) {
        int max_length_q = get<0>(problem_shape).max_length;
        get<0>(shape_o).max_length = max(1, max_length_q);
        // variable lengths: the batch advances in units of a row
        get<2, 1>(stride_o) = get<0>(stride_o);
        get<2, 1>(shape_o) = max(1, max_length_q * (1 + get<2, 1>(shape_o)));
        // move the pointer back by what the batch offset adds later
        ptr_o -= max_length_q * get<0>(stride_o);
      }
    } else {
      get<0>(shape_o) = max(1, get<0>(shape_o));
    }

    auto store = make_tma_store(ptr_o, make_layout(shape_o, stride_o), TileShape{});
    return Params{store, shape_o};
  }
};
