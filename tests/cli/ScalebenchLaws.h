#pragma once
// The laws the scalebench benchmark publishes for its three shared tasks
// (../shared/data/public/scalebench/laws.csv), read for the tests that fit and replay them.
#include <QFile>
#include <QString>
#include <QStringList>
#include <map>
#include <ostream>
#include <vector>

#include "tests/support/TestData.h"

namespace scalex::test {

// The fields of one CSV record (RFC 4180 quoting), advancing `pos` past it.
inline std::vector<QString> csvRecord(const QString& text, int& pos) {
    std::vector<QString> fields;
    QString field;
    bool quoted = false;
    for (; pos < text.size(); ++pos) {
        const QChar c = text[pos];
        if (quoted) {
            if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') field += '"', ++pos;
            else if (c == '"') quoted = false;
            else field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(field), field.clear();
        } else if (c == '\n') {
            ++pos;
            break;
        } else if (c != '\r') {
            field += c;
        }
    }
    fields.push_back(field);
    return fields;
}

struct LawRow {
    QString task, law, formula, params, group;
    double refMse = 0, refR2 = 0;
};

// What a failing test's name shows of its law and group.
inline void PrintTo(const LawRow& r, std::ostream* os) { *os << (r.task + ":" + r.law + " " + r.group).toStdString(); }

// laws.csv grouped by task and law, in file order.
inline std::vector<std::vector<LawRow>> publishedLaws() {
    QFile f(sharedPath("data/public/scalebench/laws.csv"));
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QString text = QString::fromUtf8(f.readAll());
    int pos = 0;
    const auto header = csvRecord(text, pos);
    std::map<QString, int> column;
    for (int i = 0; i < static_cast<int>(header.size()); ++i) column[header[static_cast<std::size_t>(i)]] = i;
    std::vector<std::vector<LawRow>> out;
    while (pos < text.size()) {
        const auto r = csvRecord(text, pos);
        if (r.size() != header.size()) continue;
        auto at = [&](const char* name) { return r[static_cast<std::size_t>(column.at(name))]; };
        LawRow row{at("task"), at("law"), at("formula"), at("params"), at("group"), at("ref_mse").toDouble(), at("ref_r2_pooled").toDouble()};
        if (out.empty() || out.back().front().task != row.task || out.back().front().law != row.law) out.emplace_back();
        out.back().push_back(row);
    }
    return out;
}

// --formula F --param ... of a published law, as `scalex fit law` and `plan` take them.
inline QStringList publishedLawArgs(const LawRow& law) {
    QStringList args{"--formula", law.formula};
    for (const QString& p : law.params.split(';')) args << "--param" << p;
    return args;
}

}  // namespace scalex::test
