package org.llmnpu.soc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;

/**
 * Text and JSON of a stage analysis ({@link StageAnalysis}). JSON numbers are finite: a figure that is not defined
 * (a ratio over zero) is written as null, never NaN.
 */
public final class SocOutput {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private SocOutput() {
  }

  /** Puts {@code v} under {@code key}, or null when it is not finite. */
  static void num(ObjectNode node, String key, double v) {
    if (Double.isFinite(v)) {
      node.put(key, v);
    } else {
      node.putNull(key);
    }
  }

  static String write(ObjectNode root) {
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The analysis as JSON: {@code stages}, {@code operators}, {@code findings}, {@code notes}. */
  public static String json(StageAnalysis.Result r) {
    ObjectNode root = JSON.createObjectNode();
    root.put("preset", r.preset().name()).put("model", r.shape().name()).put("promptLen", r.options().promptLen())
        .put("genTokens", r.options().genTokens()).put("npuOps", r.options().npuOps())
        .put("sharedBuffer", r.options().sharedBuffer()).put("hostOverhead", r.options().hostOverhead());
    ArrayNode stages = root.putArray("stages");
    for (StageAnalysis.StageRow s : r.stages()) {
      ObjectNode n = stages.addObject().put("stage", s.stage()).put("backend", s.backend());
      num(n, "timeS", s.timeS());
      num(n, "energyJ", s.energyJ());
      num(n, "opS", s.opS());
      num(n, "callToOpRatio", s.callToOpRatio());
      num(n, "commShare", s.commShare());
      num(n, "quantShare", s.quantShare());
      s.fallbackOps().forEach(n.putArray("fallbackOps")::add);
    }
    ArrayNode ops = root.putArray("operators");
    for (StageAnalysis.OpRow o : r.operators()) {
      ObjectNode n = ops.addObject().put("stage", o.stage()).put("backend", o.backend()).put("op", o.op())
          .put("kind", o.kind()).put("light", o.light()).put("calls", o.calls()).put("ranOn", o.ranOn());
      num(n, "opS", o.opS());
      num(n, "callS", o.callS());
      num(n, "commS", o.commS());
      num(n, "energyJ", o.energyJ());
      num(n, "callToOpRatio", o.opS() > 0 ? o.callS() / o.opS() : Double.NaN);
    }
    findings(root.putArray("findings"), r.findings());
    r.notes().forEach(root.putArray("notes")::add);
    return write(root);
  }

  static void findings(ArrayNode arr, java.util.List<StageFindings.Finding> findings) {
    for (StageFindings.Finding f : findings) {
      ObjectNode n = arr.addObject().put("id", f.id()).put("ours", f.ours());
      num(n, "value", f.value());
      n.put("paper", f.paper()).put("agrees", f.agrees()).put("why", f.why());
    }
  }

  /** The analysis as text: the stage table, the light operators' call/op ratios, the findings. */
  public static String text(StageAnalysis.Result r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%s on %s (%s), %d-token prompt, %d generated tokens, NPU operators: %s%n",
        r.shape().name(), r.preset().name(), r.preset().title(), r.options().promptLen(), r.options().genTokens(),
        r.options().npuOps()));
    b.append(String.format(Locale.ROOT, "  %-11s %-32s %12s %11s %9s %7s %7s  %s%n", "stage", "backend", "time",
        "energy", "call/op", "comm", "quant", "fallbacks"));
    for (StageAnalysis.StageRow s : r.stages()) {
      b.append(String.format(Locale.ROOT, "  %-11s %-32s %10.3f ms %9.4f J %8.2fx %6.1f%% %6.1f%%  %s%n", s.stage(),
          s.backend(), s.timeS() * 1e3, s.energyJ(), s.callToOpRatio(), 100 * s.commShare(), 100 * s.quantShare(),
          s.fallbackOps().isEmpty() ? "-" : String.join(",", s.fallbackOps())));
    }
    b.append("  light operators, decode, one NPU graph per operator (op time -> call time per call):\n");
    for (StageAnalysis.OpRow o : r.operators()) {
      if (o.stage().equals("decode") && o.backend().equals("npu-per-op") && o.light()) {
        b.append(String.format(Locale.ROOT, "    %-12s %9.3f us -> %8.3f us  (%5.1fx)%n", o.op(),
            o.opS() / o.calls() * 1e6, o.callS() / o.calls() * 1e6, o.callS() / o.opS()));
      }
    }
    b.append("  findings (seed 001):\n");
    for (StageFindings.Finding f : r.findings()) {
      b.append(String.format(Locale.ROOT, "    %-28s ours: %s%n      %-26s paper: %s -> %s: %s%n", f.id(), f.ours(),
          "", f.paper(), f.agrees() ? "agrees" : "differs", f.why()));
    }
    r.notes().forEach(n -> b.append("  note: ").append(n).append('\n'));
    return b.toString();
  }
}
