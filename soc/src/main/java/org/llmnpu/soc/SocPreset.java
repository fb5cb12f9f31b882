package org.llmnpu.soc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A SoC around our NPU: CPU and GPU rooflines and the host costs, read from a resource file in which every figure
 * cites its source ({@code sd8gen3}, {@code lunar-lake}), or the {@code host} preset whose CPU is measured here
 * ({@link HostProfiler}: the software stack's kernels timed on stories260K's weights). The NPU is always ours (the
 * cycle model of the NPU preset {@code npuPreset} at its clock).
 *
 * @param name      preset name
 * @param title     what it models
 * @param cpu       the CPU
 * @param gpu       the GPU, or empty (the {@code host} preset has none)
 * @param host      host-side costs and the shared DRAM
 * @param npuPreset the NPU's estimate preset ({@code edge-64})
 * @param paperNpuLacks operators the paper's NPU backend lacks (they fall back to the CPU in {@code --npu paper})
 */
public record SocPreset(String name, String title, RooflineSpec cpu, Optional<RooflineSpec> gpu, HostCosts host,
                        String npuPreset, List<Operator.Kind> paperNpuLacks) {
  /** The presets. */
  public static final List<String> NAMES = List.of("sd8gen3", "lunar-lake", "host");

  /**
   * The preset {@code name}.
   *
   * @throws IllegalArgumentException naming {@code --preset} and the allowed values
   */
  public static SocPreset load(String name) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("--preset: '" + name + "' is not allowed; allowed: " + String.join(", ", NAMES));
    }
    if (name.equals("host")) {
      SocPreset base = fromResource("sd8gen3");
      return new SocPreset("host", "this machine's CPU, measured (HostProfiler on stories260K), with the sd8gen3 host "
          + "costs and our NPU", HostProfiler.measure().asRoofline(), Optional.empty(), base.host(), base.npuPreset(),
          base.paperNpuLacks());
    }
    return fromResource(name);
  }

  static SocPreset fromResource(String name) {
    String resource = "presets/" + name + ".json";
    try (InputStream in = SocPreset.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("preset " + name + " is missing from the build (" + resource + ")");
      }
      JsonNode root = new ObjectMapper().readTree(in);
      List<Operator.Kind> lacks = new java.util.ArrayList<>();
      root.path("paperNpuLacks").path("kinds").forEach(k -> lacks.add(Operator.Kind.valueOf(k.asText())));
      if (root.path("paperNpuLacks").path("source").asText("").isBlank()) {
        throw new IllegalArgumentException(name + ": paperNpuLacks has no source");
      }
      return new SocPreset(name, root.path("title").asText(), RooflineSpec.read(root.get("cpu"), "cpu"),
          root.has("gpu") ? Optional.of(RooflineSpec.read(root.get("gpu"), "gpu")) : Optional.empty(),
          HostCosts.read(root.get("host")), root.path("npuPreset").asText("edge-64"), lacks);
    } catch (IOException e) {
      throw new IllegalStateException("preset " + name + " cannot be read: " + e.getMessage(), e);
    }
  }

  /** The preset with its GPU removed. */
  public SocPreset withoutGpu() {
    return new SocPreset(name, title, cpu, Optional.empty(), host, npuPreset, paperNpuLacks);
  }

  /** The preset without host overhead. */
  public SocPreset withoutHostOverhead() {
    return new SocPreset(name, title, cpu, gpu, host.withoutOverhead(), npuPreset, paperNpuLacks);
  }

  /** Every figure of the preset with its name and source. */
  public Map<String, Cited> figures() {
    Map<String, Cited> m = new LinkedHashMap<>(cpu.figures());
    gpu.ifPresent(g -> m.putAll(g.figures()));
    m.putAll(host.figures());
    return m;
  }
}
