package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * PPM — post-processing module (NPU-SPEC §2): per output channel (lane), one INT32 element
 * per lane per cycle, fully pipelined, no stalls. For lane j with channel registers
 * (bias, multiplier, shift, zeroPoint, sixCode) it computes
 * <pre>
 *   q = clamp(MBQM(sat32(acc + bias), multiplier, shift) + zeroPoint, low, high)   (requantization)
 *   y = activation == PPU ? ppu(q) : q
 * </pre>
 * bit for bit as {@code org.llmnpu.numerics.ppu.Ppm.process}: the bias add saturates to INT32;
 * MBQM is TFLite's MultiplyByQuantizedMultiplier (saturating left shift for shift &gt; 0,
 * SaturatingRoundingDoublingHighMul = {@code floor(x·m / 2^31 + 1/2)}, then RoundingDivideByPOT
 * with ties away from zero for shift &lt; 0); the zero point is added on 33 bits and the clamp
 * bounds are the INT8/INT4 range, raised to the zero point by RELU/RELU6 and lowered to sixCode
 * by RELU6. PPU: see {@link PpuUnit} (segment search, Horner with rounding shifts and INT32
 * saturation per step, final clamp to INT8).
 *
 * <p><b>Latency</b> ({@link PpmConfig#latency()}): an element presented with {@code inValid} at
 * a rising edge appears on {@code outData} with {@code outValid} exactly
 * {@code L = requantStages} cycles later without the PPU and
 * {@code L = requantStages + 2 + hornerStages·degree + outputStages} with it ({@code outputStages}
 * = 2 for {@code hornerStages} 3, else 3): at the default stages (8 and 5, which meet the NPU's
 * target clock at 180 nm) 8 without the PPU and 23 with the default degree-2 PPU. Throughput: {@code cols} elements per cycle with no bubbles; the last of M
 * back-to-back rows leaves {@code M − 1 + L} cycles after the first entered. Loading costs one
 * cycle per lane on the channel port ({@code cols} cycles per N tile) and one cycle per entry on
 * the C-LUT port ({@link PpmConfig#lutEntries()} = 66 for the default table).
 *
 * <p><b>Ports</b> (present for every configuration unless noted):
 * <ul>
 *   <li>{@code inValid}, {@code inAcc_0 … inAcc_{cols−1}} (INT32): one row of accumulators, lane j =
 *       output channel j of the current N tile;</li>
 *   <li>{@code outValid}, {@code outData_0 …} (signed {@code outBits}): the row, {@code L} cycles later;
 *       {@code outValid} is {@code inValid} delayed by {@code L}; there is no backpressure;</li>
 *   <li>channel write port {@code cfgWrite}, {@code cfgLane} (⌈log2 cols⌉ bits, ≥ 1),
 *       {@code cfgBias} (INT32), {@code cfgMultiplier} (31-bit unsigned Q0.31 multiplier of
 *       {@code QuantizedMultiplier}, 0 or [2^30, 2^31−1]), {@code cfgShift} (signed 6 bits, −31..31,
 *       positive = left), {@code cfgZeroPoint} (signed outBits) and, with RELU6 only,
 *       {@code cfgSixCode} (signed outBits, the upper clamp {@code RequantParams.clampMax()}):
 *       while {@code cfgWrite} is high all fields of lane {@code cfgLane} are written at the clock
 *       edge (one lane per cycle; lanes ≥ cols ignored). Registers reset to 0;</li>
 *   <li>C-LUT write port, with PPU only: {@code lutWrite}, {@code lutAddress}, {@code lutData}
 *       (signed coeffBits): writes one entry per cycle; addresses from
 *       {@link PpmConfig#lutAddressOfBoundary}, {@link PpmConfig#lutAddressOfCoefficient} and
 *       {@link PpmConfig#lutAddressOfFracBits} (boundaries take the low 8 bits as INT8, fracBits the
 *       low 5 bits unsigned). One table serves every lane;</li>
 *   <li>{@code clk}, {@code reset} (synchronous, active high; clears the valid pipeline and the
 *       channel and C-LUT registers; datapath registers have no reset, their contents are
 *       qualified by {@code outValid}).</li>
 * </ul>
 * Channel and table registers are read by the pipeline stages, so write them only while no
 * element is in flight (at least {@code L} cycles after the last {@code inValid}); an engine
 * reloading lanes between N tiles spends {@code cols} cycles on the channel port. A fracBits
 * write reaches the Horner shifts one cycle later, before any element entering after it needs them.
 */
public final class Ppm extends HwModule {
  public final Bool inValid = in(bool());
  public final Vec<SInt> inAcc;
  public final Bool outValid = out(bool());
  public final Vec<SInt> outData;
  public final Bool cfgWrite = in(bool());
  public final UInt cfgLane;
  public final SInt cfgBias = in(sint(32));
  public final UInt cfgMultiplier = in(uint(PpmConfig.MULTIPLIER_BITS));
  public final SInt cfgShift = in(sint(PpmConfig.CHANNEL_SHIFT_BITS));
  public final SInt cfgZeroPoint;
  /** Present only with activation RELU6, else null. */
  public final SInt cfgSixCode;
  /** C-LUT write port, present only with activation PPU, else null. */
  public final Bool lutWrite;
  public final UInt lutAddress;
  public final SInt lutData;
  private final PpmConfig config;

  public Ppm(PpmConfig c) {
    config = c;
    boolean relu6 = c.activation() == PpmConfig.Activation.RELU6;
    inAcc = in(Vec.of(c.cols(), () -> sint(32)));
    outData = out(Vec.of(c.cols(), () -> sint(c.outBits())));
    cfgLane = in(uint(c.laneBits()));
    cfgZeroPoint = in(sint(c.outBits()));
    cfgSixCode = relu6 ? in(sint(c.outBits())) : null;
    lutWrite = c.hasPpu() ? in(bool()) : null;
    lutAddress = c.hasPpu() ? in(uint(c.lutAddressBits())) : null;
    lutData = c.hasPpu() ? in(sint(c.coeffBits())) : null;

    PpuTableRegisters table = c.hasPpu() ? new PpuTableRegisters() : null;
    for (int lane = 0; lane < c.cols(); lane++) {
      int j = lane;
      Bool selected = cfgWrite.and(cfgLane.eq(j));
      RequantUnit requant = instance("requant_" + j, new RequantUnit(c.outBits(), c.activation(), c.requantStages()));
      requant.acc.set(inAcc.get(j));
      requant.bias.set(configRegister("lane" + j + "_bias", cfgBias, selected));
      requant.multiplier.set(configRegister("lane" + j + "_multiplier", cfgMultiplier, selected));
      requant.shift.set(configRegister("lane" + j + "_shift", cfgShift, selected));
      requant.zeroPoint.set(configRegister("lane" + j + "_zeroPoint", cfgZeroPoint, selected));
      if (relu6) {
        requant.sixCode.set(configRegister("lane" + j + "_sixCode", cfgSixCode, selected));
      }
      if (table == null) {
        outData.get(j).set(requant.q);
      } else {
        PpuUnit ppu = instance("ppu_" + j, new PpuUnit(c));
        ppu.q.set(requant.q);
        table.connect(ppu);
        outData.get(j).set(ppu.y);
      }
    }

    Bool valid = inValid;
    for (int stage = 1; stage <= c.latency(); stage++) {
      Bool next = regInit("valid_q" + stage, bool(), 0);
      next.set(valid);
      valid = next;
    }
    outValid.set(valid);
  }

  /** The C-LUT: boundaries, coefficients and fractional bits, written through the lut port, shared by all lanes. */
  private final class PpuTableRegisters {
    private final List<SInt> boundaries = new ArrayList<>();
    private final List<SInt> coefficients = new ArrayList<>();
    private final List<UInt> fracBits = new ArrayList<>();
    private final List<UInt> hornerShift = new ArrayList<>();

    PpuTableRegisters() {
      PpmConfig c = config;
      for (int i = 0; i < c.segments() - 1; i++) {
        boundaries.add(configRegister("lut_boundary" + i, lutData.resize(8), written(c.lutAddressOfBoundary(i))));
      }
      for (int s = 0; s < c.segments(); s++) {
        for (int k = 0; k <= c.degree(); k++) {
          coefficients.add(configRegister("lut_coeff" + s + "_" + k, lutData, written(c.lutAddressOfCoefficient(s, k))));
        }
      }
      for (int k = 0; k <= c.degree(); k++) {
        fracBits.add(configRegister("lut_fracBits" + k, lutData.asUInt().lsbs(PpmConfig.SHIFT_BITS),
            written(c.lutAddressOfFracBits(k))));
      }
      // Shift of each Horner step, registered so the subtraction is off the datapath.
      for (int k = 0; k < c.degree(); k++) {
        hornerShift.add(regNext("lut_hornerShift" + k, fracBits.get(k + 1).sub(fracBits.get(k))));
      }
    }

    private Bool written(int address) {
      return lutWrite.and(lutAddress.eq(address));
    }

    void connect(PpuUnit ppu) {
      for (int i = 0; i < boundaries.size(); i++) {
        ppu.boundaries.get(i).set(boundaries.get(i));
      }
      for (int i = 0; i < coefficients.size(); i++) {
        ppu.coefficients.get(i).set(coefficients.get(i));
      }
      for (int k = 0; k < config.degree(); k++) {
        ppu.hornerShift.get(k).set(hornerShift.get(k));
      }
      ppu.outputShift.set(fracBits.get(0));
    }
  }

  /** A register that resets to 0 and takes {@code value} in cycles where {@code write} is true. */
  @SuppressWarnings("unchecked")
  private <T extends HwValue> T configRegister(String name, T value, Bool write) {
    T r = regInit(name, (T) value.copyType(), 0);
    when(write, () -> r.set(value));
    return r;
  }

  @Override
  public String moduleName() {
    return config.moduleName();
  }

  /** Registers {@code ppm}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("ppm", "post-processing: bias, gemmlowp requantization to INT8/INT4, NONE/RELU/RELU6/PPU activation",
          List.of(
              ParamSpec.integer("cols", 8, 1, 64, "lanes (output channels per cycle)"),
              new ParamSpec("outBits", ParamSpec.Kind.INT, "8", 4, 8, List.of("4", "8"), "output code width (ppu needs 8)"),
              ParamSpec.choice("activation", "ppu", List.of("none", "relu", "relu6", "ppu"), "activation after requantization"),
              ParamSpec.integer("segments", 16, 1, 64, "PPU segments"),
              ParamSpec.integer("degree", 2, 0, 4, "PPU polynomial degree"),
              ParamSpec.integer("coeffBits", 16, 8, 24, "PPU coefficient width (signed)"),
              ParamSpec.choice("requantStages", Integer.toString(PpmConfig.DEFAULT_REQUANT_STAGES), List.of("6", "7", "8"),
                  "requantizer register stages (8 meets the target clock)"),
              ParamSpec.choice("hornerStages", Integer.toString(PpmConfig.DEFAULT_HORNER_STAGES), List.of("3", "4", "5"),
                  "register stages per PPU Horner step (5 meets the target clock)")),
          p -> new Ppm(new PpmConfig(p.getInt("cols"), p.getInt("outBits"),
              PpmConfig.Activation.valueOf(p.get("activation").toUpperCase(Locale.ROOT)),
              p.getInt("segments"), p.getInt("degree"), p.getInt("coeffBits"), p.getInt("requantStages"),
              p.getInt("hornerStages"))));
    }
  }
}
