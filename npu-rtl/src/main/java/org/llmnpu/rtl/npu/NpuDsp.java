package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * The {@link Npu}'s Vector DSP and the datapaths of its commands.
 *
 * <ul>
 *   <li>{@code dsptab}: each memory beat (a line of {@code line / 2} FP16 entries) is written into the
 *       DSP's tables through its line-wide table port, in the cycle it arrives.</li>
 *   <li>{@code dsprun}: each beat writes {@code line / 8} program words through the line-wide program
 *       port (masked past {@code words}); with 4-byte lines a word takes two beats (the low half is held
 *       one beat). The run starts in the cycle the last word is written.</li>
 *   <li>{@code dspin}: one element a cycle: the scratchpad line of the element (asynchronous read),
 *       the element at its byte offset, converted to FP16 — INT8 and INT32 {@code q} as
 *       {@code q·2^shift} rounded once (round to nearest even, subnormals, ±∞ past the range:
 *       {@code Fp16.fromInt(q, 2^shift)}; shift 0 for INT8), FP16 copied — into buffer element
 *       {@code dst·lanes + k}, written three cycles after the element is read: an input register, then
 *       {@code |q|} with its sign and exponent, then a {@link FloatRounder} split after its normalization (a
 *       power-of-two scale needs no multiplier: the rounder's exponent is the shift).</li>
 *   <li>{@code dspout}: one element a cycle from the buffer into its scratchpad bytes (byte-masked
 *       line write): FP16 as two bytes, INT8 as the element's low byte.</li>
 * </ul>
 * Latency: {@code dspin}'s buffer writes trail its elements by three cycles; after its last element the
 * controller stays one cycle in DSP_DRAIN, and it goes through FETCH after a DSP copy (never straight from the
 * command queue into DECODE), so the next command starts in the fourth cycle after the last element; the commands
 * take the cycles of {@code org.llmnpu.isa.CycleModel} ({@code dspin}: one cycle more than its elements).
 */
final class NpuDsp {
  /** Cycles the DSP's gated clock runs on after its commands: the dspin's buffer writes and the lanes' pipelines. */
  static final int DSP_GATE_TRAIL = 8;
  final VectorDsp dsp;
  /** The FP16 value a {@code dspin} writes this cycle. */
  final UInt inValue;
  /** Line data and byte mask a {@code dspout} writes this cycle. */
  final UInt outData;
  final Bits outMask;
  /** The element's byte offset in its line is 0 (a new scratchpad line). */
  final Bool lineStart;

  /**
   * @param elementAddress scratchpad byte address of the current element (the walk's address)
   * @param spadRead       the scratchpad line holding it
   * @param format         the command's format (0 FP16, 1 INT8, 2 INT32)
   * @param shift          the INT32 conversion's exponent k (6-bit two's complement, −24..15; 0 for INT8)
   * @param bufferElement  the buffer element of this cycle
   * @param copyIn         a {@code dspin} element moves this cycle
   * @param memData        the memory's read data
   * @param tableBeat      a {@code dsptab} beat arrives
   * @param progBeat       a {@code dsprun} program beat arrives
   * @param beatIndex      index of the beat within the command
   * @param words          the {@code dsprun}'s word count (used with lines of 16 bytes or more, else null)
   */
  /** The DSP's program words per memory line (at least one). */
  static int programWords(int line) {
    return Math.max(1, line / 8);
  }

  NpuDsp(NpuController npu, MachineParams p, VectorDsp.Config config, UInt elementAddress, UInt spadRead, UInt format,
         UInt shift, UInt bufferElement, Bool copyIn, UInt memData, Bool tableBeat, Bool progBeat, UInt beatIndex,
         UInt words) {
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int lineShift = Integer.numberOfTrailingZeros(line);
    int progWords = programWords(line);
    // the DSP's clock runs in its commands' cycles (DSP_CYCLES) and while a dspin's last buffer writes trail them
    Bool unitBusy = npu.wireOf("dsp_unitBusy", org.llmnpu.hdl.Hw.bool());
    npu.gateEnable("dspUnit", unitBusy);
    dsp = npu.units.dsp;
    int elementBits = npu.io(dsp.bufAddr).width();

    // dspin: the element at its byte offset (the scratchpad read), registered (stage 1); its magnitude |q|, sign
    // and exponent registered (stage 2); the rounder's normalization registered (stage 3), rounded and written into
    // the buffer in that cycle: three cycles after the element's read. The controller then stays one cycle in
    // DSP_DRAIN and goes through FETCH (NpuFetch.nextViaFetch), so the next command's first cycle is the fourth
    // after the last element's read: no reader sees the lag.
    UInt offset = npu.wireOf("dsp_offset", elementAddress.lsbs(lineShift));
    lineStart = npu.wireOf("dsp_lineStart", offset.eq(0));
    UInt bitOffset = cat(offset, uintLit(0, 3)).asUInt();
    UInt element = npu.wireOf("dsp_element", spadRead.shiftRight(bitOffset).lsbs(32));
    UInt element1 = npu.regNextOf("dsp_in1_element", element);
    UInt format1 = npu.regNextOf("dsp_in1_format", format);
    UInt shift1 = npu.regNextOf("dsp_in1_shift", shift);
    Bool write1 = npu.reg0Next("dsp_in1_write", copyIn);
    UInt address1 = npu.regNextOf("dsp_in1_element_index", bufferElement.resize(elementBits));
    // q·2^shift = (−1)^s·|q|·2^shift, rounded once to FP16 (Fp16.fromInt(q, 2^shift); INT8 has shift 0)
    UInt q = mux(format1.eq(1), element1.lsbs(8).asSInt().resize(32).asUInt(), element1);
    Bool negative = q.bit(31);
    UInt magnitude2 = npu.regNextOf("dsp_in2_magnitude", mux(negative, uintLit(0, 32).sub(q), q));
    Bool negative2 = npu.regNextOf("dsp_in2_negative", negative);
    UInt shift2 = npu.regNextOf("dsp_in2_shift", shift1);
    FloatRounder rounder = npu.instanceOf("dsp_convert", new FloatRounder(new FloatRounder.Config(32,
        shift.width(), FpLayout.FP16, RoundMode.NEAREST_EVEN, false), true, true));
    rounder.negative.set(negative2);
    rounder.magnitude.set(magnitude2);
    rounder.exponent.set(shift2.asSInt());
    UInt copy3 = npu.regNextOf("dsp_in3_copy", npu.regNextOf("dsp_in2_copy", element1.lsbs(16)));
    Bool copied3 = npu.regNextOf("dsp_in3_copied", npu.regNextOf("dsp_in2_copied", format1.eq(0)));
    Bool write2 = npu.reg0Next("dsp_in2_write", write1);
    Bool write3 = npu.reg0Next("dsp_in3_write", write2);
    UInt address3 = npu.regNextOf("dsp_in3_element_index", npu.regNextOf("dsp_in2_element_index", address1));
    inValue = npu.wireOf("dsp_inValue", mux(copied3, copy3, rounder.code));
    // the execute pipeline's registers settle within DSP_GATE_TRAIL cycles after a command
    Bool commandCycle = npu.wireOf("dsp_commandCycle", npu.inDspTab.or(npu.inDspProg).or(npu.inDspRun)
        .or(npu.inDspIn).or(npu.inDspOut).or(npu.inState(Npu.State.DSP_DRAIN)));
    unitBusy.set(commandCycle.or(npu.trailOf("dsp_gateTrail", commandCycle, DSP_GATE_TRAIL)));
    npu.io(dsp.bufWe).set(write3);
    npu.io(dsp.bufAddr).set(mux(write3, address3, bufferElement.resize(elementBits)));
    npu.io(dsp.bufWdata).set(inValue);

    // dspout: the buffer element into its bytes of the line
    UInt value = mux(format.eq(1), npu.io(dsp.bufRdata).lsbs(8).resize(16), npu.io(dsp.bufRdata));
    outData = npu.wireOf("dsp_outData", value.resize(lineBits).shiftLeft(bitOffset));
    Bits two = bitsLit(3, line);
    Bits one = bitsLit(1, line);
    outMask = npu.wireOf("dsp_outMask", mux(format.eq(1), one, two).shiftLeft(offset));

    // dsptab: a line of line/2 entries per beat
    npu.io(dsp.tableWe).set(tableBeat);
    npu.io(dsp.tableAddr).set(beatIndex.resize(npu.io(dsp.tableAddr).width()));
    npu.io(dsp.tableData).set(memData);

    // dsprun: program words
    UInt progBeatIndex = beatIndex;
    if (line >= 8) {
      // (16-byte lines and wider: the words of a beat past the program's end are not written)
      npu.io(dsp.progWe).set(progBeat);
      npu.io(dsp.progAddr).set(progBeatIndex.resize(npu.io(dsp.progAddr).width()));
      npu.io(dsp.progData).set(memData.lsbs(64 * progWords));
      if (progWords > 1) {
        int wordBits = Integer.numberOfTrailingZeros(progWords);
        UInt first = progBeatIndex.resize(16 + wordBits).shiftLeft(wordBits).resize(16 + wordBits);
        java.util.List<org.llmnpu.hdl.HwValue> enables = new java.util.ArrayList<>();
        for (int j = 0; j < progWords; j++) {
          enables.add(first.add(j).lt(words.resize(16 + wordBits)));

        }
        npu.io(dsp.progMask).set(org.llmnpu.hdl.Hw.catLsbFirst(enables).asUInt());
      }
    } else {
      // 4-byte lines: beat 2i holds the low half of word i, beat 2i + 1 the high half
      UInt low = npu.reg0("dsp_progLow", uint(32));
      npu.whenDo(progBeat.and(progBeatIndex.bit(0).not()), () -> low.set(memData.lsbs(32)));
      npu.io(dsp.progWe).set(progBeat.and(progBeatIndex.bit(0)));
      npu.io(dsp.progAddr).set(progBeatIndex.shiftRight(1).resize(npu.io(dsp.progAddr).width()));
      npu.io(dsp.progData).set(cat(memData.lsbs(32), low).asUInt());
    }
  }
}
