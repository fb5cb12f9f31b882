package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.lib.Stream;

/** Signals, memories and instances held in Java variables are named after them, in Verilog and in errors. */
class VariableNamesTest {
  /** A register stage behind a helper that returns it. */
  static final class Delay extends HwModule {
    final UInt d = in(uint(8));
    final UInt q = out(uint(8));

    Delay() {
      q.set(delay(d));
    }

    private UInt delay(UInt x) {
      return regNext(x);
    }
  }

  static final class Locals extends HwModule {
    final Bool en = in(bool());
    final UInt x = in(uint(8));
    final UInt y = out(uint(8));
    final UInt z = out(uint(8));
    final UInt held = out(uint(8));

    Locals() {
      UInt acc = regInit(uint(8), 0);
      UInt next = wire(acc.add(x));
      when(en, () -> acc.set(next));
      UInt last = x;
      for (int i = 0; i < 3; i++) {
        UInt stage = regNext(last);
        last = stage;
      }
      UInt tapped = helper(last);
      y.set(tapped.add(regNext(acc)));
      UInt fromExplicit = wire("acc", x);
      Stream<UInt> link = wire(Stream.of(uint(8)));
      link.valid.set(en);
      link.payload.set(fromExplicit);
      link.ready.set(true);
      Mem<UInt> table = mem(null, uint(8), 4);
      when(link.fire(), () -> table.write(x.lsbs(2), link.payload));
      z.set(table.readAsync(x.lsbs(2)));
      Delay inner = instance(new Delay());
      inner.d.set(x);
      section("out", () -> {
        UInt sample = regNext(inner.q);
        held.set(sample);
      });
    }

    private UInt helper(UInt v) {
      return regNext(v);
    }
  }

  @Test
  void registersWiresMemoriesAndInstancesTakeTheirVariableNames() {
    String v = Verilog.emit(new Locals()).files().get("Locals.v");
    for (String declared : List.of("reg  [7:0] acc_1;", "wire [7:0] next;", "reg  [7:0] stage;", "reg  [7:0] stage_1;",
        "reg  [7:0] stage_2;", "reg  [7:0] tapped;", "wire [7:0] acc;", "wire link_valid;", "wire link_ready;",
        "wire [7:0] link_payload;", "reg [7:0] table_ [0:3];", "reg  [7:0] out_sample;", "Delay inner (")) {
      assertTrue(v.contains(declared), declared + " missing in\n" + v);
    }
    assertTrue(v.matches("(?s).*reg  \\[7:0\\] _reg_L\\d+;.*"), "the register inside y's sum is not stored:\n" + v);
    assertFalse(v.contains("_wire_L"), v);
    assertEquals(v, Verilog.emit(new Locals()).files().get("Locals.v"), "the names are deterministic");
  }

  @Test
  void aValueReturnedByAHelperIsNamedByItsCaller() {
    String v = Verilog.emit(new Delay()).files().get("Delay.v");
    assertTrue(v.matches("(?s).*reg  \\[7:0\\] _reg_L\\d+;.*"), "returned into a port's set(): no variable\n" + v);
    String outer = Verilog.emit(new Locals()).files().get("Locals.v");
    assertTrue(outer.contains("tapped <= "), outer);
  }

  @Test
  void variableNamesNeedNoSourceFilesOnlyTheLocalVariableTable(@TempDir Path dir) throws Exception {
    String source = """
        package com.example.names;

        import static org.llmnpu.hdl.Hw.*;

        import org.llmnpu.hdl.*;

        public final class Acc extends HwModule {
          public final UInt x = in(uint(8));
          public final UInt y = out(uint(8));

          public Acc() {
            UInt total = regInit(uint(8), 0);
            total.set(total.add(x));
            y.set(total);
          }
        }
        """;
    Map<String, String> units = Map.of("com.example.names.Acc", source);
    assertEquals("", GuideCompiler.compile(units, dir.resolve("g"), List.of("-g")).errors());
    assertEquals("", GuideCompiler.compile(units, dir.resolve("lines"), List.of("-g:source,lines")).errors());
    assertTrue(emitAcc(dir.resolve("g")).contains("reg  [7:0] total;"), "javac -g: named from the class file");
    String plain = emitAcc(dir.resolve("lines"));
    assertTrue(plain.matches("(?s).*reg  \\[7:0\\] _reg_L12;.*"), "no local variable table: the line name\n" + plain);
  }

  private static String emitAcc(Path classes) throws Exception {
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        VariableNamesTest.class.getClassLoader())) {
      HwModule m = (HwModule) loader.loadClass("com.example.names.Acc").getConstructor().newInstance();
      return Verilog.emit(m).files().get("Acc.v");
    }
  }

  static final class UndrivenLocal extends HwModule {
    final UInt y = out(uint(4));

    UndrivenLocal() {
      UInt pending = wire(uint(4));
      y.set(pending);
    }
  }

  @Test
  void anUndrivenLocalWireIsReportedByItsVariable() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new UndrivenLocal()));
    assertTrue(e.getMessage().contains("undriven wire `pending` in UndrivenLocal (it is read)"), e.getMessage());
  }

  static final class LocalPortTooNarrow extends HwModule {
    LocalPortTooNarrow() {
      UInt wide = in(uint(9));
      UInt narrow = out(uint(8));
      narrow.set(wide);
    }
  }

  @Test
  void aPortHeldInALocalIsReportedByItsVariable() {
    var e = assertThrows(ElaborationException.class, LocalPortTooNarrow::new);
    assertTrue(e.getMessage().contains("cannot assign 9-bit UInt(9) `wide` to 8-bit `narrow`"), e.getMessage());
    assertFalse(e.getMessage().contains("<unnamed"), e.getMessage());
  }

  static final class LocalPorts extends HwModule {
    LocalPorts() {
      UInt a = in(uint(4));
      UInt b = out(uint(4));
      b.set(a);
    }
  }

  @Test
  void portsHeldInLocalsAreNamedAfterThem() {
    VerilogDesign d = Verilog.emit(new LocalPorts());
    assertEquals(List.of("a", "b"), d.ports().stream().map(VerilogDesign.PortInfo::name).toList());
  }
}
