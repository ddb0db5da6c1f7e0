// The Schedules view's field for a run's schedule description (app/figures/views/ScheduleFigure.h):
// it shows the description the project keeps for the run chosen, checks the text as it is typed
// (the parser's message, naming the key, under the field; nothing kept), and on Enter keeps a
// description that reads in the project's curve set, which a saved project holds and reopens with.
#include <gtest/gtest.h>

#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QTemporaryDir>

#include "app/figures/views/Figures.h"
#include "app/gui/FigureView.h"
#include "app/gui/Session.h"
#include "core/analysis/CurveFits.h"
#include "core/data/Project.h"
#include "tests/support/GuiApp.h"
#include "tests/support/MplTrackerRuns.h"

using namespace scalex;

namespace {

// Types `text` into `edit` as a person does (each edit seen as typed), without pressing Enter.
void type(QLineEdit* edit, const QString& text) {
    edit->setText(text);
    emit edit->textEdited(text);
}

const std::string& kept(const gui::Session& session) { return session.curveSets().at(0).schedules.at("m100-constant"); }

}  // namespace

TEST(ScheduleField, ATypedDescriptionIsCheckedAsTypedAndRoundTripsThroughASavedProject) {
    test::ensureGuiApplication("scalex_schedule_field_test");
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const std::string file = test::writeMplRun(QDir(tmp.path()), "m100-constant", 1e8, 6000, 0);
    gui::Session session;
    ASSERT_TRUE(session.addDataFile(data::DataFileKind::LossCurves, QString::fromStdString(file)).isEmpty());
    const std::string fromConfig = kept(session);  // the tracker config's, kept when the file opened
    EXPECT_EQ(fromConfig.rfind("constant:", 0), 0u) << fromConfig;

    gui::FigureView view(*figures::figureEntry("schedules"), &session);
    view.computeNow();
    auto* edit = view.findChild<QLineEdit*>("described");
    auto* problem = view.findChild<QLabel*>("runProblem");
    ASSERT_NE(edit, nullptr);
    ASSERT_NE(problem, nullptr);
    // The field shows the run's kept description, each number as the shortest text of the same double.
    EXPECT_EQ(edit->text().toStdString(), analysis::normalScheduleDescription(fromConfig));
    EXPECT_TRUE(edit->text().contains("peak=3e-04,")) << edit->text().toStdString();
    EXPECT_NE(edit->text().toStdString(), fromConfig) << "the config's 3e-4 is kept as 17 digits";
    // Enter on it unchanged keeps the project as it was.
    emit edit->editingFinished();
    EXPECT_EQ(kept(session), fromConfig);

    // A misspelt key: the parser's message under the field as it is typed; Enter keeps nothing.
    const QString bad = "wsd:peak=3e-4,steps=6000,warmup=200,cooldwn=0.2";
    type(edit, bad);
    const std::string why = analysis::scheduleDescriptionProblem(bad.toStdString());
    ASSERT_FALSE(why.empty());
    EXPECT_NE(why.find("cooldwn"), std::string::npos) << why;
    EXPECT_FALSE(problem->isHidden());
    EXPECT_TRUE(problem->text().contains(QString::fromStdString(why))) << problem->text().toStdString();
    emit edit->editingFinished();
    EXPECT_EQ(kept(session), fromConfig);

    // A description that reads: the message goes, and Enter keeps it with the run.
    const QString typed = "wsd:peak=0.0003,steps=6000,warmup=200,cooldown=0.3,decay=sqrt";
    type(edit, typed);
    EXPECT_TRUE(problem->isHidden()) << problem->text().toStdString();
    emit edit->editingFinished();
    EXPECT_EQ(kept(session), typed.toStdString());

    // Another project with a set and run of the same names: the field shows that project's
    // description, and a control changed there keeps the project as it was.
    {
        data::Project other = session.project();
        other.curves[0].schedules["m100-constant"] = fromConfig;
        session.setProject(std::move(other), QString());
        view.computeNow();
        EXPECT_EQ(edit->text().toStdString(), analysis::normalScheduleDescription(fromConfig));
        view.applyControls(QJsonObject{{"cooldown", 0.4}});
        EXPECT_EQ(kept(session), fromConfig);
        type(edit, typed);
        emit edit->editingFinished();
    }

    // Saved and read back, the project keeps it; reopened, the field shows it.
    auto bytes = data::writeProject(session.project());
    ASSERT_TRUE(bytes.ok()) << bytes.error().toString();
    auto back = data::readProject(*bytes, "described.scalex");
    ASSERT_TRUE(back.ok()) << back.error().toString();
    ASSERT_EQ(back->curves.size(), 1u);
    EXPECT_EQ(back->curves[0].schedules.at("m100-constant"), typed.toStdString());
    gui::Session reopened;
    reopened.setProject(std::move(*back), QString());
    gui::FigureView again(*figures::figureEntry("schedules"), &reopened);
    again.computeNow();
    EXPECT_EQ(again.findChild<QLineEdit*>("described")->text().toStdString(), analysis::normalScheduleDescription(typed.toStdString()));
}
