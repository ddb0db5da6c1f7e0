#include "core/fit/Schedule.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <sstream>

namespace scalex::fit {

Schedule::Schedule(std::vector<double> rates, long warmupSteps) : rates_(std::move(rates)), warmup_(std::max(0L, warmupSteps)) {
    prefix_.resize(rates_.size() + 1, 0.0);
    for (std::size_t i = 0; i < rates_.size(); ++i) prefix_[i + 1] = prefix_[i] + rates_[i];
    warmup_ = std::min(warmup_, steps());
}

double Schedule::area(long t) const {
    if (prefix_.empty()) return 0;
    t = std::clamp(t, 0L, steps());
    return prefix_[static_cast<std::size_t>(t)];
}

double Schedule::peak() const { return rates_.empty() ? 0.0 : *std::max_element(rates_.begin(), rates_.end()); }

double scheduleRate(const ScheduleSpec& s, long t) {
    const double peak = s.peakLr;
    if (t <= s.warmupSteps && s.warmupSteps > 0) return peak * static_cast<double>(t) / static_cast<double>(s.warmupSteps);
    switch (s.shape) {
    case ScheduleShape::Constant:
        return peak;
    case ScheduleShape::Cosine: {
        // Cosine from the peak after warm-up to the final rate at step T (Loshchilov & Hutter 2017).
        const double span = static_cast<double>(std::max(1L, s.steps - s.warmupSteps));
        const double u = std::clamp(static_cast<double>(t - s.warmupSteps) / span, 0.0, 1.0);
        return s.finalLr + (peak - s.finalLr) * 0.5 * (1 + std::cos(std::numbers::pi * u));
    }
    case ScheduleShape::Wsd: {
        // Warm-up–stable–decay (Hägele et al. 2024, arXiv:2405.18392, Sec. 3): the last fraction
        // of the steps decays from the peak to the final rate; u is the cooldown's progress.
        const long cooldown = std::lround(s.cooldownFraction * static_cast<double>(s.steps));
        const long start = s.steps - cooldown;
        if (t <= start || cooldown <= 0) return peak;
        const double u = std::clamp(static_cast<double>(t - start) / static_cast<double>(cooldown), 0.0, 1.0);
        switch (s.decay) {
        case DecayShape::Linear:
            return s.finalLr + (peak - s.finalLr) * (1 - u);
        case DecayShape::Sqrt:  // "1 − sqrt" cooldown of Hägele et al. (their Fig. 4)
            return s.finalLr + (peak - s.finalLr) * (1 - std::sqrt(u));
        case DecayShape::Exponential: {
            // Geometric from the peak to the final rate (to 1e-3 of the peak when that is 0).
            const double ratio = s.finalLr > 0 && s.finalLr < peak ? s.finalLr / peak : 1e-3;
            return peak * std::pow(ratio, u);
        }
        }
        return peak;
    }
    case ScheduleShape::Step: {
        double rate = peak;
        for (long m : s.milestones)
            if (t > m) rate *= s.factor;
        return rate;
    }
    }
    return peak;
}

Schedule Schedule::fromSpec(const ScheduleSpec& spec) {
    std::vector<double> rates(static_cast<std::size_t>(std::max(0L, spec.steps)));
    for (long t = 1; t <= spec.steps; ++t) rates[static_cast<std::size_t>(t - 1)] = scheduleRate(spec, t);
    return Schedule(std::move(rates), spec.warmupSteps);
}

Schedule Schedule::fromLogged(std::span<const LrPoint> points, long warmupSteps, long steps) {
    std::vector<LrPoint> p;
    for (const auto& q : points)
        if (std::isfinite(q.step) && std::isfinite(q.lr) && q.step >= 0 && q.lr >= 0) p.push_back(q);
    if (p.empty()) return {};
    std::stable_sort(p.begin(), p.end(), [](const LrPoint& a, const LrPoint& b) { return a.step < b.step; });
    const long last = static_cast<long>(std::ceil(p.back().step));
    const long total = steps > 0 ? steps : std::max(1L, last);
    std::vector<double> rates(static_cast<std::size_t>(total));
    std::size_t j = 0;  // first logged point with step >= t
    for (long t = 1; t <= total; ++t) {
        const double x = static_cast<double>(t);
        while (j < p.size() && p[j].step < x) ++j;
        double r;
        if (j == 0) {
            // Before the first logged step: linear warm-up from 0, then the first logged rate.
            r = warmupSteps > 0 && t <= warmupSteps ? p[0].lr * x / static_cast<double>(warmupSteps) : p[0].lr;
        } else if (j == p.size()) {
            r = p.back().lr;
        } else {
            const auto& a = p[j - 1];
            const auto& b = p[j];
            const double w = b.step > a.step ? (x - a.step) / (b.step - a.step) : 1.0;
            r = a.lr + w * (b.lr - a.lr);
        }
        rates[static_cast<std::size_t>(t - 1)] = r;
    }
    return Schedule(std::move(rates), warmupSteps);
}

std::string scheduleShapeName(ScheduleShape shape) {
    switch (shape) {
    case ScheduleShape::Constant: return "constant";
    case ScheduleShape::Cosine: return "cosine";
    case ScheduleShape::Wsd: return "wsd";
    case ScheduleShape::Step: return "step";
    }
    return "constant";
}

std::string decayShapeName(DecayShape decay) {
    switch (decay) {
    case DecayShape::Linear: return "linear";
    case DecayShape::Sqrt: return "sqrt";
    case DecayShape::Exponential: return "exp";
    }
    return "linear";
}

namespace {

bool parseNumber(std::string_view s, double& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(out);
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool fail(std::string* error, std::string message) {
    if (error) *error = std::move(message);
    return false;
}

bool parseSteps(std::string_view key, std::string_view value, long& out, std::string* error) {
    double v = 0;
    if (!parseNumber(value, v) || v < 0 || v > 1e12 || v != std::floor(v))
        return fail(error, "'" + std::string(key) + "': expected a whole number of steps, got '" + std::string(value) + "'");
    out = static_cast<long>(v);
    return true;
}

}  // namespace

std::optional<ScheduleSpec> parseScheduleSpec(std::string_view text, std::string* error) {
    text = trim(text);
    ScheduleSpec spec;
    const auto colon = text.find(':');
    const std::string_view shape = trim(text.substr(0, colon));
    if (shape == "constant") spec.shape = ScheduleShape::Constant;
    else if (shape == "cosine" || shape == "cos") spec.shape = ScheduleShape::Cosine;
    else if (shape == "wsd") spec.shape = ScheduleShape::Wsd;
    else if (shape == "step") spec.shape = ScheduleShape::Step;
    else {
        fail(error, "schedule shape: expected constant, cosine, wsd or step, got '" + std::string(shape) + "'");
        return std::nullopt;
    }
    std::string_view rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const std::string_view item = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (item.empty()) continue;
        const auto eq = item.find('=');
        if (eq == std::string_view::npos) {
            fail(error, "'" + std::string(item) + "': expected key=value");
            return std::nullopt;
        }
        const std::string_view key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
        double v = 0;
        const auto number = [&](double lo, double hi, const char* what) {
            if (parseNumber(value, v) && v >= lo && v <= hi) return true;
            return fail(error, "'" + std::string(key) + "': expected " + what + ", got '" + std::string(value) + "'");
        };
        bool ok = true;
        if (key == "peak") ok = number(0, 1e6, "a learning rate >= 0") && (spec.peakLr = v, true);
        else if (key == "final") ok = number(0, 1e6, "a learning rate >= 0") && (spec.finalLr = v, true);
        else if (key == "cooldown") ok = number(0, 1, "a fraction in [0, 1]") && (spec.cooldownFraction = v, true);
        else if (key == "factor") ok = number(0, 1e6, "a factor >= 0") && (spec.factor = v, true);
        else if (key == "steps") ok = parseSteps(key, value, spec.steps, error);
        else if (key == "warmup") ok = parseSteps(key, value, spec.warmupSteps, error);
        else if (key == "decay") {
            if (value == "linear") spec.decay = DecayShape::Linear;
            else if (value == "sqrt") spec.decay = DecayShape::Sqrt;
            else if (value == "exp" || value == "exponential") spec.decay = DecayShape::Exponential;
            else ok = fail(error, "'decay': expected linear, sqrt or exp, got '" + std::string(value) + "'");
        } else if (key == "milestones") {
            spec.milestones.clear();
            std::string_view m = value;
            while (ok && !m.empty()) {
                const auto semi = m.find(';');
                long step = 0;
                ok = parseSteps(key, trim(m.substr(0, semi)), step, error);
                spec.milestones.push_back(step);
                m = semi == std::string_view::npos ? std::string_view{} : m.substr(semi + 1);
            }
        } else {
            ok = fail(error, "'" + std::string(key) + "': unknown key (peak, steps, warmup, final, cooldown, decay, milestones, factor)");
        }
        if (!ok) return std::nullopt;
    }
    if (spec.steps <= 0) {
        fail(error, "'steps': the schedule needs its total number of steps");
        return std::nullopt;
    }
    if (spec.warmupSteps > spec.steps) {
        fail(error, "'warmup': longer than the schedule's " + std::to_string(spec.steps) + " steps");
        return std::nullopt;
    }
    return spec;
}

// The shortest text that reads back to the same double.
static std::string shortest(double v) {
    char buffer[32];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, r.ptr);
}

// A number as a person reads it: at float precision, the shortest text that reads back to the
// float nearest it (a logged rate 0.000999999989723444, within float precision of 1e-3, as 0.001);
// a number beyond a float's normal range at 12 significant digits (%.12g).
static std::string shown(double v) {
    char buffer[48];
    const auto f = static_cast<float>(v);
    if (std::isfinite(f) && (v == 0 || std::abs(f) >= std::numeric_limits<float>::min())) {
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, f);
        return std::string(buffer, r.ptr);
    }
    std::snprintf(buffer, sizeof buffer, "%.12g", v);
    return buffer;
}

std::string describeSchedule(const ScheduleSpec& s, ScheduleNumbers numbers) {
    const auto number = numbers == ScheduleNumbers::Shown ? shown : shortest;
    std::ostringstream out;
    out << scheduleShapeName(s.shape) << ":peak=" << number(s.peakLr) << ",steps=" << s.steps << ",warmup=" << s.warmupSteps;
    if (s.shape == ScheduleShape::Cosine || s.shape == ScheduleShape::Wsd) out << ",final=" << number(s.finalLr);
    if (s.shape == ScheduleShape::Wsd) out << ",cooldown=" << number(s.cooldownFraction) << ",decay=" << decayShapeName(s.decay);
    if (s.shape == ScheduleShape::Step) {
        out << ",factor=" << number(s.factor) << ",milestones=";
        for (std::size_t i = 0; i < s.milestones.size(); ++i) out << (i ? ";" : "") << s.milestones[i];
    }
    return out.str();
}

}  // namespace scalex::fit
