#include "core/data/PaperTables.h"

#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QStringList>
#include <cmath>
#include <functional>
#include <map>

#include "core/data/CsvReader.h"

namespace scalex::data {

using accounting::Family;

accounting::ModelConfig PaperModelConfig::config() const {
    accounting::ConfigOverrides ov;
    ov.dQk = dQk;
    ov.dHv = dHv;
    ov.dFf = dFf;
    return accounting::makeStudyConfig(family, dModel, nLayers, nHeads, ov);
}

double LossSurfaceParams::loss(double params, double tokens) const {
    // Eq. l_nd with the natural-log coefficients of Tab. lnd_fit_params.
    const double term = std::exp(logA - alpha * std::log(params)) + std::exp(logB - beta * std::log(tokens));
    return std::exp(logE) + std::pow(term, gamma);
}

const LossSurfaceParams* PaperTables::lossSurface(Family family, double huberDelta) const {
    for (const auto& s : lossSurfaces)
        if (s.family == family && std::abs(std::log(s.huberDelta / huberDelta)) < 1e-9) return &s;
    return nullptr;
}

std::vector<PaperModelConfig> PaperTables::configs(Family family, ExperimentSet set) const {
    std::vector<PaperModelConfig> out;
    for (const auto& c : modelConfigs)
        if (c.family == family && c.experimentSet == set) out.push_back(c);
    return out;
}

namespace {

// A shipped table: '#' comment lines, then RFC 4180 CSV with a header.
struct Table {
    std::string file;
    QStringList header;
    struct Row {
        int line;
        QStringList cells;
    };
    std::vector<Row> rows;
};

Expected<Table> readTable(const QString& dir, const QString& name) {
    const QString path = dir + '/' + name;
    Table t;
    t.file = path.toStdString();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return LoadError{t.file, 0, {}, "cannot open: " + f.errorString().toStdString()};
    // Comment lines become blank lines, which the reader skips, so line numbers stay those of the file.
    QList<QByteArray> lines = f.readAll().split('\n');
    for (auto& line : lines)
        if (line.startsWith('#')) line.clear();
    const QByteArray text = lines.join('\n');
    auto raw = readDelimited(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), t.file, ',');
    if (!raw) return raw.error();
    for (const auto& h : raw->header) t.header << QString::fromStdString(h);
    for (const auto& r : raw->rows) {
        if (r.cells.size() != raw->header.size())
            return LoadError{t.file, r.line, {},
                             "expected " + std::to_string(raw->header.size()) + " fields, found " + std::to_string(r.cells.size())};
        Table::Row row{r.line, {}};
        for (const auto& c : r.cells) row.cells << QString::fromStdString(c);
        t.rows.push_back(std::move(row));
    }
    return t;
}

// Reads the cells of one row by column name; the first failure is kept in `error`.
class RowReader {
public:
    RowReader(const Table& t, const Table::Row& r) : t_(t), r_(r) {}

    QString text(const char* column) {
        const int i = static_cast<int>(t_.header.indexOf(QLatin1String(column)));
        if (i < 0) {
            fail(column, "column missing from the header");
            return {};
        }
        return r_.cells[i].trimmed();
    }
    double number(const char* column) {
        const QString s = text(column);
        bool ok = false;
        const double v = s.toDouble(&ok);
        if (!ok && !error) fail(column, "expected a number, found '" + s.toStdString() + "'");
        return v;
    }
    std::optional<double> optionalNumber(const char* column) {
        if (text(column).isEmpty()) return std::nullopt;
        return number(column);
    }
    std::int64_t integer(const char* column) {
        const QString s = text(column);
        bool ok = false;
        const qlonglong v = s.toLongLong(&ok);
        if (!ok && !error) fail(column, "expected an integer, found '" + s.toStdString() + "'");
        return v;
    }
    Family family(const char* column) {
        const QString s = text(column);
        auto f = accounting::parseFamily(s.toStdString());
        if (!f && !error) fail(column, "expected transformer or xlstm, found '" + s.toStdString() + "'");
        return f.value_or(Family::Transformer);
    }
    template <class T>
    std::vector<T> list(const char* column, const std::function<T(const QString&, bool*)>& parse) {
        std::vector<T> out;
        const QString s = text(column);
        if (s.isEmpty()) return out;
        for (const QString& part : s.split(';')) {
            bool ok = false;
            out.push_back(parse(part.trimmed(), &ok));
            if (!ok && !error) fail(column, "expected ';'-separated numbers, found '" + s.toStdString() + "'");
        }
        return out;
    }

    std::optional<LoadError> error;

private:
    void fail(const char* column, std::string message) {
        if (!error) error = LoadError{t_.file, r_.line, column, std::move(message)};
    }
    const Table& t_;
    const Table::Row& r_;
};

template <class T>
std::optional<LoadError> readRows(const QString& dir, const QString& name, std::vector<T>& out,
                                  const std::function<T(RowReader&)>& parse) {
    auto table = readTable(dir, name);
    if (!table) return table.error();
    for (const auto& row : table->rows) {
        RowReader r(*table, row);
        T value = parse(r);
        if (r.error) return r.error;
        out.push_back(std::move(value));
    }
    return std::nullopt;
}

}  // namespace

Expected<PaperTables> loadPaperTables(const QString& dir) {
    PaperTables p;
    std::optional<LoadError> e;

    e = readRows<PaperModelConfig>(dir, "model_configs.csv", p.modelConfigs, [](RowReader& r) {
        PaperModelConfig c;
        c.sourceTable = r.text("source_table").toStdString();
        c.family = r.family("family");
        const QString set = r.text("experiment_set");
        c.experimentSet = set == "tokenparam" ? ExperimentSet::TokenParam
                          : set == "isoflop"  ? ExperimentSet::IsoFlop
                                              : ExperimentSet::Other;
        c.paramsM = r.integer("params_m");
        c.dModel = r.integer("d_model");
        c.dFf = r.integer("d_ff");
        c.dQk = r.integer("d_qk");
        c.dHv = r.integer("d_hv");
        c.nHeads = r.integer("n_heads");
        c.nLayers = r.integer("n_layers");
        c.batchSizes = r.list<std::int64_t>("batch_size", [](const QString& s, bool* ok) { return s.toLongLong(ok); });
        c.learningRates = r.list<double>("learning_rates", [](const QString& s, bool* ok) { return s.toDouble(ok); });
        return c;
    });
    if (e) return *e;

    e = readRows<LossSurfaceParams>(dir, "lnd_fit_params.csv", p.lossSurfaces, [](RowReader& r) {
        LossSurfaceParams s;
        s.family = r.family("family");
        s.huberDelta = r.number("huber_delta");
        s.deltaAtLeast = r.text("delta_relation") == "at_least";
        s.logA = r.number("log_a");
        s.logB = r.number("log_b");
        s.logE = r.number("log_e");
        s.alpha = r.number("alpha");
        s.beta = r.number("beta");
        s.gamma = r.number("gamma");
        return s;
    });
    if (e) return *e;

    e = readRows<IsoFlopBatchSize>(dir, "isoflop_batch_sizes.csv", p.isoflopBatchSizes, [](RowReader& r) {
        return IsoFlopBatchSize{r.number("budget_flops"), r.integer("batch_size_seqs"), r.integer("batch_tokens"),
                                r.integer("context")};
    });
    if (e) return *e;

    e = readRows<OverTrainingSlope>(dir, "tokenparam_slopes.csv", p.overTrainingSlopes, [](RowReader& r) {
        return OverTrainingSlope{r.number("tokens_per_param"), r.optionalNumber("eta_transformer"),
                                 r.optionalNumber("eta_xlstm")};
    });
    if (e) return *e;

    e = readRows<IsoFlopPowerLawRow>(dir, "isoflop_powerlaw_fits.csv", p.isoflopPowerLaws, [](RowReader& r) {
        return IsoFlopPowerLawRow{r.text("source_table").toStdString(), r.family("family"), r.integer("context"),
                                  r.number("coef_n"), r.number("exponent_n"), r.number("coef_d"), r.number("exponent_d")};
    });
    if (e) return *e;

    for (const char* name : {"optimal_configs_ctx8192.csv", "optimal_configs_by_context.csv"}) {
        const bool perContext = QLatin1String(name) == QLatin1String("optimal_configs_by_context.csv");
        e = readRows<OptimalConfigRow>(dir, name, p.optimalConfigs, [perContext](RowReader& r) {
            OptimalConfigRow o;
            o.sourceTable = perContext ? r.text("source_table").toStdString() : "estimated_optimal_flops_tokens_powerlaw";
            o.family = r.family("family");
            o.context = r.integer("context");
            o.paramsLabel = r.text("params_label").toStdString();
            o.params = r.number("params");
            o.flops = r.number("flops");
            o.tokensLabel = r.text("tokens_label").toStdString();
            o.tokens = r.number("tokens");
            o.tokensPerParam = r.number("tokens_per_param");
            return o;
        });
        if (e) return *e;
    }
    return p;
}

std::string tableComment(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray first = f.readLine().trimmed();
    return first.startsWith('#') ? first.mid(1).trimmed().toStdString() : std::string();
}

}  // namespace scalex::data
