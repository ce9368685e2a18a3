// Tests of the key/value side shared by an input family (case_builder.h InputFamily,
// SharedInputs): every (h_q, s_q) of one paged cache gets the same cache, block table and
// lengths bytes; a length s_q's floor raises gives that case its own; building through
// a SharedInputs gives the bytes building alone does, generating each cache once; every
// m of a GEMM shares operand b and every n operand a; the set is bounded, makes a key
// once when two threads ask at the same time and keeps no failure; and the shard plan
// keeps a family on one shard unless it is too big to balance; the memory model covers
// what a case holds and keeps the full grid's largest GEMMs from running side by side.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sweep/case_builder.h"
#include "sweep/shapes_config.h"
#include "sweep/shard_plan.h"
#include "tensor/safetensors.h"

namespace av {
namespace {

std::vector<CaseSpec> Expand(const std::string& json) {
  auto cfg = ParseShapesConfig(json, "shapes.json");
  EXPECT_TRUE(cfg.ok()) << cfg.status().message();
  if (!cfg.ok()) return {};
  auto cases = ExpandCases(*cfg);
  EXPECT_TRUE(cases.ok()) << cases.status().message();
  return cases.ok() ? *cases : std::vector<CaseSpec>{};
}

const CaseSpec& ById(const std::vector<CaseSpec>& all, const std::string& part) {
  for (const CaseSpec& c : all)
    if (c.id.find(part) != std::string::npos) return c;
  ADD_FAILURE() << "no case " << part;
  return all.front();
}

// The bytes of one input as stored (its storage, padding included).
std::string Bytes(const BuiltCase& b, const std::string& name) {
  for (const auto& [n, t] : b.file_tensors) {
    if (n != name) continue;
    Tensor c = t.Contiguous();
    return std::string(reinterpret_cast<const char*>(c.data()), c.nbytes());
  }
  ADD_FAILURE() << "no input " << name;
  return "";
}

std::string AllBytes(const BuiltCase& b) {
  auto bytes = SerializeSafetensors(b.file_tensors, b.op_params.values());
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : "";
}

constexpr const char* kMla = R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
  "fixed": {"b": 5, "s_k": 70, "d": 40, "dv": 32, "page_size": 16, "causal": true, "lengths": "random"},
  "grid": {"h_q": [1, 3, 16], "s_q": [1, 2, 4]}, "seeds": [0, 1]}]})";

TEST(SharedInputsTest, EveryQueryShapeOfAFamilySeesTheSameCache) {
  std::vector<CaseSpec> all = Expand(kMla);
  ASSERT_EQ(all.size(), 18u);
  const CaseSpec& a = ById(all, "h_q=1.s_q=1.bf16.s0");
  const CaseSpec& b = ById(all, "h_q=16.s_q=4.bf16.s0");
  const CaseSpec& other_seed = ById(all, "h_q=16.s_q=4.bf16.s1");
  EXPECT_EQ(InputFamily(a), InputFamily(b));
  EXPECT_NE(InputFamily(a), InputFamily(other_seed));
  auto ba = BuildCase(a), bb = BuildCase(b), bs = BuildCase(other_seed);
  ASSERT_TRUE(ba.ok() && bb.ok() && bs.ok());
  // Lengths N(70, 35) of 5 sequences are all above s_q = 4 here, so nothing was raised.
  ASSERT_EQ(ba->notes.key_lengths, bb->notes.key_lengths);
  for (const char* name : {"k_cache", "block_table", "cache_seqlens"})
    EXPECT_EQ(Bytes(*ba, name), Bytes(*bb, name)) << name;
  EXPECT_NE(Bytes(*ba, "q").size(), Bytes(*bb, "q").size());
  EXPECT_NE(Bytes(*ba, "k_cache"), Bytes(*bs, "k_cache"));
  // The query side is still the case's own: two cases of one shape but another h_q differ.
  auto bq = BuildCase(ById(all, "h_q=3.s_q=1.bf16.s0"));
  ASSERT_TRUE(bq.ok());
  EXPECT_NE(Bytes(*ba, "q"), Bytes(*bq, "q").substr(0, Bytes(*ba, "q").size()));
}

TEST(SharedInputsTest, ALengthTheQueryFloorRaisesGetsItsOwnCache) {
  // Short sequences: N(6, 3) falls under s_q = 6 for some of 64 sequences, and FlashMLA
  // clips those at s_q. The raised lengths need more keys, so the cache is that case's.
  std::vector<CaseSpec> all = Expand(R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
    "fixed": {"b": 64, "s_k": 6, "d": 40, "dv": 32, "page_size": 16, "h_q": 2, "lengths": "random"},
    "grid": {"s_q": [1, 6]}}]})");
  ASSERT_EQ(all.size(), 2u);
  // Their caches differ, so they are two families: the work order keeps each together.
  EXPECT_NE(InputFamily(all[0]), InputFamily(all[1]));
  auto lo = BuildCase(all[0]), hi = BuildCase(all[1]);
  ASSERT_TRUE(lo.ok() && hi.ok());
  const std::vector<int64_t>& l1 = *lo->notes.key_lengths;
  const std::vector<int64_t>& l6 = *hi->notes.key_lengths;
  int raised = 0;
  for (size_t i = 0; i < l1.size(); ++i) {
    EXPECT_EQ(l6[i], std::max<int64_t>(l1[i], 6)) << i;  // the same draws, clipped at s_q
    raised += l6[i] != l1[i];
  }
  ASSERT_GT(raised, 0);
  EXPECT_NE(Bytes(*lo, "k_cache"), Bytes(*hi, "k_cache"));
  // Every key a sequence reaches is a number; every other row of the cache is NaN.
  for (const auto* built : {&*lo, &*hi}) {
    Tensor k, table;
    for (const auto& [n, t] : built->file_tensors) {
      if (n == "k_cache") k = t;
      if (n == "block_table") table = t;
    }
    const std::vector<int64_t>& len = *built->notes.key_lengths;
    std::set<std::pair<int64_t, int64_t>> reached;
    for (int64_t i = 0; i < 64; ++i)
      for (int64_t j = 0; j < len[static_cast<size_t>(i)]; ++j)
        reached.insert({table.At<int32_t>(std::vector<int64_t>{i, j / 16}), j % 16});
    for (int64_t p = 0; p < k.dim(0); ++p)
      for (int64_t s = 0; s < 16; ++s)
        EXPECT_EQ(std::isnan(k.GetDouble(std::vector<int64_t>{p, s, 0, 0})),
                  reached.count({p, s}) == 0)
            << p << " " << s;
  }
}

TEST(SharedInputsTest, AttentionSharesKeysAcrossQueriesOnlyWhenHkvIsFixed) {
  std::vector<CaseSpec> all = Expand(R"({"version": 1, "sweeps": [
    {"name": "g", "op": "attention", "fixed": {"b": 3, "s_k": 40, "d": 16, "h_kv": 2, "page_size": 16, "lengths": "random"},
     "grid": {"layout": ["batched", "paged", "varlen"], "h_q": [2, 4], "s_q": [3, 5]}},
    {"name": "f", "op": "attention", "fixed": {"b": 3, "s_k": 40, "d": 16, "s_q": 3},
     "grid": {"h_q": [2, 4]}}]})");
  std::map<std::string, std::vector<const CaseSpec*>> family;
  for (const CaseSpec& c : all) family[InputFamily(c)].push_back(&c);
  // Three layouts of g, each holding its four (h_q, s_q); f's h_kv follows h_q.
  ASSERT_EQ(family.size(), 5u);
  for (const auto& [key, members] : family) {
    if (members.front()->sweep == "f") {
      EXPECT_EQ(members.size(), 1u) << key;
      continue;
    }
    ASSERT_EQ(members.size(), 4u) << key;
    auto first = BuildCase(*members.front());
    ASSERT_TRUE(first.ok());
    for (const CaseSpec* c : members) {
      auto b = BuildCase(*c);
      ASSERT_TRUE(b.ok()) << c->id;
      for (const auto& [name, t] : first->file_tensors) {
        if (name == "q" || name == "cu_seqlens_q") continue;
        EXPECT_EQ(Bytes(*b, name), Bytes(*first, name)) << c->id << " " << name;
      }
    }
  }
}

TEST(SharedInputsTest, BuildingThroughTheSetGivesTheSameBytesAndGeneratesOnce) {
  // With full lengths two seeds have the same lengths but not the same cache.
  std::vector<CaseSpec> all = Expand(R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
    "fixed": {"b": 5, "s_k": 70, "d": 40, "dv": 32, "page_size": 16, "causal": true},
    "grid": {"h_q": [1, 3, 16], "s_q": [1, 2, 4], "lengths": ["random", "full"]}, "seeds": [0, 1],
    "invariance": {"seeds": 2}}]})");
  ASSERT_EQ(all.size(), 72u);  // 36 base cases, each with a seed variant
  SharedInputs shared(8, int64_t{1} << 30);
  for (const CaseSpec& c : all) {
    auto alone = BuildCase(c), through = BuildCase(c, &shared);
    ASSERT_TRUE(alone.ok() && through.ok()) << c.id;
    EXPECT_EQ(AllBytes(*alone), AllBytes(*through)) << c.id;
  }
  // Families: 2 lengths x the seeds 0, 1 and the variants' (seed 0's variant draws seed
  // 1 again, seed 1's a seed of its own): one cache each, handed to every other case.
  std::set<std::string> caches;
  for (const CaseSpec& c : all) caches.insert(InputFamily(c));
  EXPECT_EQ(shared.made(), static_cast<int64_t>(caches.size()));
  EXPECT_EQ(shared.reused(), 72 - static_cast<int64_t>(caches.size()));
}

TEST(SharedInputsTest, TheSetIsBoundedAndMakesAKeyOnceUnderThreads) {
  auto make = [](std::atomic<int>* calls, int64_t n) {
    return [calls, n]() -> Result<NamedTensors> {
      ++*calls;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return NamedTensors{{"t", Tensor::Zeros(DType::kF32, {n})}};
    };
  };
  auto data = [](const Result<NamedTensors>& r) {
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->front().second.data() : nullptr;
  };
  std::atomic<int> calls{0};
  SharedInputs one(1, int64_t{1} << 20);
  Result<NamedTensors> first = one.GetOrMake("a", make(&calls, 4));  // held: its buffer lives
  const std::byte* a = data(first);
  data(one.GetOrMake("b", make(&calls, 4)));  // evicts a
  Result<NamedTensors> again = one.GetOrMake("a", make(&calls, 4));
  EXPECT_EQ(calls.load(), 3);
  EXPECT_NE(a, data(again));
  // By bytes: two 1 KiB tensors under a 1.5 KiB budget keep only the newer; one tensor
  // over the budget is still kept (the most recent always is).
  SharedInputs small(8, 1536);
  for (const char* key : {"x", "y", "y", "x"}) data(small.GetOrMake(key, make(&calls, 256)));
  EXPECT_EQ(small.made(), 3);
  EXPECT_EQ(small.reused(), 1);
  // A failed make is returned and not kept: the next asker makes it again.
  int failures = 0;
  auto failing = [&]() -> Result<NamedTensors> {
    ++failures;
    return Internal("no");
  };
  EXPECT_FALSE(small.GetOrMake("z", failing).ok());
  EXPECT_FALSE(small.GetOrMake("z", failing).ok());
  EXPECT_EQ(failures, 2);
  // Four threads ask for one key at once: one generation, one buffer.
  calls = 0;
  SharedInputs shared(4, int64_t{1} << 20);
  std::vector<const std::byte*> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back(
        [&, t] { seen[static_cast<size_t>(t)] = data(shared.GetOrMake("k", make(&calls, 8))); });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(calls.load(), 1);
  for (const std::byte* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_EQ(shared.reused(), 3);
}

// Clear drops what the set keeps (the next ask generates again) but never a tensor a
// caller still holds.
TEST(SharedInputsTest, ClearDropsKeptEntriesButNotTensorsHandedOut) {
  int calls = 0;
  auto make = [&calls]() -> Result<NamedTensors> {
    ++calls;
    Tensor t = Tensor::Zeros(DType::kF32, {4});
    reinterpret_cast<float*>(t.mutable_data())[2] = 7.0f;
    return NamedTensors{{"t", t}};
  };
  SharedInputs set(4, int64_t{1} << 20);
  Result<NamedTensors> held = set.GetOrMake("k", make);
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(set.GetOrMake("k", make).ok());
  EXPECT_EQ(calls, 1);
  set.Clear();
  ASSERT_TRUE(set.GetOrMake("k", make).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(set.made(), 2);
  EXPECT_EQ(reinterpret_cast<const float*>(held->front().second.data())[2], 7.0f);
}

TEST(SharedInputsTest, EveryMOfAGemmSharesOperandBAndEveryNOperandA) {
  std::vector<CaseSpec> all = Expand(R"({"version": 1, "sweeps": [
    {"name": "f", "op": "fp8_gemm", "cases": [{"m": 1, "n": 256, "k": 256}, {"m": 130, "n": 256, "k": 256},
                                             {"m": 130, "n": 384, "k": 256}],
     "generators": ["randn", "fp8_saturating"]},
    {"name": "g", "op": "gemm", "cases": [{"m": 3, "n": 5, "k": 33}, {"m": 7, "n": 5, "k": 33}], "dtypes": ["f32"]}]})");
  ASSERT_EQ(all.size(), 8u);
  SharedInputs shared(16, int64_t{1} << 30);
  std::map<std::string, BuiltCase> built;
  for (const CaseSpec& c : all) {
    auto alone = BuildCase(c), through = BuildCase(c, &shared);
    ASSERT_TRUE(alone.ok() && through.ok()) << c.id;
    EXPECT_EQ(AllBytes(*alone), AllBytes(*through)) << c.id;
    built.emplace(c.id, std::move(*alone));
  }
  auto get = [&](const std::string& id) -> const BuiltCase& { return built.at(id); };
  for (const char* gen : {"randn", "fp8_saturating"}) {
    const std::string g = std::string(".generator=") + gen;
    const BuiltCase& m1 = get("f.generator=" + std::string(gen) + ".k=256.m=1.n=256.f8_e4m3fn.s0");
    const BuiltCase& m130 =
        get("f.generator=" + std::string(gen) + ".k=256.m=130.n=256.f8_e4m3fn.s0");
    const BuiltCase& n384 =
        get("f.generator=" + std::string(gen) + ".k=256.m=130.n=384.f8_e4m3fn.s0");
    EXPECT_EQ(Bytes(m1, "b"), Bytes(m130, "b")) << g;
    EXPECT_EQ(Bytes(m1, "sb"), Bytes(m130, "sb")) << g;
    EXPECT_EQ(Bytes(m130, "a"), Bytes(n384, "a")) << g;
    EXPECT_EQ(Bytes(m130, "sa"), Bytes(n384, "sa")) << g;
    EXPECT_NE(Bytes(m130, "b"), Bytes(n384, "b").substr(0, Bytes(m130, "b").size())) << g;
  }
  EXPECT_EQ(Bytes(get("g.k=33.m=3.n=5.f32.s0"), "b"), Bytes(get("g.k=33.m=7.n=5.f32.s0"), "b"));
  // Made once each: fp8 a (m 1, 130) and b (n 256, 384) per generator, gemm a twice, b once.
  EXPECT_EQ(shared.made(), 2 * 4 + 3);
  EXPECT_EQ(shared.reused(), 2 * 2 + 1);
}

TEST(SharedInputsTest, ShardsKeepAFamilyTogetherUnlessItIsTooBigToBalance) {
  // The full MLA grid's shape (config/shapes.full.json): 120 (b, s_k, lengths, seed), each
  // one family of 21 (h_q, s_q) unless s_q raised some of its random lengths (then one per
  // set of lengths, up to three; half_empty lengths are never raised).
  std::vector<CaseSpec> all = Expand(R"({"version": 1, "sweeps": [{"name": "m", "op": "mla_decode",
    "grid": {"b": [1, 2, 6, 64], "s_q": [1, 2, 4], "s_k": [20, 140, 4096], "h_q": [1, 3, 9, 63, 64, 126, 128],
             "lengths": ["random", "half_empty"]}, "fixed": {"causal": true}, "seeds": [0, 1, 2, 3, 4]}]})");
  ASSERT_EQ(all.size(), 2520u);
  for (int n : {4, 16}) {
    ShardPlan plan = PlanShards(all, n);
    std::map<std::string, std::set<int>> shards_of;
    std::map<std::string, double> cost;
    double total = 0;
    for (const CaseSpec& c : all) {
      shards_of[InputFamily(c)].insert(plan.shard_of_group[static_cast<size_t>(c.group_index)]);
      cost[InputFamily(c)] += EstimateCaseFlops(c);
      total += EstimateCaseFlops(c);
    }
    ASSERT_GT(shards_of.size(), 120u);
    ASSERT_LE(shards_of.size(), 120u + 2 * 60);
    const double cap = total / n / 2;
    for (const auto& [family, shards] : shards_of) {
      const size_t pieces = static_cast<size_t>(std::ceil(cost[family] / cap));
      EXPECT_LE(shards.size(), std::max<size_t>(pieces, 1)) << family << " n=" << n;
      if (cost[family] <= cap) EXPECT_EQ(shards.size(), 1u) << family;
    }
    // Balanced by cost: no shard more than a tenth over the mean.
    for (double f : plan.flops) EXPECT_LE(f, 1.1 * total / n) << "n=" << n;
  }
}

TEST(SharedInputsTest, TheMemoryModelCoversWhatACaseHoldsAndKeepsBigGemmsApart) {
  std::vector<CaseSpec> all = Expand(R"({"version": 1, "sweeps": [
    {"name": "m", "op": "mla_decode", "fixed": {"page_size": 16, "d": 40, "dv": 32},
     "grid": {"b": [2, 9], "s_k": [20, 140], "lengths": ["random", "full", "half_empty"]}},
    {"name": "a", "op": "attention", "fixed": {"b": 3, "s_k": 70, "s_q": 5, "h_q": 4, "d": 16, "page_size": 16},
     "grid": {"layout": ["batched", "paged", "varlen"], "lengths": ["random", "full"]}, "dtypes": ["bf16", "f32"]},
    {"name": "f", "op": "fp8_gemm", "cases": [{"m": 130, "n": 256, "k": 384}]},
    {"name": "g", "op": "gemm", "cases": [{"m": 7, "n": 5, "k": 33}], "dtypes": ["f32"]}]})");
  ASSERT_FALSE(all.empty());
  for (const CaseSpec& c : all) {
    auto built = BuildCase(c);
    ASSERT_TRUE(built.ok()) << c.id;
    double held = 0;  // the inputs, and each output as a float64 reference and the candidate's
    for (const auto& [name, t] : built->file_tensors) held += static_cast<double>(t.nbytes());
    for (const ExpectedOutput& e : built->outputs) {
      double n = 1;
      for (int64_t d : e.shape) n *= static_cast<double>(d);
      held += n * static_cast<double>(8 + DTypeSize(e.dtype));
    }
    EXPECT_GE(static_cast<double>(EstimateCaseBytes(c)), held) << c.id;
  }
  // The full grid: its largest MLA cases run two at a time, its largest GEMMs alone.
  std::vector<CaseSpec> big = Expand(R"({"version": 1, "sweeps": [
    {"name": "m", "op": "mla_decode", "fixed": {"b": 64, "s_q": 4, "s_k": 4096, "h_q": 128}},
    {"name": "f", "op": "fp8_gemm", "cases": [{"m": 4096, "n": 24576, "k": 1536}, {"m": 4096, "n": 7168, "k": 16384}]}]})");
  ASSERT_EQ(big.size(), 3u);
  EXPECT_LE(2 * EstimateCaseBytes(big[0]), kSweepMemoryBudget);
  EXPECT_GT(EstimateCaseBytes(big[1]) + EstimateCaseBytes(big[0]), kSweepMemoryBudget);
  EXPECT_GT(EstimateCaseBytes(big[2]) + EstimateCaseBytes(big[0]), kSweepMemoryBudget);
}

}  // namespace
}  // namespace av
