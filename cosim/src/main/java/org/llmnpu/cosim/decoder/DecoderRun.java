package org.llmnpu.cosim.decoder;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.verilator.SimOptions;

/**
 * Generates tokens with the whole decoder lowered to NPU programs (one prefill program, one
 * program per decode step; {@code sw-stack}'s {@link NpuDecoder}) on the golden ISA simulator
 * and, when asked, on the generated RTL in Verilator: every step runs on both from the same
 * memory image and the images after it are compared byte for byte (the first differing byte is
 * named by its tensor: a weight, a KV-cache slot, the logits, the command stream). The greedy
 * tokens come from the golden run. Accuracy: the NPU's logits of every generated position
 * against the FP32 reference fed the same tokens (top-1 agreement, KL). With a draft
 * ({@code draftLayers}), greedy speculative decoding runs on the same engine ({@link SpeculativeRun}:
 * draft and target programs on the golden and, with the RTL, on the RTL compared program by program)
 * and is compared with this target-only run: tokens and cycles per token.
 */
public final class DecoderRun {
  /** Where the programs run. */
  public enum Engine { GOLDEN, RTL }

  /** Weight formats the lowering supports. */
  public static final List<String> QUANTS = WeightFormats.NAMES;

  /**
   * What to run.
   *
   * @param model     a model name of {@code ModelCatalog} (stories260K by default)
   * @param promptLen prompt tokens (BOS then tokens sampled from the FP32 model with {@code seed})
   * @param maxNew    tokens to generate (greedy)
   * @param quant     the weight format
   * @param engine    golden only, or RTL vs golden
   * @param seed      prompt seed
   * @param draftLayers speculative decoding with the first {@code draftLayers} layers as the draft (0 = off)
   * @param gamma     tokens the draft proposes per target pass
   * @param fusion    the lowering's fusion level ({@link Fusion#NAMES}); a prompt longer than the engine's maxM is a
   *                  chunked prefill (one program per maxM tokens, {@link NpuDecoder#prefill})
   * @param qkvScales {@code dynamic} (each token's absmax) or {@code static} ({@code DecoderLowering#staticQkv})
   */
  public record Options(String model, int promptLen, int maxNew, String quant, Engine engine, long seed,
                        int draftLayers, int gamma, String fusion, String qkvScales) {
    /** Each token's q/k/v scales ({@code --qkv-scales dynamic}). */
    public Options(String model, int promptLen, int maxNew, String quant, Engine engine, long seed, int draftLayers,
                   int gamma, String fusion) {
      this(model, promptLen, maxNew, quant, engine, seed, draftLayers, gamma, fusion, "dynamic");
    }

    public Options(String model, int promptLen, int maxNew, String quant, Engine engine, long seed) {
      this(model, promptLen, maxNew, quant, engine, seed, 0, 0);
    }

    /** The unfused lowering ({@code --fusion none}; the command's default is {@code full}). */
    public Options(String model, int promptLen, int maxNew, String quant, Engine engine, long seed, int draftLayers,
                   int gamma) {
      this(model, promptLen, maxNew, quant, engine, seed, draftLayers, gamma, "none");
    }

    public Options {
      Fusion.parse(fusion);
      if (draftLayers < 0 || (draftLayers > 0 && (gamma < 1 || gamma > 16))) {
        throw new IllegalArgumentException("speculative needs draft layers >= 1 and gamma in 1..16, got draft layers "
            + draftLayers + ", gamma " + gamma);
      }
      if (draftLayers > 0 && maxNew < 2) {
        throw new IllegalArgumentException("max-new must be at least 2 with speculative decoding (the first token "
            + "comes from the prefill), got " + maxNew);
      }
      if (promptLen < 1) {
        throw new IllegalArgumentException("prompt-len must be at least 1 (and prompt-len + max-new at most the "
            + "model's context), got " + promptLen);
      }
      if (maxNew < 1) {
        throw new IllegalArgumentException("max-new must be at least 1 (and prompt-len + max-new at most the model's "
            + "context), got " + maxNew);
      }
      if (!QUANTS.contains(quant)) {
        throw new IllegalArgumentException("quant must be one of " + QUANTS + ", got '" + quant + "'");
      }
      if (!List.of("dynamic", "static").contains(qkvScales) || qkvScales.equals("static") && draftLayers > 0) {
        throw new IllegalArgumentException("qkv-scales must be dynamic or static (static not with speculative "
            + "decoding), got '" + qkvScales + "'" + (draftLayers > 0 ? " with speculative decoding" : ""));
      }
    }
  }

  /**
   * One step (program).
   *
   * @param phase         prefill or decode
   * @param tokens        tokens fed
   * @param commands      commands in the program
   * @param counters      golden counters (the cycle counters from the cycle model)
   * @param rtlCycles     the RTL's cycle count, or -1 without the RTL
   * @param bitExact      memory, status and counters equal on the RTL (true without the RTL)
   * @param difference    what differs, empty when nothing
   * @param goldenSeconds wall time of the golden run
   * @param rtlSeconds    wall time of the RTL run (0 without)
   * @param arrayVectors  input vectors the GEMM engine took, from the executed GEMM commands' shapes
   *                      ({@link org.llmnpu.cosim.GemmVectors}; the energy of a PiM engine needs it)
   * @param dspPipeIssues operations each of the Vector DSP's pipelined units issued (golden, by
   *                      {@link org.llmnpu.isa.dsp.DspPipe} ordinal; the energy of their clock gates needs it)
   */
  public record Step(String phase, int tokens, int commands, long[] counters, long rtlCycles, boolean bitExact,
                     String difference, double goldenSeconds, double rtlSeconds, long arrayVectors,
                     long[] dspPipeIssues) {
    public long counter(Counter c) {
      return counters[c.ordinal()];
    }
  }

  /**
   * Speculative decoding against target-only decoding on the same NPU, from the engine of the run:
   * the golden ISA simulator, or the RTL (each of its programs compared with the golden).
   *
   * @param draftLayers  the draft: the target's first {@code draftLayers} layers
   * @param gamma        tokens the draft proposes per target pass
   * @param tokens       the speculative session's tokens (on the RTL: decided from the RTL's logits)
   * @param goldenTokens the tokens of the golden-only speculative session
   * @param equalsTargetOnly {@code tokens} equal the target-only greedy tokens of the plain run
   * @param targetPasses verification programs (γ + 1 tokens each, fewer at the end)
   * @param draftSteps   draft decode programs
   * @param drafted      tokens the draft proposed
   * @param accepted     proposals the target accepted
   * @param steps        every program of the session: "target prefill", "draft prefill", "draft decode", "target verify"
   * @param targetOnlyCyclesPerToken    model cycles per decode step of the plain run
   * @param targetOnlyRtlCyclesPerToken RTL cycles per decode step of the plain run (NaN without the RTL)
   */
  public record Speculative(int draftLayers, int gamma, int[] tokens, int[] goldenTokens, boolean equalsTargetOnly,
                            int targetPasses, int draftSteps, long drafted, long accepted, List<Step> steps,
                            double targetOnlyCyclesPerToken, double targetOnlyRtlCyclesPerToken) {
    /** The RTL session's tokens equal the golden session's. */
    public boolean equalsGolden() {
      return java.util.Arrays.equals(tokens, goldenTokens);
    }

    /** Accepted proposals / proposals. */
    public double acceptanceRate() {
      return accepted / (double) Math.max(1, drafted);
    }

    /** Tokens emitted after the prefill's (each one accepted into the output) per verification pass. */
    public double tokensPerPass() {
      return (tokens.length - 1) / (double) Math.max(1, targetPasses);
    }

    /** Model cycles of the steps whose phase starts with {@code prefix} ("draft", "target verify", "" for all). */
    public long modelCycles(String prefix) {
      return steps.stream().filter(s -> s.phase().startsWith(prefix)).mapToLong(s -> s.counter(Counter.CYCLES)).sum();
    }

    /** RTL cycles of the steps whose phase starts with {@code prefix} (negative without the RTL). */
    public long rtlCycles(String prefix) {
      return steps.stream().filter(s -> s.phase().startsWith(prefix)).mapToLong(Step::rtlCycles).sum();
    }

    /** Model cycles of the draft's decode steps and the target's verifications. */
    public long decodeModelCycles() {
      return modelCycles("draft decode") + modelCycles("target verify");
    }

    /** RTL cycles of the draft's decode steps and the target's verifications. */
    public long decodeRtlCycles() {
      return rtlCycles("draft decode") + rtlCycles("target verify");
    }

    /** Decode model cycles per accepted (output) token after the prefill's. */
    public double cyclesPerToken() {
      return decodeModelCycles() / (double) (tokens.length - 1);
    }

    /** Decode RTL cycles per accepted (output) token after the prefill's (NaN without the RTL). */
    public double rtlCyclesPerToken() {
      return Double.isNaN(targetOnlyRtlCyclesPerToken) ? Double.NaN : decodeRtlCycles() / (double) (tokens.length - 1);
    }

    /** Target-only cycles per token / speculative cycles per token (model cycles; = RTL's when bit-exact). */
    public double speedup() {
      return targetOnlyCyclesPerToken / cyclesPerToken();
    }

    /** The same from RTL cycles (NaN without the RTL). */
    public double rtlSpeedup() {
      return targetOnlyRtlCyclesPerToken / rtlCyclesPerToken();
    }

    /** Every program of the session bit-exact (true without the RTL). */
    public boolean bitExact() {
      return steps.stream().allMatch(Step::bitExact);
    }

    /** The first difference, if any program differs (e.g. "target verify at position 17: memory from …"). */
    public Optional<String> firstDifference() {
      return steps.stream().filter(s -> !s.bitExact())
          .map(s -> (s.phase().startsWith("target") ? "target " : "draft ") + s.difference()).findFirst();
    }
  }

  /** The outcome. */
  public record Result(Options options, MachineParams machine, int[] prompt, int[] tokens, int[] fp32Tokens,
                       List<Step> steps, LogitComparison accuracy, Optional<Speculative> speculative,
                       Fusion.Applied fusion) {
    public boolean bitExact() {
      return steps.stream().allMatch(Step::bitExact) && speculative.map(Speculative::bitExact).orElse(true);
    }

    /** The first difference, if any step (or speculative program) differs. */
    public Optional<String> firstDifference() {
      return steps.stream().filter(s -> !s.bitExact()).map(s -> s.phase() + " at " + s.tokens() + " tokens: "
          + s.difference()).findFirst().or(() -> speculative.flatMap(Speculative::firstDifference)
          .map(d -> "speculative " + d));
    }

    /** Sum of a counter over the steps of a phase ("prefill", "decode" or null for all). */
    public long total(String phase, Counter c) {
      return steps.stream().filter(s -> phase == null || s.phase().equals(phase)).mapToLong(s -> s.counter(c)).sum();
    }

    /** Operations of each DSP pipelined unit over the steps of a phase (or all for null), see {@link Step#dspPipeIssues}. */
    public long[] dspPipeIssues(String phase) {
      long[] sum = new long[org.llmnpu.isa.dsp.DspPipe.values().length];
      steps.stream().filter(s -> phase == null || s.phase().equals(phase)).forEach(s -> {
        for (int i = 0; i < sum.length; i++) {
          sum[i] += s.dspPipeIssues()[i];
        }
      });
      return sum;
    }

    /** Input vectors of the GEMM engine over the steps of a phase (or all for null), see {@link Step#arrayVectors}. */
    public long arrayVectors(String phase) {
      return steps.stream().filter(s -> phase == null || s.phase().equals(phase)).mapToLong(Step::arrayVectors).sum();
    }

    public long rtlCycles(String phase) {
      return steps.stream().filter(s -> phase == null || s.phase().equals(phase)).mapToLong(Step::rtlCycles).sum();
    }
  }

  private DecoderRun() {
  }

  /** Runs on the default NPU ({@code NpuConfig.defaults()}, with MX decoding on the load path for an MX format). */
  public static Result run(Options o, SimOptions sim) throws IOException {
    return run(o, defaultNpu(o.quant()), sim);
  }

  /**
   * {@code NpuConfig.defaults()}, with {@code mxLoad} when {@code quant} is an MX format (it needs {@code loadmx})
   * and the MAC array built for 2:4 when {@code quant} is {@code s2_4}.
   */
  public static NpuConfig defaultNpu(String quant) {
    NpuConfig c = NpuConfig.defaults().withMxLoad(WeightFormats.mx(quant) >= 0);
    return WeightFormats.sparsity(quant) == org.llmnpu.isa.Command.S2_4 ? c.withSparsity("2:4") : c;
  }

  public static Result run(Options o, NpuConfig config, SimOptions sim) throws IOException {
    target(o.quant(), config.machine(), o.engine() == Engine.RTL);  // refuses before building the RTL model
    if (o.draftLayers() > 0) {
      int layers = ModelCatalog.load(o.model(), Optional.empty(), 1).config().layers();
      if (o.draftLayers() > layers) {
        throw new IllegalArgumentException("speculative draft must have at most the target's " + layers
            + " layers: draft=layers1..layers" + layers + ", got draft=layers" + o.draftLayers());
      }
    }
    if (o.engine() == Engine.RTL) {
      // the lowering's refusals (e.g. a DSP wider than the model's RoPE halves allow) before the model build, which
      // takes minutes for a large NPU
      lower(o, WeightFormats.prepare(ModelCatalog.load(o.model(), Optional.empty(), 1), o.quant()),
          target(o.quant(), config.machine(), true));
    }
    DecoderRtl rtl = o.engine() == Engine.RTL ? DecoderRtl.start(config, sim) : null;
    try {
      return run(o, config, rtl);
    } finally {
      if (rtl != null) {
        rtl.close();
      }
    }
  }

  /** Runs on the RTL model {@code rtl} (left open) against the golden; {@code o.engine()} is ignored. */
  public static Result run(Options o, NpuRtl rtl) throws IOException {
    return run(o, rtl.config(), DecoderRtl.of(rtl));
  }

  private static Result run(Options o, NpuConfig config, DecoderRtl rtl) throws IOException {
    ModelWeights w = ModelCatalog.load(o.model(), Optional.empty(), 1);
    MachineParams machine = target(o.quant(), config.machine(), rtl != null);
    Transformer fp32 = new Transformer(w);
    int[] prompt = o.promptLen() == 1 ? new int[] {SampledSequences.BOS}
        : SampledSequences.sample(fp32, 1, o.promptLen(), o.seed())[0];
    ModelWeights prepared = WeightFormats.prepare(w, o.quant());
    LoweredModel model = lower(o, prepared, machine);
    int context = o.promptLen() + o.maxNew();
    int stepTokens = stepTokens(o, machine);
    List<Step> steps = new ArrayList<>();
    StepRecorder recorder = new StepRecorder(rtl, config.engineTiming(), model, false);
    NpuDecoder npu = new NpuDecoder(model, DecoderLowering.largestBlock(model, 16), recorder,
        Fusion.parse(o.fusion()));
    if (o.qkvScales().equals("static") && !npu.lowering().staticQkv(true).staticQkvApplied()) {
      throw new IllegalArgumentException("--qkv-scales static: the static scales are calibrated with the PPM "
          + "epilogues, which do not apply here (" + npu.lowering().fusionApplied().summary() + ")");
    }
    DenseKvCache kv = fp32.newCache(context);
    float[][] refPrompt = fp32.forwardAll(prompt, kv);
    List<float[]> ref = new ArrayList<>();
    List<float[]> got = new ArrayList<>();
    int[] tokens = new int[o.maxNew()];
    NpuDecoder.Step step = npu.prefill(prompt, false);
    steps.add(recorder.step(step.phase(), step, false));
    float[] logits = step.logits()[0];
    float[] refLogits = refPrompt[prompt.length - 1];
    for (int i = 0; i < o.maxNew(); i++) {
      got.add(logits);
      ref.add(refLogits);
      tokens[i] = Ops.argmax(logits);
      if (i + 1 < o.maxNew()) {
        step = npu.decode(tokens[i]);
        steps.add(recorder.step(step.phase(), step, false));
        logits = step.logits()[0];
        refLogits = fp32.forward(tokens[i], kv.length(), kv);
      }
    }
    int[] fp32Tokens = greedy(fp32, prompt, o.maxNew());
    LogitComparison acc = LogitComparison.compare(ref.toArray(new float[0][]), got.toArray(new float[0][]));
    Optional<Speculative> spec = o.draftLayers() == 0 ? Optional.empty()
        : Optional.of(SpeculativeRun.run(o, prepared, model, stepTokens, config.engineTiming(), rtl, prompt, tokens,
            steps));
    return new Result(o, machine, prompt, tokens, fp32Tokens, steps, acc, spec, npu.lowering().fusionApplied());
  }

  /** The tokens of the largest step: the prefill's first chunk, or with a draft a verification block. */
  private static int stepTokens(Options o, MachineParams machine) {
    int prefillTokens = Math.min(o.promptLen(), NpuDecoder.prefillChunk(machine));
    return o.draftLayers() > 0 ? Math.max(prefillTokens, o.gamma() + 1) : prefillTokens;
  }

  /** {@code prepared} lowered for {@code machine} and a context of prompt-len + max-new (the lowering's checks throw). */
  private static LoweredModel lower(Options o, ModelWeights prepared, MachineParams machine) {
    int context = o.promptLen() + o.maxNew();
    if (context > prepared.config().maxSeqLen()) {
      throw new IllegalArgumentException("prompt-len + max-new must be at most the model's "
          + prepared.config().maxSeqLen() + " tokens, got " + context);
    }
    return new LoweredModel(prepared, machine, context, stepTokens(o, machine), WeightFormats.bits(o.quant()),
        WeightFormats.group(o.quant()), WeightFormats.sparsity(o.quant()), WeightFormats.mx(o.quant()));
  }

  /**
   * The machine a weight format runs on: {@code machine} itself, or for {@code s2_4} the same NPU
   * with its MAC array built for 2:4 ({@code MachineParams.sparsity} 1). On the golden simulator a
   * dense configuration is switched to 2:4; the RTL must have been built with 2:4 (the
   * {@code NpuConfig} {@code sparsity} parameter), else a clear error.
   */
  static MachineParams target(String quant, MachineParams machine, boolean rtl) {
    int sparsity = WeightFormats.sparsity(quant);
    if (sparsity == machine.sparsity() || sparsity == org.llmnpu.isa.Command.DENSE) {
      return machine;
    }
    if (rtl) {
      throw new IllegalArgumentException("--quant " + quant + " runs 2:4-sparse GEMMs: the RTL NPU must be built with "
          + "its MAC array in 2:4 (the NpuConfig parameter sparsity set to 2:4, in the --config file), but this NPU's "
          + "array is " + (machine.sparsity() == org.llmnpu.isa.Command.DENSE ? "dense" : "4:8"));
    }
    return machine.withUnits(machine.ppmLatency(), machine.ppu(), sparsity);
  }

  private static int[] greedy(Transformer fp32, int[] prompt, int n) {
    DenseKvCache kv = fp32.newCache(prompt.length + n);
    float[][] l = fp32.forwardAll(prompt, kv);
    float[] logits = l[prompt.length - 1];
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = Ops.argmax(logits);
      if (i + 1 < n) {
        logits = fp32.forward(out[i], kv.length(), kv);
      }
    }
    return out;
  }
}
