// Settings declared once (settings.hpp): the schemas read JSON with every check, name
// the setting and give a code; defaults are the structs' own; the rules are data.
#include <gtest/gtest.h>

#include "attention/config.hpp"
#include "attention/spec.hpp"
#include "attention/trace_json.hpp"

using namespace attention;

TEST(Settings, JsonIsReadOverTheDefaultsWithEveryCheck) {
  Result<ModelConfig> c = from_json(playground_schema(), Json{{"dModel", 32}, {"mode", "cross"}, {"scale", false}});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.value().d_model, 32);
  EXPECT_EQ(c.value().mode, Mode::Cross);
  EXPECT_FALSE(c.value().scale);
  EXPECT_EQ(c.value().heads, ModelConfig{}.heads);

  struct Case {
    Json input;
    std::string code, field, message;
  };
  const std::vector<Case> cases = {
      {{{"dModel", 0}}, "out_of_range", "dModel", "dModel must be between 1 and 1024, got 0"},
      {{{"dModel", 6.5}}, "invalid_argument", "dModel", "dModel must be a whole number, got 6.5"},
      {{{"dModel", "64"}}, "invalid_argument", "dModel", "dModel must be a whole number, got '64'"},
      {{{"mode", "both"}}, "invalid_argument", "mode", "mode must be one of 'encoder', 'decoder', 'cross', got 'both'"},
      {{{"scale", 1}}, "invalid_argument", "scale", "scale must be true or false, got 1"},
      {{{"colour", "red"}}, "invalid_argument", "colour", "unknown setting 'colour'"},
      {{{"heads", 3}},
       "not_divisible",
       "heads",
       "heads (3) must divide dModel (64): d_k = dModel / heads must be a whole number"},
      {{{"preset", "positional"}, {"heads", 64}},
       "out_of_range",
       "preset",
       "the positional preset needs d_k = dModel / heads of at least 2 (dModel 64, heads 64)"},
      {{{"preset", "positional"}, {"dModel", 2}, {"heads", 1}},
       "out_of_range",
       "dModel",
       "the positional preset needs dModel of at least 4, got 2"},
  };
  for (const Case& k : cases) {
    Result<ModelConfig> r = from_json(playground_schema(), k.input);
    ASSERT_FALSE(r.ok()) << k.input.dump();
    EXPECT_EQ(r.error(), k.message);
    EXPECT_EQ(r.error_value().code, k.code) << k.message;
    EXPECT_EQ(r.error_value().field, k.field) << k.message;
  }
  // The same rule applies to configs built in C++.
  ModelConfig bad;
  bad.heads = 5;
  EXPECT_EQ(validate(bad).error_value().field, "heads");
}

TEST(Settings, ModelSpecSchemaChecksRangesRulesAndSize) {
  Result<ModelSpec> s =
      from_json(model_spec_schema(),
                Json{{"activation", "gelu_tanh"}, {"head", "tied"}, {"layerNormEps", 1e-6}, {"encoderLayers", 2}});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s.value().activation, Activation::GELUTanh);
  EXPECT_EQ(s.value().head, OutputHead::Tied);
  EXPECT_EQ(s.value().layer_norm_eps, 1e-6);
  EXPECT_TRUE(s.value().encoder_decoder());
  Result<ModelSpec> eps = from_json(model_spec_schema(), Json{{"layerNormEps", 0}});
  EXPECT_EQ(eps.error(), "layerNormEps must be greater than 0 and at most 1, got 0");
  ModelSpec huge;
  huge.vocab_size = 262144;
  huge.d_model = 4096;
  EXPECT_EQ(validate(huge).error_value().code, "limit_exceeded");
}

TEST(Settings, TheSchemaIsExportedWithDefaultsFromTheStructs) {
  const Json d = engine_description();
  const Json& settings = d["playground"]["settings"];
  ASSERT_EQ(settings.size(), playground_schema().fields.size());
  EXPECT_EQ(settings[1]["name"], "dModel");
  EXPECT_EQ(settings[1]["default"], ModelConfig{}.d_model);
  EXPECT_EQ(settings[1]["max"], 1024);
  EXPECT_EQ(d["playground"]["rules"][0]["kind"], "divides");
  EXPECT_EQ(d["modelSpec"]["settings"][0]["name"], "vocabSize");
  EXPECT_EQ(d["stages"].size(), stage_registry().size());
  for (std::size_t i = 0; i < stage_registry().size(); ++i)
    EXPECT_EQ(static_cast<std::size_t>(stage_registry()[i].id), i) << "the registry is in StageId order";
  EXPECT_EQ(d["errorCodes"].size(), std::size(kErrorCodes));
}

TEST(Settings, EqualityFollowsEverySetting) {
  ModelConfig a, b;
  EXPECT_TRUE(a == b);
  for (const Field<ModelConfig>& f : playground_schema().fields) {
    ModelConfig changed = a;
    Json v = f.get(a);
    if (f.info.type == "bool")
      v = !v.get<bool>();
    else if (f.info.type == "choice")
      v = f.info.choices.back() == v.get<std::string>() ? f.info.choices.front() : f.info.choices.back();
    else
      v = v.get<double>() + 1;
    f.set(changed, v);
    EXPECT_FALSE(a == changed) << f.info.name << " is not compared";
  }
}
