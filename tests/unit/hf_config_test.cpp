// Hugging Face config.json files as published beside the weights (core/data/HfConfig), read into
// model specs and counted (core/accounting/SpecAccounting). Where the publisher states an exact
// parameter count the test asserts it to the parameter; where it states a rounded one the test
// asserts the exact count from the config's shapes and that it rounds to the published figure.
#include <gtest/gtest.h>

#include <QByteArray>
#include <QJsonArray>
#include <algorithm>
#include <cmath>

#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"
#include "core/data/SpecJson.h"

using namespace scalex::accounting;
using namespace scalex::data;

namespace {

HfModel read(const char* json) {
    auto r = parseHfConfig(QByteArray(json), "config.json");
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? *r : HfModel{};
}

LoadError readError(const char* json) {
    auto r = parseHfConfig(QByteArray(json), "config.json");
    EXPECT_FALSE(r.ok());
    return r.ok() ? LoadError{} : r.error();
}

bool listed(const std::vector<ConfigField>& fields, const std::string& name) {
    return std::any_of(fields.begin(), fields.end(), [&](const ConfigField& f) { return f.name == name; });
}

// KV-cache bytes per token at context T in bf16, batch 1.
double kvPerToken(const ModelSpec& s, double T) { return kvCacheBytes(s, T, 1, 2) / T; }

// A count against a figure published to a few digits ("7.61B"): within one unit of its last digit,
// since publishers round some figures and truncate others.
bool matchesPublished(std::int64_t n, double published, double lastDigit) {
    return std::fabs(static_cast<double>(n) - published) <= lastDigit;
}

// meta-llama/Llama-2-7b-hf
constexpr const char* kLlama2_7b = R"({
  "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008, "max_position_embeddings": 4096,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "tie_word_embeddings": false,
  "torch_dtype": "float16", "transformers_version": "4.31.0.dev0", "use_cache": true, "vocab_size": 32000})";

// mistralai/Mistral-7B-v0.1
constexpr const char* kMistral7b = R"({
  "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768,
  "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0", "use_cache": true, "vocab_size": 32000})";

// mistralai/Mixtral-8x7B-v0.1
constexpr const char* kMixtral8x7b = R"({
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32, "num_experts_per_tok": 2,
  "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
  "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.36.0.dev0",
  "use_cache": true, "vocab_size": 32000})";

// openai-community/gpt2
constexpr const char* kGpt2 = R"({
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
  "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12,
  "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": null, "summary_first_dropout": 0.1,
  "summary_proj_to_labels": true, "summary_type": "cls_index", "summary_use_proj": true,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}, "vocab_size": 50257})";

// EleutherAI/pythia-160m
constexpr const char* kPythia160m = R"({
  "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
  "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05,
  "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 12, "num_hidden_layers": 12,
  "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": false, "torch_dtype": "float16",
  "transformers_version": "4.24.0", "use_cache": true, "use_parallel_residual": true, "vocab_size": 50304})";

// Qwen/Qwen2.5-7B
constexpr const char* kQwen25_7b = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
  "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
  "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
  "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 131072, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1", "use_cache": true, "use_mrope": false, "use_sliding_window": false,
  "vocab_size": 152064})";

// Qwen/Qwen2.5-0.5B
constexpr const char* kQwen25_05b = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
  "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
  "max_position_embeddings": 32768, "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.40.1",
  "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})";

// Qwen/Qwen3-8B
constexpr const char* kQwen3_8b = R"({
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
  "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false,
  "vocab_size": 151936})";

// Qwen/Qwen3-30B-A3B
constexpr const char* kQwen3_30bA3b = R"({
  "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
  "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144, "max_position_embeddings": 40960,
  "max_window_layers": 48, "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768,
  "norm_topk_prob": true, "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8,
  "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": false, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936})";

// Qwen/Qwen1.5-MoE-A2.7B
constexpr const char* kQwen15MoeA27b = R"({
  "architectures": ["Qwen2MoeForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "decoder_sparse_step": 1, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 2048,
  "initializer_range": 0.02, "intermediate_size": 5632, "max_position_embeddings": 8192, "max_window_layers": 21,
  "model_type": "qwen2_moe", "moe_intermediate_size": 1408, "norm_topk_prob": false, "num_attention_heads": 16,
  "num_experts": 60, "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 16,
  "output_router_logits": false, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
  "shared_expert_intermediate_size": 5632, "sliding_window": 32768, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.36.0.dev0", "use_cache": true, "use_sliding_window": false,
  "vocab_size": 151936})";

// deepseek-ai/DeepSeek-V3 (quantization_config and rope_scaling objects shortened)
constexpr const char* kDeepseekV3 = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "aux_loss_alpha": 0.001, "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3,
  "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432,
  "kv_lora_rank": 512, "max_position_embeddings": 163840, "model_type": "deepseek_v3", "moe_intermediate_size": 2048,
  "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": true,
  "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1, "pretraining_tp": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64, "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3",
  "quant_method": "fp8", "weight_block_size": [128, 128]}, "rms_norm_eps": 1e-06,
  "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
  "original_max_position_embeddings": 4096, "type": "yarn"}, "rope_theta": 10000, "routed_scaling_factor": 2.5,
  "scoring_func": "sigmoid", "seq_aux": true, "tie_word_embeddings": false, "topk_group": 4,
  "topk_method": "noaux_tc", "torch_dtype": "bfloat16", "transformers_version": "4.33.1", "use_cache": true,
  "v_head_dim": 128, "vocab_size": 129280})";

// google/gemma-2-9b
constexpr const char* kGemma2_9b = R"({
  "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1,
  "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 16,
  "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0, "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096, "sliding_window_size": 4096,
  "torch_dtype": "float32", "transformers_version": "4.42.0.dev0", "use_cache": true, "vocab_size": 256000})";

// google/gemma-7b
constexpr const char* kGemma7b = R"({
  "architectures": ["GemmaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 2,
  "eos_token_id": 1, "head_dim": 256, "hidden_act": "gelu", "hidden_size": 3072, "initializer_range": 0.02,
  "intermediate_size": 24576, "max_position_embeddings": 8192, "model_type": "gemma", "num_attention_heads": 16,
  "num_hidden_layers": 28, "num_key_value_heads": 16, "pad_token_id": 0, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 10000.0, "torch_dtype": "bfloat16", "transformers_version": "4.38.0.dev0",
  "use_cache": true, "vocab_size": 256000})";

// microsoft/Phi-3-mini-4k-instruct (auto_map left out)
constexpr const char* kPhi3Mini = R"({
  "architectures": ["Phi3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 1,
  "embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu", "hidden_size": 3072, "initializer_range": 0.02,
  "intermediate_size": 8192, "max_position_embeddings": 4096, "model_type": "phi3", "num_attention_heads": 32,
  "num_hidden_layers": 32, "num_key_value_heads": 32, "original_max_position_embeddings": 4096,
  "pad_token_id": 32000, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0,
  "sliding_window": 2047, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.40.2", "use_cache": true, "vocab_size": 32064})";

// allenai/OLMo-2-1124-7B
constexpr const char* kOlmo2_7b = R"({
  "architectures": ["Olmo2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "eos_token_id": 100257, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "olmo2", "num_attention_heads": 32,
  "num_hidden_layers": 32, "num_key_value_heads": 32, "pad_token_id": 100277, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 500000, "tie_word_embeddings": false, "torch_dtype": "float32",
  "transformers_version": "4.47.0.dev0", "use_cache": true, "vocab_size": 100352})";

// state-spaces/mamba-130m-hf
constexpr const char* kMamba130mHf = R"({
  "architectures": ["MambaForCausalLM"], "bos_token_id": 0, "conv_kernel": 4, "eos_token_id": 0, "expand": 2,
  "fused_add_norm": true, "hidden_act": "silu", "hidden_size": 768, "initializer_range": 0.1,
  "intermediate_size": 1536, "layer_norm_epsilon": 1e-05, "model_type": "mamba", "n_layer": 24,
  "num_hidden_layers": 24, "pad_token_id": 0, "pad_vocab_size_multiple": 8, "rescale_prenorm_residual": false,
  "residual_in_fp32": true, "rms_norm": true, "state_size": 16, "time_step_floor": 0.0001,
  "time_step_init_scheme": "random", "time_step_max": 0.1, "time_step_min": 0.001, "time_step_rank": 48,
  "time_step_scale": 1.0, "torch_dtype": "float32", "transformers_version": "4.39.0.dev0", "use_bias": false,
  "use_cache": true, "use_conv_bias": true, "vocab_size": 50280})";

// state-spaces/mamba-130m and state-spaces/mamba2-130m (mamba_ssm's own config, no model_type)
constexpr const char* kMamba130m = R"({"d_model": 768, "n_layer": 24, "vocab_size": 50277, "ssm_cfg": {},
  "rms_norm": true, "residual_in_fp32": true, "fused_add_norm": true, "pad_vocab_size_multiple": 8})";
constexpr const char* kMamba2_130m = R"({"d_model": 768, "d_intermediate": 0, "n_layer": 24, "vocab_size": 50277,
  "ssm_cfg": {"layer": "Mamba2"}, "attn_layer_idx": [], "attn_cfg": {}, "rms_norm": true, "residual_in_fp32": true,
  "fused_add_norm": true, "pad_vocab_size_multiple": 16, "tie_embeddings": true})";

// mistralai/Mamba-Codestral-7B-v0.1
constexpr const char* kMambaCodestral = R"({
  "architectures": ["Mamba2ForCausalLM"], "bos_token_id": 0, "chunk_size": 256, "conv_kernel": 4, "eos_token_id": 0,
  "expand": 2, "head_dim": 64, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.1,
  "layer_norm_epsilon": 1e-05, "model_type": "mamba2", "n_groups": 8, "norm_before_gate": true, "num_heads": 128,
  "num_hidden_layers": 64, "pad_token_id": 0, "rescale_prenorm_residual": false, "residual_in_fp32": true,
  "rms_norm": true, "state_size": 128, "tie_word_embeddings": false, "time_step_floor": 0.0001,
  "time_step_max": 0.1, "time_step_min": 0.001, "time_step_rank": 256, "torch_dtype": "bfloat16",
  "transformers_version": "4.44.0.dev0", "use_bias": false, "use_cache": true, "use_conv_bias": true,
  "vocab_size": 32768})";

// ai21labs/AI21-Jamba-1.5-Mini (the Jamba-v0.1 architecture)
constexpr const char* kJamba = R"({
  "architectures": ["JambaForCausalLM"], "attention_dropout": 0.0, "attn_layer_offset": 4, "attn_layer_period": 8,
  "bos_token_id": 1, "eos_token_id": [2, 518], "expert_layer_offset": 1, "expert_layer_period": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "mamba_conv_bias": true, "mamba_d_conv": 4, "mamba_d_state": 16, "mamba_dt_rank": 256, "mamba_expand": 2,
  "mamba_proj_bias": false, "max_position_embeddings": 262144, "model_type": "jamba", "num_attention_heads": 32,
  "num_experts": 16, "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "num_logits_to_keep": 1, "output_router_logits": false, "pad_token_id": 0, "rms_norm_eps": 1e-06,
  "router_aux_loss_coef": 0.001, "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.40.2", "use_cache": true, "use_mamba_kernels": false, "vocab_size": 65536})";

// NX-AI/xLSTM-7b (the paper's xLSTM 7B)
constexpr const char* kXlstm7b = R"({
  "architectures": ["xLSTMForCausalLM"], "model_type": "xlstm", "embedding_dim": 4096, "num_blocks": 32,
  "num_heads": 8, "vocab_size": 50304, "qk_dim_factor": 0.5, "v_dim_factor": 1.0, "ffn_proj_factor": 2.667,
  "ffn_round_up_to_multiple_of": 64, "mlstm_round_up_to_multiple_of": 64, "chunk_size": 64, "use_bias": false,
  "add_out_norm": true, "tie_word_embeddings": false, "gate_soft_cap": 15.0, "output_logit_soft_cap": 30.0,
  "norm_eps": 1e-06, "norm_reduction_force_float32": true, "weight_mode": "single", "torch_dtype": "bfloat16"})";

}  // namespace

// Counts publishers state to the parameter (the safetensors totals of the HF hub, the Pythia
// table, the paper's own xLSTM 7B), and the KV cache per token against hand counts.
TEST(HfConfig, DenseDecodersMatchPublishedCountsExactly) {
    const HfModel llama = read(kLlama2_7b);
    EXPECT_EQ(paramCounts(llama.spec).total(), 6'738'415'616);
    EXPECT_DOUBLE_EQ(kvPerToken(llama.spec, 8192), 2.0 * 32 * 4096 * 2);  // 524,288 B: MHA, 2 (K, V) x 32 layers x 4096

    const HfModel mistral = read(kMistral7b);
    EXPECT_EQ(paramCounts(mistral.spec).total(), 7'241'732'096);
    // 2 x 32 layers x 8 kv heads x 128 x 2 bytes = 131,072 B per token up to the 4096 window, then capped.
    EXPECT_DOUBLE_EQ(kvCacheBytes(mistral.spec, 4096, 1, 2), 131072.0 * 4096);
    EXPECT_DOUBLE_EQ(kvCacheBytes(mistral.spec, 8192, 1, 2), 131072.0 * 4096);

    const HfModel gpt2 = read(kGpt2);
    EXPECT_EQ(paramCounts(gpt2.spec).total(), 124'439'808);  // tied head, 1024 learned positions, biases
    EXPECT_EQ(paramCounts(gpt2.spec).all.head, 0);
    EXPECT_DOUBLE_EQ(kvPerToken(gpt2.spec, 1024), 2.0 * 12 * 768 * 2);

    const HfModel pythia = read(kPythia160m);
    EXPECT_EQ(paramCounts(pythia.spec).total(), 162'322'944);  // Pythia README: 162,322,944 total,
    EXPECT_EQ(paramCounts(pythia.spec).all.nonEmbedding(), 85'056'000);  // 85,056,000 non-embedding

    const HfModel xlstm = read(kXlstm7b);
    EXPECT_EQ(paramCounts(xlstm.spec).total(), 6'865'424'896);  // the paper's xLSTM 7B (reference README (c))
    EXPECT_TRUE(xlstm.spec == fromPaperConfig(makeStudyConfig(Family::Xlstm, 4096, 32, 8)));  // the same spec
}

// Counts publishers state rounded: the exact count from the config's shapes, and its rounding.
TEST(HfConfig, DenseDecodersRoundToPublishedCounts) {
    const auto qwen7 = paramCounts(read(kQwen25_7b).spec);
    EXPECT_EQ(qwen7.total(), 7'615'616'512);  // Qwen2.5-7B card: 7.61B, 6.53B non-embedding
    EXPECT_PRED3(matchesPublished, qwen7.total(), 7.61 * 1e9, 1e+07);
    EXPECT_PRED3(matchesPublished, qwen7.all.nonEmbedding(), 6.53 * 1e9, 1e+07);

    const auto qwen05 = paramCounts(read(kQwen25_05b).spec);
    EXPECT_EQ(qwen05.total(), 494'032'768);  // Qwen2.5-0.5B card: 0.49B, 0.36B non-embedding (tied)
    EXPECT_PRED3(matchesPublished, qwen05.all.nonEmbedding(), 0.36 * 1e9, 1e+07);

    const auto qwen3 = paramCounts(read(kQwen3_8b).spec);
    EXPECT_EQ(qwen3.total(), 8'190'735'360);  // Qwen3-8B card: 8.2B, 6.95B non-embedding
    EXPECT_PRED3(matchesPublished, qwen3.all.nonEmbedding(), 6.95 * 1e9, 1e+07);

    EXPECT_PRED3(matchesPublished, qwen3.total(), 8.2 * 1e9, 1e8);

    const std::pair<const char*, std::pair<std::int64_t, std::pair<double, double>>> others[] = {
        {kGemma2_9b, {9'241'705'984, {9.24e9, 1e7}}},  // gemma-2-9b: 9.24B
        {kGemma7b, {8'537'680'896, {8.54e9, 1e7}}},    // gemma-7b: 8.54B
        {kPhi3Mini, {3'821'079'552, {3.8e9, 1e8}}},    // Phi-3-mini: 3.8B
        {kOlmo2_7b, {7'298'617'344, {7.3e9, 1e8}}},    // OLMo-2-1124-7B: 7.3B
    };
    for (const auto& [json, want] : others) {
        const std::int64_t n = paramCounts(read(json).spec).total();
        EXPECT_EQ(n, want.first);
        EXPECT_PRED3(matchesPublished, n, want.second.first, want.second.second);
    }
}

// Biases and q/k norms, each from its modeling code: Qwen2Attention's q, k, v biases; Qwen3Attention's
// q_norm and k_norm over head_dim; Olmo2Attention's over all heads; GPT-2's Conv1D and LayerNorm biases.
TEST(HfConfig, BiasesAndQkNormsAreCountedAsTheModelingCodeHasThem) {
    const std::int64_t qwen2 = paramCounts(read(kQwen25_7b).spec).all.attention;
    EXPECT_EQ(qwen2, 28 * (3584LL * (3584 + 2 * 512) + (3584 + 2 * 512) + 3584LL * 3584));
    const std::int64_t qwen3 = paramCounts(read(kQwen3_8b).spec).all.attention;
    EXPECT_EQ(qwen3, 36 * (4096LL * (4096 + 2 * 1024) + 4096LL * 4096 + 2 * 128));
    const std::int64_t olmo = paramCounts(read(kOlmo2_7b).spec).all.attention;
    EXPECT_EQ(olmo, 32 * (4 * 4096LL * 4096 + 2 * 4096));
    const auto gpt2 = paramCounts(read(kGpt2).spec).all;
    EXPECT_EQ(gpt2.attention, 12 * (768LL * 2304 + 2304 + 768LL * 768 + 768));
    EXPECT_EQ(gpt2.feedForward, 12 * (2 * 768LL * 3072 + 3072 + 768));
    EXPECT_EQ(gpt2.norms, (12 * 2 + 1) * 2 * 768);
    EXPECT_EQ(gpt2.embedding, (50257 + 1024) * 768LL);
}

TEST(HfConfig, MixtureOfExpertsCountsTotalAndActive) {
    // Mixtral of Experts (Jiang et al. 2024): 46.7B total, 12.9B active; the hub's count is exact.
    const auto mixtral = paramCounts(read(kMixtral8x7b).spec);
    EXPECT_EQ(mixtral.total(), 46'702'792'704);
    EXPECT_PRED3(matchesPublished, mixtral.total(), 46.7e9, 1e8);
    EXPECT_EQ(mixtral.activeTotal(), 12'879'925'248);
    EXPECT_PRED3(matchesPublished, mixtral.activeTotal(), 12.9 * 1e9, 1e+08);

    // Qwen3-30B-A3B card: 30.5B total, 3.3B activated, 29.9B non-embedding.
    const auto qwen = paramCounts(read(kQwen3_30bA3b).spec);
    EXPECT_EQ(qwen.total(), 30'532'122'624);
    EXPECT_EQ(qwen.activeTotal(), 3'353'032'704);
    EXPECT_PRED3(matchesPublished, qwen.total(), 30.5e9, 1e8);
    EXPECT_PRED3(matchesPublished, qwen.activeTotal(), 3.3e9, 1e8);
    EXPECT_PRED3(matchesPublished, qwen.all.nonEmbedding(), 29.9 * 1e9, 1e+08);

    // Qwen1.5-MoE-A2.7B card: 14.3B total, 2.7B activated (2.0B non-embedding); a shared expert with its gate.
    const auto qwenMoe = paramCounts(read(kQwen15MoeA27b).spec);
    EXPECT_EQ(qwenMoe.total(), 14'315'784'192);
    EXPECT_PRED3(matchesPublished, qwenMoe.total(), 14.3e9, 1e8);
    EXPECT_PRED3(matchesPublished, qwenMoe.activeTotal(), 2.7 * 1e9, 1e+08);
    EXPECT_PRED3(matchesPublished, qwenMoe.active.nonEmbedding(), 2.0 * 1e9, 1e+08);
}

// DeepSeek-V3 report (Sec. 1, 2): 671B total, 37B activated for each token, beside a 14B
// multi-token-prediction module (685B on the hub). The main model from the config: 61 layers (3 dense,
// 58 with 256 routed + 1 shared expert), multi-head latent attention, untied head, the per-expert score
// bias of the noaux_tc router counted (it is stored with the weights); the MTP layer is not.
TEST(HfConfig, DeepseekV3CountsTheMainModel) {
    const HfModel v3 = read(kDeepseekV3);
    const auto p = paramCounts(v3.spec);
    EXPECT_EQ(p.total(), 671'026'419'200);
    EXPECT_EQ(p.activeTotal(), 37'552'297'472);
    EXPECT_PRED3(matchesPublished, p.total(), 671 * 1e9, 1e+09);
    EXPECT_PRED3(matchesPublished, p.activeTotal(), 37e9, 1e9);
    EXPECT_EQ(v3.spec.layerCount(FeedForwardKind::Dense), 3);
    EXPECT_EQ(v3.spec.layerCount(FeedForwardKind::Moe), 58);
    EXPECT_TRUE(listed(v3.report.ignored, "num_nextn_predict_layers"));
    // The latent cache: (512 + 64) elements per layer and token, 61 layers, bf16: 70,272 B per token.
    EXPECT_DOUBLE_EQ(kvPerToken(v3.spec, 8192), 61.0 * 576 * 2);
}

TEST(HfConfig, StateSpaceModelsCarryAConstantState) {
    // mamba-130m: 24 layers of d 768, N 16; 129.1M with the vocabulary padded to 50280.
    const HfModel hf = read(kMamba130mHf);
    const HfModel ssm = read(kMamba130m);
    EXPECT_EQ(paramCounts(hf.spec).total(), 129'135'360);
    EXPECT_EQ(paramCounts(ssm.spec).total(), 129'135'360);
    EXPECT_PRED3(matchesPublished, paramCounts(hf.spec).total(), 129e6, 1e6);
    EXPECT_EQ(hf.spec.mamba, ssm.spec.mamba);
    // State per layer: conv 1536 x 4 and SSM 1536 x 16 elements, constant in T.
    EXPECT_DOUBLE_EQ(cacheElements(hf.spec, 8192).state, 24.0 * (1536 * 4 + 1536 * 16));
    EXPECT_DOUBLE_EQ(cacheElements(hf.spec, 8192).kv, 0);
    EXPECT_DOUBLE_EQ(kvCacheBytes(hf.spec, 100, 1, 2), kvCacheBytes(hf.spec, 100000, 1, 2));

    // mamba2-130m: 24 Mamba-2 layers (d_state 128, headdim 64, one group), vocabulary padded to 50288.
    const auto m2 = paramCounts(read(kMamba2_130m).spec);
    EXPECT_EQ(m2.total(), 128'989'632);
    EXPECT_PRED3(matchesPublished, m2.total(), 129 * 1e6, 1e+06);

    // Mamba-Codestral-7B: 7.29B on the hub.
    const HfModel codestral = read(kMambaCodestral);
    EXPECT_EQ(paramCounts(codestral.spec).total(), 7'285'403'648);
    EXPECT_PRED3(matchesPublished, paramCounts(codestral.spec).total(), 7.29e9, 1e7);
    EXPECT_DOUBLE_EQ(cacheElements(codestral.spec, 1).state, 64.0 * ((8192 + 2 * 8 * 128) * 4 + 8192 * 128));
}

// Jamba (Lieber et al. 2024): 52B total, 12B active; one attention layer in eight, experts in every
// other layer; the KV cache of 4 attention layers only.
TEST(HfConfig, JambaIsAHybridOfMambaAttentionAndExperts) {
    const HfModel jamba = read(kJamba);
    EXPECT_EQ(jamba.spec.layerCount(MixerKind::Attention), 4);
    EXPECT_EQ(jamba.spec.layerCount(MixerKind::Mamba), 28);
    EXPECT_EQ(jamba.spec.layerCount(FeedForwardKind::Moe), 16);
    const auto p = paramCounts(jamba.spec);
    EXPECT_EQ(p.total(), 51'570'323'328);
    EXPECT_EQ(p.activeTotal(), 12'110'311'296);
    EXPECT_PRED3(matchesPublished, p.total(), 52 * 1e9, 1e+09);
    EXPECT_PRED3(matchesPublished, p.activeTotal(), 12 * 1e9, 1e+09);
    const CacheElements e = cacheElements(jamba.spec, 8192);
    EXPECT_DOUBLE_EQ(e.kv, 4.0 * 2 * 8 * 128 * 8192);
    EXPECT_DOUBLE_EQ(e.state, 28.0 * (8192 * 4 + 8192 * 16));
}

TEST(HfConfig, SlidingWindowsFollowEachTypesRule) {
    // Gemma 2: local (4096) and global layers alternate, layer 0 local.
    const HfModel gemma = read(kGemma2_9b);
    EXPECT_TRUE(gemma.spec.layers[0].local);
    EXPECT_FALSE(gemma.spec.layers[1].local);
    EXPECT_DOUBLE_EQ(kvCacheBytes(gemma.spec, 8192, 1, 2), 2.0 * 8 * 256 * 2 * (21 * 4096 + 21 * 8192));
    // Qwen2 with use_sliding_window false has no window although sliding_window is given.
    const HfModel qwen = read(kQwen25_7b);
    EXPECT_TRUE(std::none_of(qwen.spec.layers.begin(), qwen.spec.layers.end(), [](const LayerSpec& l) { return l.local; }));
    EXPECT_TRUE(listed(qwen.report.ignored, "sliding_window"));
    // Mixtral's sliding_window null: none.
    EXPECT_EQ(read(kMixtral8x7b).spec.attention.slidingWindow, 0);
    // layer_types, where given, decides.
    const HfModel typed = read(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 3,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "sliding_window": 16,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]})");
    EXPECT_TRUE(typed.spec.layers[0].local);
    EXPECT_FALSE(typed.spec.layers[1].local);
    EXPECT_EQ(typed.spec.attention.slidingWindow, 16);
}

TEST(HfConfig, ReportsUsedIgnoredAndAssumedFields) {
    const HfModel llama = read(kLlama2_7b);
    EXPECT_EQ(llama.report.modelType, "llama");
    for (const char* used : {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                             "intermediate_size", "vocab_size", "tie_word_embeddings"})
        EXPECT_TRUE(listed(llama.report.used, used)) << used;
    for (const char* ignored : {"rope_scaling", "rms_norm_eps", "max_position_embeddings", "torch_dtype", "pretraining_tp"})
        EXPECT_TRUE(listed(llama.report.ignored, ignored)) << ignored;
    for (const char* assumed : {"attention_bias", "mlp_bias", "head_dim"}) EXPECT_TRUE(listed(llama.report.assumed, assumed)) << assumed;
    // Every key of the file is either used or ignored.
    EXPECT_EQ(llama.report.used.size() + llama.report.ignored.size(), 20u);

    const HfModel mamba = read(kMamba2_130m);
    EXPECT_EQ(mamba.report.modelType, "mamba_ssm");
    EXPECT_TRUE(listed(mamba.report.used, "ssm_cfg.layer"));
    EXPECT_TRUE(listed(mamba.report.assumed, "ssm_cfg.d_state"));
    EXPECT_EQ(mamba.spec.vocab, 50288);
}

TEST(HfConfig, ForwardFlopsAreTwoPerActiveWeightPlusAttention) {
    // Kaplan et al. 2020, Tab. 1: 2 N + 2 n_layer n_ctx d_attn per token (here causal, so half the
    // context, with the study's softmax term); within 1 % for dense and expert models.
    for (const char* json : {kLlama2_7b, kMistral7b, kMixtral8x7b, kQwen3_30bA3b}) {
        const HfModel m = read(json);
        const auto p = paramCounts(m.spec);
        const double T = 4096;
        const auto& a = m.spec.attention;
        const double attention = static_cast<double>(m.spec.layers.size()) * 2 * static_cast<double>(a.nHeads) * (T / 2) *
                                 static_cast<double>(a.dQk + a.dV);
        const double independent = 2.0 * static_cast<double>(p.activeTotal() - p.active.embedding) + attention;
        EXPECT_NEAR(forwardFlopsPerToken(m.spec, T).total(), independent, 0.01 * independent) << m.report.modelType;
    }
}

TEST(HfConfig, BadConfigsAreOneErrorNamingTheField) {
    // A required field missing.
    LoadError e = readError(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100})");
    EXPECT_EQ(e.column, "hidden_size");
    EXPECT_EQ(e.file, "config.json");
    // Heads that do not divide the width.
    e = readError(R"({"model_type": "llama", "hidden_size": 100, "num_hidden_layers": 2, "num_attention_heads": 3,
        "intermediate_size": 128, "vocab_size": 100})");
    EXPECT_EQ(e.column, "num_attention_heads");
    EXPECT_NE(e.message.find("does not divide hidden_size"), std::string::npos);
    // Key/value heads that do not divide the query heads.
    e = readError(R"({"model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 3, "intermediate_size": 128, "vocab_size": 100})");
    EXPECT_EQ(e.column, "num_key_value_heads");
    // A type Scalex has no parser for is read by its keys; without the number of layers it is refused
    // naming that key, with or without a model_type.
    e = readError(R"({"model_type": "llava", "hidden_size": 64})");
    EXPECT_EQ(e.column, "num_hidden_layers");
    EXPECT_EQ(e.message, "missing; the layers cannot be determined without it (nor num_layers, n_layer or n_layers)");
    EXPECT_EQ(e.toString(), "config.json, key 'num_hidden_layers': " + e.message);
    e = readError(R"({"hidden_size": 64})");
    EXPECT_EQ(e.column, "num_hidden_layers");
    // An unknown layer type in a hybrid pattern.
    e = readError(R"({"model_type": "jamba", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 4, "intermediate_size": 128, "vocab_size": 100, "layers_block_type": ["attention", "rwkv"]})");
    EXPECT_EQ(e.column, "layers_block_type");
    EXPECT_NE(e.message.find("layer 1: unknown layer type \"rwkv\""), std::string::npos);
    e = readError(R"({"d_model": 64, "n_layer": 2, "vocab_size": 100, "ssm_cfg": {"layer": "Mamba3"}})");
    EXPECT_EQ(e.column, "ssm_cfg.layer");
    // Contradictory fields.
    e = readError(R"({"model_type": "gpt2", "n_embd": 768, "hidden_size": 1024, "n_layer": 2, "n_head": 12, "vocab_size": 100})");
    EXPECT_EQ(e.column, "hidden_size");
    EXPECT_NE(e.message.find("contradicts n_embd"), std::string::npos);
    e = readError(R"({"model_type": "mamba2", "hidden_size": 768, "num_heads": 20, "head_dim": 64, "num_hidden_layers": 2,
        "vocab_size": 100, "n_groups": 1})");
    EXPECT_EQ(e.column, "num_heads");
    e = readError(R"({"model_type": "mamba", "hidden_size": 768, "intermediate_size": 1000, "num_hidden_layers": 2, "vocab_size": 100})");
    EXPECT_EQ(e.column, "intermediate_size");
    // Values of the wrong kind, out of range, or beyond any model.
    e = readError(R"({"model_type": "llama", "hidden_size": "4096", "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100})");
    EXPECT_EQ(e.column, "hidden_size");
    e = readError(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2.5, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100})");
    EXPECT_EQ(e.column, "num_hidden_layers");
    e = readError(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1e12, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100})");
    EXPECT_EQ(e.column, "num_hidden_layers");
    e = readError(R"({"model_type": "llama", "hidden_size": 1e15, "num_hidden_layers": 8, "num_attention_heads": 1,
        "intermediate_size": 128, "vocab_size": 100})");
    EXPECT_NE(e.message.find("beyond any model"), std::string::npos);
    e = readError(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 4, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 8})");
    EXPECT_EQ(e.column, "num_experts_per_tok");
    // Not JSON, or not an object.
    e = readError("{\"model_type\": \n\"llama\",");
    EXPECT_EQ(e.line, 2);
    e = readError("[1, 2]");
    EXPECT_NE(e.message.find("JSON object"), std::string::npos);
}

// Scalex's own spec JSON: every config above, and the paper's two, come back as the same spec.
TEST(SpecJson, EveryConfigRoundTripsThroughTheSpecJson) {
    std::vector<ModelSpec> specs = {fromPaperConfig(makeStudyConfig(Family::Transformer, 1024, 24, 16)),
                                    fromPaperConfig(makeStudyConfig(Family::Xlstm, 1024, 24, 4))};
    for (const char* json : {kLlama2_7b, kMistral7b, kMixtral8x7b, kGpt2, kPythia160m, kQwen25_7b, kQwen25_05b, kQwen3_8b,
                             kQwen3_30bA3b, kQwen15MoeA27b, kDeepseekV3, kGemma2_9b, kGemma7b, kPhi3Mini, kOlmo2_7b,
                             kMamba130mHf, kMamba130m, kMamba2_130m, kMambaCodestral, kJamba, kXlstm7b})
        specs.push_back(read(json).spec);
    for (const ModelSpec& spec : specs) {
        const QByteArray bytes = specJsonBytes(spec);
        auto back = parseSpecJson(bytes, "spec.json");
        ASSERT_TRUE(back) << back.error().toString() << "\n" << bytes.toStdString();
        EXPECT_TRUE(*back == spec) << bytes.toStdString();
        EXPECT_EQ(paramCounts(*back).total(), paramCounts(spec).total());
        // A model file is either kind: the spec JSON and a config.json give the same spec.
        auto file = parseModelFile(bytes, "spec.json");
        ASSERT_TRUE(file);
        EXPECT_TRUE(file->spec == spec);
    }
    auto fromConfig = parseModelFile(QByteArray(kMistral7b), "config.json");
    ASSERT_TRUE(fromConfig);
    EXPECT_EQ(fromConfig->report.modelType, "mistral");
    // Layers are written as runs: Mistral's 32 local layers are one run.
    const QJsonObject mistral = specToJson(read(kMistral7b).spec);
    ASSERT_EQ(mistral.value("layers").toArray().size(), 1);
    EXPECT_EQ(mistral.value("layers").toArray()[0].toObject().value("repeat").toInt(), 32);
    EXPECT_EQ(mistral.value("layers").toArray()[0].toObject().value("local").toBool(), true);
    EXPECT_FALSE(mistral.contains("mamba"));  // blocks no layer uses and left empty are not written
}

TEST(SpecJson, BadSpecsAreOneErrorNamingTheField) {
    const auto error = [](const char* json) {
        auto r = parseSpecJson(QByteArray(json), "spec.json");
        EXPECT_FALSE(r.ok());
        return r.ok() ? LoadError{} : r.error();
    };
    const std::string head = R"({"format": "scalex-model-spec", "format_version": 1, "d_model": 64, "vocab": 100, )";
    const std::string layers = R"("layers": [{"mixer": "attention", "feed_forward": "dense", "repeat": 2}])";
    const std::string att = R"("attention": {"n_heads": 4, "n_kv_heads": 2, "d_qk": 16, "d_v": 16}, "feed_forward": {"width": 128}, )";
    ASSERT_TRUE(parseSpecJson(QByteArray::fromStdString(head + att + layers + "}"), "spec.json").ok());

    LoadError e = error((head + att + R"("layers": [{"mixer": "rwkv"}]})").c_str());
    EXPECT_EQ(e.column, "layers[0].mixer");
    EXPECT_EQ(e.message, "expected one of attention, mlstm, mamba, delta_net, short_conv, got \"rwkv\"");
    e = error((head + att + layers + R"(, "n_layers": 2})").c_str());
    EXPECT_EQ(e.column, "n_layers");
    EXPECT_EQ(e.message, "unknown field of a model spec");
    e = error((head + R"("attention": {"n_heads": 4, "n_kv_heads": 3, "d_qk": 16, "d_v": 16}, "feed_forward": {"width": 128}, )" + layers + "}").c_str());
    EXPECT_EQ(e.column, "attention.n_kv_heads");
    EXPECT_EQ(e.message, "the 4 query heads must be a multiple of the 3 key/value heads");
    e = error((head + R"("attention": {"n_heads": "4"}, )" + layers + "}").c_str());
    EXPECT_EQ(e.column, "attention.n_heads");
    EXPECT_EQ(e.message, "expected a whole number of at least 0, got \"4\"");
    e = error((head + att + R"("layers": [{"mixer": "attention", "repeat": 0}]})").c_str());
    EXPECT_EQ(e.column, "layers[0].repeat");
    e = error(R"({"format": "scalex-model-spec", "format_version": 1, "d_model": 64, "vocab": 100})");
    EXPECT_EQ(e.column, "layers");
    EXPECT_EQ(e.message, "missing; a spec lists its layers");
    e = error(R"({"format": "scalex-model-spec", "format_version": 2, "layers": []})");
    EXPECT_EQ(e.column, "format_version");
    e = error(R"({"model_type": "llama"})");
    EXPECT_EQ(e.column, "format");
    EXPECT_EQ(e.file, "spec.json");
}
