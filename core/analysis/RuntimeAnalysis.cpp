#include "core/analysis/RuntimeAnalysis.h"

#include "core/data/StrictCsv.h"

namespace scalex::analysis {

std::optional<std::vector<inference::Accelerator>> loadAccelerators(const QString& path, QString* error) {
    using data::LoadFailure;
    using data::StrictCsv;
    try {
        const StrictCsv csv = data::readStrictCsv(data::readFileBytes(path), path);
        const int cName = csv.requiredColumn("name");
        const int cFlops = csv.requiredColumn("bf16_flops_per_s");
        const int cMem = csv.requiredColumn("memory_bandwidth_bytes_per_s");
        const int cDesc = csv.column("description"), cYear = csv.column("year");
        const int cComm = csv.column("comm_bandwidth_bytes_per_s");
        std::vector<inference::Accelerator> out;
        for (const auto& row : csv.rows) {
            inference::Accelerator a;
            a.name = row.fields[cName].toStdString();
            if (a.name.empty()) csv.fail(row, cName, "expected a name, got an empty field");
            a.description = cDesc >= 0 ? row.fields[cDesc].toStdString() : a.name;
            if (cYear >= 0 && !row.fields[cYear].isEmpty()) {
                const double year = csv.wholeNumber(row, cYear, 0);
                if (year > 9999) csv.fail(row, cYear, QStringLiteral("expected a year, got '%1'").arg(row.fields[cYear]));
                a.year = static_cast<int>(year);
            }
            a.flops = csv.number(row, cFlops);
            if (!(a.flops > 0)) csv.fail(row, cFlops, "expected a positive FLOP/s");
            a.memoryBandwidth = csv.number(row, cMem);
            if (!(a.memoryBandwidth > 0)) csv.fail(row, cMem, "expected a positive byte/s");
            a.commBandwidth = cComm >= 0 && !row.fields[cComm].isEmpty() ? csv.number(row, cComm) : 0;
            if (a.commBandwidth < 0) csv.fail(row, cComm, "expected a non-negative byte/s");
            out.push_back(a);
        }
        if (out.empty()) csv.fail(csv.headerLine, "expected at least one accelerator row");
        return out;
    } catch (const LoadFailure& e) {
        if (error) *error = QString::fromStdString(e.what());
        return std::nullopt;
    }
}

}  // namespace scalex::analysis
