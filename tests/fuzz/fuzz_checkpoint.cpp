// libFuzzer entry point for the checkpoint loader harness (harness_checkpoint.cpp).
#include "harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  attention::fuzz::checkpoint(data, size);
  return 0;
}
