// libFuzzer entry point for the safetensors reader harness (harnesses.cpp).
#include "harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  attention::fuzz::safetensors(data, size);
  return 0;
}
