package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.html.PpaReport;
import org.llmnpu.reports.html.ReportWriter;

/** The flow runs on every registered block at its default parameters and its numbers reach the JSON. */
class RegisteredBlocksTest {
  @TempDir
  Path tmp;

  @TestFactory
  Stream<DynamicTest> everyRegisteredBlockHasAreaACriticalPathAndJsonNumbers() {
    List<BlockGenerator> blocks = BlockRegistry.all();
    assertFalse(blocks.isEmpty(), "hw-dsl registers example blocks");
    return blocks.stream().map(gen -> DynamicTest.dynamicTest(gen.name(), () -> {
      RequiredTools.require("yosys", "sta");
      PpaOptions o = TestDesigns.options();
      PpaResult r = PpaSweep.run(BlockDesigns.of(gen), Map.of(), null, List.of(), o).get(0);
      assertTrue(r.synthesis().chipAreaUm2() > 0, "area");
      assertTrue(r.timing().criticalDelayNs() > 0 && r.timing().fmaxMhz() > 0, "critical path " + r.timing());
      assertFalse(r.timing().startpoint().isBlank() || r.timing().endpoint().isBlank());
      assertTrue(r.synthesis().notes().isEmpty(), "every listed memory became a macro: " + r.synthesis().notes());
      Path out = tmp.resolve(gen.name());
      ReportWriter.write(PpaReport.of(gen.name(), null, List.of(r), o), out);
      JsonNode p = new ObjectMapper().readTree(out.resolve("ppa.json").toFile()).get("points").get(0);
      assertEquals(r.synthesis().chipAreaUm2(), p.get("synthesis").get("stdCellAreaUm2").asDouble());
      assertEquals(r.timing().fmaxMhz(), p.get("timing").get("fmaxMhz").asDouble());
      assertEquals(r.power().totalMw(), p.get("power").get("totalMw").asDouble());
    }));
  }
}
