package org.llmnpu.cosim;

import java.util.Random;
import org.llmnpu.isa.Assembler;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * One {@code .npu} program on an NPU, as {@code npu cosim program} runs it: the text assembled for the NPU's Vector
 * DSP (lanes, execute stages), placed in an external-memory image that holds a given binary at address 0 (the rest
 * zero) or seeded random bytes, then co-simulated on the generated RTL against the golden ISA simulator
 * ({@link ProgramCosim}).
 */
public final class ProgramRun {
  /**
   * A program ready to run.
   *
   * @param program the assembled program (its origin and data segments)
   * @param image   the external-memory image with the program and its data placed
   */
  public record Prepared(Assembler.Assembled program, byte[] image) {
  }

  private ProgramRun() {
  }

  /**
   * Assembles {@code source} (named {@code name} in messages) for {@code config} and builds its memory image.
   *
   * @param memory      bytes loaded at address 0, or null for random bytes from {@code seed}
   * @param memoryName  how messages name {@code memory} (e.g. its file)
   * @throws IllegalArgumentException for an assembly error, a memory larger than the NPU's, or a DSP kernel compiled
   *                                  for other lanes than the NPU's
   */
  public static Prepared prepare(NpuConfig config, String source, String name, byte[] memory, String memoryName,
                                 long seed) {
    Assembler.Assembled program = Assembler.assemble(source, name, config.dspLanes(), config.dspStages());
    long size = config.machine().extMemBytes();
    byte[] image = new byte[(int) size];
    if (memory != null) {
      if (memory.length > size) {
        throw new IllegalArgumentException("--memory: " + memoryName + " has " + memory.length + " bytes; the NPU's "
            + "memory has " + size + " (extMemMiB)");
      }
      System.arraycopy(memory, 0, image, 0, memory.length);
    } else {
      new Random(seed).nextBytes(image);
    }
    for (Assembler.Segment d : program.data()) {
      if (d.dspLanes() > 0 && d.dspLanes() != config.dspLanes()) {
        throw new IllegalArgumentException(name + ": a .dspkernel is compiled for " + d.dspLanes()
            + " lanes, but the NPU's DSP has dspLanes = " + config.dspLanes());
      }
    }
    program.place(image);
    return new Prepared(program, image);
  }

  /** Runs the prepared program on the RTL of {@code config} (with waves when {@code waves} asks) and the golden. */
  public static ProgramCosim.Outcome run(NpuConfig config, Prepared p, WaveCapture waves) {
    try (NpuRtl rtl = NpuRtl.start(config, waves.options())) {
      ProgramCosim.Outcome o = ProgramCosim.run(rtl, p.image(), p.program().origin());
      waves.noteFile(rtl.waveFile());
      return o;
    }
  }
}
