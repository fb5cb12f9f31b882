package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The counters' late events, which the controller registers before the counters' adders so that the NPU meets its
 * clock ({@code NpuCounters}, {@code NpuUnitPorts#counters}): the DMA's read beats, the LOAD's, PPM's and DSPOUT's
 * scratchpad writes and a PPM run's rows reach their counters a cycle late. No reader may see that: a snapshot right
 * after each command that makes them (load, load4, the PPM's table and records, a PPM run, dspin/dspout, dsptab, a
 * streamed GEMM's W reads) writes the golden's image bit for bit, and a HALT right after each ends with every counter
 * equal to the golden's and the cycle model's.
 */
class LateCountersCosimTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());

  @Test
  void aSnapshotRightAfterEachCommandSeesItsLastEvents() {
    Program.Builder b = Program.builder();
    long at = 0x40000;
    for (Program.Builder command : commands()) {
      b.fence();
      Program part = command.build();
      for (int i = 0; i < part.size(); i++) {
        b.raw(part.words(i));
      }
      b.snapshot(at);
      at += 0x100;
    }
    run(b.halt().build());
  }

  @Test
  void aHaltRightAfterEachCommandEndsWithItsLastEvents() {
    for (Program.Builder command : commands()) {
      ProgramCosim.Outcome o = run(command.halt().build());
      assertTrue(o.rtl().counters().get(Counter.EXT_READ_BEATS) > 0);
    }
  }

  /** One command (with what it needs before it) of each kind with late events, on the shared NPU. */
  private static java.util.List<Program.Builder> commands() {
    MachineParams p = NPU.rtl().config().machine();
    int line = p.lineBytes();
    int channels = p.rows();
    int lanes = p.dsp().lanes();
    long results = p.spadBytes() / 2;
    return java.util.List.of(
        Program.builder().load(0x10000, 64, 0, 64, 64, 4),
        Program.builder().load(0x10000, 64, 0, 64, 64 + line / 2, 3),
        Program.builder().load4(0x11000, 64, 0x400, 64, 32, 2),
        Program.builder().ppuTab(0x8000),
        Program.builder().ppuTab(0x8000).ppmCfg(0x8400, channels),
        Program.builder().ppuTab(0x8000).ppmCfg(0x8400, channels).load(0x10000, 16L * line, 0, 16L * line,
            4L * channels, 3).ppm(0, 16L * line, results, line, 3, channels),
        Program.builder().load(0x12000, 64, 0x400, 64, 64, 1)
            .dspIn(0x400, 64, 8 * lanes, 1, 0, Command.FMT_FP16, 0),
        Program.builder().load(0x12000, 64, 0x400, 64, 64, 1)
            .dspIn(0x400, 64, 8 * lanes, 1, 0, Command.FMT_FP16, 0)
            .dspOut(0x800, 64, 8 * lanes, 1, 0, Command.FMT_FP16),
        Program.builder().dspTab(0x9000),
        Program.builder().load(0x10000, 64, 0, 64, 32, 4).gemmStreamed(4, 32, 32, 0, 64, 0x20000, 64, 1024, 128,
            false));
  }

  private static ProgramCosim.Outcome run(Program prog) {
    MachineParams p = NPU.rtl().config().machine();
    byte[] image = new byte[(int) p.extMemBytes()];
    new Random(29).nextBytes(image);
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    for (int j = 0; j < p.rows(); j++) {
      byte[] rec = IsaSimulator.ppmRecord(j * 100 - 150, QuantizedMultiplier.fromScale(0.001 * (j + 1)), j - 2);
      System.arraycopy(rec, 0, image, 0x8400 + 16 * j, 16);
    }
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image, prog, 0), 0);
    String what = org.llmnpu.isa.Disassembler.disassemble(prog);
    assertEquals(ErrorCause.NONE, o.golden().error(), what);
    assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    return o;
  }
}
