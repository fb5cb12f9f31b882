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
import org.llmnpu.rtl.vector.Fp16Convert;

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
 *       the element at its byte offset, converted to FP16 — INT8 and INT32 by {@link Fp16Convert}'s
 *       FROM_INT ({@code Fp16.fromInt(v, 2^shift)}, rounded once; the scale is 1 for INT8), FP16
 *       copied — into buffer element {@code dst·lanes + k}, written two cycles after the element is read
 *       (an input register, then the converter's split register: the conversion's multiply and rounder are
 *       off the scratchpad read path).</li>
 *   <li>{@code dspout}: one element a cycle from the buffer into its scratchpad bytes (byte-masked
 *       line write): FP16 as two bytes, INT8 as the element's low byte.</li>
 * </ul>
 * Latency: {@code dspin}'s buffer writes trail its elements by two cycles; the controller goes through FETCH
 * after a DSP copy (never straight from the command queue into DECODE), so the next command starts in the third
 * cycle after the last element; the commands take the cycles of {@code org.llmnpu.isa.CycleModel}.
 */
final class NpuDsp {
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
   * @param scale          FP16 scale of the INT conversion
   * @param bufferElement  the buffer element of this cycle
   * @param copyIn         a {@code dspin} element moves this cycle
   * @param memData        the memory's read data
   * @param tableBeat      a {@code dsptab} beat arrives
   * @param progBeat       a {@code dsprun} program beat arrives
   * @param beatIndex      index of the beat within the command
   * @param words          the {@code dsprun}'s word count (used with lines of 16 bytes or more, else null)
   */
  NpuDsp(Npu npu, MachineParams p, VectorDsp.Config config, UInt elementAddress, UInt spadRead, UInt format,
         UInt scale, UInt bufferElement, Bool copyIn, UInt memData, Bool tableBeat, Bool progBeat, UInt beatIndex,
         UInt words) {
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int lineShift = Integer.numberOfTrailingZeros(line);
    int progWords = Math.max(1, line / 8);
    dsp = npu.instanceOf("dsp", new VectorDsp(config, progWords, line / 2));
    int elementBits = dsp.bufAddr.width();

    // dspin: the element at its byte offset, converted
    UInt offset = npu.wireOf("dsp_offset", elementAddress.lsbs(lineShift));
    lineStart = npu.wireOf("dsp_lineStart", offset.eq(0));
    UInt bitOffset = cat(offset, uintLit(0, 3)).asUInt();
    UInt element = npu.wireOf("dsp_element", spadRead.shiftRight(bitOffset).lsbs(32));
    // stage 1 registers the element, Fp16Convert's split register is stage 2, and the buffer is written from
    // it: two cycles after the element's read. The controller goes through FETCH after a dspin (NpuFetch.nextViaFetch),
    // so the next command's first cycle is the third after the last element's read: no reader sees the lag.
    UInt element1 = npu.reg0("dsp_in1_element", uint(32));
    element1.set(element);
    UInt format1 = npu.reg0("dsp_in1_format", uint(2));
    format1.set(format);
    UInt scale1 = npu.reg0("dsp_in1_scale", uint(scale.width()));
    scale1.set(scale);
    Bool write1 = npu.reg0("dsp_in1_write", org.llmnpu.hdl.Hw.bool());
    write1.set(copyIn);
    UInt address1 = npu.reg0("dsp_in1_element_index", uint(elementBits));
    address1.set(bufferElement.resize(elementBits));
    Fp16Convert convert = npu.instanceOf("dsp_convert", new Fp16Convert(true));
    convert.op.set(uintLit(Fp16Convert.FROM_INT, 3));
    convert.format.set(uintLit(0, 2));
    convert.a.set(mux(format1.eq(1), element1.lsbs(8).asSInt().resize(32).asUInt(), element1));
    convert.b.set(scale1.resize(32));
    UInt copy2 = npu.reg0("dsp_in2_copy", uint(16));
    copy2.set(element1.lsbs(16));
    Bool copied2 = npu.reg0("dsp_in2_copied", org.llmnpu.hdl.Hw.bool());
    copied2.set(format1.eq(0));
    Bool write2 = npu.reg0("dsp_in2_write", org.llmnpu.hdl.Hw.bool());
    write2.set(write1);
    UInt address2 = npu.reg0("dsp_in2_element_index", uint(elementBits));
    address2.set(address1);
    // FROM_INT gives an FP16 code zero-extended to 32 bits: OR-ing in the (zero) upper half changes nothing
    // and reads every bit of the unit's result.
    UInt converted = convert.result.lsbs(16).or(convert.result.msbs(16));
    inValue = npu.wireOf("dsp_inValue", mux(copied2, copy2, converted));
    dsp.bufWe.set(write2);
    dsp.bufAddr.set(mux(write2, address2, bufferElement.resize(elementBits)));
    dsp.bufWdata.set(inValue);

    // dspout: the buffer element into its bytes of the line
    UInt value = mux(format.eq(1), dsp.bufRdata.lsbs(8).resize(16), dsp.bufRdata);
    outData = npu.wireOf("dsp_outData", value.resize(lineBits).shiftLeft(bitOffset));
    Bits two = bitsLit(3, line);
    Bits one = bitsLit(1, line);
    outMask = npu.wireOf("dsp_outMask", mux(format.eq(1), one, two).shiftLeft(offset));

    // dsptab: a line of line/2 entries per beat
    dsp.tableWe.set(tableBeat);
    dsp.tableAddr.set(beatIndex.resize(dsp.tableAddr.width()));
    dsp.tableData.set(memData);

    // dsprun: program words
    UInt progBeatIndex = beatIndex;
    if (line >= 8) {
      // (16-byte lines and wider: the words of a beat past the program's end are not written)
      dsp.progWe.set(progBeat);
      dsp.progAddr.set(progBeatIndex.resize(dsp.progAddr.width()));
      dsp.progData.set(memData.lsbs(64 * progWords));
      if (progWords > 1) {
        int wordBits = Integer.numberOfTrailingZeros(progWords);
        UInt first = progBeatIndex.resize(16 + wordBits).shiftLeft(wordBits).resize(16 + wordBits);
        java.util.List<org.llmnpu.hdl.HwValue> enables = new java.util.ArrayList<>();
        for (int j = 0; j < progWords; j++) {
          enables.add(first.add(j).lt(words.resize(16 + wordBits)));

        }
        dsp.progMask.set(org.llmnpu.hdl.Hw.catLsbFirst(enables).asUInt());
      }
    } else {
      // 4-byte lines: beat 2i holds the low half of word i, beat 2i + 1 the high half
      UInt low = npu.reg0("dsp_progLow", uint(32));
      npu.whenDo(progBeat.and(progBeatIndex.bit(0).not()), () -> low.set(memData.lsbs(32)));
      dsp.progWe.set(progBeat.and(progBeatIndex.bit(0)));
      dsp.progAddr.set(progBeatIndex.shiftRight(1).resize(dsp.progAddr.width()));
      dsp.progData.set(cat(memData.lsbs(32), low).asUInt());
    }
  }
}
