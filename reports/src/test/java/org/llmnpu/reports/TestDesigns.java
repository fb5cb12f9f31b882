package org.llmnpu.reports;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.rtl.npu.NpuConfig;

/** Hand-written Verilog designs from the test resources, as {@link VerilogDesign}s. */
public final class TestDesigns {
  private TestDesigns() {
  }

  public static String text(String resource) {
    try (InputStream in = TestDesigns.class.getResourceAsStream("/designs/" + resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no test design " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** 16 x 8-bit FIFO whose storage array is an SRAM macro. */
  public static VerilogDesign fifo() {
    return new VerilogDesign("fifo", Map.of("fifo.v", text("fifo.v")),
        List.of(new VerilogDesign.MemoryInfo("fifo", "storage", 8, 16, 1, 1)));
  }

  /** Two FIFO instances under a top module: one memory definition, two macro copies. */
  public static VerilogDesign dualFifo() {
    Map<String, String> files = new java.util.LinkedHashMap<>();
    files.put("fifo.v", text("fifo.v"));
    files.put("dual_fifo.v", text("dual_fifo.v"));
    return new VerilogDesign("dual_fifo", files, List.of(new VerilogDesign.MemoryInfo("fifo", "storage", 8, 16, 1, 1)));
  }

  /** 8-bit signed MAC with a 32-bit accumulator. */
  public static VerilogDesign mac8() {
    return new VerilogDesign("mac8", Map.of("mac8.v", text("mac8.v")), List.of());
  }

  /** Counter of the given width. */
  public static VerilogDesign counter(int width) {
    return new VerilogDesign("counter", Map.of("counter.v", text("counter.v").replace("WIDTH", Integer.toString(width))),
        List.of());
  }

  /** Register file with an asynchronous read port, its array listed as a memory. */
  public static VerilogDesign regfile() {
    return new VerilogDesign("regfile", Map.of("regfile.v", text("regfile.v")),
        List.of(new VerilogDesign.MemoryInfo("regfile", "regs", 16, 8, 1, 1)));
  }

  /** A combinational adder without a clock. */
  public static VerilogDesign adder() {
    return new VerilogDesign("adder", Map.of("adder.v", text("adder.v")), List.of());
  }

  /** A file Yosys cannot parse. */
  public static VerilogDesign broken() {
    return new VerilogDesign("broken", Map.of("broken.v", text("broken.v")), List.of());
  }

  /**
   * The smallest NPU the tests synthesize ({@link NpuConfig#tiny()}: 4×4, 2 KiB scratchpad, 1-lane DSP, no PPU).
   * {@link #tinyNpuParams} builds the same Verilog through the {@code npu} generator, so the block's PPA test, the
   * calibration and cli's {@code npu report npu} test share one synthesis.
   */
  public static NpuConfig tinyNpu() {
    return NpuConfig.tiny();
  }

  /**
   * PPM lanes the NPU wires to the scratchpad read port without isolation, as the estimate charges them (cosim's
   * {@code NpuEnergyShape.PPM_INPUT_LANES}): none, the NPU feeds its PPM {@code ppm_fedLine}, 0 between the lines it
   * requantizes. The calibration tests pass it to {@code Calibration.npu} so that they calibrate what is estimated.
   */
  public static final int NPU_PPM_INPUT_LANES = 0;

  /** The {@code npu} generator's parameters of {@link #tinyNpu}. */
  public static Map<String, String> tinyNpuParams() {
    return org.llmnpu.rtl.npu.NpuParameter.valuesOf(tinyNpu(), true);
  }

  /** Default options (5 ns clock) with the tests' shared cache ({@link #ppaCache}). */
  public static PpaOptions options() {
    return PpaOptions.defaults().withCache(new ContentCache(ppaCache()));
  }

  /**
   * The PPA cache the tests of every module share: {@code target/ppa-test-cache} at the reactor's root
   * ({@code llmnpu.repoRoot}, set by the root POM's Surefire configuration), else under this module's
   * {@code target}. One cold {@code mvn install} thus synthesizes a design once, whichever modules' tests use it
   * (the tiny NPU: this module's PPA and calibration tests, and cli's {@code npu report} test).
   */
  public static Path ppaCache() {
    String root = System.getProperty("llmnpu.repoRoot");
    return (root == null || root.isBlank() ? Path.of("") : Path.of(root)).toAbsolutePath()
        .resolve(Path.of("target", "ppa-test-cache"));
  }
}
