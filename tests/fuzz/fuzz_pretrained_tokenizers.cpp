// libFuzzer entry point for the pretrained tokenizers' harness (harnesses.cpp).
#include "harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  attention::fuzz::pretrained_tokenizers(data, size);
  return 0;
}
