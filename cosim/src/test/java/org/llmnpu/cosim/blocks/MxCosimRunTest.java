package org.llmnpu.cosim.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.rtl.mx.MxFormat;

/** Every MX unit of FP4 (E2M1) on the RTL against the golden models: bit-exact, exhaustive decode, RNE encode. */
class MxCosimRunTest {

  @Test
  void fp4UnitsAreBitExact() {
    List<MxCosimRun.UnitResult> units = MxCosimRun.run(MxFormat.fromCliName("fp4_e2m1"), 8, 1);
    assertEquals(6, units.size(), units.toString());
    units.forEach(u -> assertEquals(0, u.mismatches(), u.toString()));
    assertEquals(16 * 256, units.get(0).cases(), "decode: every code x every scale");
    assertEquals(0.5, units.get(1).maxError(), 1e-12, "RNE: at most half an element ulp");
  }
}
