#include "tests/support/TestData.h"

#include <QDir>
#include <QFile>
#include <QTextStream>
#include <gtest/gtest.h>

namespace scalex::test {

QString sharedDir() {
    const QString dir = QStringLiteral(SCALEX_SHARED_DIR);
    return QDir(dir).exists() ? dir : QString();
}

QString sharedPath(const QString& relative) { return QStringLiteral(SCALEX_SHARED_DIR) + '/' + relative; }

QString sourcePath(const QString& relative) { return QStringLiteral(SCALEX_SOURCE_DIR) + '/' + relative; }

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

int SimpleCsv::column(const QString& name) const {
    const int i = static_cast<int>(header.indexOf(name));
    EXPECT_GE(i, 0) << "column " << name.toStdString() << " missing";
    return i < 0 ? 0 : i;
}

double SimpleCsv::number(int row, const QString& name) const {
    bool ok = false;
    const double v = at(row, name).toDouble(&ok);
    EXPECT_TRUE(ok) << "row " << row << " column " << name.toStdString() << ": '" << at(row, name).toStdString() << "'";
    return v;
}

SimpleCsv readSimpleCsv(const QString& path) {
    SimpleCsv csv;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        ADD_FAILURE() << "cannot open " << path.toStdString();
        return csv;
    }
    QTextStream in(&file);
    while (!in.atEnd()) {
        const QString line = in.readLine();
        if (line.isEmpty() || line.startsWith('#')) continue;
        const QStringList cells = line.split(',');
        if (csv.header.isEmpty())
            csv.header = cells;
        else
            csv.rows.append(cells);
    }
    return csv;
}

}  // namespace scalex::test

namespace scalex::test {

QMap<QString, double> surfaceFitTable(const QString& path) {
    QMap<QString, double> out;
    for (const QString& line : QString::fromUtf8(fileBytes(path)).split('\n'))
        if (!line.section(',', 1, 1).isEmpty()) out.insert(line.section(',', 1, 1), line.section(',', 3, 3).toDouble());
    return out;
}

}  // namespace scalex::test
