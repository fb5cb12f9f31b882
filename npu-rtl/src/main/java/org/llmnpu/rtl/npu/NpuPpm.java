package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsLit;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.ppm.Ppm;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * The {@link Npu}'s PPM ({@link Ppm}, {@code rows} lanes, INT8 codes, activation NONE or PPU) and the
 * datapaths of {@code ppmcfg}, {@code pputab} and {@code ppm} (golden: {@code org.llmnpu.isa.IsaSimulator},
 * numerics {@code Ppm.process}).
 *
 * <ul>
 *   <li>{@code ppmcfg} / {@code pputab}: the memory beats carry items of B bytes (16-byte channel
 *       records, 2-byte C-LUT entries) that enter the PPM's lane port or C-LUT port one a cycle. With
 *       lines of at least B bytes a beat's first item goes in the cycle it arrives and the others from a
 *       line buffer in the following cycles; the controller requests beats at most every
 *       {@code P = line / B} cycles ({@link #mayRequest}), so a beat never arrives before the previous
 *       one is used up. With shorter lines (16-byte records on 4- or 8-byte lines) a record is gathered
 *       over {@code 16 / line} beats and written with its last one.</li>
 *   <li>{@code ppm}: the source rows are read one line a cycle (asynchronous scratchpad read); the first
 *       {@code R − 1} lines of a row ({@code R = ceil(4N / line)} ≤ 4) wait in line registers and the row
 *       is registered with its last line (the scratchpad's asynchronous read and the line select stay off
 *       the PPM's bias add) and enters the PPM in the next cycle; {@code L = }{@link PpmConfig#latency()}
 *       {@code + }{@link #INPUT_LATENCY} cycles after its last line is read its INT8 codes are written as
 *       one masked line ({@code N} bytes) at the destination row ({@code MachineParams.ppmLatency()} = L).</li>
 * </ul>
 * Cycles: {@code org.llmnpu.isa.CycleModel#ppmLoad} and {@code #ppm} ({@code M·R + L}).
 */
final class NpuPpm {
  /** The register between the scratchpad read and the PPM's lanes. */
  static final int INPUT_LATENCY = 1;
  /** An item (channel record or table entry) enters the PPM this cycle. */
  final Bool item;
  /** The controller may issue a memory request of a {@code ppmcfg}/{@code pputab} this cycle. */
  final Bool mayRequest;
  /** The PPM's output row is valid this cycle: write {@link #outData} under {@link #outMask}. */
  final Bool outValid;
  final UInt outData;
  final Bits outMask;
  /** A C-LUT has been loaded since reset (a {@code ppm} on a PPU NPU needs one). */
  final Bool tableLoaded;
  final PpmConfig config;

  /** The PPM of an NPU: {@code rows} lanes of INT8 outputs, with the PPU's tables when {@code ppu}. */
  static PpmConfig config(MachineParams p, boolean ppu) {
    return new PpmConfig(p.rows(), 8, ppu ? PpmConfig.Activation.PPU : PpmConfig.Activation.NONE, 16, 2, 16);
  }

  /**
   * @param loading  in a {@code ppmcfg} or {@code pputab}
   * @param table    the loading command is {@code pputab} (held during the command)
   * @param beat     a memory beat arrives (in a load state)
   * @param memData  the beat
   * @param fire     a memory request is accepted
   * @param index    the index of the item (lane or C-LUT address) this cycle
   * @param rowIn    a {@code ppm} reads a source line this cycle
   * @param lineOfRow the line's index in its row (0..3, 2 bits)
   * @param rowEnds  the line is the row's last
   * @param lastLine the row's last line index {@code R − 1} (2 bits)
   * @param spadRead the line read
   * @param n        the {@code ppm}'s lanes N (1..rows)
   * @param clear    a program starts: forget the loaded table
   */
  NpuPpm(Npu npu, MachineParams p, boolean ppu, Bool clear, Bool loading, Bool table, Bool beat, UInt memData, Bool fire,
         UInt index, Bool rowIn, UInt lineOfRow, Bool rowEnds, UInt lastLine, UInt spadRead, UInt n) {
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int lanes = p.rows();
    config = config(p, ppu);
    // the PPM and its row registers run on a clock gated by the PPM commands' cycles (PPM_CYCLES) and the pipeline's
    // latency after them (a ppmcfg's new channel records pass the pipeline's registers as the rows do)
    Bool commandCycle = npu.wireOf("ppm_commandCycle", npu.inPpmLoad.or(npu.inPpmRun).or(npu.inPpmDrain));
    Bool unitBusy = npu.wireOf("ppm_unitBusy", commandCycle.or(npu.trailOf("ppm_gateTrail", commandCycle,
        config.latency() + INPUT_LATENCY + 1)));
    Ppm[] made = new Ppm[1];
    npu.clockGatedOf("ppmUnit", unitBusy, () -> made[0] = npu.instanceOf("ppm", new Ppm(config)));
    Ppm ppm = made[0];

    // ------------------------------------------------------------ items from memory beats
    int recordBits = 8 * Command.PPM_RECORD_BYTES;
    UInt record;
    Bool recordValid;
    int recordsPerBeat = Math.max(1, line / Command.PPM_RECORD_BYTES);
    int entriesPerBeat = line / 2;
    // The line buffer serves table entries (PPU) and several records a beat (lines of 32 bytes or more).
    boolean buffered = ppu || line > Command.PPM_RECORD_BYTES;
    UInt buffer = buffered ? npu.reg0("ppm_beatBuffer", uint(lineBits)) : null;
    UInt pos = npu.reg0("ppm_itemInBeat", uint(6));
    Bool active = npu.reg0("ppm_itemsPending", bool());
    UInt perBeat = mux(table, uintLit(entriesPerBeat, 6), uintLit(recordsPerBeat, 6));
    npu.whenElse(loading.not(), () -> active.set(boolLit(false)), () -> npu.whenElse(beat, () -> {
      if (buffered) {
        buffer.set(memData);
      }
      pos.set(uintLit(1, 6));
      active.set(perBeat.gt(1));
    }, () -> npu.whenDo(active, () -> {
      pos.set(pos.add(1));
      npu.whenDo(pos.eq(perBeat.sub(1)), () -> active.set(boolLit(false)));
    })));
    // The buffered item at `pos` (entries: 16 bits each; records: 128 bits each).
    if (line > Command.PPM_RECORD_BYTES) {
      // Not named: the fields are sliced out of it, the ignored bytes 10..15 stay unused by design.
      UInt bufferedRecord = buffer.shiftRight(cat(pos, uintLit(0, 7)).asUInt()).lsbs(recordBits);
      record = mux(beat, memData.lsbs(recordBits), bufferedRecord);
      recordValid = beat.or(active);
    } else if (line == Command.PPM_RECORD_BYTES) {
      record = memData;
      recordValid = beat;
    } else {
      // Gather 16 / line beats: the older ones wait in a shift register, the last completes the record.
      int gather = Command.PPM_RECORD_BYTES / line;
      UInt older = npu.reg0("ppm_recordLow", uint(recordBits - lineBits));
      UInt count = npu.reg0("ppm_recordBeat", uint(4));
      Bool completes = npu.wireOf("ppm_recordCompletes", count.eq(gather - 1));
      npu.whenElse(loading.not(), () -> count.set(uintLit(0, 4)), () -> npu.whenDo(beat, () -> {
        count.set(mux(completes, uintLit(0, 4), count.add(1)));
        older.set(gather == 2 ? memData : cat(memData, older.slice(recordBits - lineBits - 1, lineBits)).asUInt());
      }));
      record = cat(memData, older).asUInt();
      recordValid = beat.and(completes);
    }
    item = npu.wireOf("ppm_item", loading.and(mux(table, beat.or(active), recordValid)));
    ppm.cfgWrite.set(item.and(table.not()));
    ppm.cfgLane.set(index.resize(config.laneBits()));
    ppm.cfgBias.set(record.slice(31, 0).asSInt());
    ppm.cfgMultiplier.set(record.slice(62, 32));
    ppm.cfgShift.set(record.slice(69, 64).asSInt());
    ppm.cfgZeroPoint.set(record.slice(79, 72).asSInt());
    if (ppu) {
      // A C-LUT entry: the beat's first in the cycle it arrives, the others from the line buffer.
      UInt bufferedEntry = npu.wireOf("ppm_bufferedEntry", buffer.shiftRight(cat(pos, uintLit(0, 4)).asUInt())
          .lsbs(16));
      UInt entry = npu.wireOf("ppm_entry", mux(beat, memData.lsbs(16), bufferedEntry));
      Bool loaded = npu.reg0("ppm_tableLoaded", bool());
      tableLoaded = loaded;
      ppm.lutWrite.set(item.and(table));
      ppm.lutAddress.set(index.resize(config.lutAddressBits()));
      ppm.lutData.set(entry.asSInt());
      npu.whenElse(clear, () -> loaded.set(boolLit(false)),
          () -> npu.whenDo(item.and(table), () -> loaded.set(boolLit(true))));
    } else {
      tableLoaded = boolLit(false);
    }

    // Beats at most every perBeat cycles (records on short lines: every cycle).
    UInt gap = npu.reg0("ppm_requestGap", uint(6));
    npu.whenElse(loading.not(), () -> gap.set(uintLit(0, 6)),
        () -> npu.whenElse(fire, () -> gap.set(perBeat.sub(1)), () -> npu.whenDo(gap.ne(0), () -> gap.set(gap.sub(1)))));
    mayRequest = npu.wireOf("ppm_mayRequest", gap.eq(0));

    // ------------------------------------------------------------ ppm: rows of INT32 into the lanes
    List<UInt> held = new ArrayList<>();
    npu.clockGatedOf("ppmRows", unitBusy, () -> {
      for (int b = 0; b < 3; b++) {
        UInt r = npu.reg0("ppm_rowLine" + b, uint(lineBits));
        int lineIndex = b;
        npu.whenDo(rowIn.and(lineOfRow.eq(lineIndex)), () -> r.set(spadRead));
        held.add(r);
      }
      ppm.inValid.set(npu.reg0Next("ppm_rowValid", rowIn.and(rowEnds)));
      for (int j = 0; j < lanes; j++) {
        int bj = 4 * j / line;
        int offset = 8 * (4 * j % line);
        UInt now = spadRead.slice(offset + 31, offset);
        UInt value = bj == 3 ? now : mux(lastLine.eq(bj), now, held.get(bj).slice(offset + 31, offset));
        // a row's lanes are taken with its last line (the PPM ignores its inputs between rows): idle, they hold
        UInt lane = npu.reg0("ppm_rowLane" + j, value.copyType());
        npu.whenDo(rowIn.and(rowEnds), () -> lane.set(value));
        ppm.inAcc.get(j).set(lane.asSInt());
      }
    });
    outValid = ppm.outValid;
    List<SInt> codes = new ArrayList<>(ppm.outData.asList());
    outData = npu.wireOf("ppm_outData", catLsbFirst(codes).asUInt());
    Bits ones = bitsLit(line == 64 ? -1L : (1L << line) - 1, line);
    int nBits = n.width();
    outMask = npu.wireOf("ppm_outMask", ones.shiftRight(uintLit(line, nBits + 1).sub(n.resize(nBits + 1))));
  }
}
