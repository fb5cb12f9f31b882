package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;

import java.util.Locale;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;

/**
 * The NPU's PPM sized for one INT32 line a cycle: {@code lanes} = {@link PpmConfig#cols()} lanes (the NPU: line/4,
 * the INT32 results of one scratchpad or drain line) and a <b>parameter memory</b> of {@code channels} per-channel
 * records (bias, Q0.31 multiplier, shift, zero point) indexed by output column, so that consecutive lines may belong
 * to different channels. Lane j of an element group {@code g} ({@code inGroup}) uses channel {@code g·lanes + j}:
 * the channels are banked by lane, {@code lanes} memories of {@code ceil(channels / lanes)} 77-bit words (bias 32,
 * multiplier 31, shift 6, zero point 8 bits; SRAM macros in the PPA flow, read synchronously).
 *
 * <p>Each element is {@code org.llmnpu.numerics.ppu.Ppm.process(acc, bias_c, params_c, table)}: requantization
 * ({@link RequantUnit}, streamed: the channel's parameters travel with the element through the stages) with
 * activation NONE (clamp to INT8) and, with the PPU, the C-LUT ({@link PpuUnit} per lane, one {@link PpuLut} shared
 * by the lanes).
 *
 * <p><b>Latency</b> {@link #latency()} = {@code 1 + }{@link PpmConfig#latency()}: the input register (the
 * accumulators, and the parameter memory's synchronous read of group {@code inGroup}) then the requantizer and PPU;
 * 9 without the PPU and 24 with it at the default stages. Throughput: one group a cycle, no bubbles, no
 * backpressure; {@code outValid} is {@code inValid} delayed by the latency.
 *
 * <p><b>Ports</b>: {@code inValid}, {@code inAcc_0..} (INT32), {@code inGroup}; {@code outValid},
 * {@code outData_0..} (INT8); the channel write port {@code cfgWrite}, {@code cfgChannel}, {@code cfgBias},
 * {@code cfgMultiplier} (31 bits), {@code cfgShift} (signed 6 bits), {@code cfgZeroPoint} (one channel a cycle;
 * write only while no element is in flight); with the PPU the C-LUT port {@code lutWrite}, {@code lutAddress},
 * {@code lutData} ({@link PpuLut}). The parameter memory is not reset (a channel is undefined until written); the
 * C-LUT and the valid pipeline are.
 *
 * <p><b>Parameter banks</b> ({@code banks} 2, the NPU's): each lane's memory holds two banks of its channels, word
 * {@code bank·2^groupBits + group}; the channel port writes bank {@code cfgBank}, the input reads bank {@code inBank}
 * (with {@code inGroup}), so that one bank is written while elements read the other.
 *
 * <p><b>Gated</b> (the SwiGLU gate, {@code gemm ppm=1 gate=1}; with the PPU only): inputs {@code inGate_0..} (the
 * elements' INT8 gate codes) and {@code inGated}; each lane's requantizer is gated ({@link RequantUnit}), and an
 * element that came with {@code inGated} leaves as its {@code gatedQ} instead of the PPU's code
 * ({@code org.llmnpu.numerics.ppu.Ppm.processGated}), delayed to the same {@link #latency()}: the gated code is ready
 * {@code stages + 3} cycles after the requantizer's input, the PPU's {@link PpmConfig#latency()} after it.
 */
public final class LinePpm extends HwModule {
  /** Bits of one channel record in the parameter memory. */
  public static final int RECORD_BITS = 32 + PpmConfig.MULTIPLIER_BITS + PpmConfig.CHANNEL_SHIFT_BITS + 8;

  public final Bool inValid = in(bool());
  public final Vec<SInt> inAcc;
  public final UInt inGroup;
  public final Bool outValid = out(bool());
  public final Vec<SInt> outData;
  public final Bool cfgWrite = in(bool());
  public final UInt cfgChannel;
  public final SInt cfgBias = in(sint(32));
  public final UInt cfgMultiplier = in(uint(PpmConfig.MULTIPLIER_BITS));
  public final SInt cfgShift = in(sint(PpmConfig.CHANNEL_SHIFT_BITS));
  public final SInt cfgZeroPoint = in(sint(8));
  /** C-LUT write port, with the PPU only (else null). */
  public final Bool lutWrite;
  public final UInt lutAddress;
  public final SInt lutData;
  /** With two banks: the bank the channel port writes, the bank the input reads (else null). */
  public final Bool cfgBank;
  public final Bool inBank;
  /** Gated only (else null): the elements' gate codes and whether they go through the gate. */
  public final Vec<SInt> inGate;
  public final Bool inGated;
  private final PpmConfig config;
  private final int channels;
  private final int banks;
  private final boolean gated;

  /** One parameter bank. */
  public LinePpm(PpmConfig c, int channels) {
    this(c, channels, 1);
  }

  /**
   * @param c        lanes ({@code cols}, a power of two), activation NONE or PPU, INT8 output, stages
   * @param channels channels of the parameter memory, 1..65536
   * @param banks    parameter banks, 1 or 2
   */
  public LinePpm(PpmConfig c, int channels, int banks) {
    this(c, channels, banks, false);
  }

  /** {@code gated}: with the gate inputs (see the class comment; needs the PPU). */
  public LinePpm(PpmConfig c, int channels, int banks, boolean gated) {
    if (gated && !c.hasPpu()) {
      throw new IllegalArgumentException("a gated PPM needs the PPU (activation ppu), got "
          + c.activation().name().toLowerCase(Locale.ROOT));
    }
    if (Integer.bitCount(c.cols()) != 1) {
      throw new IllegalArgumentException("cols (lanes) must be a power of two, got " + c.cols());
    }
    if (c.outBits() != 8 || c.activation() == PpmConfig.Activation.RELU || c.activation() == PpmConfig.Activation.RELU6) {
      throw new IllegalArgumentException("activation must be none or ppu with outBits 8 (the NPU's PPM), got "
          + c.activation().name().toLowerCase(Locale.ROOT) + " with outBits " + c.outBits());
    }
    if (channels < 1 || channels > 65536) {
      throw new IllegalArgumentException("channels must be in 1..65536, got " + channels);
    }
    if (banks != 1 && banks != 2) {
      throw new IllegalArgumentException("banks must be 1 or 2, got " + banks);
    }
    config = c;
    this.channels = channels;
    this.banks = banks;
    this.gated = gated;
    int lanes = c.cols();
    int laneShift = Integer.numberOfTrailingZeros(lanes);
    int depth = depth(c, channels);
    int groupBits = Math.max(1, log2Ceil(depth));
    inAcc = in(Vec.of(lanes, () -> sint(32)));
    inGroup = in(uint(groupBits));
    outData = out(Vec.of(lanes, () -> sint(8)));
    cfgChannel = in(uint(Math.max(1, bitsToHold(channels - 1))));
    lutWrite = c.hasPpu() ? in(bool()) : null;
    lutAddress = c.hasPpu() ? in(uint(c.lutAddressBits())) : null;
    lutData = c.hasPpu() ? in(sint(c.coeffBits())) : null;
    cfgBank = banks == 2 ? in(bool()) : null;
    inBank = banks == 2 ? in(bool()) : null;
    inGate = gated ? in("inGate", Vec.of(lanes, () -> sint(8))) : null;
    inGated = gated ? in(bool()) : null;
    Bool gatedOut = gated ? delayedFlag(inGated, latency()) : null;

    PpuLut lut = null;
    if (c.hasPpu()) {
      lut = instance("lut", new PpuLut(c));
      lut.lutWrite.set(lutWrite);
      lut.lutAddress.set(lutAddress);
      lut.lutData.set(lutData);
    }
    UInt record = wire("cfgRecord", cat(cfgZeroPoint, cfgShift, cfgMultiplier, cfgBias).asUInt());
    UInt cfgLane = laneShift == 0 ? null : wire("cfgLane", cfgChannel.resize(laneShift));
    UInt cfgGroup = cfgChannel.resize(laneShift + groupBits).shiftRight(laneShift).resize(groupBits);
    UInt cfgAddress = wire("cfgAddress", banks == 2 ? cat(cfgBank, cfgGroup).asUInt() : cfgGroup);
    UInt readAddress = banks == 2 ? wire("readAddress", cat(inBank, inGroup).asUInt()) : inGroup;
    int words = banks == 2 ? (1 << groupBits) + depth : depth;
    for (int j = 0; j < lanes; j++) {
      int lane = j;
      Mem<UInt> params = mem("params" + j, uint(RECORD_BITS), words);
      Bool selected = laneShift == 0 ? cfgWrite : cfgWrite.and(cfgLane.eq(lane));
      when(selected, () -> params.write(cfgAddress, record));
      UInt p = params.readSync(readAddress);
      RequantUnit requant = instance("requant_" + j, new RequantUnit(8, c.activation(), c.requantStages(), true,
          gated));
      requant.acc.set(regNext("acc" + j, inAcc.get(j)));
      if (gated) {
        requant.gate.set(regNext("gate" + j, inGate.get(j)));
      }
      requant.bias.set(p.slice(31, 0).asSInt());
      requant.multiplier.set(p.slice(62, 32));
      requant.shift.set(p.slice(68, 63).asSInt());
      requant.zeroPoint.set(p.slice(76, 69).asSInt());
      if (lut == null) {
        outData.get(j).set(requant.q);
      } else {
        PpuUnit ppu = instance("ppu_" + j, new PpuUnit(c));
        ppu.q.set(requant.q);
        lut.connect(ppu);
        if (gated) {
          SInt gatedCode = requant.gatedQ;
          for (int d = 1; d <= c.latency() - requant.gatedLatency(); d++) {
            gatedCode = regNext("gatedCode" + j + "_d" + d, gatedCode);
          }
          outData.get(j).set(org.llmnpu.hdl.Hw.mux(gatedOut, gatedCode, ppu.y));
        } else {
          outData.get(j).set(ppu.y);
        }
      }
    }
    Bool valid = inValid;
    for (int stage = 1; stage <= latency(); stage++) {
      Bool next = regInit("valid_q" + stage, bool(), 0);
      next.set(valid);
      valid = next;
    }
    outValid.set(valid);
  }

  /** {@code flag} delayed {@code cycles} registers (reset to 0). */
  private Bool delayedFlag(Bool flag, int cycles) {
    Bool v = flag;
    for (int stage = 1; stage <= cycles; stage++) {
      Bool next = regInit("gated_q" + stage, bool(), 0);
      next.set(v);
      v = next;
    }
    return v;
  }

  /** Words of each lane's parameter memory: {@code ceil(channels / lanes)}. */
  public static int depth(PpmConfig c, int channels) {
    return (channels + c.cols() - 1) / c.cols();
  }

  /** Cycles from {@code inValid} to {@code outValid}: the input register and {@link PpmConfig#latency()}. */
  public int latency() {
    return 1 + config.latency();
  }

  public PpmConfig config() {
    return config;
  }

  @Override
  public String moduleName() {
    return config.moduleName().replaceFirst("^Ppm_", "LinePpm_") + "_ch" + channels + (banks == 2 ? "_b2" : "")
        + (gated ? "_g" : "");
  }
}
