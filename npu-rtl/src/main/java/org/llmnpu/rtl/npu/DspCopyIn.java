package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * The conversion pipeline of a {@code dspin} chunk ({@link NpuDsp}): up to {@code min(line, lanes)} scratchpad
 * elements a cycle become FP16 buffer elements, bit for bit {@code DspUnit.copyIn}'s — FP16 copied, INT8 and INT32
 * {@code q} as {@code Fp16.fromInt(q, 2^shift)} (one rounding, nearest even, subnormals, ±∞ past the range; INT8
 * with shift 0, so exact). Stage 1 registers the chunk, stage 2 each element's {@code |q|} and sign, stage 3 is
 * inside each slot's {@link FloatRounder} (split after its normalization), each stage on a clock gate open only in
 * the cycle a chunk enters it ({@link NpuClockGates#DSP_IN_CHUNK}, {@link NpuClockGates#DSP_IN_CONVERT},
 * {@link NpuClockGates#DSP_IN_ROUND}), so the pipeline holds still while other units read the scratchpad;
 * {@link #values}, {@link #mask}, {@link #address} and {@link #write} are the buffer window write (no mask for a
 * one-element window) of stage 3, three cycles after the chunk's read.
 * Slot i reads bytes {@code 4i..4i+3} (INT32, {@code i < min(line / 4, lanes)}), {@code 2i, 2i+1} (FP16,
 * {@code i < min(line / 2, lanes)}) or byte i (INT8): only the INT32 slots carry a 32-bit magnitude; the others'
 * rounders take the 8-bit magnitude of an INT8.
 */
final class DspCopyIn {
  /** The window's FP16 values, element i at bits {@code 16i..}. */
  final UInt values;
  /** Bit i: window element i is written (i below the chunk's count). */
  final UInt mask;
  /** The buffer element of window element 0. */
  final UInt address;
  /** A chunk's values are written this cycle. */
  final Bool write;

  /**
   * @param chunk         the chunk's bytes (at least {@code min(line, 4·lanes)}), element 0 at bit 0
   * @param format        0 FP16, 1 INT8, 2 INT32
   * @param shift         the INT32 conversion's exponent (6-bit two's complement; 0 for INT8)
   * @param copyIn        a chunk moves this cycle
   * @param bufferElement the buffer element of the chunk's first element
   * @param count         the chunk's elements
   */
  DspCopyIn(NpuController npu, MachineParams p, UInt chunk, UInt format, UInt shift, Bool copyIn,
            UInt bufferElement, UInt count) {
    int slots = NpuDsp.slots(p);
    int wideSlots = (int) CycleFormulas.dspElementsPerCycle(p, 4);
    int halfSlots = (int) CycleFormulas.dspElementsPerCycle(p, 2);
    // every stage is a pipeline bank on a clock gate open only in the cycle its data advances (a chunk moves, then
    // dsp_in1_write, then dsp_in2_write): between dspin chunks (a DMA store, a drain, the PPM reading the same port)
    // the conversion pipeline holds still instead of converting every line the scratchpad's read port shows
    UInt[] s1 = new UInt[5];
    npu.gatedPipelineOf(NpuClockGates.DSP_IN_CHUNK, copyIn, () -> {
      s1[0] = npu.regNextOf("dsp_in1_chunk", chunk);
      s1[1] = npu.regNextOf("dsp_in1_format", format);
      s1[2] = npu.regNextOf("dsp_in1_shift", shift);
      s1[3] = npu.regNextOf("dsp_in1_element_index", bufferElement);
      s1[4] = slots == 1 ? null : npu.regNextOf("dsp_in1_count", count);
    });
    UInt chunk1 = s1[0];
    UInt format1 = s1[1];
    Bool write1 = npu.reg0Next("dsp_in1_write", copyIn);
    Bool write2 = npu.reg0Next("dsp_in2_write", write1);
    Bool int8 = format1.eq(1);
    // stage 2: each slot's |q| and sign, the FP16 copies
    List<HwValue> stage2 = new ArrayList<>();
    npu.gatedPipelineOf(NpuClockGates.DSP_IN_CONVERT, write1, () -> {
      stage2.add(npu.regNextOf("dsp_in2_shift", s1[2]));
      stage2.add(npu.regNextOf("dsp_in2_copied", format1.eq(0)));
      stage2.add(npu.regNextOf("dsp_in2_element_index", s1[3]));
      stage2.add(s1[4] == null ? null : npu.regNextOf("dsp_in2_count", s1[4]));
      for (int i = 0; i < slots; i++) {
        UInt b = chunk1.slice(8 * i + 7, 8 * i);
        // q·2^shift = (−1)^s·|q|·2^shift, rounded once to FP16
        UInt q = i < wideSlots ? mux(int8, b.asSInt().resize(32).asUInt(), chunk1.slice(32 * i + 31, 32 * i)) : b;
        Bool negative = q.bit(q.width() - 1);
        stage2.add(npu.regNextOf("dsp_in2_magnitude" + i, mux(negative, uintLit(0, q.width()).sub(q), q)));
        stage2.add(npu.regNextOf("dsp_in2_negative" + i, negative));
        stage2.add(i < halfSlots ? npu.regNextOf("dsp_in2_copy" + i, chunk1.slice(16 * i + 15, 16 * i)) : null);
      }
    });
    // stage 3: inside each slot's rounder, and the copies, flags and window beside it
    List<HwValue> codes = new ArrayList<>();
    HwValue[] s3 = new HwValue[3];
    npu.gatedPipelineOf(NpuClockGates.DSP_IN_ROUND, write2, () -> {
      Bool copied3 = npu.regNextOf("dsp_in3_copied", (Bool) stage2.get(1));
      s3[0] = npu.regNextOf("dsp_in3_element_index", (UInt) stage2.get(2));
      s3[1] = stage2.get(3) == null ? null : npu.regNextOf("dsp_in3_count", (UInt) stage2.get(3));
      UInt shift2 = (UInt) stage2.get(0);
      for (int i = 0; i < slots; i++) {
        int at = 4 + 3 * i;
        boolean wide = i < wideSlots;
        FloatRounder rounder = npu.instanceOf("dsp_convert" + i, new FloatRounder(new FloatRounder.Config(
            wide ? 32 : 8, shift.width(), FpLayout.FP16, RoundMode.NEAREST_EVEN, false), true, true));
        rounder.magnitude.set((UInt) stage2.get(at));
        rounder.negative.set((Bool) stage2.get(at + 1));
        rounder.exponent.set(wide ? shift2.asSInt() : sintLit(0, shift.width()));
        UInt code = rounder.code;
        if (stage2.get(at + 2) != null) {
          code = mux(copied3, npu.regNextOf("dsp_in3_copy" + i, (UInt) stage2.get(at + 2)), code);
        }
        codes.add(code);
      }
    });
    for (int i = 0; i < slots; i++) {
      codes.set(i, npu.wireOf("dsp_inValue" + i, codes.get(i)));
    }
    values = npu.wireOf("dsp_inValues", catLsbFirst(codes).asUInt());
    write = npu.reg0Next("dsp_in3_write", write2);
    address = (UInt) s3[0];
    if (slots == 1) {
      // a one-element window writes its element whole: the buffer has no mask port
      mask = null;
      return;
    }
    UInt count3 = (UInt) s3[1];
    List<HwValue> enables = new ArrayList<>();
    for (int i = 0; i < slots; i++) {
      enables.add(uintLit(i, count3.width()).lt(count3));
    }
    mask = npu.wireOf("dsp_inMask", catLsbFirst(enables).asUInt());
  }
}
