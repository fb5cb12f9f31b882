package org.llmnpu.hdl;

import static org.llmnpu.hdl.Hw.*;

/** Designs that instance hand-written Verilog through {@link ImportedVerilog}, shared with the harness's tests. */
public final class ImportedDesigns {
  /** The hand-written accumulator's resource name, next to this class. */
  public static final String SAT_ACCUM = "imported/sat_accum.v";

  private ImportedDesigns() {
  }

  /** The imported saturating accumulator with {@code WIDTH} set at the instance (ACC from its default). */
  public static ImportedVerilog satAccum(int width) {
    return ImportedVerilog.resource(ImportedDesigns.class, SAT_ACCUM).module("sat_accum").parameter("WIDTH", width)
        .clock("clk").reset("rst_n", ClockDomain.Polarity.LOW).build();
  }

  /** The accumulator with one parameter overridden. */
  public static ImportedVerilog satAccumWith(String parameter, Object value) {
    return ImportedVerilog.resource(ImportedDesigns.class, SAT_ACCUM).module("sat_accum").parameter(parameter, value)
        .build();
  }

  /**
   * hw-dsl logic around the imported accumulator: {@code din = a - b} (10-bit signed, registered), accumulated
   * with saturation to 14 bits by {@code sat_accum} ({@code WIDTH = 10}); {@code doubled = 2 * acc} in hw-dsl.
   */
  public static final class DifferenceAccumulator extends HwModule {
    public final SInt a = in(sint(9));
    public final SInt b = in(sint(9));
    public final Bool clear = in(bool());
    public final Bool en = in(bool());
    public final SInt acc = out(sint(14));
    public final SInt doubled = out(sint(15));
    public final Bool overflow = out(bool());

    public DifferenceAccumulator() {
      SInt difference = regInit("difference", sint(10), 0);
      Bool enDelayed = regInit("enDelayed", bool(), 0);
      Bool clearDelayed = regInit("clearDelayed", bool(), 0);
      difference.set(a.subExpand(b));
      enDelayed.set(en);
      clearDelayed.set(clear);
      ImportedVerilog accumulator = instance("accumulator", satAccum(10));
      accumulator.sintPort("din").set(difference);
      accumulator.boolPort("en").set(enDelayed);
      accumulator.boolPort("clear").set(clearDelayed);
      acc.set(accumulator.sintPort("acc"));
      doubled.set(accumulator.sintPort("acc").shiftLeft(1));
      overflow.set(accumulator.boolPort("overflow"));
    }
  }

  /** Connects an 11-bit value to the 10-bit input of the imported accumulator: an elaboration error. */
  public static final class TooWideForImport extends HwModule {
    public final SInt x = in(sint(11));

    public TooWideForImport() {
      ImportedVerilog accumulator = instance("accumulator", satAccum(10));
      accumulator.sintPort("din").set(x);  // line named by the test
    }
  }

  /** Golden model of {@link DifferenceAccumulator}: one call per cycle with that cycle's inputs. */
  public static final class DifferenceAccumulatorModel {
    private long difference;
    private boolean en;
    private boolean clear;
    private long acc;
    private boolean overflow;

    /** Advances one clock edge with the inputs poked before it. */
    public void step(long a, long b, boolean clearIn, boolean enIn) {
      if (clear) {
        acc = 0;
        overflow = false;
      } else if (en) {
        long sum = acc + difference;
        long max = (1L << 13) - 1;
        long min = -(1L << 13);
        overflow |= sum > max || sum < min;
        acc = Math.max(min, Math.min(max, sum));
      }
      difference = a - b;
      en = enIn;
      clear = clearIn;
    }

    public long acc() {
      return acc;
    }

    public boolean overflow() {
      return overflow;
    }
  }
}
