package org.llmnpu.soc;

import static org.llmnpu.soc.SocOutput.num;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;

/** Text and JSON of speculative decoding across backends ({@link SpeculativeAcrossBackends}). */
public final class SpeculativeOutput {
  private SpeculativeOutput() {
  }

  public static String json(SpeculativeAcrossBackends.Result r) {
    ObjectNode root = new ObjectMapper().createObjectNode();
    root.put("preset", r.preset().name()).put("model", r.shape().name()).put("promptLen", r.promptLen());
    r.npu().override(r.preset().npuPreset()).ifPresent(s -> root.put("npuConfiguration", s));
    SpeculativeAcrossBackends.Acceptance a = r.acceptance();
    ObjectNode acc = root.putObject("acceptance").put("draft", a.draft()).put("gamma", a.gamma())
        .put("drafted", a.drafted()).put("accepted", a.accepted()).put("targetPasses", a.targetPasses())
        .put("measuredOn", "stories260K, greedy, sw-stack SpeculativeDecoder");
    num(acc, "alpha", a.alpha());
    ArrayNode rows = root.putArray("rows");
    for (SpeculativeAcrossBackends.Row row : r.rows()) {
      ObjectNode n = rows.addObject().put("setup", row.setup());
      num(n, "timePerTokenS", row.timePerTokenS());
      num(n, "energyPerTokenJ", row.energyPerTokenJ());
    }
    return SocOutput.write(root);
  }

  public static String text(SpeculativeAcrossBackends.Result r) {
    SpeculativeAcrossBackends.Acceptance a = r.acceptance();
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "speculative decoding across backends: %s on %s at "
        + "position %d%n  acceptance %.3f (%d of %d drafted tokens; gamma %d; draft: %s; measured on stories260K)%n",
        r.shape().name(), r.preset().name(), r.promptLen(), a.alpha(), a.accepted(), a.drafted(), a.gamma(),
        a.draft()));
    r.npu().override(r.preset().npuPreset()).ifPresent(s -> b.append("  npu configuration: ").append(s).append('\n'));
    for (SpeculativeAcrossBackends.Row row : r.rows()) {
      b.append(String.format(Locale.ROOT, "  %-40s %10.3f ms/token %9.4f J/token%n", row.setup(),
          row.timePerTokenS() * 1e3, row.energyPerTokenJ()));
    }
    return b.toString();
  }
}
