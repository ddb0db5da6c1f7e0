// Guided lessons (core/data/Lesson.h, Help → Lessons): the shipped lessons load, every step of
// every one sets its view and controls and frames its control, in sight at 1024×768 and 1280×800
// in either mode; bad lesson files are refused with the file and the field; the window fits
// 1024×768 with and without presentation mode.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <cmath>
#include <set>

#include "app/gui/ChoiceKeys.h"
#include "app/gui/LessonPane.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Recipes.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "app/gui/JobPool.h"
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

// Whether the control `name` shows what a lesson gives it, as the controls take a value: a choice
// by its key or its text ("..." for "…"), a number within 1 % (3.16e20 for the slider's
// 10^20.5), anything else as text.
bool showsValue(const QWidget* panel, const QString& name, const QJsonValue& given) {
    if (auto* box = panel->findChild<QComboBox*>(name); box && given.isString())
        return given.toString() == choiceKey(box, box->currentIndex()) || given.toString() == box->currentText() ||
               QString(given.toString()).replace(QLatin1String("..."), QString(QChar(0x2026))) == box->currentText();
    const QJsonValue shown = captureControls(panel).value(name);
    if (shown.isDouble() && given.isDouble())
        return std::abs(shown.toDouble() - given.toDouble()) <= 0.01 * std::abs(shown.toDouble());
    return asText(shown) == asText(given);
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

namespace {
// Where the control `target` shows: its rectangle and, when its view scrolls, the part of the
// window the scroll area shows (the window itself when nothing scrolls), both in window coordinates.
std::pair<QRect, QRect> placeInWindow(QWidget* window, QWidget* target) {
    const QRect control(target->mapTo(window, QPoint(0, 0)), target->size());
    QRect shown = window->rect();
    for (QWidget* w = target->parentWidget(); w && w != window; w = w->parentWidget())
        if (auto* scroll = qobject_cast<QScrollArea*>(w))
            shown &= QRect(scroll->viewport()->mapTo(window, QPoint(0, 0)), scroll->viewport()->size());
    return {control, shown};
}

std::string sizeText(QSize size, bool presentation) {
    return std::to_string(size.width()) + "x" + std::to_string(size.height()) + (presentation ? " presentation" : "");
}
}  // namespace

// Every step at the sizes of a projector and a laptop, in both modes: it sets its view and
// controls, its framed control is in sight (scrolled there when the view is taller than the
// window), it renders, and it shows something other than the step before it.
TEST_F(Lessons, EveryStepOfEveryShippedLessonRendersWithItsFramedControlInSightAt1024x768And1280x800) {
    for (QSize size : {QSize(1024, 768), QSize(1280, 800)})
        for (bool presentation : {false, true}) {
            window->setPresentation(presentation);
            window->resize(size);
            QApplication::processEvents();
            ASSERT_EQ(window->size(), size) << sizeText(size, presentation);
            for (const Lesson& lesson : shippedLessons()) {
                ASSERT_TRUE(window->openLesson(lesson, 0, false)) << window->lastError().toStdString();
                QImage previousView;
                for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
                    const auto& step = lesson.steps[k];
                    const std::string where = sizeText(size, presentation) + ", " + lesson.id + " step " + std::to_string(k + 1);
                    ASSERT_TRUE(window->showLessonStep(static_cast<int>(k), false)) << where << ": " << window->lastError().toStdString();
                    ViewPanel* panel = window->currentPanel();
                    ASSERT_NE(panel, nullptr) << where;
                    EXPECT_EQ(panel->viewId().toStdString(), step.view) << where;
                    panel->computeNow();
                    for (int i = 0; i < 3; ++i) QApplication::processEvents();
                    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // replaced chart items
                    const QJsonObject shown = captureControls(panel);
                    for (auto it = step.controls.begin(); it != step.controls.end(); ++it)
                        EXPECT_TRUE(showsValue(panel, it.key(), it.value()))
                            << where << ": control " << it.key().toStdString() << " shows " << asText(shown.value(it.key())).toStdString()
                            << ", the lesson gives " << asText(it.value()).toStdString();
                    EXPECT_EQ(window->lessonPane()->step(), static_cast<int>(k)) << where;
                    if (!step.highlight.empty()) {
                        QWidget* target = window->lessonHighlight()->target();
                        ASSERT_NE(target, nullptr) << where;
                        EXPECT_EQ(target->objectName().toStdString(), step.highlight) << where;
                        EXPECT_TRUE(target->isVisible()) << where;
                        EXPECT_TRUE(window->lessonHighlight()->isVisible()) << where;
                        // "The framed control is the one to try": it must be in sight, and framed.
                        const auto [control, inSight] = placeInWindow(window.get(), target);
                        EXPECT_TRUE(inSight.contains(control))
                            << where << ": the control " << step.highlight << " at (" << control.x() << ", " << control.y() << ") "
                            << control.width() << "x" << control.height() << " is outside the part of the view in sight, ("
                            << inSight.x() << ", " << inSight.y() << ") " << inSight.width() << "x" << inSight.height();
                        EXPECT_TRUE(window->lessonHighlight()->geometry().contains(control)) << where;
                    }
                    const QImage image = window->grab().toImage();
                    ASSERT_FALSE(image.isNull()) << where;
                    EXPECT_EQ(image.size(), size) << where;
                    EXPECT_GT(scalex::test::nonBackgroundFraction(image), 0.05) << where;
                    // The view area, frame included: each step changes the view, its controls or the control framed.
                    const QImage view = image.copy(QRect(window->views()->mapTo(window.get(), QPoint(0, 0)), window->views()->size()));
                    if (k > 0) EXPECT_NE(view, previousView) << where << " shows the same view as the step before";
                    previousView = view;
                }
            }
        }
    window->setPresentation(false);
    window->resize(1280, 800);
}

// `scalex --lesson ID --step K` opens the step before the window is first shown and laid out:
// its framed control must still be in sight once the window shows, at 1024x768 in either mode.
// A window with the example study takes about 2 s to open, so only a few steps are opened this
// way (the test above covers every step in a window that is already shown).
TEST_F(Lessons, StepsOpenedBeforeTheWindowShowsHaveTheirFramedControlInSightAt1024x768) {
    window.reset();  // one window at a time, as the program has
    // A control on the view's first row, one on its second, one at its bottom.
    const std::vector<std::pair<QString, int>> steps{{"compute-optimal", 2}, {"isoflop-to-law", 2}, {"isoflop-to-law", 6}};
    for (bool presentation : {false, true})
        for (const auto& [id, number] : steps) {
            const std::string where = sizeText(QSize(1024, 768), presentation) + ", " + id.toStdString() + " step " + std::to_string(number);
            // The order of the program's start: data, size, mode, lesson, then show.
            MainWindow fresh;
            ASSERT_TRUE(fresh.openExample(false)) << fresh.lastError().toStdString();
            fresh.resize(1024, 768);
            if (presentation) fresh.setPresentation(true);
            ASSERT_TRUE(fresh.openLessonFile(id, number - 1, false)) << where << ": " << fresh.lastError().toStdString();
            fresh.setAttribute(Qt::WA_DontShowOnScreen, true);
            fresh.show();
            QApplication::processEvents();
            fresh.currentPanel()->computeNow();
            for (int i = 0; i < 3; ++i) QApplication::processEvents();
            QWidget* target = fresh.lessonHighlight()->target();
            ASSERT_NE(target, nullptr) << where;
            const auto [control, inSight] = placeInWindow(&fresh, target);
            EXPECT_TRUE(inSight.contains(control))
                << where << ": the control " << target->objectName().toStdString() << " at (" << control.x() << ", " << control.y()
                << ") " << control.width() << "x" << control.height() << " is outside the part of the view in sight, (" << inSight.x()
                << ", " << inSight.y() << ") " << inSight.width() << "x" << inSight.height();
            EXPECT_TRUE(fresh.lessonHighlight()->isVisible()) << where;
            EXPECT_TRUE(fresh.lessonHighlight()->geometry().contains(control)) << where;
            if (presentation) fresh.setPresentation(false);  // the application's fonts, for the next window
        }
}

TEST_F(Lessons, AViewTheReaderScrolledStaysWhereTheReaderLeftIt) {
    window->resize(1024, 768);
    ASSERT_TRUE(window->openLessonFile(QStringLiteral("isoflop-to-law"), 1, false)) << window->lastError().toStdString();
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    auto* scroll = qobject_cast<QScrollArea*>(window->views()->currentWidget());
    ASSERT_NE(scroll, nullptr);
    QScrollBar* bar = scroll->verticalScrollBar();
    ASSERT_GT(bar->maximum(), 0) << "the IsoFLOP view should be taller than a 1024x768 window";
    EXPECT_LT(bar->value(), bar->maximum());  // the framed control sits at the top
    // The reader scrolls down to the law chart; a later layout (a resize) does not scroll back.
    bar->triggerAction(QAbstractSlider::SliderToMaximum);
    const int scrolled = bar->value();
    window->resize(1030, 768);
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    EXPECT_GE(bar->value(), std::min(scrolled, bar->maximum()) - 1);
    EXPECT_FALSE(window->lessonHighlight()->isVisible()) << "the framed control is scrolled out of sight, and so is its frame";
    // The next step brings its own control into sight again.
    ASSERT_TRUE(window->showLessonStep(2, false));
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    const auto [control, inSight] = placeInWindow(window.get(), window->lessonHighlight()->target());
    EXPECT_TRUE(inSight.contains(control));
    window->resize(1280, 800);
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
    // Every chart on screen, not only those the view exports: a view may leave a chart out of its
    // exports (the Inference view's utilisation chart before measurements are loaded) and show it.
    for (QChartView* chartView : panel->findChildren<QChartView*>()) {
        QChart* chart = chartView->chart();
        if (!chart || !chartView->isVisibleTo(panel) || !chart->isVisible()) continue;
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
                // A choice that changes a view's charts and titles (the Inference view's stage and
                // Fig. 6 layout): every one of its values is looked at.
                auto* layout = panel->viewId() == "inference" ? panel->findChild<QComboBox*>("stage") : nullptr;
                const int shown = layout ? layout->currentIndex() : 0;
                for (int choice = 0; choice < (layout ? layout->count() : 1); ++choice) {
                    if (layout) layout->setCurrentIndex(choice);
                    panel->computeNow();
                    for (int i = 0; i < 3; ++i) QApplication::processEvents();
                    // Axes a redraw replaced are deleted later: their items are gone from the screen already.
                    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
                    for (const std::string& problem : cutShort(panel))
                        ADD_FAILURE() << size.width() << "x" << size.height() << (presentation ? ", presentation: " : ": ") << problem
                                      << (layout ? " (" + layout->currentText().toStdString() + ")" : std::string());
                }
                if (layout) layout->setCurrentIndex(shown);
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
    // The box shows the choice's text; recipes keep its key.
    EXPECT_EQ(breakdown->findChild<QComboBox*>("quantity")->currentText(), "Decode-step memory traffic (bytes, batch 1)");
    EXPECT_EQ(shown.value("quantity").toString(), "decode-traffic");
    EXPECT_TRUE(shown.value("shares").toBool());
    EXPECT_FALSE(shown.contains("metricBox"));
    restoreControls(breakdown, {{"shares", false}});
    // "..." typed for the "…" of a choice.
    ASSERT_TRUE(window->showView("isoflop"));
    EXPECT_TRUE(restoreControls(window->currentPanel(), {{"range", "budgets 5e18 ... 5e19 (per-context tables)"}}).isEmpty());
    EXPECT_EQ(window->currentPanel()->findChild<QComboBox*>("range")->currentText(), QString::fromUtf8("budgets 5e18 … 5e19 (per-context tables)"));
    EXPECT_EQ(captureControls(window->currentPanel()).value("range").toString(), "context-tables");
    restoreControls(window->currentPanel(), {{"range", QString::fromUtf8("budgets 5e18 … 2e20 (Fig. 4)")}});
}

namespace {
// The text of the dock tab in front of the window's right-hand dock area ("Lesson", "Explain").
QString dockInFront(const MainWindow& window) {
    for (QTabBar* bar : window.findChildren<QTabBar*>())
        if (bar->parentWidget() == &window && bar->count() > 1 && bar->currentIndex() >= 0) return bar->tabText(bar->currentIndex());
    return {};
}

// A window as `scalex --lesson ID --step K --screenshot` makes it before showing it: the layout
// the user left (restored from the settings), the example study, the lesson step. With `slowJobs`,
// every thread of the views' job pool is held for a while first: the step's work ends only after
// the screenshot has begun, as on a slow or busy machine.
std::unique_ptr<MainWindow> lessonWindow(const QByteArray& savedLayout, const QString& lesson, int step, bool slowJobs = false) {
    auto window = std::make_unique<MainWindow>();
    if (!savedLayout.isEmpty()) window->restoreState(savedLayout);
    EXPECT_TRUE(window->openExample(false)) << window->lastError().toStdString();
    window->resize(1024, 768);
    if (slowJobs)
        for (int i = 0; i < jobPool()->maxThreadCount(); ++i) jobPool()->start([] { QThread::msleep(500); });
    EXPECT_TRUE(window->openLessonFile(lesson, step - 1, false)) << window->lastError().toStdString();
    window->setAttribute(Qt::WA_DontShowOnScreen, true);
    return window;
}
}  // namespace

// The lesson is opened before the window first shows, over the layout the user left: the lesson
// pane must be the dock in front, its step's text in sight, whether the user's layout had the
// pane closed, ended or never opened; and so two steps on the same view give two pictures.
TEST_F(Lessons, TheLessonPaneIsInFrontOfAWindowOpenedOnALessonStep) {
    std::vector<std::pair<std::string, QByteArray>> layouts{{"no saved layout", {}}, {"a layout without a lesson", window->saveState()}};
    ASSERT_TRUE(window->openLessonFile(QStringLiteral("context-length"), 0, false)) << window->lastError().toStdString();
    QApplication::processEvents();
    layouts.emplace_back("a layout with a lesson open", window->saveState());
    emit window->lessonPane()->closeRequested();  // End lesson
    QApplication::processEvents();
    layouts.emplace_back("a layout where a lesson ended", window->saveState());
    window.reset();  // one window at a time, as the program has
    for (const auto& [name, layout] : layouts) {
        // Two steps of two lessons that show the same view with the same controls.
        std::vector<QImage> pictures;
        for (const auto& [lesson, step] : {std::pair{QStringLiteral("compute-optimal"), 3}, std::pair{QStringLiteral("isoflop-to-law"), 4}}) {
            const std::string where = name + ", " + lesson.toStdString() + " step " + std::to_string(step);
            auto shown = lessonWindow(layout, lesson, step);
            shown->show();
            pictures.push_back(shown->screenshot());
            EXPECT_EQ(dockInFront(*shown), "Lesson") << where;
            auto* lessonDock = shown->findChild<QDockWidget*>(QStringLiteral("LessonDock"));
            auto* explainDock = shown->findChild<QDockWidget*>(QStringLiteral("ExplainDock"));
            ASSERT_TRUE(lessonDock && explainDock) << where;
            EXPECT_TRUE(lessonDock->isVisible()) << where;
            EXPECT_FALSE(shown->lessonPane()->text()->visibleRegion().isEmpty()) << where << ": the step's text is out of sight";
            EXPECT_TRUE(explainDock->visibleRegion().isEmpty()) << where << ": the Explain pane is in sight";
            EXPECT_EQ(shown->lessonPane()->step(), step - 1) << where;
        }
        EXPECT_NE(pictures[0], pictures[1]) << name << ": two lesson steps give the same picture";
    }
}

// A screenshot waits for the view's work and for all it sets off (tables filled, the layouts a
// new table size or text starts, the scroll to the framed control): the same picture whether the
// view's answer came before the window showed or only once the screenshot had begun, as on a busy
// machine. Context-length step 3 is the IsoFLOP view at every context (its fits start the
// bootstrap bands), step 4 the Compute-optimal view (its answer resizes the tables).
TEST_F(Lessons, AStepsScreenshotIsTheSameHoweverFastTheViewsWorkRan) {
    window.reset();
    for (int step : {3, 4}) {
        const std::string where = "context-length step " + std::to_string(step);
        std::vector<QImage> pictures;
        for (bool slow : {false, true}) {
            auto shown = lessonWindow({}, QStringLiteral("context-length"), step, slow);
            if (!slow) shown->currentPanel()->computeNow();  // the answer in before the window shows
            shown->show();
            pictures.push_back(shown->screenshot());
            ASSERT_FALSE(pictures.back().isNull()) << where;
        }
        EXPECT_EQ(pictures[0], pictures[1]) << where << ": the picture depends on when the view's answer came";
    }
}
