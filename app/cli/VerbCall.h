#pragma once
// A verb run in process, for the Python module: the object `scalex <args> --json` prints, the
// same function and the same parsing as the program (its option names, defaults and messages).
#include <QByteArray>
#include <QStringList>

namespace scalex::cli {

// Runs the verb args[0] (e.g. {"predict", "runtime", "--model", "xlstm", ...}) with --json added
// when missing, and returns what it prints. Bad input throws UsageError with the verb's message;
// an unknown verb is a UsageError too.
QByteArray verbJson(QStringList args);

}  // namespace scalex::cli
