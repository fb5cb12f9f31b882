package org.llmnpu.cosim.decoder;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.CachedTiming;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.TimingResult;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The clock at which the decoder's cycles become TTFT and TPOT, and where that clock comes from: the one the user
 * gave; else this NPU's own Fmax, when a PPA run of exactly this NPU (the {@code npu} block with the NPU's generator
 * parameters, the Verilog {@code ./npu report ppa npu} synthesizes) is in the PPA cache ({@link CachedTiming}) at the
 * NPU's target clock ({@value TargetClock#PERIOD_NS_TEXT} ns) or, failing that, at {@code report ppa}'s default
 * constraint (5 ns); else {@link #ASSUMED_MHZ}, stated as an assumption with the command that would measure it.
 *
 * @param mhz    the clock, MHz
 * @param source where it comes from
 * @param basis  one line for the output, e.g. {@code "this NPU's Fmax: cached PPA result at 5.75 ns"}
 */
public record DecoderClock(double mhz, Source source, String basis) {
  /** Where a clock comes from. */
  public enum Source {
    /** {@code --clock-mhz}. */
    GIVEN,
    /** The Fmax of a cached PPA result of this NPU. */
    PPA_CACHE,
    /** No PPA result of this NPU: {@link #ASSUMED_MHZ}. */
    ASSUMED;

    /** The name in JSON output: {@code given}, {@code ppa-cache}, {@code assumed}. */
    public String key() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * The clock assumed without a PPA result: the default NPU's Fmax at 180 nm (osu018, Yosys + OpenSTA, 5.75 ns
   * constraint, met with slack 0.0 ns; {@code bench-results/DefaultNpuPpa.txt}, 2026-12-06).
   */
  public static final double ASSUMED_MHZ = 173.9;

  /** Clock constraints whose cached PPA result is looked for, in this order (ns). */
  static final double[] CONSTRAINTS_NS = {TargetClock.PERIOD_NS, PpaOptions.DEFAULT_CLOCK_NS};

  public DecoderClock {
    if (!(mhz > 0 && mhz < 1e6)) {
      throw new IllegalArgumentException("--clock-mhz must be in (0, 1e6), got " + mhz);
    }
  }

  /** The clock the user gave. */
  public static DecoderClock given(double mhz) {
    return new DecoderClock(mhz, Source.GIVEN, "--clock-mhz");
  }

  /** This NPU's clock from the standard PPA cache ({@link ContentCache#standard()}). */
  public static DecoderClock of(NpuConfig npu) {
    return of(npu, ContentCache.standard());
  }

  /** This NPU's clock from {@code cache}: its cached Fmax, else {@link #ASSUMED_MHZ} with the reason. */
  public static DecoderClock of(NpuConfig npu, ContentCache cache) {
    Map<String, String> params = NpuReportPipeline.generatorParams(npu);
    Optional<PpaOptions> base = ppaOptions(cache);
    if (base.isPresent()) {
      VerilogDesign design = BlockDesigns.of(BlockRegistry.find("npu")).design(params);
      for (double ns : CONSTRAINTS_NS) {
        Optional<TimingResult> t = CachedTiming.find(design, base.get().withClockNs(ns));
        if (t.isPresent()) {
          return new DecoderClock(t.get().fmaxMhz(), Source.PPA_CACHE, String.format(Locale.ROOT,
              "this NPU's Fmax: cached PPA result at %s ns", plain(ns)));
        }
      }
    }
    return new DecoderClock(ASSUMED_MHZ, Source.ASSUMED, "assumed: no PPA result cached for this NPU; run "
        + ppaCommand(params));
  }

  /** The command that puts this NPU's PPA result in the cache: {@code -p} for each non-default parameter. */
  static String ppaCommand(Map<String, String> params) {
    Map<String, String> defaults = NpuReportPipeline.generatorParams(NpuConfig.defaults());
    StringBuilder s = new StringBuilder("./npu report ppa npu");
    params.forEach((name, value) -> {
      if (!value.equals(defaults.get(name))) {
        s.append(" -p ").append(name).append('=').append(value);
      }
    });
    return s.append(" --clock-ns ").append(TargetClock.PERIOD_NS_TEXT).append(" -o DIR").toString();
  }

  /** PPA options on {@code cache}; empty where the flow cannot run here (no cell library installed). */
  private static Optional<PpaOptions> ppaOptions(ContentCache cache) {
    try {
      return Optional.of(PpaOptions.defaults().withCache(cache));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String plain(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
