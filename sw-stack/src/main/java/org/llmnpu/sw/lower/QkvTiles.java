package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;

/**
 * A per-tile column order of the fused QKV weight, so that each tile of the streamed QKV GEMM ({@code maxN} columns in
 * whole lines, whole pairs of lines for INT4: {@link LoweringEmitter}'s stream tile) holds whole heads, and its
 * dequantization, RoPE and static quantization can run right after its GEMM ({@link DecoderLowering#staticQkv}, with
 * {@link LoweredModel#orderQkvByTiles}).
 *
 * <p>The default order ({@link LoweredModel}) is {@code [q evens | q odds | k evens | k odds | v]}: RoPE pairs split
 * over all heads. Here the heads of q, then k, then v are taken in sequence ({@code headDim} columns a head), and each
 * tile of {@code T} columns is one or more <i>segments</i>, a segment being whole heads of one of q, k or v: for q and
 * k its heads' evens then their odds (so RoPE is the DSP's half-split kernel on the segment), for v its columns in
 * order. A segment's evens are a contiguous slice of the default order's evens (and so on), so after the post the DSP
 * holds q, k and v codes exactly where the per-token post puts them, and the logits are the same.
 *
 * <p>It needs {@code T} to be a multiple of {@code headDim} (then no head straddles a tile; q|k and k|v boundaries may
 * fall inside a tile: that tile has two segments), and every segment's slices to start and end on whole DSP rows
 * (multiples of the lanes). {@link #whyNot} says why not, in words.
 */
final class QkvTiles {
  /** Segment kinds. */
  static final int Q = 0;
  static final int K = 1;
  static final int V = 2;

  /**
   * Whole heads of part {@code part} (Q, K or V) in a tile: {@code heads} heads from {@code head}, from column
   * {@code offset} of the tile. For Q and K, {@code 2·heads·headDim/2} columns, evens then odds; for V
   * {@code heads·headDim} columns in order.
   */
  record Segment(int part, int head, int heads, int offset) {
  }

  private final int tile;
  private final int half;
  private final int nq;
  private final int nk;
  private final List<List<Segment>> tiles;
  /** order[col]: the default-order column at column col. */
  private final int[] order;

  private QkvTiles(ModelConfig c, int tile) {
    this.tile = tile;
    this.half = c.headDim() / 2;
    this.nq = c.heads() * half;
    this.nk = c.kvHeads() * half;
    int qkvN = c.dim() + 2 * c.kvDim();
    int count = (qkvN + tile - 1) / tile;
    this.tiles = new ArrayList<>();
    this.order = new int[qkvN];
    int[] heads = {c.heads(), c.kvHeads(), c.kvHeads()};
    int part = 0;
    int head = 0;
    for (int j = 0; j < count; j++) {
      List<Segment> segments = new ArrayList<>();
      int col = 0;
      int width = Math.min(tile, qkvN - j * tile);
      while (col < width) {
        int take = Math.min((width - col) / c.headDim(), heads[part] - head);
        Segment s = new Segment(part, head, take, col);
        segments.add(s);
        fill(s, j * tile);
        col += take * c.headDim();
        head += take;
        if (head == heads[part]) {
          part++;
          head = 0;
        }
      }
      tiles.add(List.copyOf(segments));
    }
  }

  /** The default-order columns of segment {@code s} at columns {@code base + s.offset()…}. */
  private void fill(Segment s, int base) {
    int at = base + s.offset();
    int pairs = s.heads() * half;
    if (s.part() == V) {
      for (int i = 0; i < 2 * pairs; i++) {
        order[at + i] = 2 * nq + 2 * nk + s.head() * 2 * half + i;
      }
      return;
    }
    int evens = s.part() == Q ? 0 : 2 * nq;
    int odds = evens + (s.part() == Q ? nq : nk);
    for (int i = 0; i < pairs; i++) {
      order[at + i] = evens + s.head() * half + i;
      order[at + pairs + i] = odds + s.head() * half + i;
    }
  }

  /** The QKV GEMM's stream tile on {@code machine} for {@code bits}-bit weights (as {@link LoweringEmitter}'s). */
  static int streamTile(MachineParams machine, int bits) {
    return LoweringEmitter.streamTile(machine, bits == 4);
  }

  /** Why {@code c}'s QKV columns cannot be ordered by tiles of {@code tile} with {@code lanes} DSP lanes, or null. */
  static String whyNot(ModelConfig c, int tile, int lanes) {
    if (tile % lanes != 0) {
      return "the QKV GEMM's tile of " + tile + " columns is not whole DSP rows of " + lanes + " lanes";
    }
    if (tile % c.headDim() != 0) {
      return "the QKV GEMM's tile of " + tile + " columns does not hold whole heads of headDim " + c.headDim()
          + " (it must be a multiple of it)";
    }
    QkvTiles t = new QkvTiles(c, tile);
    for (int j = 0; j < t.tiles.size(); j++) {
      for (Segment s : t.tiles.get(j)) {
        int pairs = s.heads() * t.half;
        if (s.offset() % lanes != 0 || pairs % lanes != 0 || s.head() * t.half % lanes != 0) {
          return "QKV tile " + j + "'s " + "qkv".charAt(s.part()) + " heads " + s.head() + ".." + (s.head() + s.heads()
              - 1) + " do not start and end on whole DSP rows of " + lanes + " lanes (headDim/2 " + t.half + ")";
        }
      }
    }
    return null;
  }

  /** The order for {@code c} on tiles of {@code tile} columns, or {@link IllegalArgumentException} with the reason. */
  static QkvTiles of(ModelConfig c, int tile, int lanes) {
    String why = whyNot(c, tile, lanes);
    if (why != null) {
      throw new IllegalArgumentException("no per-tile QKV column order: " + why);
    }
    return new QkvTiles(c, tile);
  }

  /** Columns a tile ({@code maxN} in whole lines). */
  int tile() {
    return tile;
  }

  /** Tiles of the QKV GEMM. */
  int count() {
    return tiles.size();
  }

  /** Tile j's segments, in column order. */
  List<Segment> segments(int j) {
    return tiles.get(j);
  }

  /** The default-order column ({@code [q evens | q odds | k evens | k odds | v]}) at column {@code col}. */
  int defaultColumn(int col) {
    return order[col];
  }

  /** Whether tile j holds K heads. */
  boolean holdsKeys(int j) {
    return tiles.get(j).stream().anyMatch(s -> s.part() == K);
  }
}
