// libFuzzer entry point for the config harness (harnesses.cpp).
#include "harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  attention::fuzz::config(data, size);
  return 0;
}
