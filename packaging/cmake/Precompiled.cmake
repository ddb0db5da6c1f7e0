# Precompiled headers (SCALEX_PCH): the standard library, QtCore's JSON and strings, Eigen for
# core/fit, and the QtWidgets/QtCharts headers of the figures, the verbs and the window are
# parsed once per library instead of once per source file. A clean two-core build of `scalex`
# spends most of each file's time in these headers (a core/analysis file preprocesses to
# ~140,000 lines, 95 % of them libstdc++ and Qt). Off by default where a compiler cache is the
# launcher: ccache does not cache compiles that read a precompiled header unless its sloppiness
# allows it, and a warm cache is the faster build there. Measured (clean build of `scalex` as
# packaging/run.sh configures it, -j2, CCACHE_DISABLE=1): 448 s of CPU without, 364 s with (-19 %).
if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  set(scalex_pch_default OFF)
else()
  set(scalex_pch_default ON)
endif()
option(SCALEX_PCH "Precompile the standard, Qt and Eigen headers of each library" ${scalex_pch_default})

set(SCALEX_PCH_STD <algorithm> <cmath> <cstdint> <functional> <map> <memory> <optional> <set> <span>
    <sstream> <string> <unordered_map> <utility> <variant> <vector>)
set(SCALEX_PCH_QTCORE <QByteArray> <QFile> <QFileInfo> <QJsonArray> <QJsonDocument> <QJsonObject> <QJsonValue>
    <QString> <QStringList>)
set(SCALEX_PCH_QTAPP <QObject> <QColor> <QImage> <QPainter> <QPointF> <QWidget> <QLabel> <QComboBox> <QHBoxLayout>
    <QVBoxLayout> <QtCharts/QChart> <QtCharts/QLineSeries> <QtCharts/QScatterSeries> <QtCharts/QLegend>
    <QtCharts/QValueAxis>)

function(scalex_precompile)
  if(NOT SCALEX_PCH)
    return()
  endif()
  target_precompile_headers(scalex_accounting PRIVATE ${SCALEX_PCH_STD})
  target_precompile_headers(scalex_inference PRIVATE ${SCALEX_PCH_STD})
  target_precompile_headers(scalex_fit PRIVATE ${SCALEX_PCH_STD} <Eigen/Dense>)
  target_precompile_headers(scalex_data PRIVATE ${SCALEX_PCH_STD} ${SCALEX_PCH_QTCORE})
  target_precompile_headers(scalex_analysis PRIVATE ${SCALEX_PCH_STD} ${SCALEX_PCH_QTCORE})
  foreach(lib scalex_figures scalex_cli scalex_gui)
    target_precompile_headers(${lib} PRIVATE ${SCALEX_PCH_STD} ${SCALEX_PCH_QTCORE} ${SCALEX_PCH_QTAPP})
  endforeach()
endfunction()
