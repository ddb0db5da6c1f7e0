#pragma once
// The generated example study as a project: two run tables (Token/Param at context 8192 and
// IsoFLOP at 2048/8192/16384), the paper's default settings, and a manifest that says the runs
// are generated. resources/example/example.scalex is this project with the default options.
#include "core/data/ExampleStudy.h"
#include "core/data/Project.h"

namespace scalex::data {

inline constexpr const char* kExampleTokenParamTable = "generated-tokenparam-ctx8192";
inline constexpr const char* kExampleIsoFlopTable = "generated-isoflop";

Project makeExampleProject(const PaperTables& tables, const ExampleOptions& options = {});

}  // namespace scalex::data
