// Guided lessons (core/data/Lesson.h, Help → Lessons): the shipped lessons load, every step of
// every one sets its view and controls and frames its control; bad lesson files are refused with
// the file and the field; the window fits 1024×768 with and without presentation mode.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyleOptionComboBox>
#include <QtCharts/QChart>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <set>

#include "app/gui/LessonPane.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Recipes.h"
#include "app/gui/Theme.h"
#include "app/gui/ViewPanel.h"
#include "core/data/Lesson.h"
#include "tests/support/GuiApp.h"

using namespace scalex::gui;
using scalex::data::Lesson;
using scalex::data::loadLesson;
using scalex::data::parseLesson;

namespace {

class Lessons : public ::testing::Test {
protected:
    void SetUp() override {
        scalex::test::ensureGuiApplication("scalex_lessons_test");
        window = std::make_unique<MainWindow>();
        window->resize(1280, 800);
        window->setAttribute(Qt::WA_DontShowOnScreen, true);
        window->show();
        ASSERT_TRUE(window->openExample(false)) << window->lastError().toStdString();
        QApplication::processEvents();
    }
    std::unique_ptr<MainWindow> window;
};

std::vector<Lesson> shippedLessons() {
    std::vector<Lesson> out;
    for (const QString& path : scalex::data::builtinLessonPaths()) {
        auto lesson = loadLesson(path);
        EXPECT_TRUE(lesson) << (lesson ? std::string() : lesson.error().toString());
        if (lesson) out.push_back(*lesson);
    }
    return out;
}

// A control's value as the lesson gives it and as the view shows it, compared as text.
QString asText(const QJsonValue& v) {
    if (v.isBool()) return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble()) return QString::number(v.toDouble());
    return v.toString();
}

std::string errorOf(const QByteArray& json, const std::string& file = "bad.json") {
    auto lesson = parseLesson(json, file);
    EXPECT_FALSE(lesson) << "accepted: " << json.toStdString();
    return lesson ? std::string() : lesson.error().toString();
}

const QByteArray kGoodStep = R"({"title": "t", "view": "optimal", "text": "x"})";

QByteArray lessonWith(const QByteArray& step) {
    return R"({"id": "probe", "title": "Probe", "steps": [)" + kGoodStep + "," + step + "]}";
}

}  // namespace

TEST(LessonFiles, ShippedLessonsLoadWithAtLeastFourStepsEach) {
    const auto lessons = shippedLessons();
    ASSERT_GE(lessons.size(), 3u);
    std::set<std::string> ids;
    for (const Lesson& l : lessons) {
        EXPECT_TRUE(ids.insert(l.id).second) << "two lessons with the id " << l.id;
        EXPECT_GE(l.steps.size(), 4u) << l.id;
        // Every step but the last asks a question, and the next step opens with its answer.
        for (std::size_t i = 0; i + 1 < l.steps.size(); ++i) {
            EXPECT_FALSE(l.steps[i].question.empty()) << l.id << " step " << i + 1;
            EXPECT_NE(l.steps[i + 1].text.find("Answer:"), std::string::npos) << l.id << " step " << i + 2;
        }
    }
    EXPECT_TRUE(ids.count("compute-optimal") && ids.count("isoflop-to-law") && ids.count("context-length"));
}

TEST(LessonFiles, BadFilesNameTheFileAndTheField) {
    EXPECT_EQ(errorOf("{\n  \"id\": \"x\",\n  \"title\": }", "mine.json"),
              "mine.json, line 3: not valid JSON: object is missing after a comma");
    EXPECT_EQ(errorOf("[1, 2]"), "bad.json: expected a JSON object with \"id\", \"title\" and \"steps\"");
    EXPECT_EQ(errorOf(R"({"id": "x", "title": "T"})"), "bad.json: field 'steps': missing; expected a list of steps");
    EXPECT_EQ(errorOf(R"({"id": "x", "title": "T", "steps": []})"), "bad.json: field 'steps': is empty; a lesson needs at least one step");
    EXPECT_EQ(errorOf(R"({"title": "T", "steps": [{}]})"), "bad.json: field 'id': missing; expected a string");
    EXPECT_EQ(errorOf(R"({"id": "Has Spaces", "title": "T", "steps": [{}]})"),
              "bad.json: field 'id': expected lower-case letters, digits and '-', found 'Has Spaces'");
    EXPECT_EQ(errorOf(lessonWith(R"({"title": "t", "view": 3, "text": "x"})")), "bad.json: field 'steps[1].view': expected a string");
    EXPECT_EQ(errorOf(lessonWith(R"({"title": "t", "view": "isoflop"})")), "bad.json: field 'steps[1].text': missing; expected a string");
    EXPECT_EQ(errorOf(lessonWith(R"({"title": "t", "view": "isoflop", "text": "x", "controls": {"family": {"a": 1}}})")),
              "bad.json: field 'steps[1].controls.family': expected a string, a number or true/false");
    EXPECT_EQ(errorOf(lessonWith(R"({"title": "t", "view": "isoflop", "text": "x", "hightlight": "family"})")),
              "bad.json: field 'steps[1].hightlight': unknown field (a step has title, view, controls, highlight, text, question)");
    auto missing = loadLesson(QStringLiteral("/nonexistent/lesson.json"));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().file, "/nonexistent/lesson.json");
}

TEST_F(Lessons, EveryStepOfEveryShippedLessonSetsItsViewAndControlsAndRenders) {
    for (const Lesson& lesson : shippedLessons()) {
        ASSERT_TRUE(window->openLesson(lesson, 0, false)) << window->lastError().toStdString();
        for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
            const auto& step = lesson.steps[k];
            const std::string where = lesson.id + " step " + std::to_string(k + 1);
            ASSERT_TRUE(window->showLessonStep(static_cast<int>(k), false)) << where << ": " << window->lastError().toStdString();
            ViewPanel* panel = window->currentPanel();
            ASSERT_NE(panel, nullptr) << where;
            EXPECT_EQ(panel->viewId().toStdString(), step.view) << where;
            panel->computeNow();
            QApplication::processEvents();
            const QJsonObject shown = captureControls(panel);
            for (auto it = step.controls.begin(); it != step.controls.end(); ++it)
                EXPECT_EQ(asText(shown.value(it.key())), asText(it.value())) << where << ": control " << it.key().toStdString();
            EXPECT_EQ(window->lessonPane()->step(), static_cast<int>(k)) << where;
            if (!step.highlight.empty()) {
                ASSERT_NE(window->lessonHighlight()->target(), nullptr) << where;
                EXPECT_EQ(window->lessonHighlight()->target()->objectName().toStdString(), step.highlight) << where;
                EXPECT_TRUE(window->lessonHighlight()->isVisible()) << where;
                // The frame is drawn around the control.
                const QRect control(window->lessonHighlight()->target()->mapTo(window.get(), QPoint(0, 0)),
                                    window->lessonHighlight()->target()->size());
                EXPECT_TRUE(window->lessonHighlight()->geometry().contains(control)) << where;
            }
            const QImage image = window->grab().toImage();
            EXPECT_FALSE(image.isNull()) << where;
            EXPECT_GT(scalex::test::nonBackgroundFraction(image), 0.05) << where;
        }
    }
}

TEST_F(Lessons, ViewsAndControlsThatDoNotExistAreErrorsNamingFileAndField) {
    auto lesson = [](const QByteArray& step) {
        auto l = parseLesson(lessonWith(step), "lecture.json");
        EXPECT_TRUE(l) << (l ? std::string() : l.error().toString());
        return l ? *l : Lesson{};
    };
    EXPECT_FALSE(window->openLesson(lesson(R"({"title": "t", "view": "nosuch", "text": "x"})"), 0, false));
    EXPECT_TRUE(window->lastError().startsWith("lecture.json: field 'steps[1].view': no view named 'nosuch' (views: runs, pareto"))
        << window->lastError().toStdString();
    EXPECT_FALSE(window->openLesson(lesson(R"({"title": "t", "view": "optimal", "text": "x", "highlight": "budget"})"), 0, false));
    EXPECT_TRUE(window->lastError().startsWith("lecture.json: field 'steps[1].highlight': the view 'optimal' has no control 'budget' (it has "))
        << window->lastError().toStdString();
    EXPECT_FALSE(window->openLesson(lesson(R"({"title": "t", "view": "optimal", "text": "x", "controls": {"speed": 3}})"), 0, false));
    EXPECT_TRUE(window->lastError().startsWith("lecture.json: field 'steps[1].controls.speed': the view 'optimal' has no control 'speed'"))
        << window->lastError().toStdString();
    // A value the control does not have: refused when the step is shown, naming the control.
    const Lesson badValue = lesson(R"({"title": "t", "view": "optimal", "text": "x", "controls": {"mode": "Wishful thinking"}})");
    ASSERT_TRUE(window->openLesson(badValue, 0, false)) << window->lastError().toStdString();
    EXPECT_FALSE(window->showLessonStep(1, false));
    EXPECT_TRUE(window->lastError().startsWith("lecture.json: field 'steps[1].controls': the control 'mode' has no value 'Wishful thinking'"))
        << window->lastError().toStdString();
    // A step number past the end.
    EXPECT_FALSE(window->openLesson(badValue, 5, false));
    EXPECT_EQ(window->lastError(), "lecture.json: the lesson has 2 steps; there is no step 6");
}

TEST_F(Lessons, ALecturersOwnLessonOpensFromAFile) {
    QTemporaryDir dir;
    const QString path = dir.filePath("mine.json");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"id": "mine", "title": "Mine", "steps": [{"title": "One", "view": "isoflop", "controls": {"family": "xLSTM"},
                "highlight": "family", "text": "<p>Look.</p>", "question": "Why?"}]})");
    f.close();
    ASSERT_TRUE(window->openLessonFile(path, 0, false)) << window->lastError().toStdString();
    EXPECT_EQ(window->currentPanel()->viewId(), "isoflop");
    EXPECT_EQ(captureControls(window->currentPanel()).value("family").toString(), "xLSTM");
    EXPECT_TRUE(window->lessonPane()->text()->toPlainText().contains("Why?"));
    EXPECT_FALSE(window->openLessonFile(dir.filePath("absent.json"), 0, false));
    EXPECT_TRUE(window->lastError().contains("no lesson with this id and no such file")) << window->lastError().toStdString();
}

TEST_F(Lessons, WindowFits1024x768WithAndWithoutPresentationMode) {
    for (bool presentation : {false, true}) {
        window->setPresentation(presentation);
        QApplication::processEvents();
        // The views are pages of one tab widget: the widest page sets the window's minimum.
        std::string widths;
        for (ViewPanel* p : window->panels())
            widths += p->viewId().toStdString() + " " + std::to_string(p->minimumSizeHint().width()) + "x" +
                      std::to_string(p->minimumSizeHint().height()) + ", ";
        for (QDockWidget* d : window->findChildren<QDockWidget*>())
            widths += d->objectName().toStdString() + " " + std::to_string(d->minimumSizeHint().width()) + ", ";
        const QSize hint = window->minimumSizeHint();
        EXPECT_LE(hint.width(), 1024) << (presentation ? "presentation; " : "") << widths;
        EXPECT_LE(hint.height(), 768) << (presentation ? "presentation; " : "") << widths;
        window->resize(1024, 768);
        QApplication::processEvents();
        EXPECT_LE(window->width(), 1024);
        EXPECT_LE(window->height(), 768);
    }
    window->setPresentation(false);
}

TEST_F(Lessons, PresentationModeEnlargesFontsAndZoomScalesThem) {
    window->setPresentation(false);  // the theme's fonts, as the program applies them on start
    const int normal = QApplication::font().pointSize();
    EXPECT_EQ(normal, Theme::current().basePointSize);
    window->setPresentation(true);
    const int large = QApplication::font().pointSize();
    EXPECT_GT(large, normal);
    EXPECT_GT(Theme::current().lineScale, 1.0);
    window->zoomBy(2);
    EXPECT_GT(QApplication::font().pointSize(), large);
    window->zoomBy(0);
    EXPECT_EQ(QApplication::font().pointSize(), large);
    window->setPresentation(false);
    EXPECT_EQ(QApplication::font().pointSize(), normal);
    EXPECT_EQ(Theme::current().lineScale, 1.0);
}

namespace {
// What a view cuts short at the window's present size: chart texts Qt Charts elided with "...",
// combo boxes narrower than their text, and a page wider than its tab (a horizontal scroll).
std::vector<std::string> cutShort(ViewPanel* panel) {
    std::vector<std::string> out;
    const std::string view = panel->viewId().toStdString();
    for (QChart* chart : panel->charts()) {
        if (!chart || !chart->isVisible()) continue;
        std::vector<QGraphicsItem*> items{chart};
        while (!items.empty()) {
            QGraphicsItem* item = items.back();
            items.pop_back();
            for (QGraphicsItem* c : item->childItems()) items.push_back(c);
            if (!item->isVisible()) continue;
            QString text;
            if (auto* t = dynamic_cast<QGraphicsTextItem*>(item)) text = t->toPlainText();
            else if (auto* s = dynamic_cast<QGraphicsSimpleTextItem*>(item)) text = s->text();
            // A marker the view left out of the legend keeps an item with its empty label elided to "...".
            if (text == QLatin1String("...")) continue;
            if (text.endsWith(QLatin1String("...")) || text.endsWith(QChar(0x2026)))
                out.push_back(view + ": chart '" + chart->title().toStdString() + "' (" + std::to_string(qRound(chart->size().width())) + "x" +
                              std::to_string(qRound(chart->size().height())) + " px) shows '" + text.toStdString() + "'");
        }
    }
    for (QComboBox* box : panel->findChildren<QComboBox*>()) {
        if (!box->isVisibleTo(panel) || box->isEditable() || box->currentText().isEmpty()) continue;
        QStyleOptionComboBox opt;
        opt.initFrom(box);
        opt.currentText = box->currentText();
        const QRect field = box->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, box);
        if (box->fontMetrics().horizontalAdvance(box->currentText()) > field.width())
            out.push_back(view + ": combo box '" + box->objectName().toStdString() + "' cuts '" + box->currentText().toStdString() + "'");
    }
    for (QWidget* w = panel->parentWidget(); w; w = w->parentWidget())
        if (auto* scroll = qobject_cast<QScrollArea*>(w)) {
            if (scroll->horizontalScrollBar()->maximum() > 0)
                out.push_back(view + ": scrolls sideways by " + std::to_string(scroll->horizontalScrollBar()->maximum()) + " px");
            break;
        }
    return out;
}
}  // namespace

TEST_F(Lessons, NoViewCutsTextShortOrScrollsSidewaysAt1024x768Or1280x800InEitherMode) {
    for (QSize size : {QSize(1024, 768), QSize(1280, 800)})
        for (bool presentation : {false, true}) {
            window->setPresentation(presentation);
            window->resize(size);
            QApplication::processEvents();
            for (ViewPanel* panel : window->panels()) {
                ASSERT_TRUE(window->showView(panel->viewId()));
                panel->computeNow();
                for (int i = 0; i < 3; ++i) QApplication::processEvents();
                // Axes a redraw replaced are deleted later: their items are gone from the screen already.
                QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
                for (const std::string& problem : cutShort(panel))
                    ADD_FAILURE() << size.width() << "x" << size.height() << (presentation ? ", presentation: " : ": ") << problem;
            }
        }
    window->setPresentation(false);
    window->resize(1280, 800);
}

TEST_F(Lessons, ControlsTakeTheValueShownAndOldNamesStillWork) {
    ASSERT_TRUE(window->showView("context"));
    ViewPanel* context = window->currentPanel();
    // The context slider takes and reports the context length it shows.
    EXPECT_TRUE(restoreControls(context, {{"context", 16384}}).isEmpty());
    EXPECT_EQ(captureControls(context).value("context").toDouble(), 16384);
    // Recipes saved with the slider's old name and position still load.
    EXPECT_TRUE(restoreControls(context, {{"slider", 24}}).isEmpty());
    EXPECT_EQ(captureControls(context).value("context").toDouble(), 32768);
    ASSERT_TRUE(window->showView("breakdown"));
    ViewPanel* breakdown = window->currentPanel();
    EXPECT_TRUE(restoreControls(breakdown, {{"metricBox", "Decode-step memory traffic (bytes, batch 1)"}, {"percentBox", true}}).isEmpty());
    const QJsonObject shown = captureControls(breakdown);
    EXPECT_EQ(shown.value("quantity").toString(), "Decode-step memory traffic (bytes, batch 1)");
    EXPECT_TRUE(shown.value("shares").toBool());
    EXPECT_FALSE(shown.contains("metricBox"));
    restoreControls(breakdown, {{"shares", false}});
    // "..." typed for the "…" of a choice.
    ASSERT_TRUE(window->showView("isoflop"));
    EXPECT_TRUE(restoreControls(window->currentPanel(), {{"range", "budgets 5e18 ... 5e19 (per-context tables)"}}).isEmpty());
    EXPECT_EQ(captureControls(window->currentPanel()).value("range").toString(), QString::fromUtf8("budgets 5e18 … 5e19 (per-context tables)"));
    restoreControls(window->currentPanel(), {{"range", QString::fromUtf8("budgets 5e18 … 2e20 (Fig. 4)")}});
}
