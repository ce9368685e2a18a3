#include "llm/base_url.h"

#include <gtest/gtest.h>

namespace av {
namespace {

TEST(BaseUrlTest, HttpsWithPathIsNormalised) {
  Result<BaseUrl> u = ParseBaseUrl("HTTPS://TaoToken.net/api/");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "taotoken.net");
  EXPECT_EQ(u->path, "/api");
  EXPECT_EQ(u->Normalized(), "https://taotoken.net/api");
  EXPECT_FALSE(u->loopback);
}

TEST(BaseUrlTest, PortsAndIpv6) {
  Result<BaseUrl> u = ParseBaseUrl("https://[::1]:8443");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->host, "[::1]");
  EXPECT_EQ(u->port, 8443);
  EXPECT_TRUE(u->loopback);
  EXPECT_EQ(u->Normalized(), "https://[::1]:8443");
  EXPECT_FALSE(ParseBaseUrl("https://host:0").ok());
  EXPECT_FALSE(ParseBaseUrl("https://host:70000").ok());
  EXPECT_FALSE(ParseBaseUrl("https://host:").ok());
  EXPECT_FALSE(ParseBaseUrl("https://[zz]").ok());
}

TEST(BaseUrlTest, PlainHttpOnlyToLoopback) {
  EXPECT_TRUE(ParseBaseUrl("http://127.0.0.1:8080").ok());
  EXPECT_TRUE(ParseBaseUrl("http://127.1.2.3").ok());
  EXPECT_TRUE(ParseBaseUrl("http://localhost:9").ok());
  Result<BaseUrl> u = ParseBaseUrl("http://taotoken.net/api");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("plain http"), std::string::npos);
  EXPECT_FALSE(ParseBaseUrl("http://128.0.0.1").ok());
  EXPECT_FALSE(ParseBaseUrl("http://127.0.0.1.evil.example").ok());
}

TEST(BaseUrlTest, FailsClosedOnQueryFragmentUserInfoAndOtherSchemes) {
  struct {
    const char* url;
    const char* says;
  } cases[] = {
      {"https://taotoken.net/api?utm_source=x", "query string"},
      {"https://taotoken.net/api#frag", "fragment"},
      {"https://user:pw@taotoken.net/api", "user info"},
      {"ftp://taotoken.net", "only https"},
      {"taotoken.net/api", "absolute URL"},
      {"https://", "no host"},
      {"https://taotoken.net/a b", "space"},
      {"https://taotoken.net/api/../x", "'..'"},
      {"https://taotoken.net/%2e%2e", "percent"},
      {"https://tao token.net", "space"},
      {"https://tao\"token.net", "letters, digits"},
  };
  for (const auto& c : cases) {
    Result<BaseUrl> u = ParseBaseUrl(c.url);
    ASSERT_FALSE(u.ok()) << c.url;
    EXPECT_NE(u.status().message().find(c.says), std::string::npos)
        << c.url << ": " << u.status().message();
  }
}

TEST(BaseUrlTest, UrlHostOfARedirect) {
  EXPECT_EQ(UrlHost("https://Evil.example:8443/v1/messages?x=1"), "evil.example");
  EXPECT_EQ(UrlHost("http://u:p@h.example/"), "h.example");
  EXPECT_EQ(UrlHost("http://[::1]:80/"), "[::1]");
  EXPECT_EQ(UrlHost("/relative/path"), "");
}

}  // namespace
}  // namespace av
