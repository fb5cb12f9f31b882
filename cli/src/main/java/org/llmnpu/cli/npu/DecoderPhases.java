package org.llmnpu.cli.npu;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.isa.Counter;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The prefill and decode phases of the decoder on the NPU's RTL, with the counters each phase
 * produced: the one place where the report and the demo get per-phase counters.
 *
 * <p>Today the decoder is not lowered to NPU programs, so each phase is a <b>GEMM-only proxy</b>:
 * an {@code npu-isa} program of the model's GEMMs for that phase ({@link DecoderGemms}, tiled by
 * {@link GemmProgram}) co-simulated on the RTL against the golden ISA simulator. When the decoder
 * lowering ({@code cosim decoder}, counters per phase) is available, {@link #run} returns its
 * counters instead, with {@code proxy = false}; nothing else changes.
 */
public final class DecoderPhases {
  /**
   * One phase on the RTL.
   *
   * @param phase    "prefill" or "decode"
   * @param tokens   tokens the counters cover
   * @param source   what ran
   * @param proxy    true for the GEMM-only proxy
   * @param counters the RTL's counters by {@link Counter#key()}
   * @param outcome  the co-simulation (bit-exactness, model vs RTL cycles)
   */
  public record PhaseRun(String phase, int tokens, String source, boolean proxy, Map<String, Long> counters,
                         ProgramCosim.Outcome outcome) {
  }

  private DecoderPhases() {
  }

  /**
   * Prefill of {@code promptTokens} tokens and one decode step after it, co-simulated on
   * {@code rtl}.
   */
  public static List<PhaseRun> run(NpuRtl rtl, String modelName, ModelConfig model, int promptTokens, long seed,
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
    return new PhaseRun(phase, tokens, source, true, counters, o);
  }
}
