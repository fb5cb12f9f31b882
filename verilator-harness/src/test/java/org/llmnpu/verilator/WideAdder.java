package org.llmnpu.verilator;

import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/** A 100-bit registered adder: ports wider than 64 bits. */
final class WideAdder extends HwModule {
  final UInt a = in(uint(100));
  final UInt b = in(uint(100));
  final UInt sum = out(uint(101));

  WideAdder() {
    sum.set(regNext("sum_q", a.addExpand(b)));
  }
}
