package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpuConfigTest {
  @TempDir
  Path dir;

  @Test
  void yamlAndJsonOverrideTheDefaults() throws Exception {
    Path yaml = dir.resolve("npu.yaml");
    Files.writeString(yaml, "rows: 8\nspadKiB: 64\nmemLatency: 10\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals(8, c.rows());
    assertEquals(64, c.spadKiB());
    assertEquals(10, c.memLatency());
    assertEquals(NpuConfig.defaults().spadBanks(), c.spadBanks());
    Path json = dir.resolve("npu.json");
    Files.writeString(json, "{\"maxM\": 32, \"memBytesPerCycle\": 8}");
    assertEquals(32, NpuConfig.load(json).maxM());
    assertEquals(2, NpuConfig.load(json).machine().beatInterval());
    // a stated clock (as in the estimate's presets) sets no NPU parameter; it must be a positive number
    Files.writeString(yaml, "rows: 8\nclockMhz: 1000\n");
    assertEquals(8, NpuConfig.load(yaml).rows());
    Files.writeString(yaml, "rows: 8\nspadKiB: 64\nmemLatency: 10\nclockMhz: 250.5\n");
    assertEquals(c, NpuConfig.load(yaml));
    Files.writeString(yaml, "clockMhz: fast\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("clockMhz must be a positive number of MHz, got \"fast\""), e.getMessage());
  }

  @Test
  void badValuesNameTheParameter() throws Exception {
    Path yaml = dir.resolve("bad.yaml");
    Files.writeString(yaml, "rows: 12\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("rows must be a power of two in 4..64, got 12"), e.getMessage());
    Files.writeString(yaml, "spadKB: 12\n");
    e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("spadKB"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new NpuConfig(16, 3, 4, 16, 16, 32, 0, 64, 512, 128, 32,
        16, 4096));
    assertTrue(e.getMessage().startsWith("spadKiB must be a power of two"), e.getMessage());
    Files.writeString(yaml, "dspLanes: 12\n");
    e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("dspLanes must be a power of two in 1..64, got 12"), e.getMessage());
    Files.writeString(yaml, "dspLanes: 128\n");
    e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("dspLanes must be a power of two in 1..64, got 128"), e.getMessage());
    Files.writeString(yaml, "dspProgramDepth: 8\n");
    e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("dspProgramDepth must be a power of two in 16..4096, got 8"), e.getMessage());
    Files.writeString(yaml, "engine: cim\n");
    e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("engine must be one of systolic, pim, pim-k2, pim-k4, pim-k8, got 'cim'"),
        e.getMessage());
  }

  @Test
  void engineSelectsTheGemmEngineAndItsTiming() throws Exception {
    Path yaml = dir.resolve("pim.yaml");
    Files.writeString(yaml, "engine: pim-k4\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals(org.llmnpu.isa.EngineTiming.pim(4), c.engineTiming());
    assertTrue(c.gemmEngine() instanceof PimGemmBackend);
    assertEquals("systolic", NpuConfig.defaults().engine());
    assertTrue(NpuConfig.defaults().gemmEngine() instanceof org.llmnpu.rtl.mac.GemmEngine);
    assertEquals(org.llmnpu.isa.EngineTiming.SYSTOLIC, NpuConfig.small().engineTiming());
  }

  @Test
  void sparsityBuildsTheArrayInItsModeAndIsChecked() throws Exception {
    Path yaml = dir.resolve("sparse.yaml");
    Files.writeString(yaml, "sparsity: 2:4\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals("2:4", c.sparsity());
    assertEquals(org.llmnpu.isa.Command.S2_4, c.machine().sparsity());
    assertEquals(org.llmnpu.rtl.mac.WeightSparsity.S2_4, c.gemm().array().sparsity());
    assertEquals(2 * c.maxK(), c.gemm().maxK(), "an N:M engine holds a dense K as 2K");
    Files.writeString(yaml, "sparsity: s4_8\n");
    assertEquals(org.llmnpu.isa.Command.S4_8, NpuConfig.load(yaml).machine().sparsity());
    assertEquals("dense", NpuConfig.defaults().sparsity());
    assertEquals(org.llmnpu.isa.Command.DENSE, NpuConfig.defaults().machine().sparsity());
    Files.writeString(yaml, "sparsity: 1:4\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("sparsity must be one of dense, 2:4, 4:8"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.small().withEngine("pim").withSparsity("2:4"));
    assertTrue(e.getMessage().contains("sparsity 2:4 needs engine systolic"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.small().withWeightRowsPerCycle(2).withSparsity("4:8"));
    assertTrue(e.getMessage().contains("sparsity 4:8 needs weightRowsPerCycle 1"), e.getMessage());
  }

  @Test
  void dspParametersReachTheMachineAndTheDsp() throws Exception {
    Path yaml = dir.resolve("dsp.yaml");
    Files.writeString(yaml, "dspLanes: 8\ndspRows: 256\ndspProgramDepth: 128\ndspMaxRunCycles: 1000\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals(new org.llmnpu.isa.MachineParams.DspParams(8, 256, 128, 12, 2, 1000, 4), c.machine().dsp());
    // the default clockGating=on puts the DSP lanes' pipelined units on gates of their own too
    assertEquals(new org.llmnpu.rtl.dsp.VectorDsp.Config(8, 256, 128, 12, 2, 4)
        .withPipeGating(org.llmnpu.hdl.ClockGating.ON), c.dsp());
    assertEquals(org.llmnpu.hdl.ClockGating.OFF,
        NpuConfig.load(yaml).toBuilder().clockGating("off").build().dsp().pipeGating());
    assertEquals(org.llmnpu.isa.MachineParams.DspParams.DEFAULT, NpuConfig.defaults().machine().dsp());
  }

  @Test
  void dspStagesReachTheDspTheMachineAndTheKernelsAndAreChecked() throws Exception {
    assertEquals(4, NpuConfig.defaults().dspStages());
    assertEquals(4, NpuConfig.small().dspStages());
    Path yaml = dir.resolve("stages.yaml");
    Files.writeString(yaml, "dspStages: 2\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals(2, c.dsp().executeStages());
    assertEquals(2, c.machine().dsp().executeStages());
    assertEquals(org.llmnpu.isa.dsp.DspPipeline.TWO_STAGE_EXECUTE, c.machine().dsp().pipeline());
    assertEquals(org.llmnpu.isa.dsp.DspKernels.Options.forPipeline(c.machine().dsp().pipeline(), false),
        c.machine().dsp().kernelOptions());
    assertEquals(org.llmnpu.isa.dsp.DspKernels.Options.DEFAULT, NpuConfig.small().withDspStages(1).machine().dsp()
        .kernelOptions());
    assertTrue(new Npu(NpuConfig.small().withDspStages(1)).moduleName().endsWith("_e1"));
    assertEquals(3, NpuConfig.small().withDspStages(3).withMemory(5, 2).withPpu(false).dspStages());
    for (String bad : new String[] {"0", "5"}) {
      Files.writeString(yaml, "dspStages: " + bad + "\n");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
      assertTrue(e.getMessage().contains("dspStages must be in 1..4, got " + bad),
          e.getMessage());
    }
  }

  @Test
  void weightRowsPerCycleLoadsReachesTheMachineAndRejectsBadValues() throws Exception {
    Path yaml = dir.resolve("w.yaml");
    Files.writeString(yaml, "rows: 8\nweightRowsPerCycle: 4\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals(4, c.weightRowsPerCycle());
    assertEquals(4, c.machine().weightRowsPerCycle());
    assertEquals(4, c.gemmEngine().weightRowsPerCycle());
    assertTrue(new Npu(c).moduleName().endsWith("_w4"), new Npu(c).moduleName());
    assertEquals(1, NpuConfig.defaults().weightRowsPerCycle());
    assertEquals(1, NpuConfig.defaults().machine().weightRowsPerCycle());
    assertEquals(2, NpuConfig.small().withWeightRowsPerCycle(2).withMemory(5, 2).withEngine("pim-k4")
        .weightRowsPerCycle());
    for (String bad : new String[] {"3", "0", "16"}) {
      Files.writeString(yaml, "rows: 8\nweightRowsPerCycle: " + bad + "\n");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
      assertTrue(e.getMessage().contains("weightRowsPerCycle must be one of [1, 2, 4, 8] (powers of two up to"
          + " min(rows, 16), rows = 8), got " + bad), e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.small().withWeightRowsPerCycle(8));
    assertTrue(e.getMessage().contains("weightRowsPerCycle must be one of [1, 2, 4]"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.defaults().machine().withWeightRowsPerCycle(32));
    assertTrue(e.getMessage().contains("weightRowsPerCycle must be a power of two in 1..16 (rows), got 32"),
        e.getMessage());
  }

  @Test
  void ppuSwitchReachesTheMachineWithThePpmLatency() throws Exception {
    NpuConfig d = NpuConfig.defaults();
    assertTrue(d.ppu());
    assertEquals(d.ppm().latency() + 1, d.machine().ppmLatency(), "the PPM and its input register");
    assertTrue(d.machine().ppu());
    assertEquals(org.llmnpu.rtl.ppm.PpmConfig.Activation.PPU, d.ppm().activation());
    assertEquals(d.rows() / 4, d.ppm().cols(), "one INT32 line a cycle");
    Path yaml = dir.resolve("noppu.yaml");
    Files.writeString(yaml, "ppu: false\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals(false, c.machine().ppu());
    assertEquals(c.ppm().latency() + 1, c.machine().ppmLatency());
    assertEquals(org.llmnpu.rtl.ppm.PpmConfig.Activation.NONE, c.ppm().activation());
    assertTrue(c.machine().ppmLatency() > 0 && c.machine().ppmLatency() < d.machine().ppmLatency());
    assertEquals(org.llmnpu.isa.Command.DENSE, c.machine().sparsity());
    Files.writeString(yaml, "ppu: maybe\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("ppu"), e.getMessage());
  }

  @Test
  void mxLoadReachesTheMachineAndTheModuleName() throws Exception {
    assertEquals(false, NpuConfig.defaults().mxLoad());
    assertEquals(false, NpuConfig.defaults().machine().mxLoad());
    Path yaml = dir.resolve("mx.yaml");
    Files.writeString(yaml, "mxLoad: true\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertTrue(c.mxLoad());
    assertTrue(c.machine().mxLoad());
    assertTrue(c.withPpu(false).withMemory(4, 8).withWeightRowsPerCycle(2).withEngine("pim").machine().mxLoad());
    assertTrue(new Npu(NpuConfig.small().withMxLoad(true)).moduleName().endsWith("_mx"));
    Files.writeString(yaml, "mxLoad: maybe\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
    assertTrue(e.getMessage().contains("mxLoad"), e.getMessage());
  }

  @Test
  void commandQueueDepthIsLoadedCheckedAndReachesTheMachine() throws Exception {
    assertEquals(NpuConfig.DEFAULT_COMMAND_QUEUE_DEPTH, NpuConfig.defaults().commandQueueDepth());
    assertEquals(4, NpuConfig.small().machine().commandQueueDepth());
    Path yaml = dir.resolve("queue.yaml");
    Files.writeString(yaml, "commandQueueDepth: 8\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals(8, c.commandQueueDepth());
    assertEquals(8, c.withPpu(false).withMemory(4, 8).withWeightRowsPerCycle(2).withMxLoad(true).machine()
        .commandQueueDepth());
    assertTrue(new Npu(NpuConfig.small().withCommandQueueDepth(1)).moduleName().endsWith("_q1"));
    assertEquals(new Npu(NpuConfig.small()).moduleName(), new Npu(NpuConfig.small().withCommandQueueDepth(4)).moduleName());
    for (String bad : new String[] {"0", "65"}) {
      Files.writeString(yaml, "commandQueueDepth: " + bad + "\n");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml));
      assertTrue(e.getMessage().contains("commandQueueDepth must be in 1..64"), e.getMessage());
    }
  }
}
