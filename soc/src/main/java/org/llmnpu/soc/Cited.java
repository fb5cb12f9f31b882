package org.llmnpu.soc;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One figure of a SoC preset: its value, unit and where it comes from (paper and table/section, data sheet, or the
 * derivation from such figures). A preset figure without a source is refused when the preset is read.
 *
 * @param value  the figure
 * @param unit   its unit
 * @param source where it comes from
 */
public record Cited(double value, String unit, String source) {
  public Cited {
    if (!Double.isFinite(value) || value < 0) {
      throw new IllegalArgumentException("a preset figure must be finite and >= 0, got " + value + " (" + source + ")");
    }
    if (source == null || source.isBlank()) {
      throw new IllegalArgumentException("a preset figure (" + value + " " + unit + ") has no source");
    }
  }

  /** A figure measured on this machine (the {@code host} preset). */
  public static Cited measured(double value, String unit, String how) {
    return new Cited(value, unit, "measured here: " + how);
  }

  /**
   * The figure {@code field} of {@code node}: an object {@code {"value", "unit", "source"}}.
   *
   * @throws IllegalArgumentException naming {@code what.field} when it is missing or has no source
   */
  static Cited read(JsonNode node, String field, String what) {
    JsonNode f = node.get(field);
    if (f == null || !f.isObject() || !f.path("value").isNumber()) {
      throw new IllegalArgumentException(what + "." + field + ": missing (an object with value, unit and source)");
    }
    String source = f.path("source").asText("");
    if (source.isBlank()) {
      throw new IllegalArgumentException(what + "." + field + ": has no source");
    }
    return new Cited(f.get("value").asDouble(), f.path("unit").asText(""), source);
  }
}
