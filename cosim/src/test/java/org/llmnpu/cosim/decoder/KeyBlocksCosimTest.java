package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.cosim.NpuRtlFixture;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.lower.KeyBlocks;
import org.llmnpu.verilator.SimModes;

/**
 * Kᵀ by the Vector DSP's permutations on the RTL: an NPU built with {@code dspPermute} ({@link FeaturedNpu}, one
 * Verilated model for the class, shared with the other feature tests; its other features do not touch the
 * {@link KeyBlocks} commands that the first test issues by hand). Random lines of K rows (whole and part lines,
 * chunked and not, INT8 extremes) written as Kᵀ columns by {@link KeyBlocks}' commands ({@code dspin} INT8, a TOINT +
 * zero + transpose run, {@code dspout} INT8): memory, status and every counter equal the golden's, RTL cycles = the
 * cycle model's, and the golden's Kᵀ holds the codes; and stories260K at {@code --fusion full} (a 16-token prefill,
 * one whole line of slots a layer, and a decode step) bit-exact with cycles = model, its tokens those of the same NPU
 * without the permutations (Kᵀ by pairs) and its prefill faster: the lowering writes Kᵀ by blocks there.
 */
class KeyBlocksCosimTest {
  private static final NpuConfig PERMUTE = FeaturedNpu.CONFIG;
  private static final long K_ROWS = 1 << 20;
  private static final long KT_IN = 2 << 20;
  private static final long KT_OUT = 3 << 20;
  private static final long POOL = 4 << 20;
  private static final long PROGRAM = 5 << 20;
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(PERMUTE);

  @Test
  void randomLinesOfKeyRowsLandAsKeyColumnsBitExactWithModelCycles() {
    MachineParams p = PERMUTE.machine();
    int line = p.lineBytes();
    // kvDim, slots, DSP rows for the chunks (32: 16-dimension chunks), seed
    int[][] cases = {{32, 16, 512, 1}, {64, 5, 32, 2}, {48, 1, 64, 3}, {96, 13, 64, 4}, {16, 16, 32, 5}};
    for (int[] k : cases) {
      int kvDim = k[0];
      int count = k[1];
      Random r = new Random(k[3]);
      int ctx = 4 * line;
      int first = line * r.nextInt(4);
      int rowStride = kvDim + line;
      byte[] image = new byte[(int) p.extMemBytes()];
      byte[][] codes = new byte[count][kvDim];
      byte[] extremes = {127, -128, -1, 0};
      for (int t = 0; t < count; t++) {
        for (int d = 0; d < kvDim; d++) {
          codes[t][d] = r.nextInt(4) == 0 ? extremes[r.nextInt(4)] : (byte) r.nextInt(256);
          image[(int) (K_ROWS + (long) t * rowStride + d)] = codes[t][d];
        }
      }
      byte[] before = new byte[kvDim * ctx];
      r.nextBytes(before);
      System.arraycopy(before, 0, image, (int) KT_IN, before.length);
      long spadKt = (long) count * rowStride;
      Program.Builder b = Program.builder();
      b.load(K_ROWS, rowStride, 0, rowStride, rowStride, count).load(KT_IN, ctx, spadKt, ctx, ctx, kvDim);
      KeyBlocks.emit(b, pool(image), p, kvDim, k[2], 0, rowStride, count, 3, spadKt, ctx, first);
      b.store(KT_OUT, ctx, spadKt, ctx, ctx, kvDim).halt();
      byte[] program = b.build().bytes();
      System.arraycopy(program, 0, image, (int) PROGRAM, program.length);
      ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, PROGRAM);
      String what = "kvDim " + kvDim + ", " + count + " slots from " + first + ", " + k[2] + " DSP rows";
      assertEquals(ErrorCause.NONE, o.golden().error(), what);
      assertTrue(o.statusMatches(), what + ": rtl " + o.rtl().error());
      assertTrue(o.bitExact(), what + ": first difference at 0x" + Long.toHexString(o.firstDifference()));
      assertEquals(Map.of(), o.counterMismatches().keySet().stream().collect(java.util.stream.Collectors.toMap(
          Counter::key, c -> o.counterMismatches().get(c)[0] + " vs " + o.counterMismatches().get(c)[1])), what);
      assertEquals(o.modelCycles(), o.rtlCycles(), what);
      for (int d = 0; d < kvDim; d++) {
        for (int j = first; j < first + line; j++) {
          byte want = j < first + count ? codes[j - first][d] : 0;
          assertEquals(want, o.golden().memory()[(int) (KT_OUT + (long) d * ctx + j)], what + ": Kᵀ " + d + ", " + j);
        }
      }
    }
  }

  @Test
  void stories260KPrefillAndDecodeWithKeyBlocksAreBitExactOnTheRtl() throws Exception {
    DecoderRun.Result r = DecoderRtlSteps.run("", new DecoderRun.Options("stories260K", 16, 2, "int8",
        DecoderRun.Engine.RTL, 3, 0, 0, "full"), NPU.rtl(), 2);
    DecoderRun.Result pairs = DecoderRun.run(new DecoderRun.Options("stories260K", 16, 2, "int8",
        DecoderRun.Engine.GOLDEN, 3, 0, 0, "full"), PERMUTE.toBuilder().dspPermute(false).build(), SimModes.local());
    assertArrayEquals(pairs.tokens(), r.tokens(), "tokens with Kᵀ by blocks and by pairs");
    for (int i = 0; i < r.steps().size(); i++) {
      DecoderRun.Step s = r.steps().get(i);
      System.out.printf("dspPermute %s: %d RTL cycles (without permute, Kᵀ by pairs: %d)%n", s.phase(), s.rtlCycles(),
          pairs.steps().get(i).counter(Counter.CYCLES));
    }
    assertTrue(r.steps().get(0).rtlCycles() < pairs.steps().get(0).counter(Counter.CYCLES), "prefill cycles");
  }

  /** Places each DSP program once from {@link #POOL}, 4 KiB apart. */
  private static java.util.function.ToLongFunction<DspProgram> pool(byte[] image) {
    Map<DspProgram, Long> placed = new HashMap<>();
    return prog -> placed.computeIfAbsent(prog, q -> {
      long at = POOL + 0x1000L * placed.size();
      long[] words = q.words();
      for (int i = 0; i < words.length; i++) {
        for (int j = 0; j < 8; j++) {
          image[(int) (at + 8L * i + j)] = (byte) (words[i] >>> (8 * j));
        }
      }
      return at;
    });
  }
}
