package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;

/**
 * The registers of a 2-D address walk ({@code rows} rows, {@code beats} steps per row): the
 * address {@code base + row·rowStride + beat·step}, advanced by additions only. Created by
 * a unit in a named section so the Verilog reads {@code loadExt_address}. A walk held by another module is seen
 * through a {@link Remote} (the {@link NpuController}'s view of {@link NpuDmaUnit}'s walks): its fields are that
 * module's outputs (null where not exposed), and its statements drive that module's pulses.
 */
final class Walker {
  /** The module that holds a walk's registers and statements. */
  interface Host {
    /** A register reset to 0. */
    <T extends HwValue> T reg0(String name, T type);

    /** {@code if (cond) then else otherwise}. */
    void whenElse(Bool cond, Runnable then, Runnable otherwise);
  }

  /** A walk held by another module: its begin and advance as statements on that module's inputs. */
  interface Remote {
    /** Statements for the start of the walk at {@code base}. */
    void begin(UInt base);

    /** Statements for one step. */
    void advance();

    Bool lastInRow();

    Bool last();
  }

  final UInt address;
  final UInt rowBase;
  final UInt row;
  final UInt beat;
  final Bool finished;
  private final Host npu;
  private final Remote remote;
  private UInt rowStride;
  private UInt step;
  private UInt rows;
  private UInt beats;
  private UInt lastRow;
  private UInt lastBeat;
  /** {@link #restAtZero}: row and beat are 0 whenever the walk does not run, and a begin leaves them alone. */
  private boolean rests;

  Walker(Host npu, int addressBits, int countBits) {
    this(npu, addressBits, countBits, true);
  }

  /** {@code withFinished}: keep a register that is set after the last step. */
  Walker(Host npu, int addressBits, int countBits, boolean withFinished) {
    this.npu = npu;
    remote = null;
    address = npu.reg0("address", uint(addressBits));
    rowBase = npu.reg0("rowBase", uint(addressBits));
    row = npu.reg0("row", uint(countBits));
    beat = npu.reg0("beat", uint(countBits));
    finished = withFinished ? npu.reg0("finished", bool()) : null;
  }

  /** The walk held by another module ({@code remote}), whose position is {@code address}, {@code row}, {@code beat}. */
  Walker(Remote remote, UInt address, UInt row, UInt beat) {
    this.npu = null;
    this.remote = remote;
    this.address = address;
    this.row = row;
    this.beat = beat;
    rowBase = null;
    finished = null;
  }

  /** The walk's shape (held constant during the walk). */
  void shape(UInt rowStride, UInt step, UInt rows, UInt beats) {
    this.rowStride = rowStride;
    this.step = step;
    this.rows = rows;
    this.beats = beats;
  }

  /**
   * Registers that hold {@code rows − 1} and {@code beats − 1} (taken with the shape registers, so equal to them in
   * every cycle): the last-beat compares then start at a flip-flop instead of a subtractor on the shape.
   */
  void lastIndices(UInt lastRow, UInt lastBeat) {
    this.lastRow = lastRow;
    this.lastBeat = lastBeat;
  }

  /**
   * Row and beat return to 0 in every cycle in which {@code walking} is false, and {@link #begin} writes only the
   * address and row base: the begin (a late dispatch decision) then selects no input of the row and beat
   * incrementers, which see only {@code walking} (early: the controller's state register). Exact when every cycle
   * of a walk, from the cycle after its begin to its last step, has {@code walking} and calls {@link #advance} (row
   * and beat then start at 0 and step as before), and no begin comes in a cycle with {@code walking}; row and beat
   * differ from a walk that holds them only in cycles without {@code walking}, whose readers must ignore them.
   * Statements (call once, before the walk's other statements).
   */
  void restAtZero(Bool walking) {
    rests = true;
    npu.whenElse(walking.not(), () -> {
      row.set(uintLit(0, row.width()));
      beat.set(uintLit(0, beat.width()));
    }, () -> { });
  }

  Bool lastInRow() {
    if (remote != null) {
      return remote.lastInRow();
    }
    return beat.eq(lastBeat != null ? lastBeat : beats.sub(1));
  }

  Bool last() {
    if (remote != null) {
      return remote.last();
    }
    return lastInRow().and(row.eq(lastRow != null ? lastRow : rows.sub(1)));
  }

  /** Statements for the start of a walk at {@code base}. */
  void begin(UInt base) {
    if (remote != null) {
      remote.begin(base);
      return;
    }
    address.set(base);
    rowBase.set(base);
    // constants, not row − row: Yosys's opt_share merges a subtraction that shares the row+1 adder's operand into
    // one adder with a muxed operand, which puts the begin select (late: a dispatch decision) before the carry chain
    if (!rests) {
      row.set(uintLit(0, row.width()));
      beat.set(uintLit(0, beat.width()));
    }
    if (finished != null) {
      finished.set(boolLit(false));
    }
  }

  /** Statements for one step. */
  void advance() {
    if (remote != null) {
      remote.advance();
      return;
    }
    npu.whenElse(lastInRow(), () -> {
      UInt next = rowBase.add(rowStride);
      rowBase.set(next);
      address.set(next);
      beat.set(uintLit(0, beat.width()));
      row.set(row.add(1));
      if (finished != null) {
        npu.whenElse(last(), () -> finished.set(boolLit(true)), () -> { });
      }
    }, () -> {
      address.set(address.add(step));
      beat.set(beat.add(1));
    });
  }
}
