# Independent NumPy (float64) implementation of the llama2.c forward pass, greedy from BOS.
# Usage: python3 stories260k_reference.py stories260K.bin STEPS  -> comma-separated token ids on stdout,
# "token margin top1-top2" per step on stderr. Produced the golden ids of Stories260KTest.
import numpy as np, sys, struct
f = open(sys.argv[1], 'rb').read()
dim, hidden, layers, heads, kvh, vocab, seq = struct.unpack('<7i', f[:28])
shared = vocab > 0; vocab = abs(vocab)
a = np.frombuffer(f[28:], dtype='<f4'); o = 0
def take(*shape):
    global o
    n = int(np.prod(shape)); r = a[o:o+n].reshape(shape); o += n; return r.astype(np.float64)
hs = dim // heads; kvd = kvh * hs
emb = take(vocab, dim); ra = take(layers, dim); wq = take(layers, dim, dim); wk = take(layers, kvd, dim)
wv = take(layers, kvd, dim); wo = take(layers, dim, dim); rf = take(layers, dim); w1 = take(layers, hidden, dim)
w2 = take(layers, dim, hidden); w3 = take(layers, hidden, dim); fin = take(dim); o += seq * hs
cls = emb if shared else take(vocab, dim)
def rms(x, w): return x / np.sqrt(np.mean(x * x) + 1e-5) * w
def rope(v, pos):
    v = v.copy()
    for i in range(0, len(v), 2):
        fr = 1.0 / (10000.0 ** ((i % hs) / hs)); c, s = np.cos(pos * fr), np.sin(pos * fr)
        v0, v1 = v[i], v[i+1]; v[i] = v0 * c - v1 * s; v[i+1] = v0 * s + v1 * c
    return v
K = np.zeros((layers, seq, kvd)); V = np.zeros((layers, seq, kvd))
tok = 1; out = []
n = int(sys.argv[2])
for pos in range(n):
    x = emb[tok].copy()
    for l in range(layers):
        xb = rms(x, ra[l]); q = rope(wq[l] @ xb, pos); K[l, pos] = rope(wk[l] @ xb, pos); V[l, pos] = wv[l] @ xb
        att = np.zeros(dim)
        for h in range(heads):
            g = h // (heads // kvh)
            sc = K[l, :pos+1, g*hs:(g+1)*hs] @ q[h*hs:(h+1)*hs] / np.sqrt(hs)
            p = np.exp(sc - sc.max()); p /= p.sum()
            att[h*hs:(h+1)*hs] = p @ V[l, :pos+1, g*hs:(g+1)*hs]
        x = x + wo[l] @ att
        xb = rms(x, rf[l]); h1 = w1[l] @ xb; h3 = w3[l] @ xb
        x = x + w2[l] @ (h1 / (1 + np.exp(-h1)) * h3)
    logits = cls @ rms(x, fin)
    srt = np.sort(logits)
    tok = int(np.argmax(logits)); out.append(tok)
    sys.stderr.write("%d margin %.4f\n" % (tok, srt[-1]-srt[-2]))
print(",".join(map(str, out)))
