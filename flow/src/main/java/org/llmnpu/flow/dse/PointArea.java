package org.llmnpu.flow.dse;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.NodeFigures;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.NpuParameter;

/**
 * A point's area from the toolkit's real synthesis: the NPU top of {@code npu report ppa npu} (Yosys to the OSU
 * 0.18 µm cells, hierarchical, timing-driven at the sweep's clock; OpenSTA for its timing), through the PPA flow's
 * content-addressed cache, so points that share their RTL parameters (e.g. differ only in memory timing or
 * workload) synthesize once. Area at the node = standard cells measured at 180 nm × Stillmaker &amp; Baas's area
 * factor + the SRAM macros from the toolkit's SRAM model at that node.
 *
 * <p>Processes of one sweep that need the same synthesis at once take turns on a lock file in the cache
 * ({@code dse-locks/}), so the second finds the first one's result in the cache instead of synthesizing again.
 *
 * @param areaMm2       standard cells plus SRAM at the node, mm²
 * @param logicAreaUm2At180 standard-cell area measured at 180 nm, µm²
 * @param sramAreaUm2   SRAM macros at the node (model), µm²
 * @param fmaxMhz       Fmax at the node (measured at 180 nm, scaled)
 * @param clockNs       the synthesis clock, ns
 */
record PointArea(double areaMm2, double logicAreaUm2At180, double sramAreaUm2, double fmaxMhz, double clockNs) {
  /** Synthesizes (or finds in the cache) {@code npu} at {@code clockNs}; figures at {@code nodeNm}. */
  static PointArea of(NpuConfig npu, double clockNs, int nodeNm) throws IOException {
    Map<String, String> params = NpuParameter.valuesOf(npu, true);
    PpaOptions options = PpaOptions.defaults().withClockNs(clockNs);
    Path locks = options.cache().root().resolve("dse-locks");
    Files.createDirectories(locks);
    String key = SweepPoints.sha256((new java.util.TreeMap<>(params) + "@" + clockNs)
        .getBytes(StandardCharsets.UTF_8));
    PpaResult r;
    try (FileChannel ch = FileChannel.open(locks.resolve(key + ".lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = ch.lock()) {
      r = PpaFlow.run(BlockDesigns.of(BlockRegistry.find("npu")).design(params), params, options);
    }
    NodeScaling.Node node = NodeScaling.Node.valueOf("N" + nodeNm);
    NodeFigures at = r.nodes().stream().filter(f -> f.nm() == nodeNm).findFirst().orElseThrow();
    return new PointArea((r.synthesis().chipAreaUm2() * NodeScaling.area(node) + r.sramAreaUm2(node)) / 1e6,
        r.synthesis().chipAreaUm2(), r.sramAreaUm2(node), at.fmaxMhz(), clockNs);
  }

  /** Where the area comes from, for the report. */
  String source(int nodeNm) {
    return String.format(java.util.Locale.ROOT, "synthesis of the NPU top (Yosys, OSU 0.18 um cells, clock %s ns): "
        + "%.0f um^2 of standard cells at 180 nm%s, plus SRAM macros %.0f um^2 (SramModel at %d nm)",
        new java.math.BigDecimal(clockNs).stripTrailingZeros().toPlainString(), logicAreaUm2At180,
        nodeNm == 180 ? "" : " x " + NodeScaling.area(NodeScaling.Node.valueOf("N" + nodeNm))
            + " (Stillmaker & Baas 2017 area factor to " + nodeNm + " nm)", sramAreaUm2, nodeNm);
  }
}
