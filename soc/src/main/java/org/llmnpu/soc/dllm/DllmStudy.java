package org.llmnpu.soc.dllm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.dllm.DenoiserProgram;
import org.llmnpu.sw.dllm.DiffusionAdaptation;
import org.llmnpu.sw.dllm.DiffusionDecoder;
import org.llmnpu.sw.dllm.DllmSettings;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.Transformer;

/**
 * What {@code npu sw dllm} computes: a block-wise diffusion decode of a model with weights ({@link DiffusionDecoder}:
 * its steps, rows and commits) and its time on a SoC preset ({@link DllmSoc}) against an autoregressive model of the
 * same shape on the same SoC and against the CPU alone, with each mechanism switched off in turn; the same schedule
 * on LLaMA-3-8B's shape (LLaDA-8B's size); the NPU pass's staircase in the rows and the array/DSP rates.
 *
 * <p><b>Weights.</b> {@code weights: "trained"} (stories260K's default): the shipped checkpoint adapted to masked
 * diffusion by continued training ({@link DiffusionAdaptation}, held-out figures in its properties file), so
 * confidences, commits and speculation reflect a trained denoiser. {@code weights: "synthetic"}: the model's
 * autoregressive weights with the causal mask lifted inside a block and token 0 as the mask, without diffusion
 * training; its tokens are not meaningful text and only the schedule and speed figures mean anything. The prompt is
 * sampled from the autoregressive model (seeded), so it is the same for both.
 */
public final class DllmStudy {
  /** Which weights the denoiser runs. */
  public enum Weights {
    /** {@link DiffusionAdaptation#trained}: stories260K adapted to masked diffusion. */
    TRAINED,
    /** The model's autoregressive weights, not trained for diffusion. */
    SYNTHETIC;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What to decode. */
  public record Options(String model, String preset, int promptTokens, int generate, DllmSettings settings,
                        Weights weights) {
    public Options {
      if (weights == Weights.TRAINED && !TRAINED_MODEL.equals(model)) {
        throw new IllegalArgumentException("--weights: trained weights exist only for " + TRAINED_MODEL
            + "; use --weights synthetic for " + model);
      }
    }

    /** The default weights: trained for stories260K, synthetic otherwise. */
    public Options(String model, String preset, int promptTokens, int generate, DllmSettings settings) {
      this(model, preset, promptTokens, generate, settings,
          TRAINED_MODEL.equals(model) ? Weights.TRAINED : Weights.SYNTHETIC);
    }
  }

  /** The model a diffusion-adapted checkpoint ships for. */
  public static final String TRAINED_MODEL = "stories260K";

  /** One configuration's generation time on the SoC, for the decoded model and for {@link #LARGE}'s shape. */
  public record Variant(String name, String switchedOff, int passes, long npuRows, double seconds,
                        double largeSeconds) {
  }

  private record Variants(DllmSoc soc, ModelConfig c, ModelConfig big, int len, List<Variant> list) {
    Variants(DllmSoc soc, ModelConfig c, ModelConfig big, int len) {
      this(soc, c, big, len, new ArrayList<>());
    }

    void add(String name, String off, DiffusionDecoder.Trace t, DllmSoc.Runtime rt) {
      list.add(new Variant(name, off, t.steps().size(), rows(t), soc.diffusion(c, t.steps(), len, rt).totalS(),
          soc.diffusion(big, t.steps(), len, rt).totalS()));
    }
  }

  /** One row count's pass cycles: the whole program and the array alone. */
  public record Stair(int rows, long programCycles, long arrayCycles) {
  }

  /** The study's figures. */
  public record Result(Options options, int mTile, int passes, long npuRows, long cpuRows, int revisions,
                       int speculativeCommits, int confidentCommits, int commits, List<Variant> variants, double autoregressiveS, double cpuOnlyS,
                       double autoregressiveCpuS, double largeS, double largeAutoregressiveS, double largeCpuOnlyS,
                       String largeModel, List<Stair> staircase, String stairMachine, int arrayMacsPerCycle,
                       int dspLanes, double dspShare) {
    /** Share of commits whose confidence reached the threshold (the rest came from the per-step quota). */
    public double confidentShare() {
      return confidentCommits / (double) commits;
    }

    public double dllmS() {
      return variants.get(0).seconds();
    }

    public double speedupVsAutoregressive() {
      return autoregressiveS / dllmS();
    }

    public double speedupVsCpuOnly() {
      return cpuOnlyS / dllmS();
    }

    public double largeSpeedupVsAutoregressive() {
      return largeAutoregressiveS / largeS;
    }

    public double largeSpeedupVsCpuOnly() {
      return largeCpuOnlyS / largeS;
    }
  }

  /** LLaDA-8B's size: LLaMA-3-8B's shape. */
  public static final String LARGE = "llama-3-8b";

  private DllmStudy() {
  }

  public static Result run(Options o) throws IOException {
    DllmSoc soc = DllmSoc.of(o.preset());
    Transformer ar = new Transformer(ModelCatalog.load(o.model(), 42));
    Transformer m = o.weights() == Weights.TRAINED ? new Transformer(DiffusionAdaptation.trained()) : ar;
    ModelConfig c = m.config();
    if (o.promptTokens() < 1 || o.generate() < 1 || o.promptTokens() + o.generate() > c.maxSeqLen()) {
      throw new IllegalArgumentException("--prompt plus --generate must fit the model's context " + c.maxSeqLen()
          + " (each >= 1), got " + o.promptTokens() + " + " + o.generate());
    }
    int[] prompt = java.util.Arrays.copyOf(SampledSequences.sample(ar, 1, Math.max(2, o.promptTokens()), 7)[0],
        o.promptTokens());
    int len = o.promptTokens() + o.generate();
    DllmSettings s = o.settings();
    DiffusionDecoder.Trace all = DiffusionDecoder.decode(m, prompt, o.generate(), s);
    ModelConfig big = ModelShapes.of(LARGE).config();
    Variants v = new Variants(soc, c, big, len);
    v.add("all mechanisms", "", all, DllmSoc.Runtime.ALL);
    v.add("no speculative blocks", "multi-block speculative decoding",
        DiffusionDecoder.decode(m, prompt, o.generate(), s.withSpeculativeBlocks(0)), DllmSoc.Runtime.ALL);
    v.add("revision on the NPU", "dual-path progressive revision (CPU path)",
        DiffusionDecoder.decode(m, prompt, o.generate(), s.withRevision(DllmSettings.Revision.NPU)), DllmSoc.Runtime.ALL);
    v.add("naive memory runtime", "swap-optimized memory runtime", all, new DllmSoc.Runtime(false, true));
    DiffusionDecoder.Trace whole = DiffusionDecoder.decode(m, prompt, o.generate(), s.withCacheCommitted(false)
        .withRevision(DllmSettings.Revision.OFF).withSpeculativeBlocks(0));
    v.add("whole block every step", "committed-token caching", DiffusionDecoder.decode(m, prompt, o.generate(),
        s.withCacheCommitted(false).withRevision(DllmSettings.Revision.OFF)), DllmSoc.Runtime.ALL);
    v.add("no prefix KV reuse", "prefix KV reuse", all, new DllmSoc.Runtime(true, false));
    v.add("no llada mechanism", "speculation, caching, revision path, memory runtime", whole,
        new DllmSoc.Runtime(false, true));
    List<Variant> variants = v.list;
    double largeS = variants.get(0).largeSeconds();
    MachineParams stairNpu = org.llmnpu.sw.lower.NpuTargets.defaultNpu();
    List<Stair> stairs = DllmStaircase.rows(stairNpu, c, len);
    MachineParams sp = soc.machine();
    int tile = sp.mTile();
    long gemm = DenoiserProgram.gemmCycles(sp, c, tile, len, tile);
    long dsp = DenoiserProgram.dspCycles(sp, c, tile, len);
    long spec = all.commits().stream().filter(DiffusionDecoder.Commit::speculative).count();
    long confident = all.commits().stream().filter(x -> x.confidence() >= s.threshold()).count();
    return new Result(o, tile, all.steps().size(), rows(all),
        all.steps().stream().mapToLong(DiffusionDecoder.Step::cpuRows).sum(), all.revisions(), (int) spec,
        (int) confident, all.commits().size(), variants,
        soc.autoregressive(c, o.promptTokens(), o.generate()), soc.cpuOnly(c, all.steps()),
        soc.autoregressiveCpu(c, o.promptTokens(), o.generate()), largeS,
        soc.autoregressive(big, o.promptTokens(), o.generate()), soc.cpuOnly(big, all.steps()), LARGE, stairs,
        DllmStaircase.machineName("default NPU", stairNpu),
        sp.rows() * sp.rows(), sp.dsp().lanes(), dsp / (double) (gemm + dsp));
  }

  private static long rows(DiffusionDecoder.Trace t) {
    return t.steps().stream().mapToLong(DiffusionDecoder.Step::npuRows).sum();
  }

  public static String json(Result r) {
    ObjectMapper om = new ObjectMapper();
    ObjectNode o = om.createObjectNode();
    Options op = r.options();
    o.put("model", op.model());
    o.put("preset", op.preset());
    o.put("weights", op.weights().label());
    o.put("weightsNote", weightsNote(op));
    o.put("promptTokens", op.promptTokens());
    o.put("generatedTokens", op.generate());
    DllmSettings s = op.settings();
    ObjectNode st = o.putObject("settings");
    st.put("blockSize", s.blockSize());
    st.put("stepsPerBlock", s.stepsPerBlock());
    st.put("threshold", s.threshold());
    st.put("speculativeBlocks", s.speculativeBlocks());
    st.put("tileRows", s.tileRows());
    st.put("revision", s.revision().name().toLowerCase(Locale.ROOT));
    st.put("reviseRows", s.reviseRows());
    o.put("passes", r.passes());
    o.put("tokensPerPass", op.generate() / (double) r.passes());
    o.put("npuRows", r.npuRows());
    o.put("cpuRows", r.cpuRows());
    o.put("revisions", r.revisions());
    o.put("speculativeCommits", r.speculativeCommits());
    o.put("commits", r.commits());
    o.put("confidentCommitShare", r.confidentShare());
    o.put("dllmS", r.dllmS());
    o.put("autoregressiveS", r.autoregressiveS());
    o.put("cpuOnlyS", r.cpuOnlyS());
    o.put("autoregressiveCpuS", r.autoregressiveCpuS());
    o.put("speedupVsAutoregressive", r.speedupVsAutoregressive());
    o.put("speedupVsCpuOnly", r.speedupVsCpuOnly());
    ArrayNode vs = o.putArray("variants");
    for (Variant v : r.variants()) {
      ObjectNode n = vs.addObject();
      n.put("name", v.name());
      n.put("switchedOff", v.switchedOff());
      n.put("passes", v.passes());
      n.put("npuRows", v.npuRows());
      n.put("seconds", v.seconds());
      n.put("vsAllMechanisms", v.seconds() / r.dllmS());
      n.put("largeSeconds", v.largeSeconds());
      n.put("largeVsAllMechanisms", v.largeSeconds() / r.largeS());
    }
    ObjectNode big = o.putObject("large");
    big.put("model", r.largeModel());
    big.put("dllmS", r.largeS());
    big.put("autoregressiveS", r.largeAutoregressiveS());
    big.put("cpuOnlyS", r.largeCpuOnlyS());
    big.put("speedupVsAutoregressive", r.largeSpeedupVsAutoregressive());
    big.put("speedupVsCpuOnly", r.largeSpeedupVsCpuOnly());
    ObjectNode stair = o.putObject("staircase");
    stair.put("machine", r.stairMachine());
    ArrayNode rows = stair.putArray("rows");
    for (Stair x : r.staircase()) {
      rows.addObject().put("rows", x.rows()).put("programCycles", x.programCycles()).put("arrayCycles", x.arrayCycles());
    }
    ObjectNode wv = o.putObject("weakVector");
    wv.put("arrayMacsPerCycle", r.arrayMacsPerCycle());
    wv.put("dspOpsPerCycle", r.dspLanes());
    wv.put("dspShareOfPassCycles", r.dspShare());
    try {
      return om.writerWithDefaultPrettyPrinter().writeValueAsString(o) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String text(Result r) {
    Options op = r.options();
    DllmSettings s = op.settings();
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "Diffusion decoding of %s on %s: %d prompt + %d generated tokens, blocks of %d,"
        + " <= %d steps a block, threshold %.2f, %d speculative block(s), revision %s (%d rows); weights: %s "
        + "(%s)%n", op.model(), op.preset(), op.promptTokens(), op.generate(), s.blockSize(), s.stepsPerBlock(),
        s.threshold(), s.speculativeBlocks(), s.revision().name().toLowerCase(Locale.ROOT), s.reviseRows(),
        op.weights().label(), weightsNote(op)));
    b.append(String.format(Locale.ROOT, "  %d passes (%.2f tokens a pass), %d NPU rows, %d CPU revision rows, %d "
        + "tokens revised, %d speculative commits; %.1f %% of %d commits by confidence >= threshold, the rest by the "
        + "quota%n", r.passes(), op.generate() / (double) r.passes(), r.npuRows(), r.cpuRows(), r.revisions(),
        r.speculativeCommits(), 100 * r.confidentShare(), r.commits()));
    b.append(String.format(Locale.ROOT, "  %-26s %-52s %7s %9s %11s %8s %11s %8s%n", "configuration", "switched off",
        "passes", "NPU rows", "ms", "vs all", r.largeModel() + " ms", "vs all"));
    for (Variant v : r.variants()) {
      b.append(String.format(Locale.ROOT, "  %-26s %-52s %7d %9d %11.3f %7.2fx %11.1f %7.2fx%n", v.name(),
          v.switchedOff(), v.passes(), v.npuRows(), 1e3 * v.seconds(), v.seconds() / r.dllmS(),
          1e3 * v.largeSeconds(), v.largeSeconds() / r.largeS()));
    }
    b.append(String.format(Locale.ROOT, "  autoregressive, same shape, same SoC: %.3f ms -> speedupVsAutoregressive "
        + "%.2fx; diffusion on the CPU alone %.3f ms -> %.2fx; autoregressive on the CPU %.3f ms%n",
        1e3 * r.autoregressiveS(), r.speedupVsAutoregressive(), 1e3 * r.cpuOnlyS(), r.speedupVsCpuOnly(),
        1e3 * r.autoregressiveCpuS()));
    b.append(String.format(Locale.ROOT, "  the same schedule on %s's shape: %.1f ms; autoregressive %.1f ms (%.2fx); "
        + "CPU alone %.1f ms (%.2fx)%n", r.largeModel(), 1e3 * r.largeS(), 1e3 * r.largeAutoregressiveS(),
        r.largeSpeedupVsAutoregressive(), 1e3 * r.largeCpuOnlyS(), r.largeSpeedupVsCpuOnly()));
    b.append(String.format(Locale.ROOT, "  weak vector unit: the array does %d MACs a cycle, the Vector DSP %d "
        + "operations; the DSP takes %.1f %% of a %d-row pass's cycles%n", r.arrayMacsPerCycle(), r.dspLanes(),
        100 * r.dspShare(), r.mTile()));
    b.append("  staircase, " + r.stairMachine() + ": rows -> program cycles / array cycles\n   ");
    for (Stair x : r.staircase()) {
      b.append(String.format(Locale.ROOT, " %d:%d/%d", x.rows(), x.programCycles(), x.arrayCycles()));
    }
    b.append('\n');
    return b.toString();
  }

  /** What the weights are, with the trained checkpoint's held-out figures. */
  public static String weightsNote(Options op) {
    if (op.weights() == Weights.SYNTHETIC) {
      return "the model's autoregressive weights as the denoiser (causal mask lifted inside a block, token "
          + op.settings().maskToken() + " as the mask), not trained for diffusion: tokens are not meaningful text; "
          + "only speed and schedule figures are";
    }
    try {
      Properties p = DiffusionAdaptation.trainedFigures();
      return String.format(Locale.ROOT, "%s adapted to masked diffusion (%s); held-out masked-token loss %s -> %s "
          + "nats, accuracy %s -> %s (autoregressive weights -> adapted)", DiffusionAdaptation.CHECKPOINT,
          p.getProperty("recipe"), p.getProperty("before.loss"), p.getProperty("after.loss"),
          p.getProperty("before.accuracy"), p.getProperty("after.accuracy"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Named variants' seconds, for findings. */
  public static Map<String, Double> seconds(Result r) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (Variant v : r.variants()) {
      m.put(v.name(), v.seconds());
    }
    return m;
  }
}
