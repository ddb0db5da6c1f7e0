#pragma once
// A run's learning-rate schedule as one rate per optimiser step (steps 1..T), with its prefix sums
// (the "area" Σ η of Luo et al. 2025 and Tissue et al. 2024), made either from the rates a run
// logged (interpolated between logged steps) or from a description: constant, cosine to a final
// rate, warm-up–stable–decay (Hägele et al. 2024) with a cooldown fraction and a linear, sqrt or
// exponential decay, or a step schedule; each with a linear warm-up.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scalex::fit {

enum class ScheduleShape { Constant, Cosine, Wsd, Step };
enum class DecayShape { Linear, Sqrt, Exponential };

struct ScheduleSpec {
    ScheduleShape shape = ScheduleShape::Constant;
    double peakLr = 1e-3;
    long steps = 0;          // total optimiser steps T
    long warmupSteps = 0;    // linear from 0 to the peak over steps 1..warmupSteps
    double finalLr = 0;      // cosine and wsd: the rate at step T
    double cooldownFraction = 0.2;  // wsd: the last fraction of the steps decays
    DecayShape decay = DecayShape::Linear;
    std::vector<long> milestones;   // step: the rate is multiplied by `factor` after each
    double factor = 0.1;
};

// One logged (step, rate) pair.
struct LrPoint {
    double step = 0;
    double lr = 0;
};

class Schedule {
public:
    Schedule() = default;
    // Rates η_1..η_T as given (η_t = rates[t-1]); `warmupSteps` of them are warm-up.
    Schedule(std::vector<double> rates, long warmupSteps);

    static Schedule fromSpec(const ScheduleSpec& spec);
    // From logged rates: linear interpolation between logged steps, the last logged rate held to
    // `steps` (0: the last logged step). Before the first logged step the rate rises linearly from
    // 0 over `warmupSteps` and then holds the first logged rate (the log started after warm-up).
    // Points with a non-finite or negative step or rate are skipped; empty when none is left.
    static Schedule fromLogged(std::span<const LrPoint> points, long warmupSteps, long steps = 0);

    long steps() const { return static_cast<long>(rates_.size()); }
    long warmupSteps() const { return warmup_; }
    bool empty() const { return rates_.empty(); }
    // η_t for 1 ≤ t ≤ T; 0 outside.
    double lr(long t) const { return t >= 1 && t <= steps() ? rates_[static_cast<std::size_t>(t - 1)] : 0.0; }
    // Σ_{τ=1..t} η_τ (t clamped to [0, T]) from the prefix sums: O(1).
    double area(long t) const;
    double peak() const;
    std::span<const double> rates() const { return rates_; }

private:
    std::vector<double> rates_;
    std::vector<double> prefix_;  // prefix_[t] = Σ_{τ≤t} η_τ, prefix_[0] = 0
    long warmup_ = 0;
};

// The rate of a described schedule at step t (1-based).
double scheduleRate(const ScheduleSpec& spec, long t);

// Reads a description: `SHAPE[:key=value,...]` with SHAPE constant | cosine | wsd | step and keys
// peak, steps, warmup, final, cooldown (fraction), decay (linear | sqrt | exp), milestones
// (steps separated by ';'), factor. For example `wsd:peak=1e-3,steps=50000,warmup=300,
// cooldown=0.2,decay=sqrt`. On error returns nothing and sets `error` naming the key.
std::optional<ScheduleSpec> parseScheduleSpec(std::string_view text, std::string* error = nullptr);
// How describeSchedule writes its numbers: Exact, the shortest text that reads back to the same
// double (parseScheduleSpec gives the same spec); Shown, for people: a float32 rate widened to
// at float precision: the shortest text of the float nearest each number (a tracker's logged rate
// 0.000999999989723444 as 0.001, a computed 6.569999999999999e-06 as 6.57e-06).
enum class ScheduleNumbers { Exact, Shown };
// The description parseScheduleSpec reads back to the same spec (Exact), or shown to a person.
std::string describeSchedule(const ScheduleSpec& spec, ScheduleNumbers numbers = ScheduleNumbers::Exact);
std::string scheduleShapeName(ScheduleShape shape);
std::string decayShapeName(DecayShape decay);

}  // namespace scalex::fit
