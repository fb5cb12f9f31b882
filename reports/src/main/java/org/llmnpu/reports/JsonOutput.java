package org.llmnpu.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON the toolkit prints or writes: valid JSON whatever the numbers are. A non-finite
 * number (NaN, ±Infinity) cannot be written in JSON — Jackson would write it as the string
 * {@code "NaN"} in a numeric field — so it becomes {@code null}, and the object that held it
 * gains {@code "<field>Reason": "not a number"} / {@code "infinite"} / {@code "-infinite"}.
 */
public final class JsonOutput {
  private static final ObjectMapper COMPACT = new ObjectMapper();
  private static final ObjectMapper INDENTED = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JsonOutput() {
  }

  /** A fresh object node to fill. */
  public static ObjectNode object() {
    return COMPACT.createObjectNode();
  }

  /** {@code value} (a tree or any object Jackson can map) as one line of valid JSON. */
  public static String compact(Object value) {
    return write(COMPACT, value);
  }

  /** {@code value} as indented valid JSON. */
  public static String indented(Object value) {
    return write(INDENTED, value);
  }

  private static String write(ObjectMapper om, Object value) {
    JsonNode tree = value instanceof JsonNode n ? n.deepCopy() : om.valueToTree(value);
    try {
      return om.writeValueAsString(finite(tree));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
    }
  }

  /** Replaces non-finite numbers in the tree by null with a reason field beside them. */
  static JsonNode finite(JsonNode node) {
    if (node instanceof ObjectNode o) {
      List<Map.Entry<String, String>> reasons = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String why = reason(e.getValue());
        if (why != null) {
          reasons.add(Map.entry(e.getKey(), why));
        } else {
          finite(e.getValue());
        }
      }
      for (Map.Entry<String, String> r : reasons) {
        o.putNull(r.getKey());
        o.put(r.getKey() + "Reason", r.getValue());
      }
    } else if (node instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        if (reason(a.get(i)) != null) {
          a.set(i, a.nullNode());
        } else {
          finite(a.get(i));
        }
      }
    }
    return node;
  }

  private static String reason(JsonNode n) {
    if (n == null || !n.isNumber() || !(n.isDouble() || n.isFloat())) {
      return null;
    }
    double v = n.doubleValue();
    if (Double.isNaN(v)) {
      return "not a number";
    }
    return Double.isInfinite(v) ? (v > 0 ? "infinite" : "-infinite") : null;
  }
}
