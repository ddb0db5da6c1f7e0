#include <fstream>
#include <string>
#include <thread>

#include "gpu/DeviceInfo.h"

namespace scalex::gpu {

DeviceInfo queryCpuDevice() {
    DeviceInfo info;
    info.backend = "cpu";
    info.computeUnits = static_cast<int>(std::thread::hardware_concurrency());
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) == 0) {
            if (auto colon = line.find(':'); colon != std::string::npos) {
                info.name = line.substr(colon + 1);
                info.name.erase(0, info.name.find_first_not_of(' '));
            }
        } else if (line.rfind("cpu MHz", 0) == 0 && info.clockGHz == 0) {
            if (auto colon = line.find(':'); colon != std::string::npos) info.clockGHz = std::stod(line.substr(colon + 1)) / 1000.0;
        }
    }
    if (info.name.empty()) info.name = "CPU";
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
        double kb = 0;
        meminfo >> kb;
        if (key == "MemTotal:") { info.memoryBytes = kb * 1024.0; break; }
        meminfo.ignore(256, '\n');
    }
    return info;
}

}  // namespace scalex::gpu
