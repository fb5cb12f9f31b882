package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;

/** Each design error names the user's Java file:line and the signals involved. */
class ElaborationErrorsTest {

  static final class WidthMismatch extends HwModule {
    final UInt a = in(uint(9));
    final UInt y = out(uint(8));

    WidthMismatch() {
      y.set(a); // line 19
    }
  }

  static final class CombLoop extends HwModule {
    final UInt x = in(uint(4));
    final UInt y = out(uint(4));

    CombLoop() {
      UInt p = wire("p", uint(4));
      UInt q = wire("q", uint(4));
      p.set(q.add(x)); // line 30
      q.set(p); // line 31
      y.set(q);
    }
  }

  static final class Latch extends HwModule {
    final Bool en = in(bool());
    final UInt d = in(uint(4));
    final UInt y = out(uint(4));

    Latch() {
      when(en, () -> y.set(d)); // line 42
    }
  }

  static final class Child extends HwModule {
    final UInt in = in(uint(4));
    final UInt out = out(uint(4));

    Child() {
      out.set(in);
    }
  }

  static final class DrivesChildOutput extends HwModule {
    final UInt y = out(uint(4));

    DrivesChildOutput() {
      Child c = instance("c", new Child());
      c.in.set(Hw.uintLit(1, 4));
      c.out.set(Hw.uintLit(2, 4)); // line 61
      y.set(c.out);
    }
  }

  static final class UndrivenChildInput extends HwModule {
    final UInt y = out(uint(4));

    UndrivenChildInput() {
      Child c = instance("c", new Child()); // line 70
      y.set(c.out);
    }
  }

  static final class UndrivenOutput extends HwModule {
    final UInt y = out(uint(4)); // line 76

    UndrivenOutput() {
    }
  }

  static final class LoopThroughChild extends HwModule {
    final UInt y = out(uint(4));

    LoopThroughChild() {
      Child c = instance("c", new Child());
      c.in.set(c.out.add(1)); // line 87
      y.set(c.out);
    }
  }

  @Test
  void widthMismatchNamesFileLineAndSignals() {
    var e = assertThrows(ElaborationException.class, WidthMismatch::new);
    assertMessage(e, "ElaborationErrorsTest.java:19", "width mismatch", "9-bit", "8-bit", "resize(8)");
  }

  @Test
  void combinationalLoopPrintsTheWholeLoop() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new CombLoop()));
    assertMessage(e, "combinational loop", "`p` (ElaborationErrorsTest.java:30)", "`q` (ElaborationErrorsTest.java:31)");
  }

  @Test
  void signalNotAssignedOnEveryPathIsALatch() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new Latch()));
    assertMessage(e, "ElaborationErrorsTest.java:42", "latch", "`y`", "otherwise");
  }

  @Test
  void drivingASubmoduleOutputIsAMultipleDriver() {
    var e = assertThrows(ElaborationException.class, DrivesChildOutput::new);
    assertMessage(e, "ElaborationErrorsTest.java:61", "multiple drivers", "`out`");
  }

  @Test
  void undrivenSubmoduleInputIsReported() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new UndrivenChildInput()));
    assertMessage(e, "ElaborationErrorsTest.java:70", "undriven submodule input `in`", "instance `c`");
  }

  @Test
  void undrivenOutputIsReported() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new UndrivenOutput()));
    assertMessage(e, "ElaborationErrorsTest.java:76", "undriven output `y`");
  }

  @Test
  void loopThroughASubmoduleIsFound() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new LoopThroughChild()));
    assertMessage(e, "combinational loop", "c.out", "c.in", "ElaborationErrorsTest.java:87");
  }

  private static void assertMessage(Exception e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "message lacks '" + p + "': " + e.getMessage());
    }
  }
}
