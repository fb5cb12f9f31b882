package org.llmnpu.spinal;

import java.util.Map;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.ImportedVerilog;

/** A hw-dsl top that instances the exported control registers and passes every port through. */
final class ControlRegsTop extends HwModule {
  ControlRegsTop() {
    ImportedVerilog regs = instance("regs", SpinalIp.npuControlRegs());
    for (Map.Entry<String, HwValue> p : regs.ports().entrySet()) {
      String name = p.getKey();
      if (name.equals("clk") || name.equals("reset")) {
        continue;
      }
      HwValue child = p.getValue();
      if (child.signal().role == org.llmnpu.hdl.ir.Signal.Role.OUTPUT) {
        HwValue top = out(name, (HwValue) child.copyType());
        top.set(child);
      } else {
        HwValue top = in(name, (HwValue) child.copyType());
        child.set(top);
      }
    }
  }
}
