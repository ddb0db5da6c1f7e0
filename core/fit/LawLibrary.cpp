// The shipped laws as data. Each names its source; where the library simplifies a published form
// the description says how.
#include "core/fit/LawLibrary.h"

#include <algorithm>
#include <cctype>

namespace scalex::fit {

namespace {

LawParameter param(const char* name, double lo, double hi, std::optional<double> start = std::nullopt) {
    return LawParameter{name, lo, hi, start};
}

std::vector<LawDefinition> makeLaws() {
    std::vector<LawDefinition> laws;
    {
        // xLSTM paper Eq. (l_nd) with the γ of Busbridge et al. 2025; App. "Details on the Parametric
        // Loss Surface Fit": Huber δ = 1e-3 on log-loss residuals, a, b, e = ln A, ln B, ln E.
        LawDefinition l;
        l.name = "xlstm";
        l.formula = "L = exp(e) + (exp(a - alpha*log(N)) + exp(b - beta*log(D)))^gamma";
        l.parameters = {param("a", 0, 30, 5), param("b", 0, 30, 5), param("e", -2, 2, 0.5), param("alpha", 0, 2, 0.3),
                        param("beta", 0, 2, 0.3), param("gamma", 0.1, 3, 1)};
        l.space = LawSpace::Log;
        l.loss = LawLoss::Huber;
        l.citation = "Beck et al. 2025, xLSTM Scaling Laws, Eq. (l_nd); gamma as Busbridge et al. 2025";
        l.description = "L(N,D) = E + (A N^-alpha + B D^-beta)^gamma, log-space Huber (delta 1e-3)";
        laws.push_back(l);
    }
    {
        // Hoffmann et al. 2022, Eq. (2) and App. D.2 (Approach 3): Huber δ = 1e-3 on ln L residuals.
        LawDefinition l;
        l.name = "chinchilla";
        l.formula = "L = exp(e) + exp(a - alpha*log(N)) + exp(b - beta*log(D))";
        l.parameters = {param("a", 0, 30, 6), param("b", 0, 30, 7), param("e", -2, 2, 0.5), param("alpha", 0, 2, 0.34),
                        param("beta", 0, 2, 0.28)};
        l.space = LawSpace::Log;
        l.loss = LawLoss::Huber;
        l.citation = "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models, Eq. (2), App. D.2 (Approach 3)";
        l.description = "L(N,D) = E + A/N^alpha + B/D^beta, log-space Huber (delta 1e-3)";
        laws.push_back(l);
    }
    {
        // The same form with E, A, B as plain coefficients and squared residuals: linear in E, A, B,
        // so the fit solves them by NNLS inside a 2-D search over (α, β) (Open-Athena's VPNLS).
        LawDefinition l;
        l.name = "chinchilla-vp";
        l.formula = "L = E + A/N^alpha + B/D^beta";
        l.parameters = {param("E", 0, 10), param("A", 0, 1e8), param("B", 0, 1e8), param("alpha", 0.01, 2, 0.34), param("beta", 0.01, 2, 0.28)};
        l.citation = "Hoffmann et al. 2022, Eq. (2); variable projection as Golub & Pereyra 1973 (VPNLS)";
        l.description = "L(N,D) = E + A/N^alpha + B/D^beta, squared residuals, E, A, B by non-negative least squares";
        laws.push_back(l);
    }
    {
        // Kaplan et al. 2020, Eq. (1.5): L(N,D) = ((N_c/N)^(α_N/α_D) + D_c/D)^α_D; fitted with
        // nc, dc = ln N_c, ln D_c. The paper: α_N = 0.076, α_D = 0.095, N_c = 8.8e13, D_c = 5.4e13.
        LawDefinition l;
        l.name = "kaplan";
        l.formula = "L = (exp(alphaN/alphaD*(nc - log(N))) + exp(dc - log(D)))^alphaD";
        l.parameters = {param("nc", 10, 60, 32), param("dc", 10, 60, 31), param("alphaN", 0.01, 1, 0.076), param("alphaD", 0.01, 1, 0.095)};
        l.space = LawSpace::Log;
        l.citation = "Kaplan et al. 2020, Scaling Laws for Neural Language Models, Eq. (1.5)";
        l.description = "L(N,D) = ((Nc/N)^(alphaN/alphaD) + Dc/D)^alphaD, log-space squared";
        laws.push_back(l);
    }
    {
        // Muennighoff et al. 2023, Eq. (5) with the effective data of Eq. (4):
        // D' = U + U·R*(1 − exp(−R_D/R*)), R_D = D/U − 1 repeated epochs; N' = N (unique
        // parameters, the paper's U_N = N when data repeats, not the model).
        LawDefinition l;
        l.name = "data-constrained";
        l.formula = "L = exp(e) + exp(a - alpha*log(N)) + exp(b - beta*log(U + U*rstar*(1 - exp(-(D/U - 1)/rstar))))";
        l.parameters = {param("a", 0, 30, 6), param("b", 0, 30, 7), param("e", -2, 2, 0.5), param("alpha", 0, 2, 0.34),
                        param("beta", 0, 2, 0.28), param("rstar", 0.5, 100, 15.4)};
        l.space = LawSpace::Log;
        l.loss = LawLoss::Huber;
        l.citation = "Muennighoff et al. 2023, Scaling Data-Constrained Language Models, Eqs. (4)-(5), R_D* = 15.4 in the paper";
        l.description = "Chinchilla form with effective tokens D' = U + U R*(1 - exp(-(D/U-1)/R*)); needs a U (unique tokens) column";
        laws.push_back(l);
    }
    {
        // Clark et al. 2022, Eq. (3) (a bilinear law in log N and log E), without the saturating
        // transform of E (their Eq. 9); natural logs.
        LawDefinition l;
        l.name = "moe";
        l.formula = "L = exp(d + a*log(N) + b*log(experts) + c*log(N)*log(experts))";
        l.parameters = {param("a", -1, 0.5, -0.08), param("b", -1, 0.5, -0.02), param("c", -0.2, 0.2, 0.0), param("d", -5, 10, 2)};
        l.space = LawSpace::Log;
        l.citation = "Clark et al. 2022, Unified Scaling Laws for Routed Language Models, Eq. (3) (E without saturation)";
        l.description = "log L = a log N + b log E + c log N log E + d; needs an `experts` column (number of experts E)";
        laws.push_back(l);
    }
    {
        // Tao et al. 2024, Eq. (5): L = −E + A1/N_nv^α1 + A2/N_v^α2 + B/D^β (E enters with the
        // sign of a free coefficient here). The vocabulary enters through its size V in place of
        // N_v = V·d, as the vocabulary task of Li et al. 2026 gives it.
        LawDefinition l;
        l.name = "vocab";
        l.formula = "L = E + A1/non_vocab_parameters^alpha1 + A2/vocab_size^alpha2 + B/num_characters^beta";
        l.parameters = {param("E", -10, 10, 0), param("A1", 0, 1e6), param("A2", 0, 1e6), param("B", 0, 1e6),
                        param("alpha1", 0.01, 2, 0.3), param("alpha2", 0.01, 2, 0.3), param("beta", 0.01, 2, 0.3)};
        l.citation = "Tao et al. 2024, Scaling Laws with Vocabulary, Eq. (5) (vocabulary size V for N_v)";
        l.description = "L = E + A1/Nnv^a1 + A2/V^a2 + B/D^b over non_vocab_parameters, vocab_size, num_characters; linear in E, A1, A2, B";
        laws.push_back(l);
    }
    {
        // Farseer (Li et al. 2025): L(N,D) = exp(a3 N^γ + b3) + exp(a2 N^β + b2)·D^(−exp(a1 N^α + b1)),
        // every exponent and coefficient a stretched function of N. N in units of 1e9 here so that
        // N^γ stays near 1 over the studied range.
        LawDefinition l;
        l.name = "farseer";
        l.formula = "L = exp(a3*(N/1e9)^g3 + b3) + exp(a2*(N/1e9)^g2 + b2) * (D/1e9)^(-exp(a1*(N/1e9)^g1 + b1))";
        l.parameters = {param("a1", -5, 5, 0.1), param("b1", -5, 2, -1), param("g1", -1, 1, 0.1), param("a2", -5, 5, 0.5),
                        param("b2", -5, 5, 0), param("g2", -1, 1, -0.1), param("a3", -5, 5, 0.5), param("b3", -5, 3, 0.3),
                        param("g3", -1, 1, -0.1)};
        l.space = LawSpace::Log;
        l.citation = "Li et al. 2025, Farseer: A Refined Scaling Law in Large Language Models, Eq. (Farseer L(N,D))";
        l.description = "L = exp(a3 N^g3 + b3) + exp(a2 N^g2 + b2) D^-exp(a1 N^g1 + b1), N and D in units of 1e9 (9 parameters)";
        laws.push_back(l);
    }
    {
        // A compute power law with an irreducible term, as the over-training and Pareto analyses
        // of the xLSTM paper (Sec. "Loss over compute") and Hoffmann et al. 2022 Fig. 2 read it.
        LawDefinition l;
        l.name = "compute";
        l.formula = "L = E + exp(a - alpha*log(C))";
        l.parameters = {param("E", 0, 10, 1.5), param("a", -10, 60, 10), param("alpha", 0, 2, 0.15)};
        l.space = LawSpace::Log;
        l.citation = "Hoffmann et al. 2022, Fig. 2 / Henighan et al. 2020, L(C) = E + A C^-alpha";
        l.description = "L(C) = E + A C^-alpha, log-space squared";
        laws.push_back(l);
    }
    return laws;
}

}  // namespace

const std::vector<LawDefinition>& shippedLaws() {
    static const std::vector<LawDefinition> laws = makeLaws();
    return laws;
}

std::optional<LawDefinition> shippedLaw(std::string_view name) {
    auto lower = [](std::string_view s) {
        std::string out(s);
        std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return out;
    };
    const std::string want = lower(name);
    for (const auto& l : shippedLaws())
        if (l.name == want) return l;
    return std::nullopt;
}

}  // namespace scalex::fit
