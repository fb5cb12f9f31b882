package org.llmnpu.isa;

import org.llmnpu.numerics.ppu.Ppm;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.ppu.QuantSpec;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.numerics.requant.RequantParams;

/**
 * The golden PPM state of the NPU and the semantics of {@link Command.PpmCfg}, {@link Command.PpuTab}
 * and {@link Command.Ppm} and of a {@link Command.Gemm} with {@code ppm=1}: two parameter banks ({@link #BANKS}) of
 * {@link #channels(MachineParams)} channels of per-channel parameters (bias, Q0.31 multiplier, shift, zero point; all 0
 * after reset; channel j serves output column j; a {@code ppmcfg} writes its {@code bank}, a {@code gemm ppm=1} reads
 * bank 0, {@code ppm=2} bank 1, a {@code ppm} bank 0) and, with the PPU, one C-LUT of the {@link PpuFormat#DEFAULT} shape
 * (16 segments, degree 2, 16-bit coefficients). Each element is {@code numerics}'
 * {@link Ppm#process(int, int, RequantParams, PpuTable)} with activation NONE and INT8 output, then the
 * table on a PPU NPU: the reference the RTL ({@code npu-rtl} {@code NpuPpm}) equals bit for bit.
 *
 * <p>Lane records whose multiplier or shift lie outside {@link QuantizedMultiplier}'s range, and table
 * images that are not a valid {@link PpuTable} (boundaries not strictly increasing, fracBits
 * decreasing), give results the ISA leaves undefined; the golden model refuses them with an
 * {@link IllegalStateException} naming the lane or table.
 */
final class PpmUnit {
  /** The C-LUT shape of the NPU's PPU. */
  static final PpuFormat FORMAT = PpuFormat.DEFAULT;

  /** Parameter banks: a {@code ppmcfg} fills one while a GEMM's PPM reads the other. */
  static final int BANKS = 2;

  private final int lanes;
  private final int[][] bias;
  private final int[][] multiplier;
  private final int[][] shift;
  private final int[][] zeroPoint;
  private PpuTable table;

  /** Channels of the NPU's parameter memory ({@link MachineParams#ppmChannels()}). */
  static int channels(MachineParams p) {
    return p.ppmChannels();
  }

  PpmUnit(int lanes) {
    this.lanes = lanes;
    bias = new int[BANKS][lanes];
    multiplier = new int[BANKS][lanes];
    shift = new int[BANKS][lanes];
    zeroPoint = new int[BANKS][lanes];
  }

  /** Entries of the C-LUT: segments−1 boundaries, (segments+1)·(degree+1) coefficients and fracBits. */
  static int lutEntries() {
    return FORMAT.segments() - 1 + (FORMAT.segments() + 1) * (FORMAT.degree() + 1);
  }

  /** Bytes of a {@link Command.PpuTab} image: two per entry (132). */
  static int tableBytes() {
    return 2 * lutEntries();
  }

  boolean tableLoaded() {
    return table != null;
  }

  /** {@link Command.PpmCfg}: channels first..first+channels−1 of {@code bank} from the records at {@code ext}. */
  void configure(byte[] mem, int ext, int channels, int first, int bank) {
    for (int r = 0; r < channels; r++) {
      int a = ext + Command.PPM_RECORD_BYTES * r;
      int j = first + r;
      bias[bank][j] = word(mem, a);
      multiplier[bank][j] = word(mem, a + 4) & 0x7FFF_FFFF;
      shift[bank][j] = (mem[a + 8] << 26) >> 26;
      zeroPoint[bank][j] = mem[a + 9];
    }
  }

  /**
   * Fills both parameter banks with records drawn from {@code r} (as a {@code ppmcfg} of random records would): the
   * values an earlier program may have left in these memories without reset ({@link IsaSimulator#runOnStaleState}).
   */
  void scramble(java.util.Random r) {
    byte[] records = new byte[Command.PPM_RECORD_BYTES * lanes];
    for (int bank = 0; bank < BANKS; bank++) {
      r.nextBytes(records);
      configure(records, 0, lanes, 0, bank);
    }
  }

  /** {@link Command.PpuTab}: the C-LUT from the image at {@code ext}. */
  void loadTable(byte[] mem, int ext) {
    int s = FORMAT.segments();
    int d = FORMAT.degree();
    int[] boundaries = new int[s - 1];
    int[][] coefficients = new int[s][d + 1];
    int[] fracBits = new int[d + 1];
    for (int i = 0; i < s - 1; i++) {
      boundaries[i] = (byte) entry(mem, ext, i);
    }
    for (int seg = 0; seg < s; seg++) {
      for (int k = 0; k <= d; k++) {
        coefficients[seg][k] = entry(mem, ext, s - 1 + seg * (d + 1) + k);
      }
    }
    for (int k = 0; k <= d; k++) {
      fracBits[k] = entry(mem, ext, s - 1 + s * (d + 1) + k) & 0x1F;
    }
    try {
      table = new PpuTable("pputab@0x" + Integer.toHexString(ext), FORMAT, boundaries, coefficients, fracBits,
          new QuantSpec(1, 0), new QuantSpec(1, 0));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("pputab at 0x" + Integer.toHexString(ext)
          + ": not a valid PPU table (results undefined on the NPU): " + e.getMessage(), e);
    }
  }

  /** {@link Command.Ppm} on the scratchpad (parameter bank 0); {@code withPpu}: apply the table. */
  void run(byte[] spad, Command.Ppm c, boolean withPpu) {
    RequantParams[] params = params((int) c.n(), 0, "ppm");
    for (long i = 0; i < c.m(); i++) {
      int from = (int) (c.src() + i * c.srcStride());
      int to = (int) (c.dst() + i * c.dstStride());
      for (int j = 0; j < c.n(); j++) {
        int acc = word(spad, from + 4 * j);
        spad[to + j] = (byte) Ppm.process(acc, bias[0][j], params[j], withPpu ? table : null);
      }
    }
  }

  /**
   * A {@link Command.Gemm} with {@code ppm=1}: row m of {@code acc} (the INT32 results the GEMM would have written)
   * becomes N INT8 codes at {@code y + m·yStride}, column n through channel n of the GEMM's parameter bank
   * ({@link Command.Gemm#ppmBank()}); bytes past N unchanged. With {@code gate=1} the Y byte's old value is the
   * element's INT8 gate code: code = {@link Ppm#processGated} (no table), written in its place.
   */
  void epilogue(byte[] spad, Command.Gemm g, int[][] acc, boolean withPpu) {
    int bank = g.ppmBank();
    RequantParams[] params = params((int) g.n(), bank, "gemm ppm=" + g.ppm() + " channel");
    for (int i = 0; i < g.m(); i++) {
      int to = (int) (g.y() + i * g.yStride());
      for (int j = 0; j < g.n(); j++) {
        spad[to + j] = (byte) (g.gated()
            ? Ppm.processGated(acc[i][j], spad[to + j], bias[bank][j], params[j])
            : Ppm.process(acc[i][j], bias[bank][j], params[j], withPpu ? table : null));
      }
    }
  }

  /** The requantizer parameters of channels 0..n−1 of {@code bank} (refusing records outside its range, naming {@code what}). */
  private RequantParams[] params(int n, int bank, String what) {
    RequantParams[] params = new RequantParams[n];
    for (int j = 0; j < n; j++) {
      try {
        params[j] = new RequantParams(new QuantizedMultiplier(multiplier[bank][j], shift[bank][j]), zeroPoint[bank][j],
            OutputFormat.INT8,
            Activation.NONE, 0);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(what + " " + j + " (bank " + bank + "): parameters outside the requantizer's range (results "
            + "undefined on the NPU): " + e.getMessage(), e);
      }
    }
    return params;
  }

  /** A {@link Command.PpmCfg} record: bias, multiplier and shift ({@link QuantizedMultiplier}), zero point. */
  static byte[] record(int bias, QuantizedMultiplier m, int zeroPoint) {
    byte[] r = new byte[Command.PPM_RECORD_BYTES];
    for (int b = 0; b < 4; b++) {
      r[b] = (byte) (bias >>> (8 * b));
      r[4 + b] = (byte) (m.multiplier() >>> (8 * b));
    }
    r[8] = (byte) m.shift();
    r[9] = (byte) zeroPoint;
    return r;
  }

  /** The {@link Command.PpuTab} image of a table of the {@link #FORMAT} shape. */
  static byte[] tableImage(PpuTable t) {
    if (!t.format().equals(FORMAT)) {
      throw new IllegalArgumentException("the NPU's PPU holds " + FORMAT + " tables, got " + t.format());
    }
    int s = FORMAT.segments();
    int d = FORMAT.degree();
    byte[] image = new byte[tableBytes()];
    int[] b = t.boundaries();
    for (int i = 0; i < s - 1; i++) {
      put16(image, i, b[i]);
    }
    for (int seg = 0; seg < s; seg++) {
      for (int k = 0; k <= d; k++) {
        put16(image, s - 1 + seg * (d + 1) + k, t.coefficient(seg, k));
      }
    }
    for (int k = 0; k <= d; k++) {
      put16(image, s - 1 + s * (d + 1) + k, t.fracBits(k));
    }
    return image;
  }

  private static void put16(byte[] image, int index, int v) {
    image[2 * index] = (byte) v;
    image[2 * index + 1] = (byte) (v >>> 8);
  }

  private static int entry(byte[] mem, int ext, int index) {
    int a = ext + 2 * index;
    return (short) ((mem[a] & 0xFF) | (mem[a + 1] & 0xFF) << 8);
  }

  static int word(byte[] b, int a) {
    return (b[a] & 0xFF) | (b[a + 1] & 0xFF) << 8 | (b[a + 2] & 0xFF) << 16 | (b[a + 3] & 0xFF) << 24;
  }

  int lanes() {
    return lanes;
  }
}
