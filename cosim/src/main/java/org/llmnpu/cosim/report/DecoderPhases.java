package org.llmnpu.cosim.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.llmnpu.cosim.GemmVectors;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.cosim.decoder.DecoderRun;
import org.llmnpu.sw.lower.DecoderGemms;
import org.llmnpu.sw.lower.GemmProgram;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuClockGates;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The prefill and decode phases of the decoder on the NPU's RTL, with the counters each phase
 * produced: the one place where the report and the demo get per-phase counters.
 *
 * <p>The phases are the whole decoder lowered to NPU programs by the software stack
 * ({@code cosim decoder}: every layer and the LM head, GEMMs on the array, norms, RoPE, SoftMax and
 * SiLU·gate on the Vector DSP, INT8 weights) co-simulated on the RTL against the golden ISA
 * simulator. When the NPU cannot hold the lowered model (e.g. a DSP buffer too small for it), each
 * phase falls back to a <b>GEMM-only proxy</b>: an {@code npu-isa} program of the model's GEMMs
 * ({@link DecoderGemms}, tiled by {@link GemmProgram}), labelled {@code proxy = true}.
 */
public final class DecoderPhases {
  /**
   * One phase on the RTL.
   *
   * @param phase    "prefill" or "decode"
   * @param tokens   tokens the counters cover
   * @param source   what ran
   * @param proxy    true for the GEMM-only proxy
   * @param counters    the RTL's counters by {@link Counter#key()} (equal to the golden ones when bit-exact), and
   *                    {@code arrayVectors} (derived from the GEMM commands' shapes, {@link GemmVectors})
   * @param bitExact    memory, status and every counter equal to the golden ISA simulator's
   * @param rtlCycles   RTL cycles of the phase
   * @param modelCycles cycle-model cycles of the phase
   * @param differing   counters that differ (keys), empty when none
   */
  public record PhaseRun(String phase, int tokens, String source, boolean proxy, Map<String, Long> counters,
                         boolean bitExact, long rtlCycles, long modelCycles, List<String> differing) {
    public PhaseRun {
      differing = List.copyOf(differing);
    }
  }

  /**
   * Key of the derived count of input vectors the GEMM engine took ({@link GemmVectors}: from the executed GEMM
   * commands' shapes, not a hardware counter), added to each phase's counters for the energy of a PiM engine.
   */
  static final String ARRAY_VECTORS = org.llmnpu.reports.energy.EnergyEstimate.ARRAY_VECTORS;

  private DecoderPhases() {
  }

  /**
   * Prefill of {@code promptTokens} tokens and one decode step after it, co-simulated on
   * {@code rtl}.
   */
  public static List<PhaseRun> run(NpuRtl rtl, String modelName, ModelConfig model, int promptTokens, long seed,
                                   Consumer<String> log) {
    DecoderRun.Result r;
    long t0 = System.nanoTime();
    try {
      // the lowering the toolkit runs by default (--fusion full; where this NPU cannot fuse, the fallback is named)
      r = DecoderRun.run(new DecoderRun.Options(modelName, promptTokens, 2, "int8", DecoderRun.Engine.RTL, seed, 0, 0,
          "full"), rtl);
    } catch (IllegalArgumentException e) {
      log.accept("  the lowered decoder does not fit this NPU (" + e.getMessage() + "): GEMM-only proxy instead");
      return proxies(rtl, modelName, model, promptTokens, seed, log);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    List<PhaseRun> out = new ArrayList<>();
    for (String phase : List.of("prefill", "decode")) {
      List<DecoderRun.Step> steps = r.steps().stream().filter(s -> s.phase().equals(phase)).toList();
      Map<String, Long> counters = new LinkedHashMap<>();
      for (Counter c : Counter.values()) {
        counters.put(c.key(), r.total(phase, c));
      }
      counters.put(ARRAY_VECTORS, r.arrayVectors(phase));
      counters.putAll(org.llmnpu.rtl.npu.NpuClockGates.pipeCycles(r.dspPipeIssues(phase), rtl.config().dspStages()));
      counters.put(NpuClockGates.COUNTER_CARRIES, NpuClockGates.counterCarries(counters));
      boolean exact = steps.stream().allMatch(DecoderRun.Step::bitExact);
      int tokens = phase.equals("prefill") ? promptTokens : steps.size();
      int commands = steps.stream().mapToInt(DecoderRun.Step::commands).sum();
      String source = String.format(java.util.Locale.ROOT, "%s %s lowered to NPU programs (INT8 weights, --fusion %s, %d commands), "
          + "RTL in Verilator", modelName, phase.equals("prefill") ? promptTokens + "-token prefill" : "decode step at "
          + "context " + (promptTokens + 1), r.fusion().applied().optionValue(), commands);
      PhaseRun p = new PhaseRun(phase, tokens, source, false, counters, exact, r.rtlCycles(phase),
          r.total(phase, Counter.CYCLES), exact ? List.of() : steps.stream().filter(s -> !s.bitExact())
              .map(DecoderRun.Step::difference).toList());
      log.accept(String.format(java.util.Locale.ROOT, "  %-7s %s: %s, RTL %,d cycles, model %,d (%s)", phase, source,
          exact ? "bit-exact" : "NOT bit-exact", p.rtlCycles(), p.modelCycles(),
          p.rtlCycles() == p.modelCycles() ? "equal" : "differ"));
      out.add(p);
    }
    log.accept(String.format(java.util.Locale.ROOT, "  decoder on the RTL in %.1f s; tokens %s (FP32: %s)",
        (System.nanoTime() - t0) / 1e9, java.util.Arrays.toString(r.tokens()), java.util.Arrays.toString(r.fp32Tokens())));
    return out;
  }

  /** The GEMM-only proxy of both phases. */
  static List<PhaseRun> proxies(NpuRtl rtl, String modelName, ModelConfig model, int promptTokens, long seed,
                                Consumer<String> log) {
    List<PhaseRun> out = new ArrayList<>();
    out.add(proxy(rtl, "prefill", promptTokens, DecoderGemms.phase(model, promptTokens, promptTokens), modelName,
        seed, log));
    out.add(proxy(rtl, "decode", 1, DecoderGemms.phase(model, 1, promptTokens + 1), modelName, seed + 1, log));
    return out;
  }

  private static PhaseRun proxy(NpuRtl rtl, String phase, int tokens, List<DecoderGemms.Gemm> gemms, String modelName,
                                long seed, Consumer<String> log) {
    GemmProgram.Built b = GemmProgram.build(rtl.config().machine(), gemms, false, seed);
    long t0 = System.nanoTime();
    ProgramCosim.Outcome o = ProgramCosim.run(rtl, b.image(), 0);
    String source = String.format(java.util.Locale.ROOT, "GEMM-only proxy of %s %s (%d GEMMs, %d tiles, %d commands), "
        + "RTL in Verilator", modelName, phase.equals("prefill") ? tokens + "-token prefill" : "decode step at context "
        + gemms.get(3).n(), gemms.size(), b.tiles(), b.program().size());
    log.accept(String.format(java.util.Locale.ROOT, "  %-7s %s: %s, RTL %,d cycles, model %,d (%s) in %.1f s", phase,
        source, o.bitExact() ? "bit-exact" : "NOT bit-exact", o.rtlCycles(), o.modelCycles(),
        o.rtlCycles() == o.modelCycles() ? "equal" : "differ", (System.nanoTime() - t0) / 1e9));
    Map<String, Long> counters = new LinkedHashMap<>();
    for (Counter c : Counter.values()) {
      counters.put(c.key(), o.rtl().counters().get(c));
    }
    counters.put(ARRAY_VECTORS, GemmVectors.ofProgram(b.image(), 0, counters.get(Counter.COMMANDS.key()),
        rtl.config().rows()));
    counters.put(NpuClockGates.COUNTER_CARRIES, NpuClockGates.counterCarries(counters));
    return new PhaseRun(phase, tokens, source, true, counters, o.bitExact() && o.statusMatches(), o.rtlCycles(),
        o.modelCycles(), o.counterMismatches().keySet().stream().map(Counter::key).toList());
  }
}
