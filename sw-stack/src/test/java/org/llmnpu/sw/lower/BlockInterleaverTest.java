package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * The interleaved program ({@link BlockInterleaver}) against the sequential one on the golden simulator: every logit
 * bit for bit the same, the cycles never more, and the cost model's counters those of the interleaved program; a
 * copy that reads another command's output never moves above it.
 */
class BlockInterleaverTest {
  /**
   * 40 tokens: three chunk programs of maxM 16 on the default NPU, each of two blocks of 8 (the last one 8); 28 tokens:
   * the second chunk's second block ragged (8 + 4).
   */
  static int[] prompt(int length, int vocab, long seed) {
    Random r = new Random(seed);
    int[] t = new int[length];
    t[0] = 1;
    for (int i = 1; i < length; i++) {
      t[i] = 2 + r.nextInt(vocab - 2);
    }
    return t;
  }

  /**
   * The default NPU with a 1024-row DSP buffer: on the default one (512 rows) stories260K's second block's buffers do
   * not fit ({@link #onTheDefaultNpuTheSecondBlockDoesNotFitAndTheDspRowsAreNamed}).
   */
  static MachineParams twoBlockNpu(String format) {
    MachineParams m = FusedLoweringTest.machine(format);
    MachineParams.DspParams d = m.dsp();
    return m.withDsp(new MachineParams.DspParams(d.lanes(), 2 * d.rows(), d.programDepth(), d.tableSegments(),
        d.tableDegree(), d.maxRunCycles(), d.executeStages()));
  }

  @ParameterizedTest
  @CsvSource({"int8, 8, 40, false, false, false", "s2_4, 16, 40, false, false, false",
      "int8, 8, 40, true, false, false", "int8, 8, 16, true, false, false", "int4, 8, 40, true, false, false",
      "s2_4, 8, 40, true, false, false", "int8, 8, 28, true, false, false", "int8, 8, 40, true, true, false", "int4, 8, 16, true, true, false",
      "s2_4, 8, 28, true, true, false", "int8, 8, 40, true, true, true", "int8, 8, 16, true, true, true",
      "int4, 8, 40, true, true, true", "s2_4, 8, 28, true, true, true", "int8, 8, 28, true, false, true"})
  void interleavedPrefillGivesTheSequentialLogitsOnStories260K(String format, int block, int tokens,
                                                               boolean twoBlocks, boolean skewed, boolean acrossLayers)
      throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = twoBlocks ? twoBlockNpu(format) : FusedLoweringTest.machine(format);
    assertSameResults(w, m, format, block, prompt(tokens, w.config().vocabSize(), 7), twoBlocks, skewed, acrossLayers);
  }

  @Test
  void onTheDefaultNpuTheSecondBlockDoesNotFitAndTheDspRowsAreNamed() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = NpuTargets.defaultNpu();
    LoweredModel model = WeightFormats.lower(w, "int8", m, 48, 2 * m.maxM());
    NpuDecoder d = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL);
    d.lowering().interleave(true).twoBlocks(true);
    assertTrue(!d.lowering().twoBlocksInFlight());
    assertTrue(d.lowering().twoBlocksWhyNot().contains("DSP buffer rows"), d.lowering().twoBlocksWhyNot());
  }

  @Test
  void whereTheSecondBlocksAttentionWouldRunWorseOneBlockGoesAtATime() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = twoBlockNpu("int8");
    LoweredModel model = WeightFormats.lower(w, "int8", m, 48, 2 * m.maxM());
    NpuDecoder d = new NpuDecoder(model, 16, NpuEngine.GOLDEN, Fusion.FULL);
    d.lowering().interleave(true).twoBlocks(true);
    assertTrue(!d.lowering().twoBlocksInFlight());
    // the second lane's rows hold neither a scale row per query nor the tokens' V-scale bounds (ValueScaleBound)
    assertTrue(d.lowering().twoBlocksWhyNot().contains("each head group computing its token's V-scale bound again"),
        d.lowering().twoBlocksWhyNot());
    assertEquals(m.maxM(), d.lowering().prefillChunk());
    NpuDecoder eight = new NpuDecoder(model, 8, NpuEngine.GOLDEN, Fusion.FULL);
    eight.lowering().interleave(true).twoBlocks(true);
    assertTrue(eight.lowering().twoBlocksInFlight(), eight.lowering().twoBlocksWhyNot());
  }

  /**
   * Two blocks in flight skewed ({@link DecoderLowering#skewed}), and in windows across layers
   * ({@link DecoderLowering#acrossLayers}), on a GQA shape with a ragged hidden size.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void skewedPrefillGivesTheSequentialLogitsOnAGqaShape(boolean acrossLayers) {
    ModelConfig c = new ModelConfig(128, 172, 2, 4, 2, 64, 64);
    ModelWeights w = SyntheticWeights.generate(c, 7);
    assertSameResults(w, twoBlockNpu("int8"), "int8", 8, prompt(26, c.vocabSize(), 3), true, true, acrossLayers);
  }

  /**
   * Static q/k/v scales ({@link DecoderLowering#staticQkv}), two blocks skewed (some rows in windows across layers):
   * with the per-token post (maxN 128) and
   * with the tiled post in each block's head (maxN 32, Wqkv ordered per tile; the second block's first Kᵀ line holds
   * the first block's slots and is staged in its tail), the logits of the sequential static program bit for bit.
   */
  @ParameterizedTest
  @CsvSource({"int8, 16, 128, false, false", "int8, 40, 128, false, false", "int8, 16, 32, true, false",
      "int8, 40, 32, true, false", "int4, 16, 32, true, false", "s2_4, 28, 32, true, false",
      "int8, 40, 128, false, true", "int8, 40, 32, true, true", "s2_4, 28, 32, true, true"})
  void skewedPrefillWithStaticQkvScalesGivesTheSequentialLogits(String format, int tokens, int maxN, boolean tiled,
                                                                boolean acrossLayers) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = TiledQkvPostTest.withMaxN(twoBlockNpu(format), maxN);
    assertSameResults(w, m, format, 8, prompt(tokens, w.config().vocabSize(), 7), true, true, acrossLayers,
        tiled ? 2 : 1);
  }

  @Test
  void interleavedPrefillGivesTheSequentialLogitsOnRandomShapes() {
    Random r = new Random(32);
    for (int trial = 0; trial < 3; trial++) {
      int kvHeads = 1 + r.nextInt(2);
      int heads = kvHeads * (1 + r.nextInt(2));
      int headDim = 32;
      int dim = heads * headDim;
      int hidden = 8 * (4 + r.nextInt(12)) + 4;
      ModelConfig c = new ModelConfig(dim, hidden, 2, heads, kvHeads, 64, 64);
      ModelWeights w = SyntheticWeights.generate(c, 100 + trial);
      assertSameResults(w, twoBlockNpu("int8"), "int8", 4 + 4 * r.nextInt(2),
          prompt(20 + r.nextInt(12), c.vocabSize(), trial), true);
    }
  }

  private static void assertSameResults(ModelWeights w, MachineParams m, String format, int block, int[] prompt,
                                        boolean twoBlocks) {
    assertSameResults(w, m, format, block, prompt, twoBlocks, false, false);
  }

  private static void assertSameResults(ModelWeights w, MachineParams m, String format, int block, int[] prompt,
                                        boolean twoBlocks, boolean skewed, boolean acrossLayers) {
    assertSameResults(w, m, format, block, prompt, twoBlocks, skewed, acrossLayers, 0);
  }

  /** The context the interleaving tests lower their models for. */
  static final int CONTEXT = 48;

  /**
   * {@code w} lowered for {@code format} on {@code m} at {@link #CONTEXT} with room for two blocks of {@code maxM}
   * tokens; with the tiled QKV post ({@code qkv} 2) Wqkv is ordered per tile.
   */
  static LoweredModel lowered(ModelWeights w, String format, MachineParams m, int qkv) {
    LoweredModel model = WeightFormats.lower(w, format, m, CONTEXT, 2 * m.maxM());
    if (qkv == 2) {
      assertEquals(null, model.orderQkvByTiles(), "Wqkv ordered per tile");
    }
    return model;
  }

  /** A golden decoder of {@code model} with full fusion; q/k/v scales per token ({@code qkv} 0) or static. */
  static NpuDecoder decoder(LoweredModel model, int block, int qkv) {
    NpuDecoder d = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    d.lowering().staticQkv(qkv > 0);
    return d;
  }

  /**
   * {@code acrossLayers}: two blocks in flight in windows across layers; {@code qkv}: 0 each token's q/k/v scales, 1
   * static ones with the per-token post, 2 with the tiled post.
   */
  private static void assertSameResults(ModelWeights w, MachineParams m, String format, int block, int[] prompt,
                                        boolean twoBlocks, boolean skewed, boolean acrossLayers, int qkv) {
    int context = CONTEXT;
    LoweredModel model = lowered(w, format, m, qkv);
    NpuDecoder sequential = decoder(model, block, qkv);
    NpuDecoder interleaved = decoder(model, block, qkv);
    interleaved.lowering().interleave(true).twoBlocks(twoBlocks).skewed(skewed).acrossLayers(acrossLayers);
    NpuDecoder.Step s = sequential.prefill(prompt, true);
    NpuDecoder.Step i = interleaved.prefill(prompt, true);
    assertEquals(s.logits().length, i.logits().length);
    for (int t = 0; t < s.logits().length; t++) {
      assertArrayEquals(s.logits()[t], i.logits()[t], "logits of token " + t);
    }
    NpuDecoder.Step sd = sequential.decode(prompt[3]);
    NpuDecoder.Step id = interleaved.decode(prompt[3]);
    assertArrayEquals(sd.logits()[0], id.logits()[0], "decode logits");
    if (twoBlocks) {
      // two blocks in flight: both lanes run the same parameterized programs (the second lane's reloaded by dspld,
      // then resident beside the other's W stream); the cycles are reported, not bounded
      assertTrue(interleaved.lowering().twoBlocksInFlight(), interleaved.lowering().twoBlocksWhyNot());
    } else {
      assertTrue(i.counter(Counter.CYCLES) <= s.counter(Counter.CYCLES), i.counter(Counter.CYCLES) + " vs "
          + s.counter(Counter.CYCLES));
    }
    // both lanes batch their attention as one block does (LaneBatching), so the GEMMs and their MACs are the same
    assertEquals(s.counter(Counter.MACS), i.counter(Counter.MACS));
    System.out.printf("%s block %d, %d tokens%s%s%s: sequential %,d cycles, interleaved %,d (two blocks in flight "
        + "%s%s, %d commands moved in the last program)%n", format, block, prompt.length, skewed ? " skewed" : "",
        acrossLayers ? " across layers" : "",
        qkv == 0 ? "" : qkv == 1 ? ", static q/k/v, maxN " + m.maxN() : ", static q/k/v, tiled post, maxN " + m.maxN(),
        s.counter(Counter.CYCLES),
        i.counter(Counter.CYCLES), interleaved.lowering().twoBlocksInFlight(),
        twoBlocks ? " " + interleaved.lowering().twoBlocksWhyNot() : "",
        interleaved.lowering().interleavedCommands());
    // the cost model walks the interleaved stream of a prefill that keeps the last token's logits
    NpuDecoder last = decoder(model, block, qkv);
    last.lowering().interleave(true).twoBlocks(twoBlocks).skewed(skewed).acrossLayers(acrossLayers);
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, context, block, format, Fusion.FULL)
        .staticQkv(qkv > 0, qkv == 2).interleave(true, twoBlocks).skewed(skewed).acrossLayers(acrossLayers);
    PhaseCostModelTest.assertEveryCounterEqual(last.prefill(prompt, false),
        cost.step(prompt.length, 0, w.config().layers()));
  }

  @Test
  void aCopyNeverMovesAboveTheCommandWhoseOutputItReads() {
    MachineParams m = NpuTargets.defaultNpu();
    java.util.List<Command> seen = new java.util.ArrayList<>();
    BlockInterleaver pass = new BlockInterleaver(recording(seen), m, true);
    int line = m.lineBytes();
    Command gemm = new Command.Gemm(16, 64, 64, 0, 64, 1 << 20, 64, 4096, 256, 0, 0, 1, 0, 0);
    Command load = new Command.Load(1 << 21, line, 16384, line, line, 4);
    Command reads = new Command.DspIn(16384, line, line / 2, 4, 0, Command.FMT_FP16, 0);
    Command free = new Command.DspIn(20480, line, line / 2, 4, 64, Command.FMT_FP16, 0);
    Command results = new Command.DspIn(4096, 256, 64, 1, 128, Command.FMT_INT32, 0);
    for (Command c : List.of(gemm, load, reads, free, results, new Command.Halt())) {
      pass.command(c);
    }
    // the load goes before the stream (it would wait for it), the copies that need no result of the GEMM go beside it
    // in their order, the one reading the GEMM's results stays after it
    assertEquals(List.of(load, gemm, reads, free, results, new Command.Halt()), seen);
    assertEquals(3, pass.moved());
  }

  /**
   * Two blocks in flight: a {@code store} of one block follows the other block's streamed GEMM, ahead of the commands
   * between them, only where nothing else goes beside that GEMM ({@code StreamSchedule#storeAtStreamEnd}); where a copy
   * does, the store keeps its place.
   */
  @Test
  void aStoreGoesAtAStreamsEndOnlyWhereNothingElseGoesBesideIt() {
    MachineParams m = NpuTargets.defaultNpu();
    int line = m.lineBytes();
    Command g0 = new Command.Gemm(16, 64, 64, 0, 64, 1 << 20, 64, 4096, 256, 0, 0, 1, 0, 0);
    Command g1 = new Command.Gemm(16, 64, 64, 0, 64, (1 << 20) + 8192, 64, 8192, 256, 0, 0, 1, 0, 0);
    Command store = new Command.Store(1 << 24, line, 32768, line, line, 8);
    Command copy = new Command.DspIn(36864, line, line / 2, 4, 256, Command.FMT_FP16, 0);
    // nothing beside the first stream: the second block's store goes right after it, before the next GEMM
    assertEquals(List.of(g0, store, g1, new Command.Halt()),
        interleaved(m, new int[] {0, 0, 1, 1}, g0, g1, store, new Command.Halt()));
    // a copy of the second block beside the first stream: the store stays after the next GEMM, as in program order
    assertEquals(List.of(g0, copy, g1, store, new Command.Halt()),
        interleaved(m, new int[] {0, 0, 1, 1, 1}, g0, g1, copy, store, new Command.Halt()));
  }

  /** {@code commands}, command i of block {@code lanes[i]}, through a two-block interleaver: the order it passes on. */
  private static List<Command> interleaved(MachineParams m, int[] lanes, Command... commands) {
    List<Command> seen = new java.util.ArrayList<>();
    BlockInterleaver pass = new BlockInterleaver(recording(seen), m, true, new long[] {1 << 24, 1 << 25});
    for (int i = 0; i < commands.length; i++) {
      pass.lane(lanes[i]);
      pass.command(commands[i]);
    }
    return seen;
  }

  /** A block's K/V row store cut in pieces: every row once, in order, each piece at most half a tile's drain. */
  @Test
  void storePiecesCoverTheRowsInOrder() {
    MachineParams m = NpuTargets.defaultNpu();
    int line = m.lineBytes();
    long drain = 128L * ((4L * LoweringEmitter.streamTile(m, false) + line - 1) / line);
    for (int rows : new int[] {1, 7, 128, 4096}) {
      for (long rowBytes : new long[] {2, 34, 4098, 128}) {
        int next = 0;
        for (int[] piece : KvRowStores.pieces(rows, rowBytes, m, 128)) {
          assertEquals(next, piece[0]);
          assertTrue(piece[1] >= 1);
          long beats = piece[1] * ((rowBytes + line - 1) / line);
          assertTrue(piece[1] == 1 || beats <= drain / 2, rows + " rows of " + rowBytes + ": " + beats + " beats");
          next += piece[1];
        }
        assertEquals(rows, next);
      }
    }
  }

  /** A sink that keeps the commands it is passed in {@code seen} and ignores the DSP programs. */
  private static CommandSink recording(List<Command> seen) {
    return new CommandSink() {
      @Override
      public void command(Command c) {
        seen.add(c);
      }

      @Override
      public void dspRun(long address, org.llmnpu.isa.dsp.DspProgram program) {
      }

      @Override
      public void dspLoad(long address, org.llmnpu.isa.dsp.DspProgram program, long at) {
      }

      @Override
      public void dspRunResident(org.llmnpu.isa.dsp.DspProgram program, long entry) {
      }
    };
  }
}
