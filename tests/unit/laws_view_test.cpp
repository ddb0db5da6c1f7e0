// The Laws view in the window (offscreen): it opens on the example with a row per law in its
// table, shows the error of a bad formula under the field as it is typed and fits nothing of that
// law until it compiles, and a law typed as a formula survives a recipe saved in a project.
#include <gtest/gtest.h>

#include <QApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtCharts/QChart>

#include "app/figures/views/LawsFigure.h"
#include "app/gui/FigureExport.h"
#include "app/gui/FigureView.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Recipes.h"
#include "app/gui/Session.h"
#include "core/analysis/Study.h"
#include "core/data/Project.h"
#include "tests/support/GuiApp.h"

using namespace scalex;
using gui::FigureView;
using figures::LawsFigure;

namespace {

class GuiLawsView : public ::testing::Test {
protected:
    void SetUp() override {
        test::ensureGuiApplication("scalex_laws_view_test");
        window = std::make_unique<gui::MainWindow>();
        window->resize(1280, 860);
        window->setAttribute(Qt::WA_DontShowOnScreen, true);
        window->show();
        ASSERT_TRUE(window->openExample(false)) << window->lastError().toStdString();
        ASSERT_TRUE(window->showView("laws"));
        laws = qobject_cast<FigureView*>(window->currentPanel());
        ASSERT_NE(laws, nullptr);
        settle();
    }
    // The fits done and their answers drawn.
    void settle() {
        laws->computeNow();
        QApplication::processEvents();
    }
    QLineEdit* field(const QString& name) { return laws->findChild<QLineEdit*>(name); }
    // The text under law k's fields (its error, or empty) and under the split's.
    QString lawErrorText(int k) const { return laws->findChild<QLabel*>(LawsFigure::lawKey(k) + "Problem")->text(); }
    QString splitErrorText() const { return laws->findChild<QLabel*>("controlsProblem")->text(); }
    // The table of the laws side by side, as shown.
    QTableWidget* lawTable() const { return laws->findChild<QTableWidget*>("shownTable"); }
    // Types `text` at the end of the field, key by key, as a person would.
    static void type(QLineEdit* edit, const QString& text) {
        edit->setFocus();
        edit->end(false);
        for (const QChar ch : text) {
            QKeyEvent press(QEvent::KeyPress, 0, Qt::NoModifier, QString(ch));
            QApplication::sendEvent(edit, &press);
        }
    }
    static void pressEnter(QLineEdit* edit) {
        QKeyEvent press(QEvent::KeyPress, Qt::Key_Return, Qt::NoModifier);
        QApplication::sendEvent(edit, &press);
    }
    QStringList tableColumn(int column) const {
        QStringList out;
        const QTableWidget* t = lawTable();
        for (int r = 0; r < t->rowCount(); ++r) out << (t->item(r, column) ? t->item(r, column)->text() : QString());
        return out;
    }
    std::unique_ptr<gui::MainWindow> window;
    FigureView* laws = nullptr;
};

}  // namespace

TEST_F(GuiLawsView, OpensOnTheExampleWithARowPerLaw) {
    EXPECT_TRUE(laws->problem().isEmpty()) << laws->problem().toStdString();
    EXPECT_EQ(tableColumn(0), (QStringList{"chinchilla", "kaplan", "formula 3"}));
    const auto& shown = laws->figureAs<LawsFigure>()->shown();
    ASSERT_EQ(shown.size(), 3u);
    for (const auto& s : shown) {
        ASSERT_FALSE(s.analysis->error) << *s.analysis->error;
        // One fit per series and context of the example (Transformer and xLSTM never share one).
        ASSERT_GE(s.analysis->groups.size(), 2u);
        std::size_t trained = 0;
        for (const auto& g : s.analysis->groups) {
            EXPECT_TRUE(g.error.empty()) << g.name << ": " << g.error;
            trained += g.nTrain;
        }
        // The largest tenth of the model sizes held out by default, and predicted.
        ASSERT_TRUE(s.analysis->test) << s.label;
        EXPECT_GT(s.analysis->test->n, 0u);
        EXPECT_GT(trained, s.analysis->test->n);
        EXPECT_LT(s.analysis->test->mape, 0.2) << s.label;
    }
    // Both charts hold something, and no field shows an error.
    for (QChart* chart : laws->charts()) EXPECT_FALSE(chart->series().isEmpty());
    for (int k = 0; k < LawsFigure::kLaws; ++k) EXPECT_TRUE(lawErrorText(k).isEmpty()) << k;
    EXPECT_TRUE(splitErrorText().isEmpty());
    EXPECT_FALSE(laws->explainHtml().isEmpty());
}

TEST_F(GuiLawsView, ABadFormulaShowsItsErrorUnderTheFieldAndIsNotFitted) {
    QLineEdit* formula = field("formula3");
    ASSERT_NE(formula, nullptr);
    ASSERT_TRUE(formula->isEnabled()) << "law 3 is a typed formula by default";
    // A name that is neither a column nor a parameter: the error as it is typed, before Enter.
    type(formula, " + Q");
    EXPECT_TRUE(lawErrorText(2).contains("unknown name 'Q'")) << lawErrorText(2).toStdString();
    EXPECT_EQ(tableColumn(0).size(), 3) << "nothing refitted while typing";
    pressEnter(formula);
    settle();
    EXPECT_EQ(tableColumn(0), (QStringList{"chinchilla", "kaplan"})) << "the law with an error is not fitted";
    EXPECT_TRUE(lawErrorText(2).contains("unknown name 'Q'"));
    EXPECT_TRUE(laws->problem().isEmpty()) << "the other laws still fit";

    // An unbalanced parenthesis, then a parameter without bounds.
    formula->setText(QStringLiteral("L = E + A/(N^alpha + B/D^beta"));
    type(formula, " ");
    EXPECT_TRUE(lawErrorText(2).contains("unbalanced parenthesis")) << lawErrorText(2).toStdString();
    QLineEdit* params = field("params3");
    ASSERT_NE(params, nullptr);
    formula->setText(QStringLiteral("L = E + A/N^alpha + B/D^beta"));
    type(formula, " ");
    params->setText(QStringLiteral("E=0:10, A=0:1e8, B, alpha=0.01:2, beta=0.01:2"));
    type(params, " ");
    EXPECT_FALSE(lawErrorText(2).isEmpty());
    EXPECT_TRUE(lawErrorText(2).contains("B")) << lawErrorText(2).toStdString();

    // Corrected, it is fitted again on Enter and its error goes.
    params->setText(QStringLiteral("E=0:10, A=0:1e8, B=0:1e8, alpha=0.01:2, beta=0.01:2"));
    type(params, " ");
    EXPECT_TRUE(lawErrorText(2).isEmpty()) << lawErrorText(2).toStdString();
    pressEnter(params);
    settle();
    EXPECT_EQ(tableColumn(0), (QStringList{"chinchilla", "kaplan", "formula 3"}));

    // Bad split conditions: the error under the settings, nothing fitted, no crash.
    QLineEdit* test = field("test");
    ASSERT_NE(test, nullptr);
    type(test, "no_such_column<3");
    EXPECT_TRUE(splitErrorText().contains("no_such_column")) << splitErrorText().toStdString();
    pressEnter(test);
    settle();
    EXPECT_EQ(lawTable()->rowCount(), 0);
    EXPECT_FALSE(laws->problem().isEmpty());
}

TEST_F(GuiLawsView, ATypedLawSurvivesARecipeSavedInAProject) {
    const QString formula = QStringLiteral("L = E + A/N^alpha");
    const QString params = QStringLiteral("E=0:10, A=0:1e8@100, alpha=0.01:2@0.3");
    const QStringList notes = laws->applyControls({{"law2", "formula"}, {"formula2", formula}, {"params2", params}, {"law3", "none"},
                                                   {"test", "N>=1e9"}, {"loss", "huber"}});
    ASSERT_TRUE(notes.isEmpty()) << notes.join("; ").toStdString();
    settle();
    ASSERT_EQ(tableColumn(0), (QStringList{"chinchilla", "formula 2"}));
    const QString objective = lawTable()->item(1, 4)->text();

    data::FigureRecipe recipe = gui::captureRecipe(*window->session(), *laws, figures::FigureStyle{}, "svg");
    window->session()->setRecipe("typed", recipe);
    QTemporaryDir dir;
    const QString path = dir.filePath("laws.scalex");
    ASSERT_TRUE(window->saveProject(path, false)) << window->lastError().toStdString();

    // Another project, then the saved one: the recipe brings the typed law back.
    ASSERT_TRUE(window->openExample(false));
    ASSERT_TRUE(window->openPath(path, false)) << window->lastError().toStdString();
    ASSERT_EQ(window->session()->recipes().count("typed"), 1u);
    const data::FigureRecipe reopened = window->session()->recipes().at("typed");
    EXPECT_EQ(reopened.controls.value("formula2").toString(), formula);
    EXPECT_EQ(reopened.controls.value("params2").toString(), params);
    QStringList warnings;
    QString error;
    ASSERT_TRUE(gui::applyRecipe(*window, reopened, &warnings, &error)) << error.toStdString();
    laws = qobject_cast<FigureView*>(window->currentPanel());
    ASSERT_NE(laws, nullptr);
    settle();
    const figures::Controls& c = laws->figure()->controls();
    EXPECT_EQ(c.choice("law2"), "formula");
    EXPECT_EQ(c.text("formula2"), formula);
    EXPECT_EQ(c.text("params2"), params);
    EXPECT_EQ(c.choice("loss"), "huber");
    EXPECT_EQ(field("formula2")->text(), formula);
    ASSERT_EQ(tableColumn(0), (QStringList{"chinchilla", "formula 2"}));
    EXPECT_EQ(tableColumn(1)[1], formula);
    EXPECT_EQ(lawTable()->item(1, 4)->text(), objective) << "the same fit";
}
