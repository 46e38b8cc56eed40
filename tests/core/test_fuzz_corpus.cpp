// Replays the fuzz seed corpus and every saved finding (tests/fuzz/regressions/)
// through the fuzz harnesses, so that each stays tested on every build: native,
// sanitized and wasm.
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../fuzz/harnesses.hpp"

namespace {

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d))
      if (entry->d_name[0] != '.') files.push_back(dir + "/" + entry->d_name);
    closedir(d);
  }
  return files;
}

void replay(const std::string& name, void (*harness)(const std::uint8_t*, std::size_t)) {
  const std::string root = ATTENTION_FUZZ_DIR;
  std::vector<std::string> files = files_in(root + "/corpus/" + name);
  ASSERT_FALSE(files.empty()) << "no seed corpus for " << name;
  for (const std::string& f : files_in(root + "/regressions/" + name)) files.push_back(f);
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(file);
    harness(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
}

}  // namespace

TEST(FuzzCorpus, Tokenizer) { replay("tokenizer", attention::fuzz::tokenizer); }
TEST(FuzzCorpus, Config) { replay("config", attention::fuzz::config); }
TEST(FuzzCorpus, Forward) { replay("forward", attention::fuzz::forward); }
TEST(FuzzCorpus, Safetensors) { replay("safetensors", attention::fuzz::safetensors); }
TEST(FuzzCorpus, PretrainedTokenizers) { replay("pretrained_tokenizers", attention::fuzz::pretrained_tokenizers); }
TEST(FuzzCorpus, Checkpoint) { replay("checkpoint", attention::fuzz::checkpoint); }
