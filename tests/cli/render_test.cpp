// `scalex render`: figures without a display, at the requested physical size, deterministic.
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include "tests/cli/ScalexProcess.h"

using scalex::test::runScalex;

TEST(RenderVerb, WritesPngAtTheRequestedPixelSize) {
    QTemporaryDir dir;
    const QString out = dir.filePath("pareto.png");
    const auto r = runScalex({"render", "--example", "--view", "pareto", "--out", out, "--size", "3.25x2.4in", "--dpi", "200"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QImage image(out);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.width(), 650);
    EXPECT_EQ(image.height(), 480);
}

TEST(RenderVerb, SvgKeepsTextAndPdfParsesAndRendersAreRepeatable) {
    QTemporaryDir dir;
    const QString svg = dir.filePath("iso.svg");
    ASSERT_EQ(runScalex({"render", "--view", "isoflop", "--out", svg}).exitCode, 0);
    QFile f(svg);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QXmlStreamReader xml(bytes);
    int texts = 0;
    QString allText;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text")) {
            ++texts;
            allText += xml.readElementText(QXmlStreamReader::IncludeChildElements);
        }
    }
    EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    EXPECT_GT(texts, 10);
    EXPECT_TRUE(allText.contains("Parameters N")) << "axis title kept as text";
    EXPECT_TRUE(allText.contains("Transformer")) << "legend text kept as text";

    const QString again = dir.filePath("iso2.svg");
    ASSERT_EQ(runScalex({"render", "--view", "isoflop", "--out", again}).exitCode, 0);
    QFile g(again);
    ASSERT_TRUE(g.open(QIODevice::ReadOnly));
    EXPECT_EQ(g.readAll(), bytes) << "two renders of the same view are identical";

    const QString pdf = dir.filePath("iso.pdf");
    ASSERT_EQ(runScalex({"render", "--view", "isoflop", "--out", pdf, "--size", "single"}).exitCode, 0);
    QFile p(pdf);
    ASSERT_TRUE(p.open(QIODevice::ReadOnly));
    const QByteArray head = p.read(5);
    EXPECT_EQ(head, QByteArray("%PDF-"));
    EXPECT_TRUE(p.readAll().contains("%%EOF"));
}

TEST(RenderVerb, BadRequestsFailWithOneLineAndWriteNothing) {
    QTemporaryDir dir;
    const struct {
        QStringList args;
        const char* mention;
    } cases[] = {
        {{"render", "--view", "nope", "--out", dir.filePath("a.png")}, "--view"},
        {{"render", "--view", "pareto", "--out", dir.filePath("a.gif")}, "--out"},
        {{"render", "--view", "pareto"}, "--out"},
        {{"render", "--view", "pareto", "--out", dir.filePath("a.png"), "--size", "big"}, "--size"},
        {{"render", "--view", "pareto", "--out", dir.filePath("a.png"), "--project", dir.filePath("missing.scalex")}, "missing.scalex"},
    };
    for (const auto& c : cases) {
        const auto r = runScalex(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args.join(' ').toStdString();
        EXPECT_TRUE(r.err.contains(c.mention)) << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
    EXPECT_FALSE(QFile::exists(dir.filePath("a.png")));
}

TEST(RenderVerb, PaperFiguresRegeneratesTheFiguresAndTablesFromTheExample) {
    QTemporaryDir dir;
    const auto r = runScalex({"render", "--paper-figures", "--out", dir.path()}, 300000);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    for (const char* name : {"fig1_pareto_front.pdf", "fig3_overtraining_slopes.pdf", "fig4_isoflop.pdf", "fig5_context_length.pdf",
                             "fig6_inference_runtimes.pdf", "fig4_isoflop.png", "tab_lnd_fit_params.tex",
                             "tab_tokenparam_slopes.csv", "tab_estimated_optimal_flops_tokens_powerlaw.tex"})
        EXPECT_TRUE(QFile::exists(dir.filePath(name))) << name;
    QFile tex(dir.filePath("tab_estimated_optimal_flops_tokens_powerlaw.tex"));
    ASSERT_TRUE(tex.open(QIODevice::ReadOnly));
    const QByteArray body = tex.readAll();
    EXPECT_TRUE(body.contains("\\toprule") && body.contains("\\bottomrule")) << body.constData();
    EXPECT_TRUE(body.contains("7B &")) << "sizes printed as the paper does";
}

TEST(ConvertVerb, RunTableAsBooktabsLatexWithPaperNumbers) {
    QTemporaryDir dir;
    const QString csv = dir.filePath("runs.csv");
    QFile f(csv);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("model_type,num_params,num_tokens_training,num_flops_training,val_loss,context_length\n"
            "llama,406635520,8130000000,2.0e19,3.112,8192\n"
            "mlstm,1420839104,28400000000,2.3e20,2.801,8192\n");
    f.close();
    const QString tex = dir.filePath("runs.tex");
    const auto r = runScalex({"convert", csv, tex});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile t(tex);
    ASSERT_TRUE(t.open(QIODevice::ReadOnly));
    const QString body = QString::fromUtf8(t.readAll());
    for (const char* want : {"\\toprule", "\\midrule", "\\bottomrule", "407M", "8.13B", "2e19", "3.112", "8192"})
        EXPECT_TRUE(body.contains(QLatin1String(want))) << want << "\n" << body.toStdString();
}
