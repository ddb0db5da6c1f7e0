// Tables for papers: every view with a table exports what it shows (its filters, settings and
// fits) as LaTeX booktabs, CSV and JSON records; the numbers are the view's own, written as the
// paper writes them in LaTeX and in full in CSV; fit parameters carry bootstrap intervals that
// bracket the estimate; bad requests name what is wrong and write nothing.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QRegularExpression>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>

#include "app/figures/views/IsoFlopFigure.h"
#include "app/gui/FigureView.h"
#include "app/gui/FigureExport.h"
#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/figures/views/LossSurfaceFigure.h"
#include "app/gui/RunPoints.h"
#include "app/gui/MainWindow.h"
#include "app/gui/RunsView.h"
#include "app/gui/ViewPanel.h"
#include "core/data/CsvReader.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using scalex::test::fileBytes;
using namespace scalex::gui;
using scalex::data::ExportCell;
using scalex::data::ExportTable;

namespace {

class Tables : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        scalex::test::ensureGuiApplication("scalex_tables_test");
        QString error;
        window_ = openHeadless(QString(), false, &error).release();
        ASSERT_NE(window_, nullptr) << error.toStdString();
    }
    static void TearDownTestSuite() {
        delete window_;
        window_ = nullptr;
    }
    static ViewPanel* show(const QString& id) {
        EXPECT_TRUE(window_->showView(id));
        ViewPanel* panel = window_->currentPanel();
        panel->computeNow();
        return panel;
    }
    static const ViewTable* find(const std::vector<ViewTable>& tables, const QString& id) {
        for (const ViewTable& t : tables)
            if (t.id == id) return &t;
        ADD_FAILURE() << "no table " << id.toStdString();
        return nullptr;
    }
    static int column(const ExportTable& t, const std::string& key) {
        for (std::size_t i = 0; i < t.columns.size(); ++i)
            if (t.columns[i].key == key) return static_cast<int>(i);
        ADD_FAILURE() << "no column " << key;
        return 0;
    }
    static double number(const std::vector<ExportCell>& row, int column) {
        const auto* d = std::get_if<double>(&row[static_cast<std::size_t>(column)]);
        return d ? *d : std::nan("");
    }
    static std::string text(const std::vector<ExportCell>& row, int column) {
        const auto* s = std::get_if<std::string>(&row[static_cast<std::size_t>(column)]);
        return s ? *s : std::string();
    }
    static MainWindow* window_;
};
MainWindow* Tables::window_ = nullptr;

}  // namespace

// The list `scalex render --list-tables` prints is the views' own.
TEST_F(Tables, EveryViewListsTheTablesItExports) {
    for (const auto& [view, ids] : viewTables()) {
        SCOPED_TRACE(view.toStdString());
        QStringList got;
        for (const ViewTable& t : show(view)->tables()) {
            got << t.id;
            EXPECT_FALSE(t.title.isEmpty());
            EXPECT_FALSE(t.table.columns.empty());
            for (const auto& row : t.table.rows) EXPECT_EQ(row.size(), t.table.columns.size());
        }
        EXPECT_EQ(got, ids);
    }
    for (const QString view : {"breakdown", "roofline"}) EXPECT_TRUE(show(view)->tables().empty()) << view.toStdString();
}

// The runs table holds the rows the table view shows after its filters, in its order.
TEST_F(Tables, RunsTableIsWhatTheFilteredTableShows) {
    auto* runs = qobject_cast<RunsView*>(show("runs"));
    ASSERT_NE(runs, nullptr);
    auto* family = runs->findChild<QComboBox*>("family");
    ASSERT_NE(family, nullptr);
    const int xlstm = family->findText("xLSTM", Qt::MatchContains);
    ASSERT_GE(xlstm, 0);
    family->setCurrentIndex(xlstm);
    const std::vector<ViewTable> tables = runs->tables();
    const int shown = runs->table()->model()->rowCount();
    family->setCurrentIndex(0);
    const ExportTable& t = tables.front().table;
    ASSERT_GT(shown, 10);
    EXPECT_LT(shown, runs->model()->rowCount()) << "the filter leaves the Transformer runs out";
    ASSERT_EQ(static_cast<int>(t.rows.size()), shown);
    const int model = column(t, "series"), params = column(t, "num_params"), flops = column(t, "num_flops");
    for (const auto& row : t.rows) {
        EXPECT_EQ(text(row, model), "xLSTM");
        EXPECT_GT(number(row, params), 1e7);
        EXPECT_GT(number(row, flops), 1e17);
    }
    const QString latex = QString::fromUtf8(scalex::data::toLatex(t));
    EXPECT_TRUE(latex.contains(QStringLiteral("\\toprule")) && latex.contains(QStringLiteral("\\bottomrule")));
    EXPECT_TRUE(latex.contains(QRegularExpression(QStringLiteral(" & [0-9.]+[MB] & [0-9.]+[MB] & [0-9]+\\.[0-9] & [0-9.]+e[0-9]+ & "))))
        << "N and D as 406M / 22.8B, C as 1.78e20";
}

// IsoFLOP power laws: the exponents and coefficients the view fitted, with bootstrap intervals
// that contain them; one row per fitted profile with its N*, D*.
TEST_F(Tables, IsoFlopLawsCarryTheViewsFitAndIntervalsThatBracketIt) {
    auto* iso = qobject_cast<FigureView*>(show("isoflop"));
    ASSERT_NE(iso, nullptr);
    const std::vector<ViewTable> tables = iso->tables();
    const ViewTable* laws = find(tables, "laws");
    const ViewTable* optima = find(tables, "optima");
    ASSERT_TRUE(laws && optima);
    const ExportTable& t = laws->table;
    ASSERT_EQ(t.rows.size(), 4u) << "N*(H) and D*(H) of both families";
    const int law = column(t, "law"), c = column(t, "coefficient"), e = column(t, "exponent");
    for (const auto& row : t.rows) {
        const bool xlstm = text(row, column(t, "model")) == "xLSTM";
        const bool d = text(row, law) == "D*(H)";
        const auto& fitted = d ? iso->figureAs<scalex::figures::IsoFlopFigure>()->result(xlstm).dOptLaw : iso->figureAs<scalex::figures::IsoFlopFigure>()->result(xlstm).nOptLaw;
        ASSERT_TRUE(fitted);
        EXPECT_DOUBLE_EQ(number(row, e), fitted->exponent);
        EXPECT_DOUBLE_EQ(number(row, c), fitted->coefficient);
        EXPECT_LE(number(row, column(t, "exponent_lower")), fitted->exponent);
        EXPECT_GE(number(row, column(t, "exponent_upper")), fitted->exponent);
        EXPECT_LT(number(row, column(t, "exponent_upper")) - number(row, column(t, "exponent_lower")), 0.2);
        EXPECT_LE(number(row, column(t, "coefficient_lower")), fitted->coefficient);
        EXPECT_GE(number(row, column(t, "coefficient_upper")), fitted->coefficient);
    }
    std::size_t profiles = 0;
    for (bool x : {false, true})
        for (const auto& p : iso->figureAs<scalex::figures::IsoFlopFigure>()->result(x).profiles) profiles += p.fitted;
    EXPECT_EQ(optima->table.rows.size(), profiles);
    const QString csv = QString::fromUtf8(scalex::data::toCsv(optima->table));
    EXPECT_TRUE(csv.startsWith(QStringLiteral("model,budget,flops_mean,runs,n_opt,d_opt,loss_at_n_opt,in_power_law\n"))) << csv.toStdString();
}

// The laws at every context length, from the study's runs, are the study's own per-context fits
// (reference/isoflop_powerlaw_fits.csv, budgets 5e18 to 5e19).
TEST_F(Tables, IsoFlopContextLawsMatchTheStudysPerContextFits) {
    if (scalex::test::sharedDir().isEmpty()) GTEST_SKIP() << "the study's data is not available";
    const struct {
        const char* file;
        double context;
        const char* model;
        double nCoef, nExp, dCoef, dExp;
    } cases[] = {
        {"data/xlstm/runs_isoflop_llama_ctx2048.csv", 2048, "Transformer", 0.006898758246207856, 0.5535488536425737, 74.02933033268502,
         0.4226060529750052},
        {"data/xlstm/runs_isoflop_mlstm_ctx16384.csv", 16384, "xLSTM", 0.004999190739638121, 0.566039838263341, 336.097624465409,
         0.385229899000008},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.file);
        QString error;
        auto window = openHeadless(scalex::test::sharedPath(c.file), false, &error);
        ASSERT_NE(window, nullptr) << error.toStdString();
        ASSERT_TRUE(window->showView("isoflop"));
        ViewPanel* panel = window->currentPanel();
        auto* range = panel->findChild<QComboBox*>("range");
        ASSERT_NE(range, nullptr);
        range->setCurrentIndex(range->findText("budgets 5e18 … 5e19 (per-context tables)"));
        ASSERT_EQ(range->currentIndex(), 1);
        const std::vector<ViewTable> tables = panel->tables();
        const ViewTable* contexts = find(tables, "contexts");
        ASSERT_NE(contexts, nullptr);
        const ExportTable& t = contexts->table;
        ASSERT_EQ(t.rows.size(), 2u) << "N*(H) and D*(H) of the one family and context in the file";
        for (const auto& row : t.rows) {
            EXPECT_EQ(text(row, column(t, "model")), c.model);
            EXPECT_EQ(number(row, column(t, "context")), c.context);
            EXPECT_EQ(number(row, column(t, "budgets")), 3);
            const bool d = text(row, column(t, "law")) == "D*(H)";
            EXPECT_NEAR(number(row, column(t, "exponent")), d ? c.dExp : c.nExp, 1e-6);
            EXPECT_NEAR(number(row, column(t, "coefficient")) / (d ? c.dCoef : c.nCoef), 1.0, 1e-5);
        }
    }
}

// The loss-surface fit: the parameters of every series, each inside its 95 % interval. The
// series on screen is the view's fit; another series' rows are what the view fits when that
// series is chosen.
TEST_F(Tables, SurfaceFitParametersOfEverySeriesCarryBootstrapIntervals) {
    auto* view = qobject_cast<FigureView*>(show("surface"));
    ASSERT_NE(view, nullptr);
    const auto* surface = view->figureAs<scalex::figures::LossSurfaceFigure>();
    ASSERT_NE(surface, nullptr);
    const auto group = [&] { return surface->group(figureInput(window_->session())); };
    view->applyControls({{"grid", "quick"}});  // the quick grid: the same for the table's fits and the view's
    view->computeNow();                         // fits again with it
    const std::vector<ViewTable> tables = view->tables();
    ASSERT_TRUE(surface->result());
    const ExportTable& t = tables.front().table;
    ASSERT_EQ(t.rows.size(), 12u) << "six parameters of each series";
    auto rowsOf = [&](const std::string& model) {
        std::vector<std::vector<ExportCell>> rows;
        for (const auto& row : t.rows)
            if (text(row, 0) == model) rows.push_back(row);
        return rows;
    };
    ASSERT_TRUE(group());
    const std::string shownModel = group()->label();
    EXPECT_EQ(shownModel, "Transformer, T = 8192");
    const auto shown = rowsOf(shownModel);
    const std::string otherModel = "xLSTM, T = 8192";
    const auto other = rowsOf(otherModel);
    ASSERT_EQ(shown.size(), 6u);
    ASSERT_EQ(other.size(), 6u);
    const auto best = surface->result()->best.asArray();
    for (std::size_t i = 0; i < 6; ++i) {
        SCOPED_TRACE(text(t.rows[i], 1));
        const double estimate = number(shown[i], column(t, "estimate"));
        EXPECT_DOUBLE_EQ(estimate, best[i]);
        EXPECT_EQ(number(shown[i], column(t, "runs")), surface->result()->nPoints);
        for (const auto* row : {&shown[i], &other[i]}) {
            EXPECT_LE(number(*row, column(t, "lower")), number(*row, column(t, "estimate")));
            EXPECT_GE(number(*row, column(t, "upper")), number(*row, column(t, "estimate")));
        }
    }
    // The other series, chosen in the view and fitted there, gives the table's numbers.
    auto* series = view->findChild<QComboBox*>("series");
    ASSERT_NE(series, nullptr);
    series->setCurrentIndex(series->findText("xLSTM"));
    ASSERT_TRUE(group());
    EXPECT_EQ(group()->label(), otherModel);
    EXPECT_FALSE(surface->result()) << "another series drops the fit";
    view->computeNow();
    ASSERT_TRUE(surface->result());
    const auto otherBest = surface->result()->best.asArray();
    for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(number(other[i], column(t, "estimate")), otherBest[i], 1e-9) << text(other[i], 1);
    EXPECT_EQ(number(other[0], column(t, "runs")), surface->result()->nPoints);

    const QString latex = QString::fromUtf8(scalex::data::toLatex(t));
    EXPECT_TRUE(latex.contains(QStringLiteral("\\label{tab:lnd_fit_params}")));
    EXPECT_TRUE(latex.contains(QStringLiteral("$\\gamma$ fitted"))) << "captions are LaTeX: " << latex.toStdString();
    EXPECT_TRUE(latex.contains(QStringLiteral(" Transformer, T = 8192 and "))) << "the caption counts each series' runs";
}

// The appendix-style table of the compute-optimal view holds what its table widget shows, in
// the paper's notation in LaTeX and in full in CSV and JSON.
TEST_F(Tables, OptimalSizesMatchTheCalculatorsTableInEveryFormat) {
    auto* optimal = qobject_cast<FigureView*>(show("optimal"));
    ASSERT_NE(optimal, nullptr);
    ASSERT_TRUE(optimal->applyControls({{"mode", "budget"}, {"value", "1e22"}, {"context", "8192"}}).isEmpty());
    const std::vector<ViewTable> tables = optimal->tables();
    const ExportTable& sizes = find(tables, "sizes")->table;
    const QTableWidget* shown = optimal->findChild<QTableWidget*>("sizes");
    ASSERT_NE(shown, nullptr);
    ASSERT_EQ(static_cast<int>(sizes.rows.size()), shown->rowCount());
    ASSERT_EQ(static_cast<int>(sizes.columns.size()), shown->columnCount());
    const QString latex = QString::fromUtf8(scalex::data::toLatex(sizes));
    for (int r = 0; r < shown->rowCount(); ++r) {
        QStringList paper;
        for (int c = 0; c < shown->columnCount(); ++c) {
            SCOPED_TRACE(testing::Message() << "row " << r << " column " << c);
            const double v = number(sizes.rows[static_cast<std::size_t>(r)], c);
            const QString widget = shown->item(r, c)->text();
            if (c == 1 || c == 4) EXPECT_NEAR(widget.toDouble() / v, 1.0, 5e-3);          // FLOPs
            else if (c == 3 || c == 6) EXPECT_EQ(widget, QString::number(v, 'f', 1));  // tokens/param
            else EXPECT_EQ(widget, formatCount(v));                                     // N, D
            paper << QString::fromStdString(scalex::data::formatCell(v, sizes.columns[static_cast<std::size_t>(c)].style));
        }
        EXPECT_TRUE(latex.contains(paper.join(QStringLiteral(" & ")) + QStringLiteral(" \\"))) << latex.toStdString();
    }
    QTemporaryDir dir;
    ASSERT_TRUE(window_->exportTable(QStringLiteral("sizes"), dir.filePath("sizes.json"), false)) << window_->lastError().toStdString();
    const QJsonArray records = QJsonDocument::fromJson(fileBytes(dir.filePath("sizes.json"))).array();
    ASSERT_EQ(records.size(), shown->rowCount());
    const QJsonObject first = records.first().toObject();
    EXPECT_DOUBLE_EQ(first.value("params").toDouble(), 1e8);
    EXPECT_NEAR(first.value("xlstm_tokens").toDouble() / first.value("params").toDouble() /
                    first.value("xlstm_tokens_per_param").toDouble(),
                1.0, 1e-6);
    ASSERT_TRUE(window_->exportTable(QStringLiteral("sizes"), dir.filePath("sizes.csv"), false));
    const QByteArray csv = fileBytes(dir.filePath("sizes.csv"));
    auto parsed = scalex::data::readDelimited(std::string_view(csv.constData(), static_cast<std::size_t>(csv.size())), "sizes.csv", ',');
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->rows.size(), static_cast<std::size_t>(shown->rowCount()));
    EXPECT_EQ(std::stod(parsed->rows[1].cells[0]), 4e8) << "CSV keeps the full values";
}

// Bad requests name the problem (the view's tables, the suffix) and write nothing.
TEST_F(Tables, BadRequestsNameTheProblemAndWriteNothing) {
    QTemporaryDir dir;
    ViewPanel* iso = show("isoflop");
    QString error;
    EXPECT_FALSE(exportViewTable(iso, QStringLiteral("nope"), dir.filePath("a.tex"), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("laws, optima"))) << error.toStdString();
    EXPECT_FALSE(exportViewTable(iso, QString(), dir.filePath("a.xlsx"), &error));
    EXPECT_TRUE(error.contains(QStringLiteral(".tex"))) << error.toStdString();
    EXPECT_FALSE(exportViewTable(show("roofline"), QString(), dir.filePath("a.csv"), &error));
    EXPECT_TRUE(error.contains(QStringLiteral("no table"))) << error.toStdString();
    show("isoflop");
    EXPECT_FALSE(window_->exportTable(QString(), dir.filePath("missing/dir/a.csv"), false));
    EXPECT_TRUE(window_->lastError().contains(QStringLiteral("a.csv"))) << window_->lastError().toStdString();
    EXPECT_TRUE(QDir(dir.path()).entryList(QDir::Files).isEmpty());
}
