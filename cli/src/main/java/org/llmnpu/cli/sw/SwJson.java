package org.llmnpu.cli.sw;

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
 * JSON output of the {@code sw} commands that is valid JSON: a number that is NaN or infinite becomes
 * {@code null}, and the object holding it gets a {@code nullReasons} member naming each such field and
 * why (NaN: not measured in this run; +Infinity: no error at all, e.g. the SNR of identical logits).
 */
final class SwJson {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);

    private SwJson() {
    }

    static String write(Object value) throws JsonProcessingException {
        JsonNode tree = MAPPER.valueToTree(value);
        return MAPPER.writeValueAsString(clean(tree));
    }

    private static JsonNode clean(JsonNode node) {
        if (node instanceof ObjectNode obj) {
            ObjectNode reasons = MAPPER.createObjectNode();
            List<String> names = new ArrayList<>();
            for (Iterator<String> it = obj.fieldNames(); it.hasNext();) {
                names.add(it.next());
            }
            for (String name : names) {
                JsonNode child = obj.get(name);
                if (child.isNumber() && (child.isDouble() || child.isFloat()) && !Double.isFinite(child.doubleValue())) {
                    reasons.put(name, reason(child.doubleValue()));
                    obj.putNull(name);
                } else {
                    clean(child);
                }
            }
            if (!reasons.isEmpty()) {
                obj.set("nullReasons", reasons);
            }
        } else if (node instanceof ArrayNode arr) {
            for (int i = 0; i < arr.size(); i++) {
                JsonNode child = arr.get(i);
                if (child.isNumber() && !Double.isFinite(child.doubleValue())) {
                    arr.set(i, MAPPER.nullNode());
                } else {
                    clean(child);
                }
            }
        }
        return node;
    }

    private static String reason(double v) {
        if (Double.isNaN(v)) {
            return "not measured in this run (not applicable to its mode)";
        }
        return v > 0 ? "+Infinity: no error at all (identical to the reference)" : "-Infinity: the reference is zero";
    }

    /** For tests: the reasons recorded in an object, if any. */
    static Map<String, String> reasons(JsonNode obj) {
        Map<String, String> out = new java.util.TreeMap<>();
        JsonNode r = obj.get("nullReasons");
        if (r != null) {
            r.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        }
        return out;
    }
}
