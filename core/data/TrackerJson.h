#pragma once
// One run exported from an experiment tracker as JSON (the shape of lr-schedules/ in
// ../shared/data/public: `config` with the run's settings, `history` with one object of parallel
// arrays per logged stream, e.g. `history.train` {iter, train_loss, train_lr, ...} and
// `history.val` {iter, val_loss, ...}, `history.final-val` {iter, final_val_loss}). It loads as a
// run with a curve: the config's scalar keys are its columns, the history its loss curve (train
// and periodic validation loss and the learning rate merged by step, in step order).
//
// A run resumed from a checkpoint logs only from there: a cooldown branch (a wsd run with a
// cooldown fraction whose log starts late) joins the constant-rate run with the same peak rate
// (scheduler wsd, no cooldown) up to its first logged step (lr-schedules/README: "Joining them is
// what a careful reader does"), unless its config says it resumed from its own step 0.
#include <QByteArray>
#include <QString>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/data/LoadError.h"
#include "core/data/LossCurves.h"

namespace scalex::data {

struct TrackerRun {
    std::string file;
    std::string name;  // `name`, else `config.wandb_run_prefix`, else the file's base name
    std::vector<std::pair<std::string, std::string>> config;  // scalar keys in file order, as text
    LossCurve curve;   // runId = name; steps ascending and unique
    double tokensPerStep = 0;  // batch_size · acc_steps · world_size · sequence_length when logged
    std::string joinedTo;      // the base run a cooldown branch was joined to
    long joinStep = 0;         // the base run's points below this step were taken
    int duplicateSteps = 0;    // steps logged more than once (resumed runs): the later entry kept
    // history.final-val: an evaluation of its own (in lr-schedules/ on the full validation set,
    // about 1 % above the periodic val_loss), so not a point of the curve. NaN / -1 when absent.
    double finalValLoss = std::numeric_limits<double>::quiet_NaN();
    double finalValStep = -1;

    const std::string* configValue(const std::string& key) const;
    double configNumber(const std::string& key) const;  // NaN when absent or not a number
    long firstLoggedStep() const;  // of the train or validation stream; -1 when none
};

// Reads one export. Unusable files give one LoadError naming the file and the key (e.g.
// "history.val.val_loss"), with the line for malformed JSON.
Expected<TrackerRun> loadTrackerRun(const std::string& path);
Expected<TrackerRun> parseTrackerRun(const QByteArray& bytes, const std::string& file);

// True when the bytes look like a tracker export (a JSON object with `config` and `history`).
bool looksLikeTrackerJson(const QByteArray& head);

// The run's curve as a loss-curves CSV (run_id, step, tokens, train_loss, val_loss, lr; LossCurves.h),
// so that a study keeps and saves it as it keeps every curve file.
QByteArray trackerCurvesCsv(const TrackerRun& run);

// The schedule the run's config describes, in the description grammar of core/fit/Schedule.h
// (parseScheduleSpec), from the keys of lr-schedules/: lr, iterations, warmup_steps, scheduler
// cos | wsd, cos_final_lr (−1: 10 % of the peak), wsd_fract_decay, decay_type. Nothing when the
// config does not say (no scheduler, no positive lr or no iterations).
std::optional<std::string> trackerScheduleDescription(const TrackerRun& run);

// The runs as a run table CSV, one row per run: `run_id` (its name), every scalar config key (the
// union over runs, in first-seen order; a cell empty where a run's config lacks the key), and its
// last logged `step`, `tokens`, `train_loss` and `val_loss`. So a study reads a tracker's runs as
// it reads any run table: its reading sees the config's settings (peak lr, cooldown fraction,
// decay shape) as columns.
QByteArray trackerRunsCsv(const std::vector<TrackerRun>& runs);

// True when the file at `path` (.json) is a tracker export (dataFileKind's test).
bool isTrackerJsonFile(const QString& path);

// Joins every cooldown branch to its constant-rate base run among `runs` (in place). Returns one
// line per branch that has no base run among them.
std::vector<std::string> joinCooldownRuns(std::vector<TrackerRun>& runs);

}  // namespace scalex::data
