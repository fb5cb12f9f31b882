package org.llmnpu.sw.dllm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The NPU-visible memory of a denoiser pass laid out from tensor lifetimes (llada.cpp's swap-optimized runtime, on
 * our NPU: the external-memory window its program touches). Resident for the whole decode: the INT8 weights and the
 * KV cache (INT8 keys and values of every position). Per pass, the activations, each live from the operation that
 * writes it to the last that reads it (operations numbered in program order, per layer: the Q/K/V projections, each
 * head's scores then values, the output projection, gate and up, down; then the classifier):
 * the normalized input {@code xb} (INT8), Q, K, V (INT32), each head's scores (INT32), the attention output, the
 * projection's output, {@code xb} again for the FFN, gate and up (INT32), the down projection's output and the
 * classifier's logits. Each tensor is line-aligned.
 *
 * <p>{@link #naiveBytes} gives every activation its own address (a layout without lifetimes);
 * {@link #arenaBytes} places them first-fit by decreasing size into the lowest offset free over their lifetime
 * (tensors whose lifetimes overlap never share a byte), so the window is weights + KV + the arena.
 */
public final class PassLayout {
  /** One activation tensor: bytes, first and last operation, and its placed offset in the arena. */
  public record Tensor(String name, long bytes, int first, int last, long offset) {
    boolean livesWith(Tensor o) {
      return first <= o.last && o.first <= last;
    }
  }

  /** The layout: resident bytes, the activations placed, their naive sum and the arena's size. */
  public record Layout(long weightBytes, long kvBytes, List<Tensor> tensors, long naiveBytes, long arenaBytes) {
    public long compactWindow() {
      return weightBytes + kvBytes + arenaBytes;
    }

    public long naiveWindow() {
      return weightBytes + kvBytes + naiveBytes;
    }
  }

  private PassLayout() {
  }

  private static long up(long v, int line) {
    return (v + line - 1) / line * line;
  }

  /** The layout of a pass of {@code rows} rows over {@code context} keys, for a sequence of {@code length}. */
  public static Layout of(ModelConfig c, int rows, int context, int length, int line) {
    List<Tensor> t = new ArrayList<>();
    int op = 0;
    for (int l = 0; l < c.layers(); l++) {
      int qkv = op;
      op += 3;
      int headsStart = op;
      op += 2 * c.heads();
      int wo = op++;
      int gateUp = op;
      op += 2;
      int down = op++;
      t.add(tensor("L" + l + " xb", (long) rows * c.dim(), line, qkv - 1, qkv + 2));
      t.add(tensor("L" + l + " q", 4L * rows * c.dim(), line, qkv, headsStart + 2 * c.heads() - 2));
      t.add(tensor("L" + l + " k", 4L * rows * c.kvDim(), line, qkv + 1, headsStart + 2 * c.heads() - 2));
      t.add(tensor("L" + l + " v", 4L * rows * c.kvDim(), line, qkv + 2, headsStart + 2 * c.heads() - 1));
      for (int h = 0; h < c.heads(); h++) {
        t.add(tensor("L" + l + " h" + h + " scores", 4L * rows * context, line, headsStart + 2 * h,
            headsStart + 2 * h + 1));
      }
      t.add(tensor("L" + l + " attention", 4L * rows * c.dim(), line, headsStart + 1, wo));
      t.add(tensor("L" + l + " wo out", 4L * rows * c.dim(), line, wo, gateUp - 1));
      t.add(tensor("L" + l + " xb ffn", (long) rows * c.dim(), line, wo, gateUp + 1));
      t.add(tensor("L" + l + " gate", 4L * rows * c.hiddenDim(), line, gateUp, down));
      t.add(tensor("L" + l + " up", 4L * rows * c.hiddenDim(), line, gateUp + 1, down));
      t.add(tensor("L" + l + " down out", 4L * rows * c.dim(), line, down, down + 1));
    }
    t.add(tensor("logits", 4L * rows * c.vocabSize(), line, op, op + 1));
    long naive = t.stream().mapToLong(Tensor::bytes).sum();
    List<Tensor> placed = place(t);
    long arena = placed.stream().mapToLong(x -> x.offset() + x.bytes()).max().orElse(0);
    long weights = (long) c.layers() * (2L * c.dim() * c.dim() + 2L * c.dim() * c.kvDim()
        + 3L * c.dim() * c.hiddenDim()) + (long) c.dim() * c.vocabSize();
    long kv = up(2L * c.layers() * length * c.kvDim(), line);
    return new Layout(up(weights, line), kv, placed, naive, arena);
  }

  private static Tensor tensor(String name, long bytes, int line, int first, int last) {
    return new Tensor(name, up(bytes, line), Math.max(0, first), last, -1);
  }

  /** First fit by decreasing size (ties by first use, then name): the lowest offset free over the lifetime. */
  static List<Tensor> place(List<Tensor> tensors) {
    List<Tensor> order = new ArrayList<>(tensors);
    order.sort(Comparator.comparingLong(Tensor::bytes).reversed().thenComparingInt(Tensor::first)
        .thenComparing(Tensor::name));
    List<Tensor> placed = new ArrayList<>();
    for (Tensor t : order) {
      List<Tensor> live = placed.stream().filter(t::livesWith).sorted(Comparator.comparingLong(Tensor::offset))
          .toList();
      long at = 0;
      for (Tensor o : live) {
        if (at + t.bytes() <= o.offset()) {
          break;
        }
        at = Math.max(at, o.offset() + o.bytes());
      }
      placed.add(new Tensor(t.name(), t.bytes(), t.first(), t.last(), at));
    }
    return placed;
  }
}
