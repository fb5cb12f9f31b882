package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ClockDomain.Polarity;
import org.llmnpu.hdl.ClockDomain.ResetKind;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;

/** What a new user meets first: imports, constants in set, named resets, readable errors and files. */
class FrictionFixesTest {

  @Test
  void wildcardImportOfTheHdlCompilesNextToJavaLang() throws IOException {
    String source = """
        import org.llmnpu.hdl.*;
        import static org.llmnpu.hdl.Hw.*;

        public class Blinky extends HwModule {
          public final Bool led = out(bool());

          public Blinky() {
            UInt count = regInit("count", uint(24), 0);
            count.set(count.add(1));
            led.set(count.bit(23));
          }
        }
        """;
    assertEquals("", GuideCompiler.compile(Map.of("Blinky", source), Files.createTempDirectory("wildcard")).errors());
  }

  static final class Constants extends HwModule {
    final Bool en = in(bool());
    final UInt y = out(uint(8));
    final Bool flag = out(bool());

    Constants() {
      y.set(0);
      flag.set(false);
      when(en, () -> {
        y.set(200);
        flag.set(true);
      });
    }
  }

  @Test
  void setTakesJavaConstants() {
    String v = Verilog.emit(new Constants()).files().get("Constants.v");
    assertTrue(v.contains("y = 8'd0;"), v);
    assertTrue(v.contains("y = 8'd200;"), v);
    assertTrue(v.contains("flag = 1'b1;"), v);
  }

  static final class ConstantTooWide extends HwModule {
    final UInt y = out(uint(8));

    ConstantTooWide() {
      y.set(256); // line 73
    }
  }

  @Test
  void aConstantThatDoesNotFitNamesTheLineAndRange() {
    var e = assertThrows(ElaborationException.class, ConstantTooWide::new);
    assertTrue(e.getMessage().startsWith("FrictionFixesTest.java:73: constant 256 does not fit in UInt(8) (range 0..255)"),
        e.getMessage());
  }

  /** A block that must match an existing interface: clock {@code clk}, synchronous active-low {@code rst_n}. */
  static final class ActiveLowChild extends HwModule {
    final UInt count = out(uint(4));

    ActiveLowChild() {
      defaultDomain("clk", "rst_n", ResetKind.SYNC, Polarity.LOW);
      UInt c = regInit("c", uint(4), 0);
      c.set(c.add(1));
      count.set(c);
    }
  }

  /** An AXI-style domain ({@code aclk}, asynchronous {@code aresetn}) beside the default one. */
  static final class NamedDomains extends HwModule {
    final UInt a = out(uint(4));
    final UInt b = out(uint(4));

    NamedDomains() {
      ActiveLowChild child = instance("child", new ActiveLowChild());
      a.set(child.count);
      ClockDomain axi = clockDomain("aclk", "aresetn", ResetKind.ASYNC, Polarity.LOW);
      withDomain(axi, () -> {
        UInt c = regInit("axiCount", uint(4), 0);
        c.set(c.add(1));
        b.set(c);
      });
    }
  }

  @Test
  void resetPortsTakeTheGivenNamesAndPolarity() {
    VerilogDesign d = DesignAssertions.assertLintClean(new NamedDomains(), false);
    String child = d.files().get("ActiveLowChild.v");
    assertTrue(child.contains("input  wire rst_n"), child);
    assertTrue(child.contains("if (!rst_n) begin"), child);
    String top = d.files().get("NamedDomains.v");
    assertTrue(top.contains("input  wire aclk"), top);
    assertTrue(top.contains("input  wire aresetn"), top);
    assertTrue(top.contains("always @(posedge aclk or negedge aresetn)"), top);
    assertTrue(top.contains(".rst_n((~reset))"), "an active-high parent drives the child's rst_n inverted:\n" + top);
  }

  static final class RenamedTooLate extends HwModule {
    final UInt y = out(uint(4));

    RenamedTooLate() {
      UInt r = regInit("r", uint(4), 0);
      y.set(r);
      defaultDomain("clk", "rst", ResetKind.SYNC, Polarity.HIGH);
    }
  }

  @Test
  void namingTheDefaultDomainAfterItsFirstRegisterIsAnError() {
    var e = assertThrows(ElaborationException.class, RenamedTooLate::new);
    assertTrue(e.getMessage().contains("name them before creating registers"), e.getMessage());
  }

  static final class UnnamedLatch extends HwModule {
    final Bool en = in(bool());
    final UInt d = in(uint(4));
    final UInt y = out(uint(4));

    UnnamedLatch() {
      UInt held = wire(uint(4));
      when(en, () -> held.set(d)); // the latch
      y.set(held);
    }
  }

  @Test
  void latchErrorUsesTheVariableNameAndQuotesTheSource() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new UnnamedLatch()));
    String m = e.getMessage();
    assertTrue(m.contains("latch: combinational `held`"), m);
    assertTrue(m.contains("| when(en, () -> held.set(d)); // the latch"), m);
    assertTrue(m.contains("| UInt held = wire(uint(4));"), m);
    assertFalse(m.contains("_wire_L"), m);
  }

  static final class UnnamedLoop extends HwModule {
    final UInt x = in(uint(4));
    final UInt y = out(uint(4));

    UnnamedLoop() {
      UInt sum = wire(uint(4));
      UInt echo = wire(uint(4));
      sum.set(echo.add(x)); // sum depends on echo
      echo.set(sum); // echo depends on sum
      y.set(echo);
    }
  }

  @Test
  void loopErrorUsesVariableNamesAndQuotesEveryStep() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new UnnamedLoop()));
    String m = e.getMessage();
    assertTrue(m.contains("`sum`") && m.contains("`echo`"), m);
    assertTrue(m.contains("| sum.set(echo.add(x)); // sum depends on echo"), m);
    assertTrue(m.contains("| echo.set(sum); // echo depends on sum"), m);
    assertFalse(m.contains("_wire_L"), m);
  }

  @Test
  void writtenFilesAreReadableByOthersAsThePlainJavaWriteWouldMakeThem(@TempDir Path dir) throws IOException {
    assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"), "POSIX file modes only");
    Path plain = Files.writeString(dir.resolve("plain.txt"), "x");
    String expected = PosixFilePermissions.toString(Files.getPosixFilePermissions(plain));
    VerilogDesign d = Verilog.emit(new Constants());
    d.writeTo(dir.resolve("out"));
    for (String f : new String[] {"Constants.v", "Constants.f"}) {
      assertEquals(expected, PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("out").resolve(f))),
          f + " must get the mode the umask gives a new file");
    }
    if (expected.equals("rw-r--r--")) {
      return; // umask 022, the usual case: 0644 checked above
    }
    System.out.println("umask is not 022 here; files matched the plain write's mode " + expected);
  }

  static final class DrivesOwnInput extends HwModule {
    final UInt x = in(uint(4));
    final UInt y = out(uint(4));

    DrivesOwnInput() {
      x.set(3);
      y.set(x);
    }
  }

  static final class PassThrough extends HwModule {
    final UInt x = in(uint(4));
    final UInt y = out(uint(4));

    PassThrough() {
      y.set(x);
    }
  }

  static final class ConnectsBeforeInstance extends HwModule {
    final UInt y = out(uint(4));

    ConnectsBeforeInstance() {
      PassThrough child = new PassThrough();
      child.x.set(5);
      instance(child);
      y.set(child.y);
    }
  }

  @Test
  void drivingItsOwnInputIsExplainedApartFromAMissingInstance() {
    String own = assertThrows(ElaborationException.class, DrivesOwnInput::new).getMessage();
    assertTrue(own.contains("input port `x` of DrivesOwnInput can only be driven by the module that instances it; "
        + "a module reads its inputs: for a value made inside DrivesOwnInput use a wire (or an output port)"), own);
    assertFalse(own.contains("instance(...)"), own);
    String early = assertThrows(ElaborationException.class, ConnectsBeforeInstance::new).getMessage();
    assertTrue(early.contains("input port `x` of PassThrough can only be driven by the module that instances it "
        + "(call instance(...) before connecting it)"), early);
  }

  /** Its first register has a reset value: the reset port used to come before the clock. */
  static final class ResetFirst extends HwModule {
    final UInt d = in(uint(4));
    final UInt q = out(uint(4));

    ResetFirst() {
      UInt r = regInit(uint(4), 0);
      r.set(d);
      UInt s = regNext(r);
      q.set(s);
    }
  }

  @Test
  void everyModuleListsClockThenResetBeforeItsOtherPorts() {
    java.util.List<String> expected = java.util.List.of("clk", "reset");
    assertEquals(expected, Verilog.emit(new ResetFirst()).ports().stream().map(VerilogDesign.PortInfo::name).limit(2)
        .toList());
    VerilogDesign fifo = Verilog.emit(new org.llmnpu.hdl.examples.SyncFifo(new org.llmnpu.hdl.examples.SyncFifo.Config(8, 4)));
    assertEquals(expected, fifo.ports().stream().map(VerilogDesign.PortInfo::name).limit(2).toList());
    assertEquals(java.util.List.of("clk", "reset", "aclk", "aresetn", "a", "b"), Verilog.emit(new NamedDomains())
        .ports().stream().map(VerilogDesign.PortInfo::name).toList(), "domains in the order they were made");
  }
}
