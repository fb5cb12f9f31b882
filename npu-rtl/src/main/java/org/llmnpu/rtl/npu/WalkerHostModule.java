package org.llmnpu.rtl.npu;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;

/** A unit that holds {@link Walker}s: its registers reset to 0 and its if/else are the walks' statements. */
abstract class WalkerHostModule extends HwModule implements Walker.Host {
  /** A register reset to 0. */
  @Override
  public <T extends HwValue> T reg0(String name, T type) {
    return regInit(name, type, 0);
  }

  /** {@code if (cond) then else otherwise}. */
  @Override
  public void whenElse(Bool cond, Runnable then, Runnable otherwise) {
    when(cond, then).otherwise(otherwise);
  }
}
