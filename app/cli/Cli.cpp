#include "app/cli/Cli.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <unistd.h>
#include <memory>
#include <QStringList>
#include <cstdio>
#include <cstring>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "ScalexRevision.h"  // generated at build time: the source revision

static void initResources() { Q_INIT_RESOURCE(scalex); }

// The offscreen platform reports that it ignores window size hints; that is expected headless
// and must not reach the one-line error contract of the verbs.
static QtMessageHandler previousHandler = nullptr;
static void quietOffscreen(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints"))) return;
    if (previousHandler)
        previousHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

namespace scalex::cli {

const std::vector<Verb>& verbs() {
    static const std::vector<Verb> table{
        {"account", "parameter, FLOP, memory-traffic and cache accounting of one model configuration", verbAccount},
        {"device", "list the CPU and CUDA devices the microbenchmarks can use", verbDevice},
        {"convert", "convert run tables and projects between CSV, JSON and .scalex", verbConvert},
        {"generate", "generate the example study (runs drawn from the paper's L(N,D) fits)", verbGenerate},
        {"fit", "fit L(N,D), IsoFLOP power laws, over-training slopes, Pareto fronts, bootstrap intervals", verbFit},
        {"plan", "plan the next runs: replay a finished study, rank candidate runs by what they tell about a target", verbPlan,
         true},
        {"bench", "microbenchmarks: GEMM, bandwidth, attention and mLSTM kernels for the roofline", verbBench},
        {"predict", "inference runtime model: TTFT, step time, memory; largest model for a budget; xLSTM crossover", verbPredict},
        {"check", "load a run table and report its runs and every row with a problem", verbCheck},
        {"render", "render a view as a PDF, SVG or PNG figure for a paper (no display needed)", verbRender, true},
    };
    return table;
}

namespace {

void printHelp() {
    QString text = QStringLiteral(
        "Scalex %1: an explorer for neural scaling laws.\n\n"
        "Usage:\n"
        "  scalex                       open the explorer window on the last or the built-in example project\n"
        "  scalex FILE.scalex           open a project\n"
        "  scalex FILE...               open run tables, loss curves and measurements together\n"
        "  scalex --screenshot OUT.png  render the main window to a PNG and exit (works without a display)\n"
        "  scalex <verb> [options]      run a headless verb; `scalex <verb> --help` for its options\n\n"
        "Window options:\n"
        "  --example                    open the built-in example project\n"
        "  --view ID                    show this view first (runs, pareto, curves, schedules, surface,\n"
        "                               overtraining, isoflop, context, optimal, breakdown, roofline, inference, laws)\n"
        "  --theme light|dark           the colour theme\n"
        "  --size WIDTHxHEIGHT          window size in pixels (default 1280x800)\n"
        "  --presentation               presentation mode: larger fonts and lines\n"
        "  --lesson ID|FILE [--step K]  open a guided lesson (at step K, from 1)\n"
        "  --list-lessons [--json]      print the shipped lessons and exit\n"
        "  --screenshot OUT.png         render the window (with the options above) to a PNG and exit\n\n"
        "Verbs:\n").arg(QStringLiteral(SCALEX_VERSION));
    for (const auto& v : verbs()) text += QStringLiteral("  %1%2\n").arg(QString::fromLatin1(v.name), -12).arg(QString::fromLatin1(v.summary));
    printText(text);
}

}  // namespace

bool isVerbInvocation(int argc, char** argv) {
    if (argc < 2) return false;
    const char* first = argv[1];
    if (!std::strcmp(first, "help") || !std::strcmp(first, "--help") || !std::strcmp(first, "-h") ||
        !std::strcmp(first, "version") || !std::strcmp(first, "--version") || !std::strcmp(first, "-v"))
        return true;
    for (const auto& v : verbs())
        if (!std::strcmp(first, v.name)) return true;
    // Anything else that does not look like an option or a file is an unknown verb: report it headless.
    return first[0] != '-' && std::strchr(first, '.') == nullptr && std::strchr(first, '/') == nullptr;
}

int runVerb(int argc, char** argv) {
    bool widgets = false;
    for (const auto& v : verbs())
        if (!std::strcmp(argv[1], v.name)) widgets = v.needsWidgets;
    // `fit curves --plot` and `predict curve --plot` draw a chart.
    for (int i = 2; i < argc && !widgets; ++i) widgets = !std::strcmp(argv[i], "--plot") || !std::strncmp(argv[i], "--plot=", 7);
    // Verbs that draw widgets do so offscreen: they never need a display.
    if (widgets) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        previousHandler = qInstallMessageHandler(quietOffscreen);
        // Qt wants a private runtime directory; headless sessions (CI, ssh) often have none.
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
            const QByteArray dir = QDir::tempPath().toUtf8() + "/scalex-runtime-" + QByteArray::number(static_cast<qlonglong>(getuid()));
            QDir().mkpath(QString::fromUtf8(dir));
            QFile::setPermissions(QString::fromUtf8(dir), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
            qputenv("XDG_RUNTIME_DIR", dir);
        }
    }
    // The verbs' own options are theirs alone: QApplication would take `--style paper` for its
    // widget style and complain. It gets the program's name only.
    int appArgc = 1;
    char* appArgv[] = {argv[0], nullptr};
    std::unique_ptr<QCoreApplication> application(widgets ? new QApplication(appArgc, appArgv) : new QCoreApplication(appArgc, appArgv));
    initResources();
    QCoreApplication::setApplicationName(QStringLiteral("scalex"));
    QCoreApplication::setOrganizationName(QStringLiteral("Scalex"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SCALEX_VERSION));
    QStringList args;
    for (int i = 1; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
    const QString name = args.first();
    if (name == "help" || name == "--help" || name == "-h") {
        printHelp();
        return kExitOk;
    }
    if (name == "version" || name == "--version" || name == "-v") {
        printText(QStringLiteral("scalex %1 (revision %2)\n").arg(QStringLiteral(SCALEX_VERSION), QStringLiteral(SCALEX_SOURCE_REVISION)));
        return kExitOk;
    }
    for (const auto& v : verbs()) {
        if (name != QLatin1String(v.name)) continue;
        try {
            return v.run(args);
        } catch (const UsageError& e) {
            std::fprintf(stderr, "scalex %s: %s\n", v.name, e.what());
            return kExitUsage;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "scalex %s: error: %s\n", v.name, e.what());
            return kExitUsage;
        }
    }
    std::fprintf(stderr, "scalex: unknown verb '%s' (run `scalex help` for the list)\n", qPrintable(name));
    return kExitUsage;
}

}  // namespace scalex::cli
