#include "core/json_value.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <utility>

namespace av {
namespace {

TEST(JsonValue, HoldsACopyAndReadsNullWhenEmptyOrMovedFrom) {
  JsonValue empty;
  EXPECT_TRUE(empty->is_null());
  JsonValue a = nlohmann::json{{"s_k", 33}};
  JsonValue b = a;  // a copy, not a shared value
  b.get()["s_k"] = 64;
  EXPECT_EQ((*a)["s_k"], 33);
  EXPECT_EQ((*b)["s_k"], 64);
  JsonValue c = std::move(b);
  EXPECT_EQ((*c)["s_k"], 64);
  EXPECT_TRUE(b->is_null());  // NOLINT(bugprone-use-after-move): defined as null
  b = a;
  EXPECT_TRUE(b == a);
}

}  // namespace
}  // namespace av
