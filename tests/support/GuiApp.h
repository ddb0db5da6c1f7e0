#pragma once
// The QApplication of the GUI tests (offscreen platform, test organisation so QSettings never
// touch the user's), and image checks they share.
#include <QApplication>
#include <QHash>
#include <QImage>

#include <ostream>

// gtest prints QString parameters and values as text.
QT_BEGIN_NAMESPACE
inline void PrintTo(const QString& s, std::ostream* os) { *os << s.toStdString(); }
QT_END_NAMESPACE

// The resources live in the static scalex_app library (outside any namespace, as Qt requires).
inline void scalexInitResources() { Q_INIT_RESOURCE(scalex); }

namespace scalex::test {

inline void ensureGuiApplication(const char* testName) {
    static int argc = 1;
    static char name[64];
    static char* argv[] = {name, nullptr};
    if (QApplication::instance()) return;
    qstrncpy(name, testName, sizeof name);
    qputenv("QT_QPA_PLATFORM", "offscreen");
    new QApplication(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("ScalexTest"));
    QCoreApplication::setApplicationName(QString::fromLatin1(testName));
    scalexInitResources();
}

// Fraction of pixels (every second one) that differ from the most common colour.
inline double nonBackgroundFraction(const QImage& image) {
    QHash<QRgb, int> counts;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2) counts[image.pixel(x, y)]++;
    int most = 0, total = 0;
    for (int c : counts) most = std::max(most, c), total += c;
    return total ? 1.0 - static_cast<double>(most) / total : 0;
}

}  // namespace scalex::test
