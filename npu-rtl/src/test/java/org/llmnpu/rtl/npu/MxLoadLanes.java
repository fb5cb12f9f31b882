package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;

/** The {@code loadmx} decoders of one line alone ({@link NpuLoadMx#code} per byte), for their area. */
public final class MxLoadLanes extends HwModule {
  public final UInt data;
  public final UInt format = in(uint(2));
  public final UInt codes;
  private final int line;

  public MxLoadLanes(int line) {
    this.line = line;
    data = in("data", uint(8 * line));
    codes = out("codes", uint(8 * line));
    List<HwValue> out = new ArrayList<>();
    for (int i = 0; i < line; i++) {
      out.add(NpuLoadMx.code(data.slice(8 * i + 7, 8 * i), format));
    }
    codes.set(catLsbFirst(out).asUInt());
  }

  @Override
  public String moduleName() {
    return "MxLoadLanes_" + line;
  }
}
