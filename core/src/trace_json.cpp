#include "attention/trace_json.hpp"

#include "attention/config.hpp"
#include "attention/kv_cache.hpp"
#include "attention/pretrained.hpp"
#include "attention/spec.hpp"
#include "attention/tasks.hpp"
#include "attention/tokenizer.hpp"
#include "attention/trainer.hpp"
#include "attention/transformer.hpp"

namespace attention {

Json trace_json(const Trace& trace, bool with_data) {
  Json stages = Json::array();
  std::size_t offset = 0;
  for (const Stage& stage : trace.stages) {
    const StageInfo& info = stage_info(stage.id);
    Json s = {{"layer", stage.layer},      {"name", stage.name},          {"kind", info.kind},
              {"axes", stage.tensor.axes}, {"shape", stage.tensor.shape}, {"offset", offset}};
    if (*info.mask) s["mask"] = info.mask;
    if (with_data) s["data"] = stage.tensor.data;  // non-finite floats become null
    offset += stage.tensor.size();
    stages.push_back(std::move(s));
  }
  return {{"tokens", trace.tokens}, {"sourceTokens", trace.source_tokens}, {"stages", std::move(stages)}};
}

namespace {

// "B,H,Sq,Sk" -> ["B", "H", "Sq", "Sk"]: the registries' comma-separated lists.
Json comma_list(const char* text) {
  Json out = Json::array();
  std::string item;
  for (const char* c = text;; ++c) {
    if (*c == ',' || *c == '\0') {
      out.push_back(item);
      item.clear();
      if (*c == '\0') break;
    } else {
      item += *c;
    }
  }
  return out;
}

}  // namespace

Json engine_description() {
  Json stages = Json::array();
  for (const StageInfo& s : stage_registry()) {
    Json j = {{"name", s.name}, {"scope", to_string(s.scope)}, {"kind", s.kind}, {"help", s.help}};
    if (*s.mask) j["mask"] = s.mask;
    j["axes"] = comma_list(s.axes);
    stages.push_back(j);
  }
  Json codes = Json::array();
  for (const char* code : kErrorCodes) codes.push_back(code);
  Json tasks = Json::array();
  for (const TaskInfo& t : task_infos())
    tasks.push_back({{"name", t.name}, {"vocabulary", t.vocabulary}, {"format", t.format}, {"pattern", t.pattern}});
  // The limits every call is held to (tokenizer.hpp, transformer.hpp, kv_cache.hpp): the package's LIMITS
  // and the docs read them from here.
  const Json limits = {{"texts", kMaxTexts},
                       {"tokensPerText", kMaxTokensPerText},
                       {"bytesPerText", kMaxTextBytes},
                       {"workingMemoryBytes", kMaxTraceFloats * sizeof(float)},
                       {"kvCacheBytes", kMaxKvCacheBytes}};
  Json blocks = Json::array();
  for (const AttentionBlockInfo& b : kAttentionBlocks)
    blocks.push_back(
        {{"name", std::string(b.stack) + "." + b.block}, {"stack", b.stack}, {"modes", comma_list(b.modes)}});
  Json families = Json::array();
  for (const pretrained::FamilyInfo& f : pretrained::family_infos())
    families.push_back({{"name", f.model_type}, {"tokenizer", f.tokenizer}});
  Json weights_modes = Json::array();  // loadPretrained's `weights`
  for (pretrained::WeightsMode mode : pretrained::kWeightsModes) weights_modes.push_back(pretrained::to_string(mode));
  Json q8_activations_modes = Json::array();  // loadPretrained's `q8Activations`
  for (pretrained::Q8Activations mode : pretrained::kQ8ActivationsModes)
    q8_activations_modes.push_back(pretrained::to_string(mode));
  return {{"playground", describe(playground_schema())},
          {"limits", limits},
          {"families", families},
          {"weightsModes", weights_modes},
          {"q8ActivationsModes", q8_activations_modes},
          {"blocks", blocks},
          {"modelSpec", describe(model_spec_schema())},
          {"optimizer", describe(optimizer_schema())},
          {"trainer", describe(trainer_schema())},
          {"task", describe(task_schema())},
          {"tasks", tasks},
          {"stages", stages},
          {"errorCodes", codes}};
}

std::string dump_json(const Json& json, int indent) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace attention
