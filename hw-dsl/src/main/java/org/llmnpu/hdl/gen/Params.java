package org.llmnpu.hdl.gen;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Resolved parameter values of one block, every parameter present, in declaration order. */
public final class Params {
  private final Map<String, String> values;

  Params(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /**
   * Resolves user-given values against a generator's parameter list: unknown names and
   * out-of-range values are rejected, missing ones take their defaults.
   */
  public static Params resolve(BlockGenerator gen, Map<String, String> given) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : given.keySet()) {
      if (gen.params().stream().noneMatch(p -> p.name().equals(name))) {
        throw new ParamException(String.format("%s: unknown parameter '%s'; parameters: %s", gen.name(), name,
            String.join(", ", gen.params().stream().map(ParamSpec::name).toList())));
      }
    }
    for (ParamSpec p : gen.params()) {
      String v = given.getOrDefault(p.name(), p.defaultValue());
      out.put(p.name(), p.validate(gen.name(), v));
    }
    return new Params(out);
  }

  public int getInt(String name) {
    return Integer.parseInt(get(name));
  }

  public boolean getBool(String name) {
    return Boolean.parseBoolean(get(name));
  }

  public String get(String name) {
    String v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("no parameter '" + name + "'");
    }
    return v;
  }

  public Map<String, String> asMap() {
    return values;
  }
}
