#pragma once
// Fuzz harnesses: each takes arbitrary bytes, drives one part of the core, and
// aborts if an invariant breaks. libFuzzer calls them (fuzz_*.cpp); the GoogleTest
// suite replays the seed corpus and every saved finding through them
// (test_fuzz_corpus.cpp), so a finding stays a regression test.
#include <cstddef>
#include <cstdint>

namespace attention::fuzz {

// Tokenizer: tokens are non-empty, appear in the text in order, within the limit.
void tokenizer(const std::uint8_t* data, std::size_t size);
// Config validation: any config that validates runs without crashing.
void config(const std::uint8_t* data, std::size_t size);
// A full forward pass on fuzzed text and sizes: finite outputs, rows of weights sum to 1 or 0.
void forward(const std::uint8_t* data, std::size_t size);
// The safetensors reader on arbitrary bytes: an error with a message, or tensors of
// the right size with finite values that survive write -> read unchanged.
void safetensors(const std::uint8_t* data, std::size_t size);
// The pretrained models' tokenizers (GPT-2's BPE, BERT's WordPiece): the first byte
// picks a loader (fed the rest as a file) or an encoder (fed the rest as text, on a
// small built-in vocabulary). A file loads or is an error with a message; text
// encodes to known ids whose pieces and decoding succeed (GPT-2: decoding gives the
// text back), or is refused as invalid UTF-8.
void pretrained_tokenizers(const std::uint8_t* data, std::size_t size);
// Pretrained checkpoints (harness_checkpoint.cpp): the first byte picks config.json,
// the shard index, or a weights file for a tiny GPT-2 or BERT. Each is read or is an
// error with a message and code; a model that loads runs with finite outputs.
void checkpoint(const std::uint8_t* data, std::size_t size);

}  // namespace attention::fuzz
