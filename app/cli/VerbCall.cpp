#include "app/cli/VerbCall.h"

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"

namespace scalex::cli {

QByteArray verbJson(QStringList args) {
    if (args.isEmpty()) throw UsageError("no verb given");
    for (const auto& v : verbs()) {
        if (args.first() != QLatin1String(v.name)) continue;
        if (!args.contains(QStringLiteral("--json"))) args << QStringLiteral("--json");
        JsonCapture capture;
        v.run(args);
        return capture.bytes;
    }
    throw UsageError(("unknown verb '" + args.first() + "'").toStdString());
}

}  // namespace scalex::cli
