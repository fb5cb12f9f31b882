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
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.mx.FloatRounder;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * The conversion pipeline of a {@code dspin} chunk ({@link NpuDsp}): up to {@code min(line, lanes)} scratchpad
 * elements a cycle become FP16 buffer elements, bit for bit {@code DspUnit.copyIn}'s — FP16 copied, INT8 and INT32
 * {@code q} as {@code Fp16.fromInt(q, 2^shift)} (one rounding, nearest even, subnormals, ±∞ past the range; INT8
 * with shift 0, so exact). Stage 1 registers the chunk (on a clock gate open only in a cycle a chunk moves,
 * {@link NpuClockGates#DSP_IN_CHUNK}, so the pipeline holds still while other units read the scratchpad), stage 2 each element's {@code |q|} and sign, stage 3 is
 * inside each slot's {@link FloatRounder} (split after its normalization); {@link #values}, {@link #mask},
 * {@link #address} and {@link #write} are the buffer window write (no mask for a one-element window) of stage 3, three cycles after the chunk's read.
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
    int wideSlots = (int) CycleModel.dspElementsPerCycle(p, 4);
    int halfSlots = (int) CycleModel.dspElementsPerCycle(p, 2);
    // the chunk register is clocked only when a chunk moves (its own clock gate): between dspin chunks (a DMA store,
    // a drain, the PPM reading the same port) the conversion pipeline behind it holds still instead of converting
    // every line the scratchpad's read port shows
    UInt[] held = new UInt[1];
    // (a pipeline bank: its value is read only in the cycle after a chunk moves, when dsp_in1_write is high)
    npu.gatedPipelineOf(NpuClockGates.DSP_IN_CHUNK, copyIn, () -> held[0] = npu.regNextOf("dsp_in1_chunk", chunk));
    UInt chunk1 = held[0];
    UInt format1 = npu.regNextOf("dsp_in1_format", format);
    UInt shift1 = npu.regNextOf("dsp_in1_shift", shift);
    Bool write1 = npu.reg0Next("dsp_in1_write", copyIn);
    UInt address1 = npu.regNextOf("dsp_in1_element_index", bufferElement);
    Bool int8 = format1.eq(1);
    UInt shift2 = npu.regNextOf("dsp_in2_shift", shift1);
    Bool copied3 = npu.regNextOf("dsp_in3_copied", npu.regNextOf("dsp_in2_copied", format1.eq(0)));
    List<HwValue> codes = new ArrayList<>();
    for (int i = 0; i < slots; i++) {
      UInt b = chunk1.slice(8 * i + 7, 8 * i);
      FloatRounder rounder;
      if (i < wideSlots) {
        // q·2^shift = (−1)^s·|q|·2^shift, rounded once to FP16
        UInt q = mux(int8, b.asSInt().resize(32).asUInt(), chunk1.slice(32 * i + 31, 32 * i));
        Bool negative = q.bit(31);
        rounder = npu.instanceOf("dsp_convert" + i, new FloatRounder(new FloatRounder.Config(32,
            shift.width(), FpLayout.FP16, RoundMode.NEAREST_EVEN, false), true, true));
        rounder.magnitude.set(npu.regNextOf("dsp_in2_magnitude" + i, mux(negative, uintLit(0, 32).sub(q), q)));
        rounder.negative.set(npu.regNextOf("dsp_in2_negative" + i, negative));
        rounder.exponent.set(shift2.asSInt());
      } else {
        Bool negative = b.bit(7);
        rounder = npu.instanceOf("dsp_convert" + i, new FloatRounder(new FloatRounder.Config(8,
            shift.width(), FpLayout.FP16, RoundMode.NEAREST_EVEN, false), true, true));
        rounder.magnitude.set(npu.regNextOf("dsp_in2_magnitude" + i, mux(negative, uintLit(0, 8).sub(b), b)));
        rounder.negative.set(npu.regNextOf("dsp_in2_negative" + i, negative));
        rounder.exponent.set(sintLit(0, shift.width()));
      }
      UInt code = rounder.code;
      if (i < halfSlots) {
        UInt copy = chunk1.slice(16 * i + 15, 16 * i);
        UInt copy3 = npu.regNextOf("dsp_in3_copy" + i, npu.regNextOf("dsp_in2_copy" + i, copy));
        code = mux(copied3, copy3, code);
      }
      codes.add(npu.wireOf("dsp_inValue" + i, code));
    }
    values = npu.wireOf("dsp_inValues", catLsbFirst(codes).asUInt());
    write = npu.reg0Next("dsp_in3_write", npu.reg0Next("dsp_in2_write", write1));
    address = npu.regNextOf("dsp_in3_element_index", npu.regNextOf("dsp_in2_element_index", address1));
    if (slots == 1) {
      // a one-element window writes its element whole: the buffer has no mask port
      mask = null;
      return;
    }
    UInt count1 = npu.regNextOf("dsp_in1_count", count);
    UInt count3 = npu.regNextOf("dsp_in3_count", npu.regNextOf("dsp_in2_count", count1));
    List<HwValue> enables = new ArrayList<>();
    for (int i = 0; i < slots; i++) {
      enables.add(uintLit(i, count3.width()).lt(count3));
    }
    mask = npu.wireOf("dsp_inMask", catLsbFirst(enables).asUInt());
  }
}
