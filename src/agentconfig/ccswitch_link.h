// CC Switch's one import path for a provider: its `ccswitch://v1/import?resource=provider`
// deep link (CC Switch reads no provider file). The link is made from [provider] like the
// other agent configs, and it must carry the key: CC Switch refuses a provider link without
// one and stores the key it is given in its own database, as the Claude provider's
// env.ANTHROPIC_AUTH_TOKEN (it keeps only `env` of a linked config, so apiKeyHelper cannot
// travel). attnverify therefore never writes this link to a file: `agent-config
// ccswitch-link` builds it from $key_env at the moment the user imports, and prints it.
// doc/agent-configs.md "CC Switch" says where the key lives afterwards. Pure functions.
#pragma once

#include <string>
#include <string_view>

#include "agentconfig/provider_table.h"
#include "core/status.h"

namespace av {

// The deep link for app "claude": name, homepage (the Base URL's scheme and host), endpoint
// (the Base URL), apiKey, model and the haiku / sonnet / opus models, notes, and `config`
// (base64 JSON {"env": {...}}: the variables the link has no parameter for, such as
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC), each value percent-encoded. InvalidInput when
// `key` is empty or blank (CC Switch would refuse the link) or holds a control character.
Result<std::string> CcSwitchDeepLink(const ProviderTable& p, std::string_view key);

// Every byte but A-Z a-z 0-9 - . _ ~ as %XX (so '+' is %2B, never read back as a space).
std::string PercentEncode(std::string_view text);

}  // namespace av
