package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.ClockGateCell;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * The NPU's clock gates ({@code clockGating}): with {@code checked}, random GEMM (scratchpad, streamed and fused), DSP and PPM programs run on the
 * ungated NPU with a simulation check per gated unit that stops the run after any cycle in which a register of the
 * unit changed while its enable was low (the check itself fires on a wrong enable:
 * {@code ClockGatingSimulationTest} in verilator-harness mis-gates a bank on purpose); every run is bit-exact with
 * the golden simulator with every counter and cycle equal (the DSP lanes' pipelined units are gated in {@code checked}
 * too: their registers change freely when ungated, so the bit-exact run checks their enables). The default NPU has
 * one gating cell per unit, one per DSP lane and pipelined unit inside the DSP's, and one per bank written at most
 * once per command (command register, landing register, queue slots, snapshot latch: checked like the units'), and
 * inside the GEMM engine's the MAC array's, with its PEs' wavefront gates (gated in {@code checked} too, checked by the
 * bit-exact runs) and row-shadow gates (checked like the units').
 */
class ClockGatingCosimTest {
  private interface Generator {
    RandomPrograms.Case generate(MachineParams p, Random r, int work, boolean overlapped);
  }

  @Test
  void everyEnableIsRightOnRandomGemmDspAndPpmPrograms() {
    NpuConfig c = SharedNpus.SMALL_FEATURED.withMemory(3, 4);
    assertEquals(org.llmnpu.hdl.ClockGating.CHECKED, c.clockGatingMode());
    Random r = new Random(2026);
    Map<String, Generator> kinds = new java.util.LinkedHashMap<>();
    kinds.put("GEMM", RandomPrograms::generate);
    kinds.put("DSP", DspChains::generate);
    kinds.put("PPM", PpmChains::generate);
    kinds.put("streamed GEMM", (p, r2, work, overlapped) -> RandomPrograms.generate(p, r2, work, overlapped, true));
    kinds.put("fused GEMM (wStream, ppm)", (p, r2, work, overlapped) -> PpmChains.generateFused(p, r2, work + 1,
        overlapped, true));
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (var kind : kinds.entrySet()) {
        for (int i = 0; i < 4; i++) {
          RandomPrograms.Case t = kind.getValue().generate(c.machine(), r, 1 + r.nextInt(2), i % 2 == 1);
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
          String what = kind.getKey() + " program " + i + ":\n" + Disassembler.disassemble(t.program());
          assertEquals(ErrorCause.NONE, o.golden().error(), what);
          assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
          assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
          assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
        }
      }
    }
  }

  @Test
  void theDefaultNpuGatesItsGemmEngineVectorDspAndPpm() {
    VerilogDesign on = Verilog.emit(new Npu(NpuConfig.defaults()));
    VerilogDesign off = Verilog.emit(new Npu(NpuConfig.defaults().withClockGating("off")));
    assertTrue(on.files().containsKey(ClockGateCell.MODULE + ".v"));
    assertEquals(List.of("gemmEngine", "dspPath_dspUnit", "ppmPath_ppmUnit"),
        on.gatedBanks().stream().map(VerilogDesign.GatedBankInfo::path).filter(p -> !p.contains(".")).toList());
    // the banks written at most once per command, each on its own gate
    assertEquals(java.util.Set.of("ctrl.commandRegister", "fetch.landedCommand", "fetch.commandQueue",
        "snapshot.snapshotLatch", "predecode.predecodeProducts"), on.gatedBanks().stream()
        .map(VerilogDesign.GatedBankInfo::path)
        .filter(p -> org.llmnpu.rtl.npu.NpuClockGates.enableKey(p).orElse("").equals("commands"))
        .collect(java.util.stream.Collectors.toSet()));
    // inside the DSP's gate: one per lane and pipelined unit (FP16, FMA16, FP32, convert)
    assertEquals(4 * NpuConfig.defaults().dspLanes(),
        on.gatedBanks().stream().filter(b -> b.path().matches("dspPath_dsp\\.lane_[0-9]+\\.[a-z0-9]+Pipe")).count());
    // inside the GEMM engine's gate: the MAC array's, and inside it one per PE wavefront and one per row's shadows
    int rows = NpuConfig.defaults().rows();
    java.util.Set<String> engineGates = on.gatedBanks().stream().map(VerilogDesign.GatedBankInfo::path)
        .filter(p -> p.startsWith("gemm.")).collect(java.util.stream.Collectors.toSet());
    assertTrue(engineGates.contains("gemm.macArray"), engineGates.toString());
    assertEquals(1 + (2 * rows - 1) + rows, engineGates.size(), engineGates.toString());
    assertTrue(engineGates.contains("gemm.array.wavefront" + (2 * rows - 2)), engineGates.toString());
    assertTrue(engineGates.contains("gemm.array.shadowRow" + (rows - 1)), engineGates.toString());
    assertTrue(on.gatedRegisterBits() > on.registerBits() / 2,
        on.gatedRegisterBits() + " of " + on.registerBits() + " register bits gated");
    assertTrue(off.gatedBanks().isEmpty());
    // the gates add the warm-up counter, the DSP's and PPM's settling counters, the pipelined units' enables in
    // execute 2..N−1 (2 per unit with 4 stages) and the MAC array's warm-up counter, nothing else
    assertTrue(on.registerBits() - off.registerBits() <= 40, on.registerBits() + " vs " + off.registerBits());
  }
}
