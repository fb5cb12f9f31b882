package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.MacArrayExample;
import org.llmnpu.hdl.examples.SyncFifo;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

class EmitterTest {
  @Test
  void regenerationIsByteIdentical() {
    for (BlockGenerator g : BlockRegistry.all()) {
      VerilogDesign a = Verilog.emit(g.build(Params.resolve(g, Map.of())));
      VerilogDesign b = Verilog.emit(g.build(Params.resolve(g, Map.of())));
      assertEquals(a.files(), b.files(), g.name());
    }
  }

  @Test
  void identicalProcessingElementsShareOneModule() {
    VerilogDesign d = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(4, 3)));
    assertEquals(List.of("MacPe.v", "MacArray_4x3.v"), List.copyOf(d.files().keySet()));
    String top = d.files().get("MacArray_4x3.v");
    assertEquals(12, top.split("\n  MacPe ").length - 1, "12 instances of the one PE module");
  }

  @Test
  void portsAndRegistersTakeTheirJavaNames() {
    String v = Verilog.emit(new SyncFifo(new SyncFifo.Config(8, 16))).files().get("SyncFifo_w8_d16.v");
    for (String name : List.of("push_valid", "push_ready", "push_payload", "pop_valid", "count", "wrPtr", "rdPtr",
        "storage [0:15]")) {
      assertTrue(v.contains(name), name + " missing in\n" + v);
    }
    assertTrue(v.contains("// SyncFifo.java:"), "statements carry their Java source line");
  }

  /**
   * The form chosen by bench.VerilogQualityBenchmark: a signed multiply of the signed 8-bit
   * operands written at the accumulator's width, as in hand-written Verilog (more in
   * SignedProductEmissionTest).
   */
  @Test
  void aSignedProductIsASignedMultiplyAtTheWidthItIsExtendedTo() {
    String pe = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(1, 1))).files().get("MacPe.v");
    assertTrue(pe.contains("wire signed [31:0] _psum_q_mul = actIn * weight;"), pe);
    assertTrue(pe.contains("psum_q <= psumIn + _psum_q_mul;"), pe);
    assertTrue(!pe.contains("$signed") && !pe.contains("{{"), pe);
  }

  /** Signed compares and shifts of values that are not signed signals say {@code $signed}; nothing else does. */
  static final class SignedOperations extends HwModule {
    final Bits word = in(Hw.bits(16));
    final UInt amount = in(Hw.uint(3));
    final Bool negative = out(Hw.bool());
    final SInt scaled = out(Hw.sint(9));

    SignedOperations() {
      SInt low = word.bits(7, 0).asSInt();
      negative.set(low.lt(0));
      scaled.set(low.resize(10).shiftRight(amount).resize(9));
    }
  }

  @Test
  void signednessIsWrittenOnlyWhereItChangesTheResult() {
    String v = Verilog.emit(new SignedOperations()).files().get("SignedOperations.v");
    assertTrue(v.contains("wire signed [7:0] _negative_as_sint = word[7:0];"), v);
    assertTrue(v.contains("assign negative = _negative_as_sint < 8'sh0;"), v);
    assertTrue(v.contains("$signed({{2{_negative_as_sint[7]}}, _negative_as_sint}) >>> amount"), v);
    assertEquals(1, v.split("\\$signed").length - 1, v);
  }

  @Test
  void memoriesAreListedForAreaModels() {
    VerilogDesign d = Verilog.emit(new SyncFifo(new SyncFifo.Config(8, 16)));
    assertEquals(1, d.memories().size());
    assertEquals(128, d.memories().get(0).bits());
  }
}
