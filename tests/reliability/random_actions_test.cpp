// Random use of the explorer window (offscreen): thousands of random actions (switching views,
// moving sliders, changing combo boxes, check boxes, spin boxes and text fields, pressing the
// views' buttons, toggling and selecting runs, changing the analysis settings and scope,
// grouping runs, opening and cancelling dialogs, exporting figures and tables, saving, the
// theme, the window size) on the built-in example and on a project of 20,000 runs. Nothing may
// crash or report a critical error. A watchdog thread measures how long the UI thread takes to
// answer (its event-loop latency) and the test prints the longest stall and the action it
// happened in. The application has no undo, so there is none to exercise.
//
// The seed is printed at the start and with every failure; SCALEX_RANDOM_SEED=<seed> replays a
// run, SCALEX_RANDOM_ACTIONS=<n> sets the number of actions on the example (the large project
// gets 3n / 22: 4,400 and 600 by default, 5,000 in all).
//
// SCALEX_RANDOM_ACTIONS_ROWS=<rows> (opt-in: it takes minutes) also opens a generated table of
// checkpoints of that many rows (runs of 1000 checkpoints, tests/bench/CheckpointStudy.h) in the
// background as a person would, on the Loss curves view, and runs n / 22 random actions on it; the
// UI thread may not stall for more than 200 ms from the moment the load starts (SCALEX_STALL_ON_CPU=1:
// the UI thread's own CPU time in a stall, for a machine busy with other work).
#include <gtest/gtest.h>

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QRadioButton>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "app/gui/FigureExport.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Session.h"
#include "app/gui/ViewPanel.h"
#include "core/accounting/FlopCount.h"
#include "core/data/Project.h"
#include "tests/support/GuiApp.h"
#include "tests/support/LargeProject.h"
#include "tests/support/TestData.h"
#include "tests/support/UiStallWatchdog.h"
#include "tests/bench/CheckpointStudy.h"

using namespace scalex;
using namespace scalex::gui;

namespace {

using Watchdog = test::UiStallWatchdog;

// Critical and fatal messages from Qt or the program are failures; warnings are counted.
std::atomic<int> criticalMessages{0}, warningMessages{0};
std::mutex messagesMutex;
QStringList firstMessages;
void messageHandler(QtMsgType type, const QMessageLogContext&, const QString& message) {
    if (type == QtCriticalMsg || type == QtFatalMsg) ++criticalMessages;
    else if (type == QtWarningMsg) ++warningMessages;
    else return;
    std::lock_guard lock(messagesMutex);
    if (firstMessages.contains(message)) return;
    if (firstMessages.size() < 20) {
        firstMessages << message;
        std::fprintf(stderr, "%s\n", qPrintable(message));
    }
    if (type == QtFatalMsg) std::abort();
}

class RandomActions : public ::testing::Test {
protected:
    void SetUp() override {
        test::ensureGuiApplication("scalex_random_actions_test");
        qInstallMessageHandler(messageHandler);
        criticalMessages = 0;
        seed = qEnvironmentVariableIsSet("SCALEX_RANDOM_SEED") ? qEnvironmentVariable("SCALEX_RANDOM_SEED").toULongLong() : 20251123u;
        exampleActions = qEnvironmentVariableIsSet("SCALEX_RANDOM_ACTIONS") ? qEnvironmentVariableIntValue("SCALEX_RANDOM_ACTIONS") : 4400;
        random.seed(seed);
        std::printf("RandomActions seed %llu (SCALEX_RANDOM_SEED=%llu replays it)\n", static_cast<unsigned long long>(seed),
                    static_cast<unsigned long long>(seed));
        ASSERT_TRUE(dir.isValid());
        window = std::make_unique<MainWindow>();
        window->resize(1200, 800);
        window->setAttribute(Qt::WA_DontShowOnScreen, true);
        window->show();
        // Every modal dialog an action opens is cancelled as soon as its event loop runs.
        closer = new QTimer(window.get());
        QObject::connect(closer, &QTimer::timeout, [this] {
            if (QWidget* modal = QApplication::activeModalWidget()) {
                ++dialogsClosed;
                if (auto* dialog = qobject_cast<QDialog*>(modal)) dialog->done(QDialog::Rejected);
                else modal->close();
            }
        });
        closer->start(10);
    }
    void TearDown() override {
        watchdog.reset();
        window.reset();
        QApplication::processEvents();
        qInstallMessageHandler(nullptr);
    }

    int pick(int n) { return n <= 0 ? 0 : std::uniform_int_distribution<int>(0, n - 1)(random); }
    bool coin() { return pick(2) == 1; }
    template <class W>
    QList<W*> controls() {
        QList<W*> out;
        if (ViewPanel* panel = window->currentPanel())
            for (W* w : panel->findChildren<W*>())
                if (w->isVisible() && w->isEnabled()) out << w;
        return out;
    }
    QAction* menuAction(const QString& text) {
        for (QAction* a : window->findChildren<QAction*>())
            if (a->text() == text) return a;
        return nullptr;
    }

    // One random action; returns its name (for the log and the stall report).
    QString act() {
        Session* s = window->session();
        const int runs = static_cast<int>(s->runs().runs.size());
        switch (pick(20)) {
        case 0:
        case 1: {
            const int i = pick(window->views()->count());
            window->views()->setCurrentIndex(i);
            return "view " + window->currentPanel()->viewId();
        }
        case 2:
        case 3: {
            const auto sliders = controls<QSlider>();
            if (sliders.isEmpty()) return "slider (none)";
            QSlider* w = sliders[pick(static_cast<int>(sliders.size()))];
            w->setValue(std::uniform_int_distribution<int>(w->minimum(), w->maximum())(random));
            return "slider " + w->objectName() + " in " + window->currentPanel()->viewId();
        }
        case 4:
        case 5: {
            const auto combos = controls<QComboBox>();
            if (combos.isEmpty()) return "combo (none)";
            QComboBox* w = combos[pick(static_cast<int>(combos.size()))];
            if (w->count() > 0) w->setCurrentIndex(pick(w->count()));
            return "combo " + w->objectName() + " in " + window->currentPanel()->viewId();
        }
        case 6: {
            QList<QAbstractButton*> checks;
            for (auto* c : controls<QCheckBox>()) checks << c;
            for (auto* r : controls<QRadioButton>()) checks << r;
            if (checks.isEmpty()) return "check (none)";
            QAbstractButton* w = checks[pick(static_cast<int>(checks.size()))];
            w->click();
            return "check " + w->objectName() + " in " + window->currentPanel()->viewId();
        }
        case 7: {
            const auto spins = controls<QSpinBox>();
            const auto doubles = controls<QDoubleSpinBox>();
            if (!spins.isEmpty() && (doubles.isEmpty() || coin())) {
                QSpinBox* w = spins[pick(static_cast<int>(spins.size()))];
                w->setValue(std::uniform_int_distribution<int>(w->minimum(), w->maximum())(random));
                return "spin " + w->objectName();
            }
            if (doubles.isEmpty()) return "spin (none)";
            QDoubleSpinBox* w = doubles[pick(static_cast<int>(doubles.size()))];
            w->setValue(std::uniform_real_distribution<double>(w->minimum(), w->maximum())(random));
            return "spin " + w->objectName();
        }
        case 8: {
            QList<QLineEdit*> edits;
            for (QLineEdit* e : controls<QLineEdit>())
                if (!qobject_cast<QAbstractSpinBox*>(e->parent()) && !qobject_cast<QComboBox*>(e->parent()) && !e->isReadOnly()) edits << e;
            if (edits.isEmpty()) return "text (none)";
            static const QStringList texts{"", "model_family", "model_family, context_length", "no_such_column", "loss<3.5",
                                           "model_family=xlstm", "num_params>1e9; val_loss<=3", "val_loss<", ";;;", "=",
                                           "\xc3\xa9t\xc3\xa9 \xe2\x88\x9e", "1e999", "-1", "NaN", "xlstm", "r1", QString(300, 'x')};
            QLineEdit* w = edits[pick(static_cast<int>(edits.size()))];
            w->setText(texts[pick(static_cast<int>(texts.size()))]);
            emit w->returnPressed();
            emit w->editingFinished();
            return "text " + w->objectName() + " = '" + w->text().left(20) + "'";
        }
        case 9: {
            QList<QPushButton*> buttons = controls<QPushButton>();
            if (buttons.isEmpty()) return "button (none)";
            QPushButton* w = buttons[pick(static_cast<int>(buttons.size()))];
            const QString name = "button '" + w->text() + "' in " + window->currentPanel()->viewId();
            w->click();
            return name;
        }
        case 10:
        case 11: {
            if (runs == 0) return "toggle run (none)";
            const int i = pick(runs);
            s->setIncluded(i, coin());
            return QStringLiteral("toggle run %1").arg(i);
        }
        case 12: {
            if (pick(4) == 0) {
                s->setIncludeToggles(std::vector<std::optional<bool>>(static_cast<std::size_t>(runs)));
                return "reset toggles";
            }
            QSet<int> selection;
            for (int k = pick(12); k > 0 && runs > 0; --k) selection.insert(pick(runs));
            s->setSelection(selection);
            return QStringLiteral("select %1 runs").arg(selection.size());
        }
        case 13:
        case 14: {
            AnalysisSettings settings = s->settings();
            const auto conventions = accounting::conventionNames();
            switch (pick(9)) {
            case 0: settings.convention = conventions[static_cast<std::size_t>(pick(static_cast<int>(conventions.size())))]; break;
            case 1: settings.contextLength = std::array{2048.0, 8192.0, 16384.0, 65536.0, 1.0}[static_cast<std::size_t>(pick(5))]; break;
            case 2: settings.scope.allRuns = coin(); break;
            case 3: settings.huberDelta = std::array{1e-4, 1e-3, 1e-2, 1.0}[static_cast<std::size_t>(pick(4))]; break;
            case 4: settings.fitGamma = coin(); break;
            case 5: settings.keepOutliers = coin(); break;
            case 6: {
                settings.scope.series.clear();
                for (const auto& name : s->seriesNames())
                    if (coin()) settings.scope.series.push_back(name);
                if (pick(5) == 0) settings.scope.series.push_back("no-such-series");
                break;
            }
            case 7: {
                const int c = pick(5);
                settings.scope.context = c == 0 ? std::nullopt : std::optional<double>(std::array{2048.0, 8192.0, 16384.0, 3.0}[static_cast<std::size_t>(c - 1)]);
                const int e = pick(4);
                settings.scope.experimentSet = e == 0 ? std::nullopt : analysis::parseExperimentSet(e == 1 ? "isoflop" : e == 2 ? "tokenparam" : "other");
                break;
            }
            default: {
                if (coin()) settings.budgetRange.reset();
                else {
                    const double lo = std::pow(10.0, 17 + pick(5)), hi = lo * std::pow(10.0, pick(4));
                    settings.budgetRange = std::pair{lo, hi};
                }
            }
            }
            s->setSettings(settings);
            return "settings";
        }
        case 15: {
            static const std::vector<std::vector<std::string>> groupings{
                {}, {"model_family"}, {"model_family", "context_length"}, {"dataset"}, {"no_such_column"}};
            const auto& g = groupings[static_cast<std::size_t>(pick(static_cast<int>(groupings.size())))];
            s->groupRunsBy(g);
            return QStringLiteral("group by %1 columns").arg(g.size());
        }
        case 16: {
            static const QStringList dialogs{"&Open…", "&Add run table…", "Save &as…", "&Export view as figure…",
                                             "Export view's &table…", "Figure &recipes…", "&About Scalex"};
            const QString text = dialogs[pick(static_cast<int>(dialogs.size()))];
            QAction* a = menuAction(text);
            if (!a) return "dialog " + text + " (missing)";
            const QString view = window->currentPanel()->viewId();
            a->trigger();
            return "dialog " + text + " in " + view;
        }
        case 17: {
            if (pick(3) != 0) {
                window->setDarkTheme(coin());
                return "theme";
            }
            window->resize(400 + pick(1200), 300 + pick(900));
            return "resize";
        }
        case 18: {
            // Exports are slower than the rest: one in three of these.
            if (pick(3) != 0) return "export (skipped)";
            if (coin()) {
                static const QStringList formats{"svg", "png", "pdf"};
                const QString path = dir.filePath("figure." + formats[pick(3)]);
                FigureStyle style;
                style.dpi = 96;
                window->exportView(path, style, QString(), false);
                return "export figure " + QFileInfo(path).suffix() + " of " + window->currentPanel()->viewId();
            }
            static const QStringList formats{"csv", "tex", "json"};
            const QString path = dir.filePath("table." + formats[pick(3)]);
            window->exportTable(QString(), path, false);
            return "export table " + QFileInfo(path).suffix() + " of " + window->currentPanel()->viewId();
        }
        default: {
            if (pick(4) != 0) return "save (skipped)";
            window->saveProject(dir.filePath("random.scalex"), false);
            return "save";
        }
        }
    }

    void run(int actions, const char* what) {
        if (!watchdog) watchdog = std::make_unique<Watchdog>();
        Watchdog& watchdog = *this->watchdog;
        std::map<QString, std::pair<int, double>> byKind;  // kind -> (count, longest ms)
        QString slowest;
        double slowestMs = 0;
        QStringList recent;
        for (int i = 0; i < actions; ++i) {
            SCOPED_TRACE(QStringLiteral("%1: action %2 of %3, seed %4 (SCALEX_RANDOM_SEED replays it); last actions: %5")
                             .arg(QString::fromLatin1(what))
                             .arg(i + 1)
                             .arg(actions)
                             .arg(seed)
                             .arg(recent.join(" | "))
                             .toStdString());
            QElapsedTimer timer;
            timer.start();
            watchdog.current = QStringLiteral("#%1 (starting)").arg(i + 1);
            const QString name = act();
            watchdog.current = QStringLiteral("#%1 %2").arg(i + 1).arg(name);
            watchdog.rename(QStringLiteral("#%1 (starting)").arg(i + 1), watchdog.current);
            QApplication::processEvents();
            if (i % 50 == 0) QApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
            const double ms = timer.nsecsElapsed() / 1e6;
            const QString kind = name.section(' ', 0, 0);
            auto& [count, longest] = byKind[kind];
            ++count;
            longest = std::max(longest, ms);
            if (ms > slowestMs) slowestMs = ms, slowest = watchdog.current;
            recent << name;
            if (recent.size() > 8) recent.removeFirst();
            ASSERT_EQ(criticalMessages.load(), 0) << firstMessages.join("\n").toStdString();
            ASSERT_TRUE(window->currentPanel() != nullptr);
        }
        // Let the work still under way finish, as a person waiting would.
        for (int i = 0; i < 20; ++i) QApplication::processEvents(QEventLoop::AllEvents, 50);
        std::printf("%s: %d actions, %d dialogs cancelled, %d warnings; longest UI stall %.0f ms (during %s); most UI thread CPU in "
                    "one stall %.0f ms (during %s); slowest action %.0f ms (%s)\n",
                    what, actions, dialogsClosed, warningMessages.load(), watchdog.longestMs(), qPrintable(watchdog.longestAction()),
                    watchdog.longestCpuMs(), qPrintable(watchdog.longestCpuAction()), slowestMs, qPrintable(slowest));
        for (const auto& [kind, stats] : byKind) std::printf("  %-8s %5d actions, longest %.0f ms\n", qPrintable(kind), stats.first, stats.second);
        EXPECT_EQ(criticalMessages.load(), 0);
    }

    std::uint64_t seed = 0;
    int exampleActions = 4400;
    std::mt19937_64 random;
    QTemporaryDir dir;
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<Watchdog> watchdog;  // started by run(), or before it to watch a load
    QTimer* closer = nullptr;
    int dialogsClosed = 0;
};

}  // namespace

TEST_F(RandomActions, OnTheBuiltInExample) {
    ASSERT_TRUE(window->openExample(false)) << window->lastError().toStdString();
    QApplication::processEvents();
    run(exampleActions, "example");
}

TEST_F(RandomActions, OnAProjectOf20000Runs) {
    const QString path = dir.filePath("large.scalex");
    ASSERT_FALSE(data::saveProject(test::makeLargeProject(test::sourcePath("datasets/paper"), 20000), path).has_value());
    ASSERT_TRUE(window->openPath(path, false)) << window->lastError().toStdString();
    ASSERT_EQ(window->session()->runs().runs.size(), 20000u);
    QApplication::processEvents();
    run(std::max(1, exampleActions * 3 / 22), "20,000 runs");
}

// A training log's worth of checkpoints (SCALEX_RANDOM_ACTIONS_ROWS rows; skipped when unset): the
// window reads it in the background while it goes on answering, draws its loss curves, then takes
// random actions; no stall of the UI thread over 200 ms from the start of the load to the end.
TEST_F(RandomActions, OnAStudyOfManyRows) {
    const int rows = qEnvironmentVariableIntValue("SCALEX_RANDOM_ACTIONS_ROWS");
    if (rows <= 0) GTEST_SKIP() << "SCALEX_RANDOM_ACTIONS_ROWS=<rows> (e.g. 1000000) runs it";
    const int runs = std::max(1, rows / 1000);
    const QString path = dir.filePath("checkpoints.csv");
    {
        QFile f(path);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        const std::string text = bench::checkpointStudy(runs, 1000);
        ASSERT_EQ(f.write(text.data(), static_cast<qint64>(text.size())), static_cast<qint64>(text.size()));
    }
    ASSERT_TRUE(window->showView("curves"));
    QApplication::processEvents();
    bool opened = false, done = false;
    QObject::connect(window.get(), &MainWindow::loadFinished, [&](bool ok) { opened = ok, done = true; });
    watchdog = std::make_unique<Watchdog>();
    watchdog->current = QStringLiteral("loading %1 rows").arg(runs * 1000);
    QElapsedTimer timer;
    timer.start();
    window->loadRunTableInBackground(path, false);
    while (!done && timer.elapsed() < 300000) QApplication::processEvents(QEventLoop::AllEvents, 20);  // a bound on a hang
    ASSERT_TRUE(opened) << window->lastError().toStdString();
    // The curves drawn after the load: events until the views' work is done, still watched.
    watchdog->current = QStringLiteral("drawing the loss curves of %1 rows").arg(runs * 1000);
    for (int i = 0; i < 20; ++i) QApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_EQ(window->session()->runs().rowCount(), static_cast<std::size_t>(runs) * 1000u);
    std::printf("loaded and drawn in %lld ms; longest UI stall so far %.0f ms (during %s)\n", static_cast<long long>(timer.elapsed()),
                watchdog->longestMs(), qPrintable(watchdog->longestAction()));
    run(std::max(1, exampleActions / 22), "many rows");
    // On a machine busy with other work a stall's wall time stretches with the load:
    // SCALEX_STALL_ON_CPU=1 holds the UI thread's own CPU time in a stall to the limit instead.
    if (qEnvironmentVariableIntValue("SCALEX_STALL_ON_CPU") == 1)
        EXPECT_LE(watchdog->longestCpuMs(), 200.0) << "during " << watchdog->longestCpuAction().toStdString();
    else
        EXPECT_LE(watchdog->longestMs(), 200.0) << "during " << watchdog->longestAction().toStdString();
}
