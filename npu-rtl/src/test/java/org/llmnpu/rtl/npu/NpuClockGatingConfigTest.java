package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.isa.Counter;

/** {@code clockGating}: default on, its three values from Java, YAML (quoted or not) and errors naming it. */
class NpuClockGatingConfigTest {
  @TempDir
  Path tmp;

  @Test
  void clockGatingIsOnByDefaultAndTakesItsThreeValues() {
    assertEquals(ClockGating.ON, NpuConfig.defaults().clockGatingMode());
    assertEquals("off", NpuConfig.small().withClockGating("off").clockGating());
    assertEquals(ClockGating.CHECKED, NpuConfig.small().withClockGating("Checked").clockGatingMode());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.small().withClockGating("sometimes"));
    assertEquals("clockGating must be one of on, off, checked, got 'sometimes'", e.getMessage());
  }

  @Test
  void yamlOnAndOffReadAsTheModesQuotedOrNot() throws Exception {
    Path bare = tmp.resolve("bare.yaml");
    Files.writeString(bare, "rows: 4\nclockGating: off\n");
    assertEquals("off", NpuConfig.load(bare).clockGating());
    Path quoted = tmp.resolve("quoted.yaml");
    Files.writeString(quoted, "clockGating: \"checked\"\n");
    assertEquals("checked", NpuConfig.load(quoted).clockGating());
    Path wrong = tmp.resolve("wrong.yaml");
    Files.writeString(wrong, "clockGating: fast\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(wrong));
    assertTrue(e.getMessage().contains("clockGating must be one of on, off, checked"), e.getMessage());
  }

  @Test
  void everyGateOfTheNpuHasItsEnableCounter() {
    assertEquals(Counter.GEMM_CYCLES, NpuClockGates.enableCounter("gemmEngine").orElseThrow());
    assertEquals(Counter.DSP_CYCLES, NpuClockGates.enableCounter("dspPath_dspUnit").orElseThrow());
    assertEquals(Counter.PPM_CYCLES, NpuClockGates.enableCounter("ppmPath_ppmUnit").orElseThrow());
    assertTrue(NpuClockGates.enableCounter("other").isEmpty());
    assertEquals("dspFp32Cycles", NpuClockGates.enableKey("dspPath_dsp.lane_3.fp32Pipe").orElseThrow());
    assertEquals("dspCycles", NpuClockGates.enableKey("dspPath_dspUnit").orElseThrow());
    assertTrue(NpuClockGates.enableKey("dspPath_dsp.lane_3.otherPipe").isEmpty());
    NpuConfig small = NpuConfig.small();
    var design = org.llmnpu.hdl.emit.Verilog.emit(new Npu(small));
    var banks = design.gatedBanks();
    // the three unit gates, inside the DSP's a gate per pipelined unit (FP16, FMA16, FP32, convert) and lane, the
    // banks written once per command: command register, landing register, queue slots (D > 1), snapshot latch; inside
    // the GEMM engine's the MAC array's, with its PEs' 2·rows − 1 wavefront gates and rows row-shadow gates
    int queue = small.commandQueueDepth() > 1 ? 1 : 0;
    int array = 1 + (2 * small.rows() - 1) + small.rows();
    // and the dspin conversion's three stages (chunk register, magnitudes, rounders), the DSP's tables, the
    // predecode's products, the fetcher's assembly (two or more beats a command), the counters' high parts and each
    // DSP lane's operand registers
    int assembly = small.machine().beatsPerCommand() > 1 ? 1 : 0;
    assertEquals(3 + 4 * small.dspLanes() + 3 + queue + array + 3 + 3 + assembly + small.dspLanes(), banks.size());
    assertEquals(java.util.Set.of(NpuClockGates.COUNTER_CARRIES), banks.stream()
        .filter(b -> b.path().endsWith(NpuClockGates.COUNTER_HIGHS))
        .map(b -> NpuClockGates.enableKey(b.path()).orElseThrow()).collect(java.util.stream.Collectors.toSet()));
    assertEquals(small.dspLanes(), banks.stream()
        .filter(b -> b.path().matches("dspPath_dsp\\.lane_[0-9]+\\.laneOperands") && NpuClockGates.enableKey(b.path()).orElse("").equals(Counter.DSP_INSTRUCTIONS.key())).count());
    assertEquals(1 + assembly, banks.stream()
        .filter(b -> NpuClockGates.enableKey(b.path()).orElse("").equals(Counter.EXT_READ_BEATS.key())).count());
    assertTrue(banks.stream().anyMatch(b -> b.path().endsWith(NpuClockGates.DSP_IN_CHUNK)
        && NpuClockGates.enableKey(b.path()).orElse("").equals(Counter.DSP_CYCLES.key())));
    assertEquals(Counter.ARRAY_CYCLES.key(), NpuClockGates.enableKey("gemm.macArray").orElseThrow());
    assertEquals(NpuClockGates.ARRAY_VECTORS, NpuClockGates.enableKey("gemm.array.wavefront6").orElseThrow());
    assertEquals(NpuClockGates.ARRAY_VECTORS, NpuClockGates.enableKey("gemm.array.shadowRow3").orElseThrow());
    assertTrue(NpuClockGates.enableKey("gemm.array.wavefront").isEmpty());
    java.util.Set<String> perCommand = new java.util.HashSet<>(java.util.List.of("ctrl.commandRegister",
        "fetch.landedCommand", "snapshot.snapshotLatch", "predecode.predecodeProducts"));
    if (queue == 1) {
      perCommand.add("fetch.commandQueue");
    }
    assertEquals(perCommand, banks.stream().map(b -> b.path())
        .filter(p -> NpuClockGates.enableKey(p).orElse("").equals(Counter.COMMANDS.key()))
        .collect(java.util.stream.Collectors.toSet()));
    assertEquals(Counter.COMMANDS, NpuClockGates.enableCounter("snapshot.snapshotLatch").orElseThrow());
    banks.forEach(b -> assertTrue(NpuClockGates.enableKey(b.path()).isPresent(), b.path()));
    // a gate's bits exclude those of the gates inside it: together they are at most the design's
    assertTrue(design.gatedRegisterBits() <= design.registerBits());
    long pipes = banks.stream().filter(b -> b.path().endsWith("Pipe")).mapToLong(b -> b.registerBits()).sum();
    assertTrue(pipes > 0);
  }

  @Test
  void withoutGatingTheDspHasNoPipeGates() {
    var banks = org.llmnpu.hdl.emit.Verilog.emit(new Npu(NpuConfig.small().withClockGating("off"))).gatedBanks();
    assertTrue(banks.isEmpty());
  }

  @Test
  void pipeCyclesAreStagesLessOneCyclesPerOperation() {
    var cycles = NpuClockGates.pipeCycles(new long[] {10, 0, 3, 1, 0}, 4);
    assertEquals(30L, cycles.get("dspFp16Cycles"));
    assertEquals(0L, cycles.get("dspFma16Cycles"));
    assertEquals(9L, cycles.get("dspFp32Cycles"));
    assertEquals(3L, cycles.get("dspConvertCycles"));
    assertEquals(0L, NpuClockGates.pipeCycles(new long[] {10, 0, 3, 1, 0}, 1).get("dspFp16Cycles"));
  }
}
