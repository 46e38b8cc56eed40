// libFuzzer entry point for the tokenizer harness (harnesses.cpp).
#include "harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  attention::fuzz::tokenizer(data, size);
  return 0;
}
