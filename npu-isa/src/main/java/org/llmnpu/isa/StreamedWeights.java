package org.llmnpu.isa;

/**
 * The W operand of a {@link Command.Gemm} with {@code wStream=1}, read from the external memory, row r at
 * {@code w + r·wStride}.
 *
 * <ul>
 *   <li>Dense INT8 ({@code wInt4=0}): K rows of N signed bytes.</li>
 *   <li>Dense INT4 ({@code wInt4=1}): K rows of {@code ceil(N/2)} bytes, entry n in byte {@code n/2}, low nibble
 *       first, each nibble a signed INT4 (as {@code load4}).</li>
 *   <li>Group-scaled INT4 ({@code wInt4=2}): per group of {@link #SCALE_GROUP} = 32 W rows (the last one ragged),
 *       first two <em>multiplier rows</em> — byte j of the first is the unsigned multiplier {@code u} of column
 *       {@code 2j}, of the second that of column {@code 2j + 1} (so a column tile starting at an even column starts
 *       at byte {@code n0/2} of every row, as the INT4 rows) — then the group's INT4 rows as with {@code wInt4=1};
 *       {@code K + 2·ceil(K/32)} rows. Entry {@code q} (signed INT4) of a group's column with multiplier {@code u}
 *       enters the array as the INT8 {@link #widen}{@code (q, u) = (q·u + 8) >> 4} (arithmetic shift: q·u/16
 *       rounded half up; −127..112, so never saturates): a group's scale ratio to its column's scale in 4.4 fixed
 *       point, applied by the load path, so that the array, the K accumulation and the PPM see one per-channel
 *       INT8 weight.</li>
 *   <li>N:M ({@code E} of {@code G}, INT8 values): the metadata <em>packed</em> first, {@code ceil(S/P)} rows of
 *       {@code P = 8/F} fields of {@code F} bits a byte (2:4: four 2-bit fields, 4:8: two 4-bit fields of which the
 *       low 3 bits count), then the {@code S = E·ceil(K/G)} value rows of the scratchpad layout
 *       ({@link SparseWeights}); field i (low bits first) of byte n of metadata row q is the position in its group
 *       of value row {@code P·q + i}, column n. Metadata first, so the engine can start a K tile's pass once that
 *       tile's value rows are in. {@code S + ceil(S/P)} rows: 2:4 streams {@code 0.625×} the dense bytes.</li>
 * </ul>
 * The NPU streams a row as {@link #beatColumns} beats of one line each; the golden GEMM takes the zero-filled
 * K×N INT8 matrix.
 */
public final class StreamedWeights {
  /** W rows per multiplier group of a group-scaled INT4 W ({@code wInt4=2}). */
  public static final int SCALE_GROUP = 32;
  /** The largest K of a group-scaled W: its {@code K + 2·ceil(K/32)} stream rows fit 16 bits. */
  public static final int MAX_GROUP_SCALED_K = 61_679;

  private StreamedWeights() {
  }

  /** The INT8 weight a group-scaled INT4 entry {@code q} (−8..7) with multiplier {@code u} (0..255) enters as: {@code (q·u + 8) >> 4}. */
  public static int widen(int q, int u) {
    return (q * u + 8) >> 4;
  }

  /** Stream row of W row {@code k} in a group-scaled W: after its group's and every earlier group's two multiplier rows. */
  public static long groupScaledRow(long k) {
    return k + 2 * (k / SCALE_GROUP + 1);
  }

  /** Bytes of one streamed W row: N, or {@code ceil(N/2)} with dense INT4 entries. */
  public static long rowBytes(Command.Gemm g) {
    return g.int4Weights() ? (g.n() + 1) / 2 : g.n();
  }

  /** Line beats of one streamed W row: {@code ceil(rowBytes / line)}. */
  public static long beatColumns(Command.Gemm g, int lineBytes) {
    return (rowBytes(g) + lineBytes - 1) / lineBytes;
  }

  /** Metadata fields a packed metadata byte holds: 4 (2:4), 2 (4:8); 1 for a dense GEMM. */
  public static int fieldsPerByte(Command.Gemm g) {
    return g.sparsity() == Command.S2_4 ? 4 : g.sparsity() == Command.S4_8 ? 2 : 1;
  }

  /** Value rows of an N:M W: {@code S = E·ceil(K/G)}; K when dense. */
  public static long valueRows(Command.Gemm g) {
    return g.sparsity() == Command.DENSE ? g.k() : g.kept() * ((g.k() + g.group() - 1) / g.group());
  }

  /** Packed metadata rows at the start of an N:M W: {@code ceil(S/P)}; 0 when dense. */
  public static long metadataRows(Command.Gemm g) {
    int fields = fieldsPerByte(g);
    return g.sparsity() == Command.DENSE ? 0 : (valueRows(g) + fields - 1) / fields;
  }

  /** Rows the stream reads: K dense, {@code K + 2·ceil(K/32)} group-scaled INT4, {@code S + ceil(S/P)} N:M. */
  public static long rows(Command.Gemm g) {
    if (g.groupScaledWeights()) {
      return g.k() + 2 * ((g.k() + SCALE_GROUP - 1) / SCALE_GROUP);
    }
    long s = valueRows(g);
    int fields = fieldsPerByte(g);
    return g.sparsity() == Command.DENSE ? s : s + (s + fields - 1) / fields;
  }

  /** The K×N signed INT8 weights the GEMM multiplies by (N:M: zero-filled). */
  static byte[][] read(byte[] mem, Command.Gemm g) {
    int k = (int) g.k();
    int n = (int) g.n();
    byte[][] w = new byte[k][n];
    if (g.sparsity() != Command.DENSE) {
      readSparse(mem, g, w);
      return w;
    }
    if (g.groupScaledWeights()) {
      readGroupScaled(mem, g, w);
      return w;
    }
    for (int i = 0; i < k; i++) {
      int row = (int) (g.w() + i * g.wStride());
      if (!g.int4Weights()) {
        System.arraycopy(mem, row, w[i], 0, n);
        continue;
      }
      for (int j = 0; j < n; j++) {
        byte b = mem[row + j / 2];
        w[i][j] = (byte) (j % 2 == 0 ? (b << 28) >> 28 : b >> 4);
      }
    }
    return w;
  }

  private static void readGroupScaled(byte[] mem, Command.Gemm g, byte[][] w) {
    for (int i = 0; i < g.k(); i++) {
      int row = (int) (g.w() + groupScaledRow(i) * g.wStride());
      int multipliers = (int) (g.w() + (groupScaledRow(i / SCALE_GROUP * SCALE_GROUP) - 2) * g.wStride());
      for (int j = 0; j < g.n(); j++) {
        byte b = mem[row + j / 2];
        int q = j % 2 == 0 ? (b << 28) >> 28 : b >> 4;
        int u = mem[multipliers + (j % 2) * (int) g.wStride() + j / 2] & 0xFF;
        w[i][j] = (byte) widen(q, u);
      }
    }
  }

  /** Scatters the value rows by their packed positions (a group's positions distinct, as {@link SparseWeights}). */
  private static void readSparse(byte[] mem, Command.Gemm g, byte[][] w) {
    long s = valueRows(g);
    int fields = fieldsPerByte(g);
    int bits = 8 / fields;
    long metaRows = (s + fields - 1) / fields;
    for (long r = 0; r < s; r++) {
      int values = (int) (g.w() + (metaRows + r) * g.wStride());
      int meta = (int) (g.w() + (r / fields) * g.wStride());
      long base = r / g.kept() * g.group();
      int shift = (int) (r % fields) * bits;
      for (int col = 0; col < g.n(); col++) {
        long kk = base + ((mem[meta + col] & 0xFF) >> shift & (g.group() - 1));
        if (kk < g.k()) {
          w[(int) kk][col] = mem[values + col];
        }
      }
    }
  }

  /**
   * The streamed layout of an N:M-pruned dense W (K×N, at most E non-zeros per group of G rows in each column):
   * {@link #rows} rows of N bytes, the packed metadata then the value rows of {@link SparseWeights#compress}.
   */
  public static byte[][] compressPacked(byte[][] w, int kept, int group) {
    byte[][] unpacked = SparseWeights.compress(w, kept, group);
    int s = unpacked.length / 2;
    int n = w[0].length;
    int fields = group == 4 ? 4 : 2;
    int bits = 8 / fields;
    int metaRows = (s + fields - 1) / fields;
    byte[][] rows = new byte[metaRows + s][n];
    for (int r = 0; r < s; r++) {
      rows[metaRows + r] = unpacked[r].clone();
      for (int col = 0; col < n; col++) {
        rows[r / fields][col] |= (byte) ((unpacked[s + r][col] & (group - 1)) << (r % fields * bits));
      }
    }
    return rows;
  }
}
