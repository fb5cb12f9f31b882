package org.llmnpu.cosim;

import java.util.List;
import java.util.Random;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Random NPU programs that run a layer's tail on the Vector DSP: DMA loads (weights INT8, or INT4
 * unpacked by {@code load4}) → GEMM → {@code dspin} of the INT32 results (scaled by 2^shift) → a
 * compiled {@link DspKernels} program (softmax, rmsnorm with an FP16 γ, silu, gelu, exp, or a
 * residual add of an INT4 → INT8 operand) → {@code dspout} FP16, optionally a quantizing DSP program
 * and {@code dspout} INT8 → DMA stores, with a counter {@code snapshot} at the end. Overlapped: the
 * DSP side operands load while the array runs, and random DSP commands follow each GEMM, some beside its back-end
 * and some waiting for it ({@link #beside}); on an NPU that streams weights half the GEMMs stream W (INT8 or INT4)
 * from the memory, and the DSP commands after them go beside the W stream ({@code dspin}, {@code dspout}, a resident
 * {@code dsprun}) or wait for it; in order: a fence after each GEMM. Programs run in one of three forms
 * ({@link #runKernel}): loaded by their {@code dsprun}; loaded by a {@code dspld} at an offset before the stage's
 * GEMM (other programs then load at 0) and run resident; or split by two {@code dspld}s over the end of the program
 * memory and run resident from an entry near its end (the program counter wraps).
 */
public final class DspChains {
  /**
   * Where the DSP table image and the DSP programs sit in memory: the stages' kernels one after the other from
   * {@link #KERNEL} (then in the data space when {@link #QUANTIZE} is reached), their quantizing programs in slots from
   * {@link #QUANTIZE}: no stage's program is written over another stage's.
   */
  static final long TABLES = 0x8000;
  static final long KERNEL = 0x9000;
  static final long QUANTIZE = 0xA000;
  /** The DSP program run right after a GEMM, beside its back-end ({@link #beside}). */
  static final long BESIDE = 0xB000;
  /** The beside programs' slots from {@link #BESIDE}: one per stage (modulo), 16 words or a line each. */
  private static final long BESIDE_BYTES = 128;
  private static final int BESIDE_SLOTS = 16;
  static final long DATA = 0x10000;
  /** Program words at 0 kept for the programs loaded there (beside and quantize programs; at most 16 words). */
  static final int RESERVED = 16;
  private static final List<DspKernel> KERNELS = List.of(DspKernel.SOFTMAX, DspKernel.RMSNORM, DspKernel.SILU,
      DspKernel.RESIDUAL, DspKernel.GELU, DspKernel.EXP);

  private DspChains() {
  }

  /** One chain per stage (1..stages), each with its own kernel, in an image with the program at 0. */
  public static RandomPrograms.Case generate(MachineParams p, Random r, int stages, boolean overlapped) {
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    System.arraycopy(IsaSimulator.dspTableImage(DspMath.DEFAULT), 0, image, (int) TABLES, Command.DSP_TABLE_BYTES);
    int line = p.lineBytes();
    int lanes = p.dsp().lanes();
    Program.Builder b = Program.builder();
    b.dspTab(TABLES);
    long ext = DATA;
    long nextKernel = KERNEL;
    for (int s = 0; s < stages; s++) {
      DspKernel kernel = KERNELS.get(r.nextInt(KERNELS.size()));
      int m = 1 + r.nextInt(Math.min(p.maxM(), 5));
      int k = 1 + r.nextInt(Math.min(p.maxK(), 3 * p.rows()));
      int n = 1 + r.nextInt(Math.min(p.maxN(), 3 * p.rows()));
      int len = m * n;
      DspLayout layout = new DspLayout(kernel, len, lanes);
      DspProgram program = DspKernels.compile(kernel, len, lanes, 1e-5f, DspMath.DEFAULT, p.dsp().kernelOptions());
      if (layout.totalRows() > p.dsp().rows() || program.size() > p.dsp().programDepth()) {
        s--;
        continue;
      }
      boolean int4 = r.nextBoolean();
      long xStride = roundUp(k, line);
      long wStride = roundUp(int4 ? 2L * ((n + 1) / 2) : n, line);
      long yStride = roundUp(4L * n, line) + line * r.nextInt(2);
      long x = 0;
      long w = x + m * xStride;
      long y = roundUp(w + k * wStride, line);
      long side = roundUp(y + m * yStride, line);             // the DSP side operand (γ or residual)
      long out = roundUp(side + 2L * len, line);              // the FP16 outputs, then the INT8 ones
      long outStride = roundUp(2L * n, line);
      long out8 = out + m * outStride;
      long out8Stride = roundUp(n, line);
      if (out8 + m * out8Stride > p.spadBytes()) {
        s--;
        continue;
      }
      // Memory: X, W (packed INT4 when int4), the side operand, then room for the results.
      long extX = ext;
      long extW = roundUp(extX + m * xStride, line);
      long extWStride = roundUp(int4 ? (n + 1) / 2 : n, line);
      long extSide = roundUp(extW + k * extWStride, line);
      long extOut = roundUp(extSide + 2L * len, line);
      long extOut8 = roundUp(extOut + m * outStride, line);
      ext = roundUp(extOut8 + m * out8Stride, line) + line;
      // Every stage's programs get memory of their own: the image is written once, before the run, so a program
      // written over an earlier stage's would be the one that stage loads (truncated to its own length).
      long kernelAt = nextKernel;
      if (kernelAt + 8L * program.size() <= QUANTIZE) {
        nextKernel = roundUp(kernelAt + 8L * program.size() + line, line);
      } else {
        kernelAt = ext;
        ext = roundUp(ext + 8L * program.size(), line) + line;
      }
      long slotBytes = roundUp(BESIDE_BYTES, line);
      long quantizeAt = QUANTIZE + slotBytes * (s % Math.max(1, Math.min(BESIDE_SLOTS, (BESIDE - QUANTIZE) / slotBytes)));
      if (ext > p.extMemBytes()) {
        break;
      }
      writeDspProgram(image, kernelAt, program);
      int form = r.nextInt(3);
      int lineWords = Math.max(1, line / 8);
      int depth = p.dsp().programDepth();
      // resident at `at`, above the words the beside and quantize programs load at 0
      long at = roundUp(RESERVED + r.nextInt(Math.max(1, depth - RESERVED - program.size() + 1)), lineWords);
      if (form == 1 && at + program.size() > depth) {
        form = 0;
      }
      if (form == 1) {
        b.dspLoad(kernelAt, program.size(), at);
      }
      // overlapped: the program quantizing X in the buffer beside the GEMM, sometimes loaded before it (at 0) so that
      // its run is resident and goes beside a W stream too
      long besideAt = BESIDE + roundUp(BESIDE_BYTES, line) * (s % BESIDE_SLOTS);
      boolean besideLoaded = overlapped && r.nextBoolean();
      if (besideLoaded) {
        int elems = Math.min(k, n);
        DspProgram q = quantize(m * elems, (m * elems + lanes - 1) / lanes, layout.inputBase(0), 0x3800 + r.nextInt(0x400));
        writeDspProgram(image, besideAt, q);
        b.dspLoad(besideAt, q.size(), 0);
      }
      b.load(extX, xStride, x, xStride, k, m);
      // overlapped: W may stream from the memory into the engine, the DSP commands after it beside the stream
      if (overlapped && p.weightStream() && r.nextBoolean()) {
        b.gemmStreamed(m, k, n, x, xStride, extW, extWStride, y, yStride, int4);
      } else {
        if (int4) {
          b.load4(extW, extWStride, w, wStride, (n + 1) / 2, k);
        } else {
          b.load(extW, extWStride, w, wStride, n, k);
        }
        b.gemm(m, k, n, x, xStride, w, wStride, y, yStride);
      }
      if (!overlapped) {
        b.fence();
      } else {
        beside(b, r, image, layout, lanes, m, n, k, x, xStride, y, yStride, out, outStride, besideAt, besideLoaded);
      }
      // The side operand streams in while the array runs (overlapped) and goes into the buffer.
      if (kernel == DspKernel.RMSNORM) {
        fillHalves(image, extSide, len, r, 0x3800, 0x0800);
        b.load(extSide, roundUp(2L * len, line), side, roundUp(2L * len, line), 2L * len, 1);
        b.dspIn(side, line, len, 1, layout.inputBase(1), Command.FMT_FP16, 0);
      } else if (kernel == DspKernel.RESIDUAL) {
        int packed = (len + 1) / 2;
        b.load4(extSide, roundUp(packed, line), side, roundUp(2L * packed, line), packed, 1);
        b.dspIn(side, line, len, 1, layout.inputBase(1), Command.FMT_INT8, 0);
      }
      int shift = -6 - r.nextInt(12);
      b.dspIn(y, yStride, n, m, layout.inputBase(0), Command.FMT_INT32, shift);
      runKernel(b, r, form, kernelAt, program.size(), at, lineWords, depth);
      int outLen = kernel.outputLength(len);
      int outRows = outLen == len ? m : 1;
      int outElems = outLen == len ? n : outLen;
      b.dspOut(out, outStride, outElems, outRows, layout.outputBase(0), Command.FMT_FP16);
      b.store(extOut, outStride, out, outStride, 2L * outElems, outRows);
      if (r.nextBoolean()) {
        DspProgram quantize = quantize(outLen, layout.outputRows(), layout.outputBase(0), 0x4800 + r.nextInt(0x400));
        writeDspProgram(image, quantizeAt, quantize);
        if (r.nextBoolean()) {
          b.dspLoad(quantizeAt, quantize.size(), 0).dspRunResident(0);
        } else {
          b.dspRun(quantizeAt, quantize.size());
        }
        b.dspOut(out8, out8Stride, outElems, outRows, layout.outputBase(0), Command.FMT_INT8);
        b.store(extOut8, out8Stride, out8, out8Stride, outElems, outRows);
      }
    }
    if (r.nextBoolean()) {
      b.snapshot(roundUp(ext, 64));
    }
    b.halt();
    Program prog = b.build();
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    return new RandomPrograms.Case(image, prog, 0);
  }

  /**
   * DSP commands right after a GEMM, in random order and number (0..3): a {@code dspin} of the X operand's INT8 codes
   * (it reads none of the GEMM's results: it goes beside the back-end), then possibly a {@code dsprun} quantizing them
   * in the buffer (it goes at once; resident when its program was {@code loaded} at 0 before the GEMM, else loaded
   * from {@code at} by it or by a {@code dspld} right before) and {@code dspout}s FP16 of them into the stage's output rows (they write none of
   * the results: they go as a load, holding the drain's start while they write) or into the GEMM's result rows (they
   * wait for the back-end), or a {@code dspin} of the result rows (it waits). Every buffer element read was written
   * before (a Verilated memory starts random); what the commands leave is overwritten by the stage's own copies or
   * compared bit for bit like everything else.
   */
  private static void beside(Program.Builder b, Random r, byte[] image, DspLayout layout, int lanes, int m, int n,
                             int k, long x, long xStride, long y, long yStride, long out, long outStride,
                             long at, boolean loaded) {
    int commands = r.nextInt(4);
    int elems = Math.min(k, n);
    int base = layout.inputBase(0);
    if (commands > 0) {
      b.dspIn(x, xStride, elems, m, base, Command.FMT_INT8, 0);
    }
    for (int c = 1; c < commands; c++) {
      switch (r.nextInt(4)) {
        case 0 -> {
          if (loaded) {
            b.dspRunResident(0);
          } else {
            DspProgram q = quantize(m * elems, (m * elems + lanes - 1) / lanes, base, 0x3800 + r.nextInt(0x400));
            writeDspProgram(image, at, q);
            if (r.nextBoolean()) {
              b.dspLoad(at, q.size(), 0).dspRunResident(0);
            } else {
              b.dspRun(at, q.size());
            }
          }
        }
        case 1 -> b.dspOut(out, outStride, elems, m, base, Command.FMT_FP16);
        case 2 -> b.dspIn(y, yStride, n, m, base, Command.FMT_INT32, -8);
        default -> b.dspOut(y, yStride, elems, m, base, Command.FMT_FP16);
      }
    }
  }

  /**
   * The stage's kernel run in {@code form}: 0 a loading {@code dsprun}; 1 resident at {@code at} (loaded before the
   * GEMM); 2 split over the end of the program memory — its first {@code h} words (a multiple of a line's words) at
   * {@code depth − h}, the rest at 0, by two {@code dspld}s right before — and run resident from {@code depth − h}.
   */
  private static void runKernel(Program.Builder b, Random r, int form, long kernelAt, int size, long at, int lineWords,
                                int depth) {
    int h = lineWords * (1 + r.nextInt(Math.max(1, (size - 1) / lineWords)));
    if (form == 2 && h < size && size <= depth - h) {
      b.dspLoad(kernelAt, h, depth - h).dspLoad(kernelAt + 8L * h, size - h, 0).dspRunResident(depth - h);
    } else if (form == 1) {
      b.dspRunResident(at);
    } else {
      b.dspRun(kernelAt, size);
    }
  }

  /**
   * A DSP program that quantizes {@code len} FP16 elements in {@code rows} buffer rows from {@code base} in
   * place to INT8 codes: {@code TOINT(x · scale)} (FP16 scale code), masked to the length.
   */
  public static DspProgram quantize(int len, int rows, int base, int scale) {
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, len);
    a.li(1, scale);
    a.loop(rows, () -> {
      a.load(0, base);
      a.aux(DspOp.TOINT, 0, 2, 0, 1);
      a.store(base, 2);
    });
    return a.finish("quantize");
  }

  /** Writes a DSP program's words (little-endian 64-bit) at {@code at}. */
  public static void writeDspProgram(byte[] image, long at, DspProgram program) {
    long[] words = program.words();
    for (int i = 0; i < words.length; i++) {
      for (int j = 0; j < 8; j++) {
        image[(int) at + 8 * i + j] = (byte) (words[i] >>> (8 * j));
      }
    }
  }

  private static void fillHalves(byte[] image, long at, int count, Random r, int base, int spread) {
    for (int i = 0; i < count; i++) {
      int v = base + r.nextInt(spread);
      image[(int) at + 2 * i] = (byte) v;
      image[(int) at + 2 * i + 1] = (byte) (v >>> 8);
    }
  }

  private static long roundUp(long v, long to) {
    return (v + to - 1) / to * to;
  }
}
