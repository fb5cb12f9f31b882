package org.llmnpu.flow.dse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.cosim.decoder.DecoderRun;
import org.llmnpu.flow.exec.LocalExecutor;
import org.llmnpu.isa.Counter;
import org.llmnpu.verilator.SimOptions;

/**
 * {@code evaluation: rtl}: a point's TTFT and TPOT from the lowered stories260K decoder co-simulated on the point's
 * tiny NPU in Verilator, equal to the golden ISA simulator's cycles of the same run; {@code model} is the cycle model
 * and keeps the cycle-model ids. One Verilator build of a 4×4 NPU (a few minutes cold).
 */
class DseRtlEvaluationTest {
  @TempDir Path dir;

  private SweepFile sweep(String evaluation) throws Exception {
    Path file = dir.resolve(evaluation + ".yaml");
    // the tiny NPU's 4x4 array with the default NPU's memories and 16-lane DSP: the lowered decoder's buffers fit
    Files.writeString(file, "name: rtl\nbase: {config: " + SweepFileTest.EXAMPLES.resolve("tiny-npu.yaml")
        + ", params: {spadKiB: 256, spadBanks: 4, extMemMiB: 16, dspLanes: 16, dspRows: 512, dspProgramDepth: 256, "
        + "maxK: 512, maxN: 128, dspMaxRunCycles: 16777216, watchdogCycles: 4096}}\n" + "model: stories260K\nworkload: {promptLen: 4}\nevaluation: " + evaluation + "\n"
        + "objectives: [tpotS, ttftS]\nparameters: {memBytesPerCycle: [4]}\n");
    return SweepFile.read(file);
  }

  @Test
  void aPointsCyclesComeFromItsRtlAndEqualTheGoldenModels() throws Exception {
    SweepFile s = sweep("rtl");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream progress = new PrintStream(log, true, StandardCharsets.UTF_8);
    Path out = dir.resolve("out");
    DseRun.Summary sum = DseRun.run(s, out, new LocalExecutor(1, progress, Duration.ofSeconds(10)), 1,
        DseRun.javaCommand(), progress);
    assertEquals(1, sum.done().size(), log.toString(StandardCharsets.UTF_8));

    SweepPoint p = SweepPoints.of(s).get(0);
    JsonNode point = new ObjectMapper().readTree(out.resolve("pareto.json").toFile()).get("points").get(0);
    DecoderRun.Result golden = DecoderRun.run(new DecoderRun.Options("stories260K", 4, 2, "int8",
        DecoderRun.Engine.GOLDEN, 1, 0, 0, "full"), p.target().npu(), SimOptions.fromEnvironment());
    long prefill = golden.total("prefill", Counter.CYCLES);
    long decode = golden.steps().stream().filter(st -> st.phase().equals("decode")).findFirst().orElseThrow()
        .counter(Counter.CYCLES);
    JsonNode details = point.get("details");
    assertEquals(prefill, details.get("prefillCycles").asLong(), point.toString());
    assertEquals(decode, details.get("decodeCycles").asLong(), point.toString());
    double hz = p.target().clockMhz() * 1e6;
    assertEquals(decode / hz, point.get("objectives").get("tpotS").asDouble(), 1e-15);
    assertEquals(prefill / hz, point.get("objectives").get("ttftS").asDouble(), 1e-15);
    assertTrue(point.get("sources").get("tpotS").asText().startsWith("RTL co-simulation (Verilator"),
        point.toString());
  }

  @Test
  void modelIsTheCycleModelAndRtlPointsHaveTheirOwnIds() throws Exception {
    SweepFile model = sweep("model");
    assertEquals("cycle-model", model.evaluation());
    List<SweepPoint> byModel = SweepPoints.of(model);
    List<SweepPoint> byCycleModel = SweepPoints.of(sweep("cycle-model"));
    assertEquals(byCycleModel.get(0).id(), byModel.get(0).id());
    assertNotEquals(byModel.get(0).id(), SweepPoints.of(sweep("rtl")).get(0).id());
  }
}
