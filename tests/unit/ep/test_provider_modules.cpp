// Provider modules: a module that cannot be loaded leaves its provider listed,
// unavailable, with the loader's reason.
#include <gtest/gtest.h>

#include "ep/provider_modules.hpp"

namespace tessera::ep {

TEST(ProviderModules, AMissingModuleListsItsProviderAsUnavailableWithTheReason) {
  std::vector<std::shared_ptr<ProviderFactory>> out;
  load_provider_modules({{"tessera_providers_nowhere", "NowhereExecutionProvider"}}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->name(), "NowhereExecutionProvider");
  std::string why;
  EXPECT_FALSE(out[0]->is_available(&why));
  EXPECT_NE(why.find("libtessera_providers_nowhere.so could not be loaded"), std::string::npos)
      << why;
  EXPECT_TRUE(out[0]->devices().empty());
  try {
    out[0]->create({});
    FAIL() << "created a provider whose module is missing";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kEPFail);
    EXPECT_NE(std::string(e.what()).find("NowhereExecutionProvider is not available"),
              std::string::npos);
  }
}

}  // namespace tessera::ep
