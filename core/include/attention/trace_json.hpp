#pragma once
// The one JSON writer of traces and of what the engine declares, shared by the
// bindings and the command-line tool.
#include "attention/settings.hpp"
#include "attention/trace.hpp"

namespace attention {

// {"tokens", "sourceTokens", "stages": [{layer, name, kind, mask?, axes, shape, offset}]}:
// `offset` counts floats into the stages' data laid back to back in this order. With
// `with_data` each stage also carries its "data" (-inf and NaN written as null).
Json trace_json(const Trace& trace, bool with_data);

// What the engine declares, for the TypeScript side and the command line:
// {"playground", "modelSpec", "optimizer", "trainer", "task": schemas, "tasks": [what each
// task is], "stages": [registry], "errorCodes": [...]}.
Json engine_description();

// JSON text that never throws: invalid UTF-8 is replaced, not an exception.
std::string dump_json(const Json& json, int indent = -1);

}  // namespace attention
