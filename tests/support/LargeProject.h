#pragma once
// A large project for the reliability tests: the generated example study (core/data/
// ExampleProject) with its runs repeated until there are `runs` of them, each copy with a run id
// of its own and its loss moved by a small factor, so no two runs coincide. `variant` changes
// every loss and the title: two variants are two different projects of the same size.
// Deterministic: the same arguments give the same project (and writeProject the same bytes).
#include <QString>
#include <cmath>
#include <cstddef>
#include <string>

#include "core/data/ExampleProject.h"
#include "core/data/PaperTables.h"
#include "core/data/Project.h"

namespace scalex::test {

inline data::Project makeLargeProject(const QString& paperDir, std::size_t runs, int variant = 0) {
    auto tables = data::loadPaperTables(paperDir);
    if (!tables) return {};
    data::Project project = data::makeExampleProject(*tables);
    project.title = "Large project " + std::to_string(runs) + " runs, variant " + std::to_string(variant);
    std::size_t have = 0;
    for (const auto& t : project.tables) have += t.table.runs.size();
    if (have == 0) return project;
    // Copies go into each table in turn, from that table's original runs.
    std::vector<std::size_t> originals;
    for (const auto& t : project.tables) originals.push_back(t.table.runs.size());
    for (std::size_t copy = 1; have < runs; ++copy)
        for (std::size_t t = 0; t < project.tables.size() && have < runs; ++t)
            for (std::size_t i = 0; i < originals[t] && have < runs; ++i, ++have) {
                data::Run r = project.tables[t].table.runs[i];
                r.runId += "-copy" + std::to_string(copy);
                r.valLoss *= 1.0 + 1e-4 * static_cast<double>(copy % 97);
                project.tables[t].table.runs.push_back(std::move(r));
            }
    for (auto& t : project.tables)
        for (auto& r : t.table.runs) r.valLoss *= 1.0 + 1e-3 * variant;
    return project;
}

}  // namespace scalex::test
