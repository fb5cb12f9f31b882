package org.llmnpu.cosim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.requant.QuantizedMultiplier;

/**
 * Random GEMM → PPM programs: DMA loads of X and W → GEMM (INT32 results) → per N tile of
 * {@code rows} output channels a {@code ppmcfg} of random per-channel records (bias, Q0.31 multiplier
 * and shift, zero point) and a {@code ppm} of the tile's columns into INT8 rows → DMA store of the
 * codes; on a PPU NPU a {@code pputab} of a fitted table (GELU, SiLU, sigmoid, tanh or exp) first.
 * Overlapped: the next GEMM's operands load while the array runs (the PPM commands wait for it);
 * in order: a fence after each GEMM. The program sits at 0, records and tables from 0x8000, data from
 * 64 KiB.
 */
public final class PpmChains {
  static final long TABLE = 0x8000;
  static final long RECORDS = 0x8400;
  static final long DATA = 0x10000;
  private static final List<byte[]> TABLES = new ArrayList<>();

  private PpmChains() {
  }

  private static synchronized byte[] table(int i) {
    if (TABLES.isEmpty()) {
      for (PpuFunction f : PpuFunction.values()) {
        TABLES.add(IsaSimulator.ppuTableImage(PpuFitter.fit(f, PpuFormat.DEFAULT)));
      }
    }
    return TABLES.get(i % TABLES.size());
  }

  /** {@code gemms} GEMM → PPM chains in an image with the program at 0. */
  public static RandomPrograms.Case generate(MachineParams p, Random r, int gemms, boolean overlapped) {
    byte[] image = randomImage(p, r);
    int line = p.lineBytes();
    int rows = p.rows();
    Program.Builder b = Program.builder();
    loadTable(p, r, image, b);
    long records = RECORDS;
    long ext = DATA;
    long quarter = p.spadBytes() / 4;
    for (int g = 0; g < gemms; g++) {
      int m = 1 + r.nextInt(Math.min(p.maxM(), 2 * rows + 3));
      int k = 1 + r.nextInt(Math.min(p.maxK(), 4 * rows));
      int n = 1 + r.nextInt(Math.min(p.maxN(), 2 * rows + 1));
      long xStride = RandomPrograms.roundUp(k, line) + line * r.nextInt(2);
      long wStride = RandomPrograms.roundUp(n, line) + line * r.nextInt(2);
      long yStride = RandomPrograms.roundUp(4L * n, line) + line * r.nextInt(2);
      long qStride = RandomPrograms.roundUp(n, line) + line * r.nextInt(2);
      // Operands in the first half, Y in the third quarter, codes in the last.
      long x = 0;
      long w = x + m * xStride;
      long y = 2 * quarter;
      long q = 3 * quarter;
      if (w + k * wStride > 2 * quarter || m * yStride > quarter || m * qStride > quarter) {
        g--;
        continue;
      }
      long extX = ext;
      long extW = RandomPrograms.roundUp(extX + m * xStride, line);
      long extQ = RandomPrograms.roundUp(extW + k * wStride, line);
      ext = RandomPrograms.roundUp(extQ + m * qStride, line) + line;
      b.load(extX, xStride, x, xStride, k, m);
      b.load(extW, wStride, w, wStride, n, k);
      b.gemm(m, k, n, x, xStride, w, wStride, y, yStride);
      if (!overlapped) {
        b.fence();
      }
      // Accumulators of K random INT8 products: about sqrt(K)·74² in size; aim at codes of ±60.
      double scale = 60.0 / (Math.sqrt(k) * 5500.0) * (0.5 + r.nextDouble());
      for (int t = 0; t * rows < n; t++) {
        int lanes = Math.min(rows, n - t * rows);
        for (int j = 0; j < lanes; j++) {
          byte[] rec = IsaSimulator.ppmRecord(r.nextInt(20001) - 10000,
              QuantizedMultiplier.fromScale(scale * (0.7 + 0.6 * r.nextDouble())), r.nextInt(41) - 20);
          System.arraycopy(rec, 0, image, (int) records + 16 * j, rec.length);
        }
        b.ppmCfg(records, lanes);
        b.ppm(y + 4L * t * rows, yStride, q + (long) t * rows, qStride, m, lanes);
        records = RandomPrograms.roundUp(records + 16L * lanes, line);
      }
      b.store(extQ, qStride, q, qStride, n, m);
    }
    b.halt();
    Program prog = b.build();
    byte[] code = prog.bytes();
    System.arraycopy(code, 0, image, 0, code.length);
    return new RandomPrograms.Case(image, prog, 0);
  }

  /**
   * {@code gemms} fused GEMMs ({@code gemm ppm=1}): per GEMM the loads of X and W, its N channel records loaded by
   * one to three {@code ppmcfg}s of consecutive channels ({@code first} > 0 for all but the first group), the GEMM
   * writing INT8 codes, and a store of the codes. The operands and codes of GEMM g sit in scratchpad half g mod 2;
   * {@code overlapped}: the next GEMM's loads are issued right after a GEMM (while its drain and PPM run), before
   * its store; else a fence follows each GEMM. N is drawn from {@code ns} (or 1..maxN when empty); on a PPU NPU a
   * {@code pputab} comes first. The program sits at 0, records and tables from 0x8000, data from 64 KiB.
   */
  public static RandomPrograms.Case generateFused(MachineParams p, Random r, int gemms, boolean overlapped, int... ns) {
    return generateFused(p, r, gemms, overlapped, false, ns);
  }

  /**
   * As {@link #generateFused(MachineParams, Random, int, boolean, int...)}; with {@code streamed} every other GEMM
   * (the odd ones) streams its W from external memory ({@code wStream=1}) instead of loading it into the scratchpad,
   * so the weight stream and the PPM epilogue run in one command.
   */
  public static RandomPrograms.Case generateFused(MachineParams p, Random r, int gemms, boolean overlapped,
                                                  boolean streamed, int... ns) {
    return generateFused(p, r, gemms, overlapped, streamed, false, ns);
  }

  /**
   * As {@link #generateFused(MachineParams, Random, int, boolean, boolean, int...)}; with {@code gated} (an NPU with
   * {@code MachineParams.ppmGate}) most GEMMs are {@code gate=1}: a load of their gate codes into the Y rows first
   * (random codes, an eighth of them −128, 127, 0 or −1), half the streamed ones with INT4 weights, a quarter of the
   * programs with multipliers 64 times larger (saturated codes), and a third with no {@code pputab} at all (then every
   * GEMM is gated: a gated GEMM needs no table).
   */
  public static RandomPrograms.Case generateFused(MachineParams p, Random r, int gemms, boolean overlapped,
                                                  boolean streamed, boolean gated, int... ns) {
    byte[] image = randomImage(p, r);
    int line = p.lineBytes();
    int rows = p.rows();
    Program.Builder b = Program.builder();
    boolean noTable = gated && r.nextInt(3) == 0;
    double gain = gated && r.nextInt(4) == 0 ? 64 : 1;
    if (!noTable) {
      loadTable(p, r, image, b);
    }
    long records = RECORDS;
    long ext = DATA;
    long half = p.spadBytes() / 2;
    Runnable pendingStore = null;
    for (int g = 0; g < gemms; g++) {
      int n = ns.length > 0 ? ns[r.nextInt(ns.length)] : 1 + r.nextInt(p.maxN());
      int m = 1 + r.nextInt(Math.min(p.maxM(), 2 * rows + 3));
      int k = 1 + r.nextInt(Math.min(p.maxK(), 3 * rows));
      long xStride = RandomPrograms.roundUp(k, line) + line * r.nextInt(2);
      long wStride = RandomPrograms.roundUp(n, line) + line * r.nextInt(2);
      long qStride = RandomPrograms.roundUp(n, line) + line * r.nextInt(2);
      long x = (g % 2) * half;
      long w = x + m * xStride;
      long q = RandomPrograms.roundUp(w + k * wStride, line);
      if (q + m * qStride > (g % 2 + 1) * half || records + 16L * n + line > DATA) {
        g--;
        continue;
      }
      long extX = ext;
      long extW = RandomPrograms.roundUp(extX + m * xStride, line);
      long extQ = RandomPrograms.roundUp(extW + k * wStride, line);
      ext = RandomPrograms.roundUp(extQ + m * qStride, line) + line;
      // the GEMM's parameter bank; overlapped, its ppmcfg right after the previous GEMM: beside that GEMM's
      // back-end when the banks differ, after it when they are the same
      int bank = r.nextInt(2);
      if (overlapped) {
        configure(p, r, image, b, records, n, k, bank, gain);
      }
      b.load(extX, xStride, x, xStride, k, m);
      boolean streamW = streamed && g % 2 == 1;
      if (!streamW) {
        b.load(extW, wStride, w, wStride, n, k);
      }
      if (pendingStore != null) {
        pendingStore.run();
      }
      if (!overlapped) {
        configure(p, r, image, b, records, n, k, bank, gain);
      }
      records = RandomPrograms.roundUp(records + 16L * n, line);
      int gate = gated && (noTable || r.nextInt(4) != 0) ? 1 : 0;
      if (gate == 1) {
        // the gate codes, in place in the Y rows the codes overwrite
        gateCodes(r, image, extQ, qStride, n, m);
        b.load(extQ, qStride, q, qStride, n, m);
      }
      int int4 = streamW && gated && r.nextBoolean() ? 1 : 0;
      b.add(streamW ? new Command.Gemm(m, k, n, x, xStride, extW, wStride, q, qStride, Command.DENSE, 0, 1, int4,
          1 + bank, gate)
          : new Command.Gemm(m, k, n, x, xStride, w, wStride, q, qStride, Command.DENSE, 0, 0, 0, 1 + bank, gate));
      if (!overlapped) {
        b.fence();
      }
      long storeQ = q;
      long storeExt = extQ;
      long stride = qStride;
      int rowsQ = m;
      int bytes = n;
      pendingStore = () -> b.store(storeExt, stride, storeQ, stride, bytes, rowsQ);
      if (!overlapped) {
        pendingStore.run();
        pendingStore = null;
      }
    }
    if (pendingStore != null) {
      pendingStore.run();
    }
    b.halt();
    Program prog = b.build();
    byte[] code = prog.bytes();
    System.arraycopy(code, 0, image, 0, code.length);
    return new RandomPrograms.Case(image, prog, 0);
  }

  /**
   * Random records of {@code n} channels at {@code records} and one to three {@code ppmcfg}s of consecutive channels
   * into parameter bank {@code bank}, each group starting on a line of records.
   */
  private static void configure(MachineParams p, Random r, byte[] image, Program.Builder b, long records, int n, int k,
                                int bank, double gain) {
    int recordsPerLine = Math.max(1, p.lineBytes() / 16);
    double scale = gain * 60.0 / (Math.sqrt(k) * 5500.0) * (0.5 + r.nextDouble());
    for (int j = 0; j < n; j++) {
      byte[] rec = IsaSimulator.ppmRecord(r.nextInt(20001) - 10000,
          QuantizedMultiplier.fromScale(scale * (0.7 + 0.6 * r.nextDouble())), r.nextInt(41) - 20);
      System.arraycopy(rec, 0, image, (int) records + 16 * j, rec.length);
    }
    // one to three groups of consecutive channels, each starting on a line of records
    int groups = 1 + r.nextInt(3);
    int first = 0;
    for (int i = 0; i < groups && first < n; i++) {
      int count = i == groups - 1 ? n - first
          : Math.min(n - first, recordsPerLine * (1 + r.nextInt(Math.max(1, n / recordsPerLine))));
      b.ppmCfg(records + 16L * first, count, first, bank);
      first += count;
    }
  }

  /** Rows of random gate codes in the image at {@code ext}, an eighth of them a corner code (−128, 127, 0, −1). */
  private static void gateCodes(Random r, byte[] image, long ext, long stride, int n, int m) {
    byte[] corners = {-128, 127, 0, -1};
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        if (r.nextInt(8) == 0) {
          image[(int) (ext + i * stride + j)] = corners[r.nextInt(corners.length)];
        }
      }
    }
  }

  private static byte[] randomImage(MachineParams p, Random r) {
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    return image;
  }

  /** On a PPU NPU: a random function's table into the image at {@code TABLE} and its {@code pputab}. */
  private static void loadTable(MachineParams p, Random r, byte[] image, Program.Builder b) {
    if (p.ppu()) {
      byte[] t = table(r.nextInt(PpuFunction.values().length));
      System.arraycopy(t, 0, image, (int) TABLE, t.length);
      b.ppuTab(TABLE);
    }
  }
}
