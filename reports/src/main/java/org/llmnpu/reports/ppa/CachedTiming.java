package org.llmnpu.reports.ppa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * The timing of a design's PPA run, kept in the PPA cache beside the tool results so that a later command can ask
 * "what is this design's Fmax?" without running a tool: {@link PpaFlow} records every run's {@link TimingResult}
 * under a key derived from the synthesis key (Yosys version, script with the target delay, library, Verilog) and
 * OpenSTA's version and clock, so a hit is the Fmax of exactly this Verilog at exactly this clock constraint.
 * A lookup runs {@code yosys -V} and {@code sta -version} (for the key) but no synthesis or timing.
 */
public final class CachedTiming {
  private static final String FILE = "timing.json";

  private CachedTiming() {
  }

  /** The key of a design's timing entry under {@code options} (clock, library, flatten). */
  public static String key(VerilogDesign design, PpaOptions options) {
    String synthesis = new YosysSynthesis(options.liberty(), options.cache(), options.flatten(),
        Math.round(options.clockNs() * 1000)).key(design);
    return ContentCache.key(List.of("timing", synthesis, ToolVersions.sta(), options.clockPort(),
        Double.toString(options.clockNs())));
  }

  /** Records the timing of a run of {@code design} under {@code options}. */
  public static void put(VerilogDesign design, PpaOptions options, TimingResult t) {
    ObjectNode j = new ObjectMapper().createObjectNode();
    j.put("design", design.top()).put("clockNs", t.clockNs()).put("clockPort", t.clockPort())
        .put("startpoint", t.startpoint()).put("endpoint", t.endpoint()).put("logicDepth", t.logicDepth())
        .put("arrivalNs", t.arrivalNs()).put("slackNs", t.slackNs()).put("criticalDelayNs", t.criticalDelayNs())
        .put("fmaxMhz", t.fmaxMhz());
    String key = key(design, options);
    if (options.cache().get(key).isEmpty()) {
      options.cache().put(key, Map.of(FILE, j.toPrettyString() + "\n"));
    }
  }

  /**
   * The timing of an earlier PPA run of {@code design} under {@code options}, or empty when there was none (or the
   * tools that would key it are not installed).
   */
  public static Optional<TimingResult> find(VerilogDesign design, PpaOptions options) {
    String key;
    try {
      key = key(design, options);
    } catch (ToolFailure e) {
      return Optional.empty();
    }
    Optional<Map<String, String>> entry = options.cache().get(key);
    if (entry.isEmpty() || !entry.get().containsKey(FILE)) {
      return Optional.empty();
    }
    try {
      JsonNode j = new ObjectMapper().readTree(entry.get().get(FILE));
      return Optional.of(new TimingResult(j.path("clockNs").asDouble(), j.path("clockPort").asText(),
          j.path("startpoint").asText(), j.path("endpoint").asText(), j.path("logicDepth").asInt(),
          j.path("arrivalNs").asDouble(), j.path("slackNs").asDouble(), j.path("criticalDelayNs").asDouble(),
          j.path("fmaxMhz").asDouble()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
