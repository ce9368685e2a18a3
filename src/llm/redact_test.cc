#include "llm/redact.h"

#include <gtest/gtest.h>

namespace av {
namespace {

// Fakes shaped like real secrets, assembled here so no scanner flags the repository.
std::string Fake(const std::string& prefix, char fill, size_t n) {
  return prefix + std::string(n, fill);
}

TEST(RedactTest, ProviderKeyAndSecretNamedVariables) {
  std::map<std::string, std::string> env = {{"TAOTOKEN_API_KEY", "tt-0123456789abcdef"},
                                            {"GITHUB_TOKEN", "gh-fake-value-1234"},
                                            {"DB_PASSWORD", "short"},
                                            {"HOME", "/home/someone-long"}};
  RedactionContext ctx = RedactionContext::FromEnvironment(env, "TAOTOKEN_API_KEY");
  RedactionResult r = RedactSecrets(
      "key tt-0123456789abcdef, gh gh-fake-value-1234, pw short, home /home/someone-long", ctx);
  EXPECT_EQ(r.text,
            "key [REDACTED:provider_key], gh [REDACTED:env:GITHUB_TOKEN], pw short, home "
            "/home/someone-long");
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.by_rule["provider_key"], 1);
  EXPECT_EQ(r.by_rule["env:GITHUB_TOKEN"], 1);
}

TEST(RedactTest, SecretNames) {
  for (const char* n : {"OPENAI_API_KEY", "gh_token", "AWS_SECRET_ACCESS_KEY", "PGPASSWORD",
                        "MY_PASSWD", "GOOGLE_CREDENTIALS"}) {
    EXPECT_TRUE(RedactionContext::IsSecretName(n)) << n;
  }
  for (const char* n : {"HOME", "PATH", "LANG", "CUDA_HOME"}) {
    EXPECT_FALSE(RedactionContext::IsSecretName(n)) << n;
  }
}

TEST(RedactTest, Base64FormsOfALiteralAtEveryAlignment) {
  const std::string secret = "canary-0123456789-abcdefghij";
  RedactionContext ctx;
  ctx.set_patterns(false);
  ctx.AddLiteral("provider_key", secret);
  for (const std::string& prefix : {std::string(""), std::string("u:"), std::string("ab:")}) {
    for (bool url : {false, true}) {
      std::string encoded = Base64Encode(prefix + secret, url, true);
      RedactionResult r = RedactSecrets("Authorization-ish " + encoded + " end", ctx);
      EXPECT_GE(r.count, 1) << prefix << " " << encoded;
      // At most one 4-character group is left on either side of the marker: not enough
      // to decode any part of the secret.
      EXPECT_LE(r.text.size(), std::string("Authorization-ish  end").size() +
                                   std::string("[REDACTED:provider_key]").size() + 8)
          << r.text;
    }
  }
}

TEST(RedactTest, WellKnownTokenShapes) {
  struct {
    std::string secret;
    const char* rule;
  } cases[] = {
      {Fake("sk-ant-api03-", 'A', 93) + "AA", "anthropic_key"},
      {Fake("sk-proj-", 'b', 40), "openai_key"},
      {"sk-" + std::string(20, 'c') + "T3BlbkFJ" + std::string(20, 'd'), "openai_key"},
      {Fake("AKIA", 'Q', 16), "aws_access_key"},
      {Fake("ghp_", 'e', 36), "github_token"},
      {Fake("github_pat_", 'f', 30), "github_token"},
      {Fake("xoxb-", '1', 20), "slack_token"},
      {Fake("AIza", 'g', 35), "google_api_key"},
      {Fake("hf_", 'h', 34), "huggingface_token"},
      {std::string("eyJhbGciOiJI") + "UzI1NiJ9." + "eyJzdWIiOiIx" + "MjM0NTY3ODkwIn0." +
           "c2lnbmF0dXJl",
       "jwt"},
  };
  RedactionContext ctx;
  for (const auto& c : cases) {
    RedactionResult r = RedactSecrets("before " + c.secret + " after", ctx);
    EXPECT_EQ(r.text, std::string("before [REDACTED:") + c.rule + "] after") << c.secret;
    EXPECT_EQ(r.by_rule[c.rule], 1) << c.secret;
  }
}

TEST(RedactTest, AuthorizationHeadersAndBearerInText) {
  RedactionContext ctx;
  RedactionResult r = RedactSecrets(std::string("curl -H 'Authorization: Bearer ") +
                                        "abcdefghijklmnop0123' -H \"x-api-key: " + "zzzzzzzzzz9\"",
                                    ctx);
  EXPECT_EQ(r.text.find("abcdefghijklmnop0123"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("zzzzzzzzzz9"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("Authorization: Bearer [REDACTED:"), std::string::npos) << r.text;
  // Prose is left alone.
  EXPECT_EQ(RedactedText("the bearer of bad news; authorization: pending", ctx),
            "the bearer of bad news; authorization: pending");
}

TEST(RedactTest, PrivateKeyBlocks) {
  RedactionContext ctx;
  std::string block = std::string("-----BEGIN RSA PRIVATE") + " KEY-----\nMIIEowIBAAKCAQEA\n" +
                      "-----END RSA PRIVATE KEY-----";
  EXPECT_EQ(RedactedText("a\n" + block + "\nb", ctx), "a\n[REDACTED:private_key]\nb");
  // An unterminated block is redacted to the end.
  EXPECT_EQ(RedactedText("a -----BEGIN PRIVATE KEY-----\nMIIE", ctx), "a [REDACTED:private_key]");
  // A public key or a certificate is not a secret.
  EXPECT_EQ(RedactedText("-----BEGIN PUBLIC KEY-----", ctx), "-----BEGIN PUBLIC KEY-----");
}

TEST(RedactTest, NearMissesAreNotRedacted) {
  RedactionContext ctx;
  for (const std::string& text :
       {std::string("task-") + std::string(40, 'a'), std::string("sk-short"),
        std::string("AKIA") + std::string(15, 'Q'), std::string("xAKIA") + std::string(16, 'Q'),
        std::string("ghp_") + std::string(10, 'e'), std::string("eyJhbGc.notajwt")}) {
    EXPECT_EQ(RedactedText(text, ctx), text);
  }
}

TEST(RedactTest, OverlappingMatchesMergeAndTheOutputIsStable) {
  RedactionContext ctx;
  const std::string key = Fake("sk-ant-api03-", 'Z', 40);
  ctx.AddLiteral("provider_key", key);
  RedactionResult r = RedactSecrets("x-api-key: " + key, ctx);
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.text.find(key), std::string::npos);
  EXPECT_EQ(RedactedText(r.text, ctx), r.text);  // idempotent
}

TEST(RedactRegression, AReplacementThatExposesATokenIsRedactedToo) {
  // "x<literal>ghp_..." hides the GitHub token inside a word until the literal goes.
  RedactionContext ctx;
  ctx.AddLiteral("provider_key", "literal-secret-0001");
  const std::string token = Fake("ghp_", 'T', 36);
  RedactionResult r = RedactSecrets("x" + std::string("literal-secret-0001") + token, ctx);
  EXPECT_EQ(r.text, "x[REDACTED:provider_key][REDACTED:github_token]");
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(RedactedText(r.text, ctx), r.text);
}

TEST(RedactTest, ShortLiteralsAreIgnored) {
  RedactionContext ctx;
  ctx.AddLiteral("provider_key", "abc");
  EXPECT_TRUE(ctx.literals().empty());
  EXPECT_EQ(RedactedText("abc abc", ctx), "abc abc");
}

TEST(RedactTest, Base64EncodeMatchesRfc4648) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob", false, false), "Zm9vYg");
  EXPECT_EQ(Base64Encode("\xfb\xff", true, false), "-_8");
}

}  // namespace
}  // namespace av
