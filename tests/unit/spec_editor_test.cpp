// File > Edit model specs (app/gui/SpecEditorDialog): the spec's JSON checked as it is typed, the
// error naming its field; Save keeps it in the project, the runs that name it are counted anew,
// and the views that draw the project's specs (roofline, FLOP breakdown) draw it at once.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QtCharts/QAbstractSeries>
#include <QtCharts/QChart>

#include "app/figures/views/Figures.h"
#include "app/gui/FigureView.h"
#include "app/gui/Session.h"
#include "app/gui/SpecEditorDialog.h"
#include "core/accounting/ModelConfig.h"
#include "core/accounting/SpecAccounting.h"
#include "core/data/RunTableIo.h"

using namespace scalex;

namespace {

QApplication& app() {
    static int argc = 1;
    static char name[] = "spec_editor_test";
    static char* argv[] = {name, nullptr};
    static QApplication a(argc, argv);
    return a;
}

bool chartHas(const std::vector<QChart*>& charts, const QString& name) {
    for (QChart* c : charts)
        for (QAbstractSeries* s : c->series())
            if (s->name() == name) return true;
    return false;
}

// A project of one run that names the spec "gqa" (not there yet).
data::Project projectNamingGqa() {
    auto t = data::parseRunTable("run,spec,context_length,num_tokens_training,val_loss\na,gqa,2048,1e9,3.5\n", "runs.csv");
    EXPECT_TRUE(t) << (t ? std::string() : t.error().toString());
    data::Project p;
    p.title = "gqa";
    p.tables.push_back({"runs", t ? *t : data::RunTable{}});
    return p;
}

}  // namespace

TEST(SpecEditor, TheTextIsCheckedAsItIsTypedAndSaveKeepsTheSpec) {
    app();
    gui::Session session;
    session.setProject(projectNamingGqa(), QString());
    ASSERT_EQ(session.study().specErrors().size(), 1u);
    gui::FigureView roofline(*figures::figureEntry("roofline"), &session);
    gui::FigureView breakdown(*figures::figureEntry("breakdown"), &session);

    gui::SpecEditorDialog dialog(&session);
    // No spec yet: the dialog starts a new one, the paper's Transformer at d_model 1024.
    EXPECT_EQ(dialog.specs()->count(), 1);
    EXPECT_EQ(dialog.name()->text(), "new-model");
    EXPECT_TRUE(dialog.saveButton()->isEnabled());
    EXPECT_TRUE(dialog.status().startsWith("valid: ")) << dialog.status().toStdString();

    // An unknown mixer names its field; nothing can be saved.
    QString text = dialog.text()->toPlainText();
    dialog.text()->setPlainText(QString(text).replace("\"mixer\": \"attention\"", "\"mixer\": \"lstm\""));
    EXPECT_TRUE(dialog.status().startsWith("layers[0].mixer: ")) << dialog.status().toStdString();
    EXPECT_FALSE(dialog.saveButton()->isEnabled());
    EXPECT_FALSE(dialog.save());
    EXPECT_TRUE(session.specs().empty());

    // Grouped-query attention: 8 query heads on 2 key/value heads.
    dialog.text()->setPlainText(QString(text).replace("\"n_kv_heads\": 8", "\"n_kv_heads\": 2"));
    dialog.name()->setText("gqa");
    ASSERT_TRUE(dialog.saveButton()->isEnabled()) << dialog.status().toStdString();
    int specs = 0, runs = 0;
    QObject::connect(&session, &gui::Session::specsChanged, [&] { ++specs; });
    QObject::connect(&session, &gui::Session::runsChanged, [&] { ++runs; });
    EXPECT_TRUE(dialog.save());
    EXPECT_EQ(specs, 1);
    EXPECT_EQ(runs, 1);  // the run naming it is counted now
    ASSERT_EQ(session.specs().size(), 1u);
    const accounting::ModelSpec& gqa = session.specs()[0].spec;
    EXPECT_EQ(gqa.attention.nKvHeads, 2);
    EXPECT_TRUE(session.study().specErrors().empty());
    EXPECT_EQ(session.runs().runs[0].params, static_cast<double>(accounting::paramCounts(gqa).activeTotal()));
    EXPECT_EQ(dialog.specs()->currentText(), "gqa");
    // The views drew it without being asked.
    EXPECT_TRUE(chartHas(roofline.charts(), "gqa"));
    EXPECT_TRUE(chartHas(roofline.charts(), "gqa, mix per layer"));

    // Saving the same text again changes nothing.
    EXPECT_TRUE(dialog.save());
    EXPECT_EQ(specs, 1);
}
