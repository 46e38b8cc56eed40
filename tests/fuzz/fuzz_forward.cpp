// libFuzzer entry point for the forward harness (harnesses.cpp).
#include "harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  attention::fuzz::forward(data, size);
  return 0;
}
