// scalex convert IN OUT: run tables and projects between CSV, JSON and .scalex, chosen by the
// file extensions (core/analysis/ConvertQuery.h, which the Python module's scalex.convert calls too).
#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/analysis/ConvertQuery.h"

namespace scalex::cli {

int verbConvert(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Convert between run tables (.csv, .tsv, .json, .jsonl, optionally .gz) and projects (.scalex), by extension.\n"
        "Several inputs make one project: scalex convert A.csv B.csv C.jsonl P.scalex. Each input goes where it "
        "belongs, told apart by its columns as check does: a run table, a loss-curve set (run_id and step columns) or "
        "an inference-measurement set (ttft_ms or measured_data__ttft, with the df_dict files beside it).\n"
        "A project written as CSV or JSON holds the runs of all its tables (the dataset column tells them apart) "
        "unless --table picks one; JSON is an array of flat run objects (pandas.read_json reads it).");
    p.addHelpOption();
    analysis::addConvertOptions(p);
    if (!parseVerbArguments(p, args, true)) return kExitOk;
    ensureBuiltinResources();
    analysis::convertQuery(p);
    return kExitOk;
}

}  // namespace scalex::cli
