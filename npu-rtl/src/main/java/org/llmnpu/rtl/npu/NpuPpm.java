package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.ppm.LinePpm;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * The {@link Npu}'s PPM ({@link LinePpm}: {@code line/4} lanes, one INT32 line a cycle — or, with {@code ppmWide},
 * {@code line} lanes, one N tile of a fused drain's result row a cycle — a parameter memory of
 * {@link MachineParams#ppmChannels()} channels indexed by output column; INT8 codes, activation NONE or PPU) and the
 * datapaths of {@code ppmcfg}, {@code pputab} and the PPM's input (golden: {@code org.llmnpu.isa.IsaSimulator},
 * numerics {@code Ppm.process}).
 *
 * <ul>
 *   <li>{@code ppmcfg} / {@code pputab}: the memory beats carry items of B bytes (16-byte channel
 *       records, 2-byte C-LUT entries) that enter the PPM's channel port (channel {@code cfgChannel}) or C-LUT port
 *       one a cycle. With lines of at least B bytes a beat's first item goes in the cycle it arrives and the others
 *       from a line buffer in the following cycles; the controller requests beats at most every
 *       {@code P = line / B} cycles ({@link #mayRequest}), so a beat never arrives before the previous
 *       one is used up. With shorter lines (16-byte records on 4- or 8-byte lines) a record is gathered
 *       over {@code 16 / line} beats and written with its last one.</li>
 *   <li>The input ({@code feed}): one INT32 line a cycle — a {@code ppm}'s source line (asynchronous scratchpad
 *       read) or a {@code gemm ppm=1}'s drain line — with its group {@code g} (line g of a row: columns
 *       {@code g·line/4 ..}); {@code L = }{@link LinePpm#latency()} cycles later ({@code MachineParams.ppmLatency()})
 *       its {@code line/4} INT8 codes are on {@link #outData}, repeated in each quarter of the line, for a write
 *       with byte enables.</li>
 *   <li>With {@code ppmWide} ({@code line} lanes): a fused drain feeds a whole N tile of a result row ({@code line}
 *       INT32 results, group = the tile) and gets {@code line} codes for one line write; a {@code ppm}'s source line
 *       ({@code line/4} INT32) is fed to all four quarters of the lanes with group 0, so lane {@code q·line/4 + j}
 *       holds element j of line q with channel {@code q·line/4 + j}, and the write's byte enables take quarter q of
 *       the codes: the same codes and cycles as the narrow PPM's.</li>
 * </ul>
 * Cycles: {@code org.llmnpu.isa.CycleModel#ppmLoad}, {@code #ppm} ({@code M·R + L}) and the fused drain.
 */
final class NpuPpm {
  /** The input register (inside {@link LinePpm}) between the scratchpad read or drain and the requantizer. */
  static final int INPUT_LATENCY = 1;
  /**
   * Parameter banks: a {@code ppmcfg} writes its {@code bank} while a fused GEMM's drain reads the other
   * ({@code gemm ppm=1} bank 0, {@code ppm=2} bank 1; a {@code ppm} bank 0).
   */
  static final int BANKS = 2;
  /** An item (channel record or table entry) enters the PPM this cycle. */
  final Bool item;
  /** The controller may issue a memory request of a {@code ppmcfg}/{@code pputab} this cycle. */
  final Bool mayRequest;
  /** The PPM's output codes are valid this cycle. */
  final Bool outValid;
  /** The {@code line/4} codes, repeated in the four quarters of a line. */
  final UInt outData;
  /** A C-LUT has been loaded since reset (a {@code ppm} on a PPU NPU needs one). */
  final Bool tableLoaded;
  final PpmConfig config;
  final LinePpm ppm;

  /** The PPM of an NPU: {@code line/4} lanes of INT8 outputs, with the PPU's tables when {@code ppu}. */
  static PpmConfig config(MachineParams p, boolean ppu) {
    return new PpmConfig(lanes(p), 8, ppu ? PpmConfig.Activation.PPU : PpmConfig.Activation.NONE, 16, 2, 16);
  }

  /**
   * The PPM's lanes ({@code MachineParams.ppmLanes}): the INT32 elements of one line ({@code line/4}), or with
   * {@code ppmWide} the line's bytes ({@code line}: one N tile of a result row, a fused drain feeds them a cycle).
   */
  static int lanes(MachineParams p) {
    return p.ppmLanes();
  }

  /** The INT32 elements of one scratchpad line, {@code max(1, line/4)}: a {@code ppm} command's source line. */
  static int quarter(MachineParams p) {
    return Math.max(1, p.lineBytes() / 4);
  }

  /** The PPM module of an NPU of configuration {@code c} (also the block {@code npu-ppm}). */
  static LinePpm module(NpuConfig c) {
    return new LinePpm(config(c.machine(), c.ppu()), c.machine().ppmChannels(), BANKS, c.ppmGate());
  }

  /**
   * @param loading  in a {@code ppmcfg} or {@code pputab}
   * @param table    the loading command is {@code pputab} (held during the command)
   * @param beat     a memory beat arrives (in a load state)
   * @param memData  the beat
   * @param fire     a memory request is accepted
   * @param channel  the channel of the record this cycle ({@code ppmcfg})
   * @param cfgBank  the parameter bank the {@code ppmcfg} writes
   * @param index    the index of the item this cycle (the C-LUT address of a {@code pputab})
   * @param feed     an INT32 line enters the PPM this cycle
   * @param feedLine the line
   * @param feedGroup its group (line index within its row)
   * @param feedBank the parameter bank it reads
   * @param clear    a program starts: forget the loaded table
   */
  NpuPpm(NpuController npu, NpuConfig c, Bool clear, Bool loading, Bool table, Bool beat, UInt memData, Bool fire,
         UInt channel, Bool cfgBank, UInt index, Bool feed, UInt feedLine, UInt feedGroup, Bool feedBank) {
    MachineParams p = c.machine();
    boolean ppu = c.ppu();
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int lanes = lanes(p);
    config = config(p, ppu);
    // the PPM runs on a clock gated by its commands' cycles, the lines it is fed (a ppm's or a fused GEMM's drain)
    // and its pipeline's latency after them (a ppmcfg's records pass the pipeline's registers as the lines do)
    Bool unitCycle = npu.wireOf("ppm_unitCycle", npu.inPpmLoad.or(npu.inPpmRun).or(npu.inPpmDrain).or(feed));
    Bool unitBusy = npu.wireOf("ppm_unitBusy", unitCycle.or(npu.trailOf("ppm_gateTrail", unitCycle,
        1 + config.latency() + INPUT_LATENCY + 1)));
    npu.gateEnable("ppmUnit", unitBusy);
    ppm = npu.units.ppm;

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
    npu.io(ppm.cfgWrite).set(item.and(table.not()));
    npu.io(ppm.cfgChannel).set(channel.resize(npu.io(ppm.cfgChannel).width()));
    npu.io(ppm.cfgBank).set(cfgBank);
    npu.io(ppm.cfgBias).set(record.slice(31, 0).asSInt());
    npu.io(ppm.cfgMultiplier).set(record.slice(62, 32));
    npu.io(ppm.cfgShift).set(record.slice(69, 64).asSInt());
    npu.io(ppm.cfgZeroPoint).set(record.slice(79, 72).asSInt());
    if (ppu) {
      // A C-LUT entry: the beat's first in the cycle it arrives, the others from the line buffer.
      UInt bufferedEntry = npu.wireOf("ppm_bufferedEntry", buffer.shiftRight(cat(pos, uintLit(0, 4)).asUInt())
          .lsbs(16));
      UInt entry = npu.wireOf("ppm_entry", mux(beat, memData.lsbs(16), bufferedEntry));
      Bool loaded = npu.reg0("ppm_tableLoaded", bool());
      tableLoaded = loaded;
      npu.io(ppm.lutWrite).set(item.and(table));
      npu.io(ppm.lutAddress).set(index.resize(config.lutAddressBits()));
      npu.io(ppm.lutData).set(entry.asSInt());
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

    // ------------------------------------------------------------ one INT32 line a cycle into the lanes
    // between lines the inputs are 0, so the PPM's input registers hold while its clock is gated
    npu.io(ppm.inValid).set(feed);
    npu.io(ppm.inBank).set(feed.and(feedBank));
    npu.io(ppm.inGroup).set(mux(feed, feedGroup.resize(npu.io(ppm.inGroup).width()), uintLit(0, npu.io(ppm.inGroup).width())));
    UInt fed = npu.wireOf("ppm_fedLine", mux(feed, feedLine, uintLit(0, feedLine.width())));
    for (int j = 0; j < lanes; j++) {
      npu.io(ppm.inAcc.get(j)).set(fed.slice(32 * j + 31, 32 * j).asSInt());
    }
    if (c.ppmGate()) {
      // a gated drain's line comes with the gate codes at its Y bytes (the back-end's gate read; 0 between lines)
      npu.io(ppm.inGated).set(npu.io(npu.back.ppmGated));
      UInt gates = npu.io(npu.back.ppmGates);
      for (int j = 0; j < lanes; j++) {
        npu.io(ppm.inGate.get(j)).set(gates.slice(8 * j + 7, 8 * j).asSInt());
      }
    }
    outValid = npu.io(ppm.outValid);
    List<HwValue> codes = new ArrayList<>();
    for (int q = 0; q < line / lanes; q++) {
      for (HwValue code : ppm.outData.asList()) {
        codes.add(npu.io(code));
      }
    }
    outData = npu.wireOf("ppm_outData", catLsbFirst(codes).asUInt());
  }
}
