#pragma once
// A model ladder: one architecture at many sizes, so that the training compute per token c_T(N)
// of the architecture is known at any N and context T (the paper's Fig. 5 finding for any
// architecture). Either the specs of a study's own models, or a spec sized to any width by a rule
// (scaleSpec) that keeps what defines the architecture and scales what grows with the model.
#include <cstdint>
#include <string>
#include <vector>

#include "core/accounting/ModelSpec.h"

namespace scalex::accounting {

struct ModelLadder {
    std::string name;
    std::vector<ModelSpec> rungs;  // from the smallest model up
};

// The widths a spec is sized to by default: 256 to 16384 in steps of about a factor 1.5, past the
// largest model of the paper's study (d_model 4096) by two factors of two.
const std::vector<std::int64_t>& defaultLadderWidths();

// `base` sized to width d_model = dModel, the rule of the paper's study (App. "Model
// Configurations": the aspect ratio d_model / n_layers fixed, heads of fixed width) applied to any
// spec: layers d_model / aspect, rounded, the base's layer pattern stretched over them (layer i
// takes the kind of base layer floor(i L / L')); query heads in proportion to the width with the
// base's query heads per key/value head and head dimensions kept; feed-forward, expert, shared
// expert and latent widths in proportion (feed-forward widths rounded to a multiple of 64 where the
// base's are); mLSTM heads in proportion with their head widths kept; the Mamba inner width in
// proportion (its expand kept), its heads of the base's head width, its state and convolution kept;
// vocabulary, windows, experts and top-k, norms and biases kept. scaleSpec(base, base.dModel) is base.
ModelSpec scaleSpec(const ModelSpec& base, std::int64_t dModel);

// `base` at each width (default: defaultLadderWidths()), each rung named "<base name> d=<width>".
ModelLadder specLadder(const ModelSpec& base, const std::vector<std::int64_t>& widths = defaultLadderWidths());

}  // namespace scalex::accounting
