#!/usr/bin/env python3
"""Writes the cut and mutated configs of the hf_config fuzz corpus from the config corpus.

Every config.json of tests/data/configs (and the hand-written seeds of tests/data/fuzz/hf_config
named below) is cut at a quarter, half and three quarters of its bytes (tests/data/fuzz/hf_config/cut)
and mutated one key at a time (tests/data/fuzz/hf_config/mutated): the key removed, given a string,
or given a negative number. A mutated file is named <config>~<key>~<how>.json (a key of text_config as
text_config.<key>) so that tests/unit/hf_corpus_test.cpp can check the error names that key.
The replay test (fuzz_replay_hf_config) runs all of them; run this script again after adding a
config to the corpus:  python3 tests/fuzz/make_hf_config_corpus.py
"""
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/data/configs"
SEEDS = ROOT / "tests/data/fuzz/hf_config"
SEED_NAMES = ["lfm2_1_2b", "qwen3_next_80b_a3b", "llama4_scout", "falcon_mamba_7b", "kimi_k2_5", "phi_tiny_moe", "starcoder2_keys", "nemotron_h_keys",
              "gpt_oss_120b", "zamba2_keys", "nemotron_3_nano_30b_a3b"]

# Keys that decide the architecture; the mutations of each that a config has.
KEYS = ["hidden_size", "num_hidden_layers", "vocab_size", "num_attention_heads", "num_key_value_heads", "head_dim",
        "intermediate_size", "layer_types", "sliding_window", "num_local_experts", "num_experts", "num_experts_per_tok",
        "moe_intermediate_size", "shared_expert_intermediate_size", "linear_num_value_heads", "linear_key_head_dim",
        "full_attn_idxs", "conv_L_cache", "attention_chunk_size", "no_rope_layers", "state_size", "kv_lora_rank",
        "first_k_dense_replace", "text_config", "norm_type", "use_bias", "lm_head_bias", "hybrid_override_pattern", "mamba_num_heads",
        "layers_block_type", "num_mem_blocks", "n_mamba_heads", "adapter_rank", "n_routed_experts",
        "moe_shared_expert_intermediate_size", "n_group"]
HOW = {"removed": None, "string": "x", "negative": -3}


def configs():
    for path in sorted(CORPUS.glob("*.json")):
        yield path.stem, path.read_bytes()
    for name in SEED_NAMES:
        yield name, (SEEDS / f"{name}.json").read_bytes()


def mutations(config):
    """(key, how, mutated config) for each key of KEYS the config (or its text_config) has."""
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else None
    for i, key in enumerate(KEYS):
        for owner, prefix in ((config, ""), (text, "text_config.")):
            if owner is None or key not in owner:
                continue
            how = list(HOW)[i % len(HOW)]
            mutated = json.loads(json.dumps(config))
            target = mutated if not prefix else mutated["text_config"]
            if how == "removed":
                del target[key]
            else:
                target[key] = HOW[how]
            yield prefix + key, how, mutated


def main():
    cut_dir, mutated_dir = SEEDS / "cut", SEEDS / "mutated"
    for d in (cut_dir, mutated_dir):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    for name, data in configs():
        for quarter in (1, 2, 3):
            (cut_dir / f"{name}~{quarter}q.json").write_bytes(data[: len(data) * quarter // 4])
        for key, how, mutated in mutations(json.loads(data)):
            (mutated_dir / f"{name}~{key}~{how}.json").write_text(json.dumps(mutated) + "\n")


if __name__ == "__main__":
    main()
