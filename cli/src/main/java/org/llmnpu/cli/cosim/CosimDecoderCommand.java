package org.llmnpu.cli.cosim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.llmnpu.cli.NpuParameters;
import org.llmnpu.cosim.axi.NpuAxiComparison;
import org.llmnpu.cosim.decoder.DecoderClock;
import org.llmnpu.cosim.decoder.DecoderRun;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code npu cosim decoder}: the whole decoder lowered to NPU programs (prefill + decode steps),
 * on the golden ISA simulator or on the RTL against it; prints tokens, bit-exactness, cycles per
 * phase (RTL next to the cycle model), TTFT/TPOT at a clock ({@link DecoderClock}: the given one, this NPU's cached
 * Fmax, or a stated assumption), the counters and the integer path's
 * accuracy against FP32. Parsing and printing only: the run is {@link DecoderRun}.
 */
@Command(name = "decoder", mixinStandardHelpOptions = true,
    description = "A LLaMA decoder (prefill + decode) lowered to NPU programs, on the golden ISA simulator or the RTL.")
public final class CosimDecoderCommand implements Callable<Integer> {
  @Option(names = "--model", defaultValue = "stories260K", description = "Model: stories260K, tiny, medium or a Hugging "
      + "Face model directory (default ${DEFAULT-VALUE}).")
  String model;
  @Option(names = "--prompt-len", defaultValue = "16", description = "Prompt tokens, 1 up to the model's context less "
      + "--max-new (stories260K: 512): BOS then tokens sampled from the FP32 model; a prompt longer than the engine's "
      + "maxM is prefilled in chunks of maxM tokens, one program each (default ${DEFAULT-VALUE}).")
  int promptLen;
  @Option(names = "--max-new", defaultValue = "8", description = "Tokens to generate, greedy (default ${DEFAULT-VALUE}).")
  int maxNew;
  @Option(names = "--quant", defaultValue = "int8", description = "Weight format: int8, int8@gptq, int8@awq, int8@clip (INT8 per channel; the @ forms adjust the weights "
      + "first with the compressor), int8+smooth, int8@gptq+smooth (SmoothQuant first), int4 (per channel, loaded "
      + "with load4), int4-g32 (INT4 with a scale per 32 rows of K, a GEMM per group summed on the DSP), s2_4 (2:4-pruned "
      + "INT8, compressed with metadata, sparse GEMMs: the NPU's array in 2:4, switched on for the golden simulator, "
      + "required of the RTL), mxfp8 / mxint8 (OCP MX blocks of 32 rows of K, decoded by loadmx on an NPU with mxLoad, "
      + "which the default NPU then gets; one GEMM per block); default ${DEFAULT-VALUE}.")
  String quant;
  @Option(names = "--fusion", defaultValue = "full", description = "none (the lowering without the fused datapath; "
      + "Q/K/V and gate/up are already one GEMM each), vertical (+ weights streamed into the array and the GEMM epilogue "
      + "through the PPM), full (+ attention without round trips); what the NPU or the format cannot fuse runs "
      + "unfused, each such fusion named with why in the output (default ${DEFAULT-VALUE}).")
  String fusion;
  @Option(names = "--qkv-scales", defaultValue = "dynamic", description = "dynamic (each token's absmax) or static "
      + "(per-tensor q/k/v scales calibrated on sequences sampled from the model, where the PPM epilogues apply; "
      + "the accuracy against FP32 below says what they cost this model) (default ${DEFAULT-VALUE}).")
  String qkvScales;
  @Option(names = "--engine", defaultValue = "golden", description = "golden (ISA simulator) or rtl (Verilator vs "
      + "golden, step by step; default ${DEFAULT-VALUE}).")
  String engine;
  @Option(names = "--seed", defaultValue = "1", description = "Prompt seed (default ${DEFAULT-VALUE}).")
  long seed;
  @Option(names = "--clock-mhz", description = "Clock for TTFT/TPOT, MHz (default: this NPU's Fmax when its PPA "
      + "result is cached, from ./npu report ppa npu at 5.75 or 5 ns; else 173.9, the default NPU's Fmax at 180 nm, "
      + "said to be assumed).")
  Double clockMhz;
  @Option(names = "--speculative", description = "Greedy speculative decoding besides the plain run, on the same engine "
      + "(golden, or the RTL with every draft and target program compared with the golden): draft=layersN,gamma=G "
      + "(the first N layers as the draft, G proposals per target pass); prints the accepted tokens, cycles per "
      + "accepted token and the speedup vs the plain run's decode.")
  String speculative;
  /** {@code --config} and {@code -p}; without either, {@link DecoderRun#defaultNpu} of {@code --quant}. */
  @Mixin
  NpuParameters npu;
  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    DecoderRun.Options options;
    NpuConfig config;
    DecoderClock given;
    try {
      DecoderRun.Engine e = switch (engine.toLowerCase(Locale.ROOT)) {
        case "golden" -> DecoderRun.Engine.GOLDEN;
        case "rtl" -> DecoderRun.Engine.RTL;
        default -> throw new IllegalArgumentException("--engine must be golden or rtl, got '" + engine + "'");
      };
      given = clockMhz == null ? null : DecoderClock.given(clockMhz);
      int[] spec = speculative == null ? new int[] {0, 0} : parseSpeculative(speculative);
      options = new DecoderRun.Options(model, promptLen, maxNew, quant, e, seed, spec[0], spec[1], fusion, qkvScales);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage().startsWith("--") ? e.getMessage() : "--" + e.getMessage());
      return 2;
    }
    try {
      config = npu.npu(DecoderRun.defaultNpu(quant));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    DecoderRun.Result r;
    try {
      r = DecoderRun.run(options, config, SimOptions.fromEnvironment());
    } catch (IllegalArgumentException | java.io.IOException e) {
      // the model is resolved only here: name the option, as the other parameters' errors do
      String m = e.getMessage();
      System.err.println(m != null && m.startsWith("model must be") ? "--model: " + m : m);
      return 2;
    }
    boolean rtl = options.engine() == DecoderRun.Engine.RTL;
    DecoderRun.Speculative sp = r.speculative().orElse(null);
    long preModel = r.total("prefill", Counter.CYCLES);
    long decModel = r.total("decode", Counter.CYCLES);
    int decodeSteps = r.steps().size() - 1;
    DecoderClock clock = given != null ? given : DecoderClock.of(config);
    double cyclesPerUs = clock.mhz();
    double ttftMs = preModel / cyclesPerUs / 1000;
    double tpotMs = decodeSteps == 0 ? 0 : decModel / (double) decodeSteps / cyclesPerUs / 1000;
    if (json) {
      ObjectMapper m = new ObjectMapper();
      ObjectNode root = m.createObjectNode();
      root.put("model", model);
      root.put("quant", quant);
      root.put("fusion", fusion);
      root.put("fusionApplied", r.fusion().applied().optionValue());
      root.put("qkvScales", qkvScales);
      r.fusion().notApplied().forEach(root.withArray("fusionNotApplied")::add);
      root.put("engine", engine.toLowerCase(Locale.ROOT));
      ArrayNode p = root.putArray("prompt");
      Arrays.stream(r.prompt()).forEach(p::add);
      ArrayNode t = root.putArray("tokens");
      Arrays.stream(r.tokens()).forEach(t::add);
      ArrayNode f = root.putArray("fp32Tokens");
      Arrays.stream(r.fp32Tokens()).forEach(f::add);
      root.put("bus", config.bus());
      if (rtl) {
        root.put("comparison", comparison(config));
        root.put("bitExact", r.bitExact());
        r.firstDifference().ifPresent(d -> root.put("firstDifference", d));
        ObjectNode rc = root.putObject("rtlCycles");
        rc.put("prefill", r.rtlCycles("prefill"));
        rc.put("decode", r.rtlCycles("decode"));
      } else {
        root.putNull("bitExact");
        root.putNull("rtlCycles");
      }
      ObjectNode mc = root.putObject("modelCycles");
      mc.put("prefill", preModel);
      mc.put("decode", decModel);
      mc.put("decodeSteps", decodeSteps);
      root.put("clockMhz", clock.mhz());
      root.put("clockSource", clock.source().key());
      root.put("clockBasis", clock.basis());
      root.put("ttftMs", ttftMs);
      root.put("tpotMs", tpotMs);
      root.put("top1Agreement", r.accuracy().top1Agreement());
      root.put("klDivergence", r.accuracy().klDivergence());
      if (sp != null) {
        speculativeJson(root.putObject("speculative"), sp, rtl);
      }
      ObjectNode counters = root.putObject("counters");
      for (String phase : new String[] {"prefill", "decode"}) {
        ObjectNode ph = counters.putObject(phase);
        for (Counter c : Counter.values()) {
          ph.put(c.key(), r.total(phase, c));
        }
      }
      ArrayNode steps = root.putArray("steps");
      for (DecoderRun.Step s : r.steps()) {
        ObjectNode n = steps.addObject();
        n.put("phase", s.phase());
        n.put("tokens", s.tokens());
        n.put("commands", s.commands());
        n.put("modelCycles", s.counter(Counter.CYCLES));
        if (rtl) {
          n.put("rtlCycles", s.rtlCycles());
          n.put("bitExact", s.bitExact());
          n.put("rtlSeconds", s.rtlSeconds());
        }
        n.put("goldenSeconds", s.goldenSeconds());
      }
      System.out.println(m.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    } else {
      System.out.printf("%s, %s weights, prompt %d tokens, %d new, on the %s%n", model, quant, r.prompt().length,
          r.tokens().length, rtl ? "RTL (Verilator) vs the golden ISA simulator" : "golden ISA simulator");
      System.out.printf("  %s%n", r.fusion().summary());
      if (qkvScales.equals("static")) {
        System.out.println("  q/k/v scales: static (calibrated per tensor and layer on sequences sampled from the "
            + "model)");
      }
      System.out.printf("  prompt: %s%n  tokens: %s%n  fp32 greedy: %s%n", Arrays.toString(r.prompt()),
          Arrays.toString(r.tokens()), Arrays.toString(r.fp32Tokens()));
      if (rtl) {
        System.out.printf("  comparison: %s%n", comparison(config));
        System.out.printf("  bit-exact (memory, status, counters, every step): %s%n",
            r.bitExact() ? "yes" : "NO, " + r.firstDifference().orElse(""));
      }
      System.out.printf("  integer path vs FP32 on the generated positions: top-1 %.3f, KL %.4f nats%n",
          r.accuracy().top1Agreement(), r.accuracy().klDivergence());
      System.out.printf("  %-8s %6s %9s %14s %14s %10s%n", "step", "tokens", "commands", "model cycles",
          rtl ? "RTL cycles" : "", "golden s");
      for (DecoderRun.Step s : r.steps()) {
        System.out.printf("  %-8s %6d %9d %,14d %14s %10.3f%n", s.phase(), s.tokens(), s.commands(),
            s.counter(Counter.CYCLES), rtl ? String.format("%,d", s.rtlCycles()) : "", s.goldenSeconds());
      }
      System.out.printf("  at %.1f MHz (%s): TTFT %.3f ms (prefill), TPOT %.3f ms (mean decode step)%n", clock.mhz(),
          clock.basis(), ttftMs, tpotMs);
      if (sp != null) {
        printSpeculative(sp, rtl);
      }
      System.out.printf("  %-18s %16s %16s%n", "counter", "prefill", "decode (all)");
      for (Counter c : Counter.values()) {
        System.out.printf("  %-18s %,16d %,16d%n", c.key(), r.total("prefill", c), r.total("decode", c));
      }
    }
    return (!rtl || r.bitExact()) && (sp == null || (sp.equalsTargetOnly() && sp.equalsGolden())) ? 0 : 1;
  }

  private static void speculativeJson(ObjectNode s, DecoderRun.Speculative sp, boolean rtl) {
    s.put("draftLayers", sp.draftLayers());
    s.put("gamma", sp.gamma());
    ArrayNode st = s.putArray("tokens");
    Arrays.stream(sp.tokens()).forEach(st::add);
    ArrayNode gt = s.putArray("goldenTokens");
    Arrays.stream(sp.goldenTokens()).forEach(gt::add);
    s.put("equalsGolden", sp.equalsGolden());
    s.put("equalsTargetOnly", sp.equalsTargetOnly());
    s.put("targetPasses", sp.targetPasses());
    s.put("draftSteps", sp.draftSteps());
    s.put("drafted", sp.drafted());
    s.put("accepted", sp.accepted());
    s.put("acceptanceRate", sp.acceptanceRate());
    s.put("tokensPerPass", sp.tokensPerPass());
    if (rtl) {
      s.put("bitExact", sp.bitExact());
      sp.firstDifference().ifPresent(d -> s.put("firstDifference", d));
    } else {
      s.putNull("bitExact");
    }
    ObjectNode mc = s.putObject("modelCycles");
    ObjectNode rc = rtl ? s.putObject("rtlCycles") : null;
    for (String[] ph : new String[][] {{"prefill", "target prefill"}, {"draftPrefill", "draft prefill"},
        {"draftDecode", "draft decode"}, {"verify", "target verify"}}) {
      mc.put(ph[0], sp.modelCycles(ph[1]));
      if (rc != null) {
        rc.put(ph[0], sp.rtlCycles(ph[1]));
      }
    }
    if (!rtl) {
      s.putNull("rtlCycles");
    }
    s.put("cyclesPerToken", sp.cyclesPerToken());
    s.put("targetOnlyCyclesPerToken", sp.targetOnlyCyclesPerToken());
    s.put("speedup", sp.speedup());
    if (rtl) {
      s.put("rtlCyclesPerToken", sp.rtlCyclesPerToken());
      s.put("targetOnlyRtlCyclesPerToken", sp.targetOnlyRtlCyclesPerToken());
      s.put("rtlSpeedup", sp.rtlSpeedup());
    }
    ArrayNode steps = s.putArray("steps");
    for (DecoderRun.Step x : sp.steps()) {
      ObjectNode n = steps.addObject();
      n.put("phase", x.phase());
      n.put("tokens", x.tokens());
      n.put("commands", x.commands());
      n.put("modelCycles", x.counter(Counter.CYCLES));
      if (rtl) {
        n.put("rtlCycles", x.rtlCycles());
        n.put("bitExact", x.bitExact());
        n.put("rtlSeconds", x.rtlSeconds());
      }
    }
  }

  private static void printSpeculative(DecoderRun.Speculative sp, boolean rtl) {
    System.out.printf("  speculative decoding (%d-layer draft, gamma %d)%s:%n", sp.draftLayers(), sp.gamma(),
        rtl ? " on the RTL vs the golden ISA simulator" : " on the golden ISA simulator");
    System.out.printf("    tokens: %s (%s target-only greedy%s)%n", Arrays.toString(sp.tokens()),
        sp.equalsTargetOnly() ? "equal to" : "DIFFERENT from",
        rtl ? (sp.equalsGolden() ? ", equal to the golden session's" : ", DIFFERENT from the golden session's "
            + Arrays.toString(sp.goldenTokens())) : "");
    if (rtl) {
      System.out.printf("    bit-exact (memory, status, counters, every draft and target program): %s%n",
          sp.bitExact() ? "yes" : "NO, " + sp.firstDifference().orElse(""));
    }
    System.out.printf("    %d target passes, %d draft decode steps; accepted %d of %d proposals (acceptance rate "
        + "%.3f), %.2f tokens per pass%n", sp.targetPasses(), sp.draftSteps(), sp.accepted(), sp.drafted(),
        sp.acceptanceRate(), sp.tokensPerPass());
    System.out.printf("    %-15s %6s %14s %14s %10s%n", "phase", "steps", "model cycles", rtl ? "RTL cycles" : "",
        rtl ? "RTL s" : "");
    for (String ph : new String[] {"target prefill", "draft prefill", "draft decode", "target verify"}) {
      java.util.List<DecoderRun.Step> in = sp.steps().stream().filter(x -> x.phase().equals(ph)).toList();
      System.out.printf("    %-15s %6d %,14d %14s %10s%n", ph, in.size(), sp.modelCycles(ph),
          rtl ? String.format("%,d", sp.rtlCycles(ph)) : "",
          rtl ? String.format("%.1f", in.stream().mapToDouble(DecoderRun.Step::rtlSeconds).sum()) : "");
    }
    if (rtl) {
      System.out.printf("    cycles per accepted token (draft decode + verify): RTL %,.0f (model %,.0f) vs "
          + "target-only decode RTL %,.0f (model %,.0f): speedup %.2fx%n", sp.rtlCyclesPerToken(), sp.cyclesPerToken(),
          sp.targetOnlyRtlCyclesPerToken(), sp.targetOnlyCyclesPerToken(), sp.rtlSpeedup());
    } else {
      System.out.printf("    cycles per accepted token (draft decode + verify): %,.0f vs target-only decode %,.0f: "
          + "speedup %.2fx%n", sp.cyclesPerToken(), sp.targetOnlyCyclesPerToken(), sp.speedup());
    }
  }

  /** Which comparison the RTL runs get: the native NPU's full one, or the AXI NPU's reduced one. */
  static String comparison(NpuConfig config) {
    return config.axiBus() ? NpuAxiComparison.DESCRIPTION + " (AXI memory read latency memLatency - "
        + NpuAxiComparison.BOUND_EXTRA + ", through the register map)" : CosimProgramCommand.FULL;
  }

  /** {@code draft=layersN,gamma=G} → {N, G}. */
  static int[] parseSpeculative(String text) {
    int layers = -1;
    int gamma = 4;
    for (String part : text.split(",")) {
      String[] kv = part.trim().split("=", 2);
      try {
        if (kv.length == 2 && kv[0].equals("draft") && kv[1].startsWith("layers")) {
          layers = Integer.parseInt(kv[1].substring("layers".length()));
        } else if (kv.length == 2 && kv[0].equals("gamma")) {
          gamma = Integer.parseInt(kv[1]);
        } else {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--speculative must be draft=layersN[,gamma=G], got '" + text + "'");
      }
    }
    if (layers < 1) {
      throw new IllegalArgumentException("--speculative must name the draft: draft=layersN[,gamma=G], got '" + text + "'");
    }
    return new int[] {layers, gamma};
  }
}
