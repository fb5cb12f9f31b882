package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;

/**
 * The registers of a 2-D address walk ({@code rows} rows, {@code beats} steps per row): the
 * address {@code base + row·rowStride + beat·step}, advanced by additions only. Created by
 * a unit in a named section so the Verilog reads {@code loadExt_address}.
 */
final class Walker {
  /** The module that holds a walk's registers and statements. */
  interface Host {
    /** A register reset to 0. */
    <T extends HwValue> T reg0(String name, T type);

    /** {@code if (cond) then else otherwise}. */
    void whenElse(Bool cond, Runnable then, Runnable otherwise);
  }

  final UInt address;
  final UInt rowBase;
  final UInt row;
  final UInt beat;
  final Bool finished;
  private final Host npu;
  private UInt rowStride;
  private UInt step;
  private UInt rows;
  private UInt beats;

  Walker(Host npu, int addressBits, int countBits) {
    this(npu, addressBits, countBits, true);
  }

  /** {@code withFinished}: keep a register that is set after the last step. */
  Walker(Host npu, int addressBits, int countBits, boolean withFinished) {
    this.npu = npu;
    address = npu.reg0("address", uint(addressBits));
    rowBase = npu.reg0("rowBase", uint(addressBits));
    row = npu.reg0("row", uint(countBits));
    beat = npu.reg0("beat", uint(countBits));
    finished = withFinished ? npu.reg0("finished", bool()) : null;
  }

  /** The walk's shape (held constant during the walk). */
  void shape(UInt rowStride, UInt step, UInt rows, UInt beats) {
    this.rowStride = rowStride;
    this.step = step;
    this.rows = rows;
    this.beats = beats;
  }

  Bool lastInRow() {
    return beat.eq(beats.sub(1));
  }

  Bool last() {
    return lastInRow().and(row.eq(rows.sub(1)));
  }

  /** Statements for the start of a walk at {@code base}. */
  void begin(UInt base) {
    address.set(base);
    rowBase.set(base);
    row.set(row.sub(row));
    beat.set(beat.sub(beat));
    if (finished != null) {
      finished.set(boolLit(false));
    }
  }

  /** Statements for one step. */
  void advance() {
    npu.whenElse(lastInRow(), () -> {
      UInt next = rowBase.add(rowStride);
      rowBase.set(next);
      address.set(next);
      beat.set(beat.sub(beat));
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
