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

  @Test
  void memoriesAreListedForAreaModels() {
    VerilogDesign d = Verilog.emit(new SyncFifo(new SyncFifo.Config(8, 16)));
    assertEquals(1, d.memories().size());
    assertEquals(128, d.memories().get(0).bits());
  }
}
