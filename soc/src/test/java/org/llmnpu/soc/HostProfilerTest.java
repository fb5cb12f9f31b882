package org.llmnpu.soc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostProfilerTest {
  @Test
  void theHostOperatorTimesAreMeasuredPositiveAndOrderedByFlops() {
    HostProfiler.HostProfile p = HostProfiler.run();
    List<HostProfiler.Measured> byFlops = p.operators().stream()
        .filter(m -> m.name().startsWith("matvec") || m.name().equals("rmsnorm"))
        .sorted(Comparator.comparingDouble(HostProfiler.Measured::flops)).toList();
    assertTrue(byFlops.size() >= 4, byFlops.toString());
    for (HostProfiler.Measured m : p.operators()) {
      assertTrue(m.seconds() > 0 && Double.isFinite(m.seconds()), m.toString());
    }
    for (int i = 1; i < byFlops.size(); i++) {
      HostProfiler.Measured a = byFlops.get(i - 1);
      HostProfiler.Measured b = byFlops.get(i);
      // operators at least 2x apart in work must be ordered by time (measured, not constants)
      if (b.flops() >= 2 * a.flops()) {
        assertTrue(b.seconds() > a.seconds(), a + " vs " + b);
      }
    }
    assertTrue(p.launchS() > 0, "launch " + p.launchS());
  }

  @Test
  void theHostRooflineSaysItsFiguresAreMeasured() {
    RooflineSpec r = HostProfiler.measure().asRoofline();
    assertTrue(r.peakGops().get("fp32").source().startsWith("measured here"), r.toString());
    assertTrue(r.bandwidthGBs().source().startsWith("measured here"), r.toString());
    assertTrue(r.peakGops().get("fp32").value() > 0.01 && r.bandwidthGBs().value() > 0.01, r.toString());
    assertTrue(r.pjPerOp().source().contains("not measurable here"), r.pjPerOp().source());
  }
}
