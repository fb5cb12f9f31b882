# Independent NumPy (float64) forward pass of a Hugging Face LlamaForCausalLM directory, written from the
# published architecture (RMSNorm, rotate-half RoPE, grouped-query attention, SwiGLU, tied or separate LM head),
# reading config.json and the safetensors files itself (8-byte little-endian header length, JSON header, raw data).
# Usage: python3 hf_llama_reference.py DIR STEPS PROMPT_IDS(comma-separated)
# Prints one JSON object: {"tokens": [greedy ids after the prompt], "logits": [[vocab floats] per generated token]}.
import json, os, struct, sys
import numpy as np

DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2")}

def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, t = e["data_offsets"]
        raw = np.frombuffer(data[base + b:base + t], dtype=DTYPES[e["dtype"]])
        if e["dtype"] == "BF16":
            raw = (raw.astype(np.uint32) << 16).view(np.float32)
        out[name] = raw.astype(np.float64).reshape(e["shape"])
    return out

def load(d):
    cfg = json.load(open(os.path.join(d, "config.json")))
    idx = os.path.join(d, "model.safetensors.index.json")
    w = {}
    if os.path.exists(idx):
        for shard in sorted(set(json.load(open(idx))["weight_map"].values())):
            w.update(read_safetensors(os.path.join(d, shard)))
    else:
        w = read_safetensors(os.path.join(d, "model.safetensors"))
    return cfg, w

def main():
    d, steps = sys.argv[1], int(sys.argv[2])
    prompt = [int(t) for t in sys.argv[3].split(",")]
    cfg, w = load(d)
    H = cfg["num_attention_heads"]; KV = cfg.get("num_key_value_heads") or H
    D = cfg["hidden_size"]; hd = D // H; L = cfg["num_hidden_layers"]
    eps = cfg.get("rms_norm_eps", 1e-6); theta = cfg.get("rope_theta", 10000.0)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else w["lm_head.weight"]
    inv_freq = 1.0 / theta ** (np.arange(0, hd, 2) / hd)

    def rms(x, g):
        return x / np.sqrt(np.mean(x * x) + eps) * g

    def rope(x, pos):  # x: [heads, hd]; rotate_half(x) = cat(-x2, x1)
        ang = pos * inv_freq
        cos = np.concatenate([np.cos(ang), np.cos(ang)]); sin = np.concatenate([np.sin(ang), np.sin(ang)])
        rot = np.concatenate([-x[:, hd // 2:], x[:, :hd // 2]], axis=1)
        return x * cos + rot * sin

    K = [[] for _ in range(L)]; V = [[] for _ in range(L)]
    def step(tok, pos):
        x = w["model.embed_tokens.weight"][tok].copy()
        for l in range(L):
            p = "model.layers.%d." % l
            h = rms(x, w[p + "input_layernorm.weight"])
            q = rope((w[p + "self_attn.q_proj.weight"] @ h).reshape(H, hd), pos)
            K[l].append(rope((w[p + "self_attn.k_proj.weight"] @ h).reshape(KV, hd), pos))
            V[l].append((w[p + "self_attn.v_proj.weight"] @ h).reshape(KV, hd))
            ks = np.stack(K[l]); vs = np.stack(V[l])  # [T, KV, hd]
            att = np.zeros((H, hd))
            for i in range(H):
                g = i // (H // KV)
                s = ks[:, g, :] @ q[i] / np.sqrt(hd)
                pr = np.exp(s - s.max()); pr /= pr.sum()
                att[i] = pr @ vs[:, g, :]
            x = x + w[p + "self_attn.o_proj.weight"] @ att.reshape(D)
            h = rms(x, w[p + "post_attention_layernorm.weight"])
            gate = w[p + "mlp.gate_proj.weight"] @ h
            up = w[p + "mlp.up_proj.weight"] @ h
            x = x + w[p + "mlp.down_proj.weight"] @ (gate / (1 + np.exp(-gate)) * up)
        return head @ rms(x, w["model.norm.weight"])

    logits = None
    for pos, t in enumerate(prompt):
        logits = step(t, pos)
    tokens, all_logits = [], []
    for i in range(steps):
        nxt = int(np.argmax(logits))
        tokens.append(nxt); all_logits.append([round(float(v), 6) for v in logits])
        if i + 1 < steps:
            logits = step(nxt, len(prompt) + i)
    print(json.dumps({"tokens": tokens, "logits": all_logits}))

main()
