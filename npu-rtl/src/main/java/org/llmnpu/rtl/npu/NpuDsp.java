package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.dsp.VectorDsp;

/**
 * The {@link Npu}'s Vector DSP and the datapaths of its commands.
 *
 * <ul>
 *   <li>{@code dsptab}: each memory beat (a line of {@code line / 2} FP16 entries) is written into the
 *       DSP's tables through its line-wide table port, in the cycle it arrives.</li>
 *   <li>{@code dsprun}, {@code dspld}: each beat writes {@code line / 8} program words through the line-wide program
 *       port (masked past {@code words}) at program row {@code progBase} + beat ({@code dspld}'s {@code at} is a
 *       multiple of {@code line / 8} words, so a beat never straddles rows); with 4-byte lines a word takes two beats
 *       (the low half is held one beat). A loading {@code dsprun}'s run starts in the cycle the last word is written
 *       (at its {@code entry}); a resident one (no words) starts in its dispatch cycle.</li>
 *   <li>{@code dspin}: a chunk of up to {@code E = min(line / elementBytes, lanes)} elements a cycle
 *       ({@code org.llmnpu.isa.CycleFormulas#dspElementsPerCycle}): the chunk's scratchpad line (asynchronous read),
 *       the chunk at its byte offset (a multiple of {@code G = min(line, lanes)} bytes, so the selection is a
 *       {@code line / G}-way multiplexer), each element converted to FP16 — INT8 and INT32 {@code q} as
 *       {@code q·2^shift} rounded once (round to nearest even, subnormals, ±∞ past the range:
 *       {@code Fp16.fromInt(q, 2^shift)}; shift 0 for INT8), FP16 copied — by one converter per element slot
 *       ({@code G} slots: the first {@code min(line / 4, lanes)} take INT32 and INT8, the others INT8 only, with an
 *       8-bit magnitude), into buffer elements {@code x .. x + n − 1} through the DSP's buffer window (one element
 *       per lane, each lane with its own row: no lane is written twice), written three cycles after the chunk is
 *       read: an input register, then each {@code |q|} with its sign, then a {@code FloatRounder} split after its
 *       normalization (a power-of-two scale needs no multiplier: the rounder's exponent is the shift).</li>
 *   <li>{@code dspout}: a chunk of up to E elements a cycle from the buffer window into its bytes of the line
 *       (byte-masked line write): FP16 as two bytes, INT8 as the element's low byte.</li>
 * </ul>
 * Why a chunk of at most one element per lane and one line: the buffer is one memory per lane, so a window of
 * {@code lanes} consecutive elements touches each lane once (the lane's row is {@code x / lanes} or the next), and
 * the scratchpad reads or writes one line a cycle; the paths are those of the one-element copy widened (a rotation
 * of the window's elements onto the lanes instead of one lane select), none longer, so the clock target holds.
 * Latency: {@code dspin}'s buffer writes trail its chunks by three cycles; after its last chunk the
 * controller stays one cycle in DSP_DRAIN, and it goes through FETCH after a DSP copy (never straight from the
 * command queue into DECODE), so the next command starts in the fourth cycle after the last chunk; the commands
 * take the cycles of {@code org.llmnpu.isa.CycleModel} ({@code rows · ceil(rowElems / E)}, a {@code dspin} one
 * cycle more).
 */
final class NpuDsp {
  /** Cycles the DSP's gated clock runs on after its commands: the dspin's buffer writes and the lanes' pipelines. */
  static final int DSP_GATE_TRAIL = 8;
  final VectorDsp dsp;
  /** Line data and byte mask a {@code dspout} writes this cycle. */
  final UInt outData;
  final Bits outMask;
  /** The chunk's byte offset in its line is 0 (a new scratchpad line). */
  final Bool lineStart;

  /** The DSP's program words per memory line (at least one). */
  static int programWords(int line) {
    return Math.max(1, line / 8);
  }

  /**
   * The Vector DSP of an NPU of configuration {@code c} (also the block {@code npu-dsp}): its program port a line of
   * program words, its table port a line of FP16 entries, its buffer window the copy datapath's slots.
   */
  static VectorDsp module(NpuConfig c) {
    int line = c.machine().lineBytes();
    return new VectorDsp(c.dsp(), programWords(line), line / 2, slots(c.machine()), wideReads(c.machine()));
  }

  /** Element slots of the copy datapath and of the DSP's buffer window: {@code min(line, lanes)}. */
  static int slots(MachineParams p) {
    return Math.min(p.lineBytes(), p.dsp().lanes());
  }

  /**
   * Window elements a {@code dspout} reads whole (its FP16 elements: {@code min(line / 2, lanes)}); of the others it
   * reads the low byte (INT8).
   */
  static int wideReads(MachineParams p) {
    return (int) CycleFormulas.dspElementsPerCycle(p, 2);
  }

  /**
   * @param elementAddress scratchpad byte address of the current chunk (the walk's address)
   * @param spadRead       the scratchpad line holding it
   * @param format         the command's format (0 FP16, 1 INT8, 2 INT32)
   * @param shift          the INT32 conversion's exponent k (6-bit two's complement, −24..15; 0 for INT8)
   * @param bufferElement  the buffer element of the chunk's first element
   * @param count          the chunk's elements (1..E)
   * @param copyIn         a {@code dspin} chunk moves this cycle
   * @param memData        the memory's read data
   * @param tableBeat      a {@code dsptab} beat arrives
   * @param progBeat       a {@code dsprun} program beat arrives
   * @param beatIndex      index of the beat within the command
   * @param words          the {@code dsprun}'s word count (used with lines of 16 bytes or more, else null)
   * @param progBase       the program memory row of the stream's first beat ({@code dspld}'s offset)
   * @param residentStart  a resident {@code dsprun} starts the DSP this cycle
   */
  NpuDsp(NpuController npu, MachineParams p, VectorDsp.Config config, UInt elementAddress, UInt spadRead, UInt format,
         UInt shift, UInt bufferElement, UInt count, Bool copyIn, UInt memData, Bool tableBeat, Bool progBeat,
         UInt beatIndex, UInt words, UInt progBase, Bool residentStart) {
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int lineShift = Integer.numberOfTrailingZeros(line);
    int progWords = programWords(line);
    // the DSP's clock runs in its commands' cycles (DSP_CYCLES) and while a dspin's last buffer writes trail them
    Bool unitBusy = npu.wireOf("dsp_unitBusy", org.llmnpu.hdl.Hw.bool());
    npu.gateEnable("dspUnit", unitBusy);
    dsp = npu.units.dsp;
    int elementBits = npu.io(dsp.bufAddr).width();
    int slots = slots(p);
    int chunkBytes = Math.min(line, 4 * p.dsp().lanes());

    // the chunk at its offset: a multiple of `slots` bytes (every format's chunk is)
    UInt offset = npu.wireOf("dsp_offset", elementAddress.lsbs(lineShift));
    lineStart = npu.wireOf("dsp_lineStart", offset.eq(0));
    int grainShift = Integer.numberOfTrailingZeros(slots);
    UInt bitOffset = slots == line ? uintLit(0, 1)
        : cat(offset.slice(lineShift - 1, grainShift), uintLit(0, grainShift + 3)).asUInt();
    UInt chunk = npu.wireOf("dsp_chunk", spadRead.shiftRight(bitOffset).lsbs(8 * chunkBytes));

    // dspin: the chunk registered (stage 1); each element's |q| and sign registered (stage 2); each rounder's
    // normalization registered (stage 3), rounded and written into the buffer in that cycle: three cycles after
    // the chunk's read. The controller then stays one cycle in DSP_DRAIN and goes through FETCH
    // (NpuFetch.nextViaFetch), so the next command's first cycle is the fourth after the last chunk's read.
    DspCopyIn in = new DspCopyIn(npu, p, chunk, format, shift, copyIn, bufferElement.resize(elementBits), count);
    // the execute pipeline's registers settle within DSP_GATE_TRAIL cycles after a command
    Bool commandCycle = npu.wireOf("dsp_commandCycle", npu.inDspTab.or(npu.inDspProg).or(npu.inDspRun)
        .or(residentStart)
        .or(npu.inDspIn).or(npu.inDspOut).or(npu.inState(Npu.State.DSP_DRAIN)));
    unitBusy.set(commandCycle.or(npu.trailOf("dsp_gateTrail", commandCycle, DSP_GATE_TRAIL)));
    npu.io(dsp.bufWe).set(in.write);
    if (dsp.bufMask != null) {
      npu.io(dsp.bufMask).set(in.mask);
    }
    npu.io(dsp.bufAddr).set(mux(in.write, in.address, bufferElement.resize(elementBits)));
    npu.io(dsp.bufWdata).set(in.values);

    // dspout: the window's elements into their bytes of the chunk, the chunk at its offset in the line
    UInt read = npu.io(dsp.bufRdata);
    int e16 = wideReads(p);
    List<HwValue> bytes = new ArrayList<>();
    List<HwValue> halves = new ArrayList<>();
    List<HwValue> byteMask = new ArrayList<>();
    List<HwValue> halfMask = new ArrayList<>();
    for (int i = 0; i < slots; i++) {
      UInt element = i < e16 ? read.slice(16 * i + 15, 16 * i)
          : read.slice(16 * e16 + 8 * (i - e16) + 7, 16 * e16 + 8 * (i - e16));
      Bool moves = npu.wireOf("dsp_outMoves" + i, uintLit(i, count.width()).lt(count));
      bytes.add(element.lsbs(8));
      byteMask.add(moves);
      if (i < e16) {
        halves.add(element);
        halfMask.add(moves);
        halfMask.add(moves);
      }
    }
    UInt int8Chunk = catLsbFirst(bytes).asUInt().resize(8 * chunkBytes);
    UInt fp16Chunk = catLsbFirst(halves).asUInt().resize(8 * chunkBytes);
    UInt outChunk = mux(format.eq(1), int8Chunk, fp16Chunk);
    Bits chunkMask = mux(format.eq(1), catLsbFirst(byteMask).resize(chunkBytes),
        catLsbFirst(halfMask).resize(chunkBytes));
    outData = npu.wireOf("dsp_outData", outChunk.resize(lineBits).shiftLeft(bitOffset));
    UInt byteOffset = slots == line ? uintLit(0, 1) : grainShift == 0 ? offset
        : cat(offset.slice(lineShift - 1, grainShift), uintLit(0, grainShift)).asUInt();
    outMask = npu.wireOf("dsp_outMask", chunkMask.resize(line).shiftLeft(byteOffset));

    // dsptab: a line of line/2 entries per beat
    npu.io(dsp.tableWe).set(tableBeat);
    npu.io(dsp.tableAddr).set(beatIndex.resize(npu.io(dsp.tableAddr).width()));
    npu.io(dsp.tableData).set(memData);

    // dsprun: program words
    UInt progBeatIndex = beatIndex;
    if (line >= 8) {
      // (16-byte lines and wider: the words of a beat past the program's end are not written)
      npu.io(dsp.progWe).set(progBeat);
      int rowBits = npu.io(dsp.progAddr).width();
      npu.io(dsp.progAddr).set(progBeatIndex.resize(rowBits).add(progBase.resize(rowBits)));
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
      int rowBits = npu.io(dsp.progAddr).width();
      npu.io(dsp.progAddr).set(progBeatIndex.shiftRight(1).resize(rowBits).add(progBase.resize(rowBits)));
      npu.io(dsp.progData).set(cat(memData.lsbs(32), low).asUInt());
    }
  }
}
