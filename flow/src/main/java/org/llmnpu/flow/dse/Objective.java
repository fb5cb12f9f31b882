package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** What a sweep minimizes; each objective's key carries its unit. */
public enum Objective {
  /** Standard cells (synthesized) plus SRAM macros (model) at the sweep's node, mm². */
  AREA_MM2("areaMm2", "area", "mm²"),
  /** Energy of one decode step from the calibrated energy table, J. */
  ENERGY_PER_TOKEN_J("energyPerTokenJ", "energy/token", "J"),
  /** Time per output token (one decode step at position promptLen), s. */
  TPOT_S("tpotS", "TPOT", "s"),
  /** Time to first token (the prompt's prefill), s. */
  TTFT_S("ttftS", "TTFT", "s");

  public final String key;
  public final String label;
  public final String unit;

  Objective(String key, String label, String unit) {
    this.key = key;
    this.label = label;
    this.unit = unit;
  }

  /** Every objective's key. */
  public static List<String> keys() {
    return Arrays.stream(values()).map(o -> o.key).toList();
  }

  /** The objective of {@code key}; an unknown one is an error naming the allowed keys. */
  public static Objective of(String key, String where) {
    for (Objective o : values()) {
      if (o.key.equals(key)) {
        return o;
      }
    }
    throw new IllegalArgumentException(where + ": '" + key + "' is not an objective; allowed: "
        + String.join(", ", keys()));
  }

  /** A list of objective keys; missing means all four. */
  static List<Objective> parseList(JsonNode node) {
    if (node.isMissingNode()) {
      return List.of(values());
    }
    if (!node.isArray() || node.isEmpty()) {
      throw new IllegalArgumentException("objectives: a list of at least one of " + String.join(", ", keys()));
    }
    List<Objective> out = new ArrayList<>();
    for (JsonNode n : node) {
      Objective o = of(SweepFile.scalar(n, "objectives"), "objectives");
      if (out.contains(o)) {
        throw new IllegalArgumentException("objectives: '" + o.key + "' is listed twice");
      }
      out.add(o);
    }
    return out;
  }
}
