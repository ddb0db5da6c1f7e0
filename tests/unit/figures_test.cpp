// Figures for papers: every view renders to PDF, SVG and PNG headless as a valid file of the
// requested size whose text (axis titles, legend entries) is really there; two renders of one
// recipe are byte-identical; a recipe kept in a project draws the same figure after the project
// is saved, reopened and the window changed; the export dialog and the recipes dialog work.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QFile>
#include <QFontComboBox>
#include <QJsonObject>
#include <QLineEdit>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>

#ifdef SCALEX_HAVE_QT_PDF
#include <QPdfDocument>
#include <QPdfSelection>
#endif

#include "app/figures/Render.h"
#include "app/figures/views/ContextFigure.h"
#include "app/gui/ExportDialog.h"
#include "app/gui/FigureExport.h"
#include "app/gui/MainWindow.h"
#include "app/gui/PlotView.h"
#include "app/gui/Recipes.h"
#include "app/gui/RecipesDialog.h"
#include "app/gui/Session.h"
#include "app/gui/ViewPanel.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using scalex::test::fileBytes;
using namespace scalex::gui;
using scalex::data::FigureRecipe;

namespace {

// The words a reader must find in the figure: the titles of the charts and of their axes, and
// the visible legend entries.
QStringList expectedTexts(const ViewPanel& panel) {
    QStringList out;
    for (QChart* chart : panel.charts()) {
        if (!chart->title().isEmpty()) out << chart->title();
        for (QAbstractAxis* a : chart->axes())
            if (a->isTitleVisible() && !a->titleText().isEmpty()) out << a->titleText();
        if (chart->legend()->isVisible())
            for (QLegendMarker* m : chart->legend()->markers())
                if (m->isVisible() && !m->label().isEmpty()) out << m->label();
    }
    out.removeDuplicates();
    return out;
}

// Every <text> of an SVG, its parts joined; fails the test on malformed XML.
QStringList svgTexts(const QByteArray& svg) {
    QStringList texts;
    QXmlStreamReader xml(svg);
    bool sawSvg = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("svg")) sawSvg = true;
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).simplified();
    }
    EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString() << " at line " << xml.lineNumber();
    EXPECT_TRUE(sawSvg);
    return texts;
}

// A PDF's structure as a reader walks it: header, trailer, the cross-reference table that
// startxref points to, and every object where the table says it starts.
void expectValidPdfStructure(const QByteArray& pdf, double widthInches, double heightInches) {
    ASSERT_TRUE(pdf.startsWith("%PDF-1.")) << pdf.left(16).toStdString();
    ASSERT_TRUE(pdf.trimmed().endsWith("%%EOF"));
    const qsizetype startxref = pdf.lastIndexOf("startxref");
    ASSERT_GT(startxref, 0);
    const qsizetype xref = pdf.mid(startxref + 9).trimmed().split('\n').first().trimmed().toLongLong();
    ASSERT_EQ(pdf.mid(xref, 4), QByteArray("xref"));
    const QList<QByteArray> lines = pdf.mid(xref).split('\n');
    ASSERT_GE(lines.size(), 3);
    const QList<QByteArray> section = lines[1].trimmed().split(' ');
    ASSERT_EQ(section.size(), 2);
    const int first = section[0].toInt(), count = section[1].toInt();
    ASSERT_GT(count, 5);
    int inUse = 0;
    for (int i = 0; i < count; ++i) {
        const QByteArray entry = lines[2 + i].trimmed();
        if (!entry.endsWith('n')) continue;
        const qsizetype at = entry.left(10).toLongLong();
        const QByteArray head = QByteArray::number(first + i) + " 0 obj";
        EXPECT_EQ(pdf.mid(at, head.size()), head) << "object " << first + i << " is not where the table says";
        ++inUse;
    }
    EXPECT_EQ(inUse, count - 1);  // object 0 is the free list head
    // One page of the requested size (points), and the fonts are embedded.
    static const QRegularExpression box(QStringLiteral("/MediaBox \\[\\s*0 0 ([0-9.]+) ([0-9.]+)\\s*\\]"));
    const auto m = box.match(QString::fromLatin1(pdf));
    ASSERT_TRUE(m.hasMatch());
    EXPECT_NEAR(m.captured(1).toDouble(), widthInches * 72, 1.0);
    EXPECT_NEAR(m.captured(2).toDouble(), heightInches * 72, 1.0);
    EXPECT_TRUE(pdf.contains("/FontFile2")) << "fonts are embedded";
    EXPECT_FALSE(pdf.contains("/CreationDate (D:")) << "no time of writing (the same figure gives the same bytes)";
}

class Figures : public ::testing::Test {
protected:
    void SetUp() override { scalex::test::ensureGuiApplication("scalex_figures_test"); }
};

class EveryView : public Figures, public ::testing::WithParamInterface<QString> {};

}  // namespace

// Every view, each format: a valid file of the requested size, with its text, and the same
// bytes when the same recipe is drawn again in a fresh window.
TEST_P(EveryView, RendersToEachFormatValidAtSizeWithItsTextAndRepeatably) {
    const QString view = GetParam();
    QString error;
    auto window = openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    // The generated example has one row per run; the shipped Gemstones study has checkpoints; the
    // schedules view fits curves that log their learning rate (a tracker export of lr-schedules/).
    if (view == QLatin1String("curves")) ASSERT_TRUE(window->openGemstonesExample(false));
    if (view == QLatin1String("schedules")) {
        SCALEX_REQUIRE_SHARED();
        ASSERT_TRUE(window->openPath(scalex::test::sharedPath("data/public/lr-schedules/stable-124m_slimpajama_llama_norm_nlayers12_nhead12_"
                                                             "lr0.001_sched_wsd_warmup300_decay_linear_0.0_iter50000_bs50x2_ws2_seed0_"
                                                             "data_seed1337.json"),
                                     false))
            << window->lastError().toStdString();
    }
    ASSERT_TRUE(window->showView(view));
    ViewPanel* panel = window->currentPanel();
    panel->computeNow();
    QCoreApplication::processEvents();
    ASSERT_FALSE(panel->charts().empty());
    const QStringList texts = expectedTexts(*panel);
    ASSERT_GE(texts.size(), 3) << "a figure has at least a title and two axis titles";

    QTemporaryDir dir;
    FigureStyle style;  // a double-column figure of a given height, as --size 6.75x3.2in
    style.widthInches = 6.75;
    style.heightInches = 3.2;
    style.dpi = 120;
    const double heightInches = style.heightInches;
    const scalex::analysis::Study& study = window->session()->study();
    for (const char* format : {"svg", "pdf", "png"}) {
        SCOPED_TRACE(format);
        const FigureRecipe recipe = captureRecipe(*window->session(), *panel, style, QString::fromLatin1(format));
        const QString a = dir.filePath(view + "_a." + format), b = dir.filePath(view + "_b." + format);
        QStringList warnings;
        ASSERT_TRUE(scalex::figures::renderRecipe(study, recipe, a, &warnings, &error)) << error.toStdString();
        ASSERT_TRUE(scalex::figures::renderRecipe(study, recipe, b, &warnings, &error)) << error.toStdString();
        EXPECT_TRUE(warnings.isEmpty()) << warnings.join("; ").toStdString();
        const QByteArray bytes = fileBytes(a);
        ASSERT_FALSE(bytes.isEmpty());
        EXPECT_EQ(bytes, fileBytes(b)) << "two renders of one recipe differ";

        if (QLatin1String(format) == QLatin1String("svg")) {
            const QStringList found = svgTexts(bytes);
            ASSERT_FALSE(found.isEmpty()) << "the SVG keeps text as text";
            const QString all = found.join(QLatin1Char('\n'));
            for (const QString& t : texts) EXPECT_TRUE(all.contains(t.simplified())) << "missing in the SVG: " << t.toStdString();
            EXPECT_NE(bytes.indexOf("viewBox=\"0 0 648 "), -1) << "6.75 in at 96 units per inch";
        } else if (QLatin1String(format) == QLatin1String("pdf")) {
            expectValidPdfStructure(bytes, style.widthInches, heightInches);
#ifdef SCALEX_HAVE_QT_PDF
            QPdfDocument doc;
            ASSERT_EQ(doc.load(a), QPdfDocument::Error::None);
            ASSERT_EQ(doc.pageCount(), 1);
            EXPECT_NEAR(doc.pagePointSize(0).width(), style.widthInches * 72, 1.0);
            // PDF text extraction splits words and combining accents its own way: compare the
            // letters and digits alone.
            auto letters = [](const QString& t) {
                QString out;
                for (QChar c : t.normalized(QString::NormalizationForm_KD))
                    if (c.isLetterOrNumber()) out += c;
                return out;
            };
            const QString pageText = letters(doc.getAllText(0).text());
            for (const QString& t : texts) EXPECT_TRUE(pageText.contains(letters(t))) << "missing in the PDF: " << t.toStdString();
            EXPECT_GT(scalex::test::nonBackgroundFraction(doc.render(0, QSize(648, qRound(heightInches * 96)))), 0.02);
#endif
        } else {
            QImage image;
            ASSERT_TRUE(image.loadFromData(bytes, "PNG"));
            EXPECT_EQ(image.width(), qRound(style.widthInches * style.dpi));
            EXPECT_EQ(image.height(), qRound(heightInches * style.dpi));
            EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, style.dpi, 0.5);
            EXPECT_GT(scalex::test::nonBackgroundFraction(image), 0.02) << "not blank";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Figures, EveryView, ::testing::ValuesIn(renderableViews()),
                         [](const ::testing::TestParamInfo<QString>& info) { return info.param.toStdString(); });

// Without a given height, the figure is as tall as its charts need at that width plus its legend:
// every legend entry, title and axis title is written out in full, even in a single column.
TEST_F(Figures, AutomaticHeightMakesRoomForTheWholeLegendAndEveryTitleInASingleColumn) {
    QString error;
    auto window = openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    for (const QString& view : renderableViews()) {
        SCOPED_TRACE(view.toStdString());
        ASSERT_TRUE(window->showView(view));
        ViewPanel* panel = window->currentPanel();
        panel->computeNow();
        if (panel->primaryChart()->series().isEmpty()) continue;  // loss curves: the example has no checkpoints
        const QStringList texts = expectedTexts(*panel);
        const bool twoCharts = panel->charts().size() > 1;
        QTemporaryDir dir;
        FigureStyle single;
        single.widthInches = 3.25;
        single.dpi = 200;
        ASSERT_TRUE(exportPanel(panel, dir.filePath("f.png"), single, &error)) << error.toStdString();
        ASSERT_TRUE(exportPanel(panel, dir.filePath("f.svg"), single, &error)) << error.toStdString();
        QImage image(dir.filePath("f.png"));
        EXPECT_EQ(image.width(), 650);
        EXPECT_GT(image.height(), qRound(3.25 * (twoCharts ? 0.55 : 0.75) * 200)) << "the legend adds to the charts' height";
        EXPECT_LT(image.height(), 3.25 * 200 * 1.5);
        const QStringList elements = svgTexts(fileBytes(dir.filePath("f.svg")));
        const QString svg = elements.join('\n');
        for (const QString& t : texts) EXPECT_TRUE(svg.contains(t.simplified())) << "missing in the SVG: " << t.toStdString();
        EXPECT_FALSE(svg.contains(QStringLiteral("..."))) << "nothing is elided";
        EXPECT_FALSE(svg.contains(QStringLiteral("…"))) << "nothing is elided";
        // Every category is labelled, the first and last too, in each chart.
        for (QChart* chart : panel->charts())
            for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
                if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis))
                    for (const QString& label : categories->categories())
                        EXPECT_EQ(elements.count(label), static_cast<qsizetype>(panel->charts().size()))
                            << "the category " << label.toStdString() << " is labelled in every chart";
    }
}

// Bar charts whose category labels would not fit upright side by side in a single column stand
// one above the other, each as wide as the figure; in a double column they stay side by side.
TEST_F(Figures, CrowdedCategoryChartsStackInASingleColumn) {
    QString error;
    auto window = openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    ASSERT_TRUE(window->showView("breakdown"));
    ViewPanel* panel = window->currentPanel();
    ASSERT_EQ(panel->charts().size(), 2u);
    QTemporaryDir dir;
    FigureStyle style;
    style.dpi = 100;
    style.widthInches = 3.25;
    ASSERT_TRUE(exportPanel(panel, dir.filePath("single.png"), style, &error)) << error.toStdString();
    style.widthInches = 6.75;
    ASSERT_TRUE(exportPanel(panel, dir.filePath("double.png"), style, &error)) << error.toStdString();
    const QImage single(dir.filePath("single.png")), twice(dir.filePath("double.png"));
    EXPECT_GT(single.height(), single.width()) << "two charts one above the other";
    EXPECT_LT(twice.height(), twice.width() / 2) << "two charts side by side";
}

// What the figure shows is what the view showed: the recipe keeps the view's controls, the
// analysis settings, excluded runs and the selection, and draws the same bytes after the project
// is saved, reopened, and the window moved on.
// A render can set the view's controls first (the paper's Fig. 6 is the inference view in its
// "TTFT and step time" layout); a control the view lacks, or a value it does not offer, is an
// error naming it, and no file is written.
TEST_F(Figures, RenderSetsTheViewsControlsOrSaysWhichOneItCannot) {
    QString opened;
    auto project = scalex::data::loadExampleProject(&opened);
    ASSERT_TRUE(project) << opened.toStdString();
    scalex::analysis::Study example;
    example.setProject(std::move(*project));
    QTemporaryDir dir;
    scalex::figures::RenderRequest request;
    request.view = QStringLiteral("inference");
    request.out = dir.filePath("fig6.svg");
    request.controls = QJsonObject{{"stage", "TTFT and step time (Fig. 6)"}};
    QString error;
    ASSERT_TRUE(scalex::figures::renderFigure(example, request, &error)) << error.toStdString();
    const QStringList texts = svgTexts(fileBytes(request.out));
    for (const char* want : {"Time to first token, B = 1", "Step time, B = 1", "Transformer 6.86B", "xLSTM 407M"})
        EXPECT_TRUE(texts.contains(QString::fromUtf8(want))) << want << " in " << texts.join(" | ").toStdString();

    request.out = dir.filePath("bad.svg");
    request.controls = QJsonObject{{"stage", "Throughput"}};
    EXPECT_FALSE(scalex::figures::renderFigure(example, request, &error));
    EXPECT_TRUE(error.contains("stage") && error.contains("Throughput")) << error.toStdString();
    request.controls = QJsonObject{{"colour", "red"}};
    EXPECT_FALSE(scalex::figures::renderFigure(example, request, &error));
    EXPECT_TRUE(error.contains("colour")) << error.toStdString();
    EXPECT_FALSE(QFile::exists(request.out));
}

TEST_F(Figures, RecipeKeptInTheProjectRedrawsTheSameFigureAfterReopening) {
    QString error;
    auto window = openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    Session* session = window->session();
    ASSERT_TRUE(window->showView("isoflop"));
    ViewPanel* panel = window->currentPanel();
    panel->computeNow();  // the series choice lists the series the fits found runs for
    auto* family = panel->findChild<QComboBox*>("family");
    ASSERT_TRUE(family);
    ASSERT_GT(family->count(), 1);
    family->setCurrentIndex(family->count() - 1);
    const QString chosenFamily = family->currentText();
    session->setIncluded(3, false);
    session->setSelection({5, 7});
    AnalysisSettings settings = session->settings();
    settings.contextLength = 16384;
    session->setSettings(settings);
    panel->computeNow();

    QTemporaryDir dir;
    const QString first = dir.filePath("fig4.svg");
    FigureStyle style;
    style.widthInches = 3.25;
    style.paper = true;
    style.fontFamily = QStringLiteral("DejaVu Serif");
    ASSERT_TRUE(window->exportView(first, style, QStringLiteral("fig4"), false)) << window->lastError().toStdString();
    ASSERT_EQ(session->recipes().count("fig4"), 1u);
    const FigureRecipe& kept = session->recipes().at("fig4");
    EXPECT_EQ(kept.view, "isoflop");
    EXPECT_EQ(kept.format, "svg");
    EXPECT_EQ(kept.font, "DejaVu Serif");
    EXPECT_EQ(kept.controls.value("family").toString(), chosenFamily);
    EXPECT_EQ(kept.analysis.value("context_length").toDouble(), 16384);  // AnalysisSettings' JSON form
    EXPECT_EQ(kept.selection.size(), 2u);
    ASSERT_EQ(kept.include.size(), 1u);
    EXPECT_FALSE(kept.include.begin()->second);
    EXPECT_TRUE(fileBytes(first).contains("DejaVu Serif")) << "the chosen font is in the figure";

    const QString saved = dir.filePath("paper.scalex");
    ASSERT_TRUE(window->saveProject(saved, false)) << window->lastError().toStdString();

    // A new window on the saved project, moved away from the figure's state.
    auto other = openHeadless(saved, false, &error);
    ASSERT_TRUE(other) << error.toStdString();
    ASSERT_EQ(other->session()->recipes().count("fig4"), 1u);
    EXPECT_EQ(other->session()->recipes().at("fig4"), kept);
    EXPECT_FALSE(other->session()->runs().runs[3].included()) << "the toggle was saved with the runs";
    other->session()->setIncluded(3, true);
    AnalysisSettings moved = other->session()->settings();
    moved.contextLength = 2048;
    other->session()->setSettings(moved);
    other->showView("isoflop");
    other->currentPanel()->findChild<QComboBox*>("family")->setCurrentIndex(0);

    RecipesDialog dialog(other.get());
    ASSERT_EQ(dialog.table()->rowCount(), 1);
    dialog.finishChecks();  // the runs are checked off the UI thread
    EXPECT_EQ(dialog.table()->item(0, 6)->text(), "unchanged");
    const QString again = dir.filePath("fig4-again.svg");
    ASSERT_TRUE(dialog.regenerate("fig4", again)) << dialog.message().toStdString();
    EXPECT_EQ(fileBytes(again), fileBytes(first)) << "the recipe draws the figure it was made from";

    // Headless, as `scalex render --recipe` does.
    QStringList written, warnings;
    auto reopened = scalex::data::loadProject(saved);
    ASSERT_TRUE(reopened);
    scalex::analysis::Study fromFile;
    fromFile.setProject(std::move(*reopened));
    ASSERT_TRUE(scalex::figures::renderRecipes(fromFile, saved, "fig4", dir.filePath("cli.svg"), &written, &warnings, &error))
        << error.toStdString();
    EXPECT_TRUE(warnings.isEmpty()) << warnings.join("; ").toStdString();
    EXPECT_EQ(fileBytes(dir.filePath("cli.svg")), fileBytes(first));

    // Show brings the window back to the recipe's state.
    ASSERT_TRUE(dialog.showRecipe("fig4")) << dialog.message().toStdString();
    EXPECT_EQ(other->currentPanel()->viewId(), "isoflop");
    EXPECT_EQ(other->currentPanel()->findChild<QComboBox*>("family")->currentText(), chosenFamily);
    EXPECT_EQ(other->session()->settings().contextLength, 16384);
    EXPECT_FALSE(other->session()->runs().runs[3].included());
    EXPECT_EQ(other->session()->selection(), (QSet<int>{5, 7}));
}

// Recipes saved when the window handed the surface fitted in the loss-surface view to the other
// views carry it ("fitted_surfaces"): they still load, and draw what the runs give, whatever it says.
TEST_F(Figures, ARecipeWithTheSurfacesTheWindowOnceKeptLoadsAndIgnoresThem) {
    QString error;
    auto window = openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    Session* session = window->session();
    window->showView("context");
    window->currentPanel()->computeNow();
    FigureRecipe recipe = captureRecipe(*session, *window->currentPanel(), FigureStyle{}, "svg");
    EXPECT_FALSE(recipe.analysis.contains("fitted_surfaces"));
    FigureRecipe old = recipe;
    const QJsonObject flat{{"log_a", 1.0}, {"log_b", 1.0}, {"log_e", 0.5}, {"alpha", 0.1}, {"beta", 0.1}, {"gamma", 1.0}};
    old.analysis.insert("fitted_surfaces", QJsonObject{{"transformer", flat}, {"xlstm", flat}});
    session->setRecipe("now", recipe);
    session->setRecipe("old", old);
    QTemporaryDir dir;
    const QString saved = dir.filePath("recipes.scalex");
    ASSERT_TRUE(window->saveProject(saved, false)) << window->lastError().toStdString();

    auto reopened = scalex::data::loadProject(saved);
    ASSERT_TRUE(reopened);
    scalex::analysis::Study fromFile;
    fromFile.setProject(std::move(*reopened));
    ASSERT_EQ(fromFile.recipes().count("old"), 1u);
    EXPECT_TRUE(fromFile.recipes().at("old").analysis.contains("fitted_surfaces")) << "kept as written";
    QStringList written, warnings;
    for (const char* name : {"now", "old"})
        ASSERT_TRUE(scalex::figures::renderRecipes(fromFile, saved, name, dir.filePath(QStringLiteral("%1.svg").arg(name)), &written,
                                                   &warnings, &error))
            << error.toStdString();
    EXPECT_TRUE(warnings.isEmpty()) << warnings.join("; ").toStdString();
    EXPECT_FALSE(fileBytes(dir.filePath("now.svg")).isEmpty());
    EXPECT_EQ(fileBytes(dir.filePath("old.svg")), fileBytes(dir.filePath("now.svg")));

    // In the window too: shown from the recipe, the context view draws the runs' surfaces.
    const auto* context = dynamic_cast<const scalex::figures::ContextFigure*>(window->currentPanel()->figure());
    ASSERT_NE(context, nullptr);
    const double before = context->optimalParams(false);
    EXPECT_GT(before, 0);
    ASSERT_TRUE(applyRecipe(*window, old, &warnings, &error)) << error.toStdString();
    ASSERT_EQ(window->currentPanel()->figure(), context);
    EXPECT_EQ(context->optimalParams(false), before);
}

TEST_F(Figures, RecipeOnChangedRunsWarnsAndNamesWhatIsGone) {
    QString error;
    auto window = openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    window->showView("pareto");
    FigureRecipe recipe = captureRecipe(*window->session(), *window->currentPanel(), FigureStyle{}, "svg");
    recipe.controls["no_such_control"] = true;
    recipe.selection.push_back("no-such-run");
    recipe.dataDigest = std::string(64, '0');
    QStringList warnings;
    ASSERT_TRUE(applyRecipe(*window, recipe, &warnings, &error)) << error.toStdString();
    const QString all = warnings.join('\n');
    EXPECT_TRUE(all.contains("the runs have changed since the recipe was saved")) << all.toStdString();
    EXPECT_TRUE(all.contains("runs of the recipe not in the project: no-such-run")) << all.toStdString();
    EXPECT_TRUE(all.contains("the view has no control 'no_such_control' (it has panels, context, curves)")) << all.toStdString();

    recipe.view = "runs";
    EXPECT_FALSE(applyRecipe(*window, recipe, &warnings, &error));
    EXPECT_TRUE(error.startsWith("the recipe's view 'runs' is not one of pareto")) << error.toStdString();
    recipe.view = "pareto";
    recipe.analysis["flop_convention"] = "7nd";
    EXPECT_FALSE(applyRecipe(*window, recipe, &warnings, &error));
    EXPECT_EQ(error, "the recipe's analysis settings: recipe, key 'common.flop_convention': expected one of study, "
                     "appendix, chinchilla, 6nd");
    // A recipe saved before the settings had one JSON form names the convention by a key of its own.
    recipe.analysis = QJsonObject{{"convention", "7nd"}};
    EXPECT_FALSE(applyRecipe(*window, recipe, &warnings, &error));
    EXPECT_EQ(error, "the recipe's FLOP convention '7nd' is unknown");
}

TEST_F(Figures, ExportDialogOffersThePaperSizesFontsAndARecipe) {
    ExportDialog dialog("IsoFLOP", "isoflop", {"isoflop"});
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    dialog.sizeBox()->setCurrentIndex(0);
    EXPECT_DOUBLE_EQ(dialog.style().widthInches, 3.25);
    EXPECT_DOUBLE_EQ(dialog.style().heightInches, 0);
    dialog.sizeBox()->setCurrentIndex(2);
    EXPECT_DOUBLE_EQ(dialog.style().widthInches, 13.33);
    EXPECT_DOUBLE_EQ(dialog.style().heightInches, 7.5);
    dialog.fontBox()->setCurrentFont(QFont("DejaVu Serif"));
    EXPECT_EQ(dialog.style().fontFamily, "DejaVu Serif");
    dialog.styleBox()->setCurrentIndex(1);
    EXPECT_FALSE(dialog.style().paper);
    EXPECT_FALSE(dialog.fontBox()->isEnabled()) << "the screen style keeps the view's fonts";

    dialog.pathEdit()->setText("/tmp/figure.png");
    EXPECT_EQ(dialog.format(), "png");
    EXPECT_TRUE(dialog.dpiBox()->isEnabled());
    dialog.pathEdit()->setText("/tmp/figure.eps");
    EXPECT_FALSE(ok->isEnabled()) << "only .pdf, .svg and .png";
    dialog.pathEdit()->setText("/tmp/figure.svg");
    EXPECT_TRUE(ok->isEnabled());
    EXPECT_FALSE(dialog.dpiBox()->isEnabled());

    EXPECT_TRUE(dialog.recipeName().isEmpty()) << "no recipe unless asked for";
    dialog.keepRecipeBox()->setChecked(true);
    EXPECT_EQ(dialog.recipeName(), "isoflop");
    dialog.recipeEdit()->setText("fig 4");
    EXPECT_FALSE(ok->isEnabled()) << "a recipe name becomes a file name";
    dialog.recipeEdit()->setText("fig4");
    EXPECT_TRUE(ok->isEnabled());
}

#ifndef SCALEX_HAVE_QT_PDF
TEST(FiguresSetup, QtPdfIsMissing) {
    GTEST_SKIP() << "qt6-pdf-dev is not installed: PDFs are checked structurally only (packaging/install-deps.sh installs it)";
}
#endif

// Fig. 5 has four panels: in a single column they go two to a row, so that tick labels and
// axis titles stay whole; across two columns they stand in one row.
TEST_F(Figures, FourPanelsWrapIntoTwoRowsInASingleColumn) {
    QString error;
    auto window = openHeadless(QString(), false, &error);
    ASSERT_TRUE(window) << error.toStdString();
    ASSERT_TRUE(window->showView("isoflop"));
    ViewPanel* panel = window->currentPanel();
    EXPECT_TRUE(restoreControls(panel, {{"panels", "Every context length (Fig. 5)"}}).isEmpty());
    panel->computeNow();
    ASSERT_EQ(panel->charts().size(), 4u);
    QTemporaryDir dir;
    for (double width : {3.25, 6.75}) {
        SCOPED_TRACE(width);
        FigureStyle style;
        style.widthInches = width;
        style.dpi = 100;
        ASSERT_TRUE(exportPanel(panel, dir.filePath("f.png"), style, &error)) << error.toStdString();
        ASSERT_TRUE(exportPanel(panel, dir.filePath("f.svg"), style, &error)) << error.toStdString();
        const QImage image(dir.filePath("f.png"));
        if (width < 4) EXPECT_GT(image.height(), image.width()) << "two rows of two panels, and the legend";
        else EXPECT_LT(image.height(), 0.75 * image.width()) << "one row of four panels, and the legend";
        const QString svg = svgTexts(fileBytes(dir.filePath("f.svg"))).join('\n');
        EXPECT_FALSE(svg.contains(QStringLiteral("..."))) << "nothing is elided";
        EXPECT_FALSE(svg.contains(QChar(0x22EE))) << "no axis title shrunk to a vertical ellipsis";
        for (const char* title : {"Parameters N", "Validation loss", "Budget H (FLOPs)"})
            EXPECT_TRUE(svg.contains(QLatin1String(title))) << title;
    }
    restoreControls(panel, {{"panels", "Profiles and law"}});
}
