package org.llmnpu.soc;

import java.nio.file.Path;
import java.util.Map;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.sw.lower.Fusion;

/**
 * Which NPU the SoC holds: its preset's NPU ({@link SocPreset#npuPreset()}, e.g. {@code edge-64}), with the fields of
 * an NPU file ({@code --config}, as {@code npu estimate} reads it: {@code NpuConfig} fields and {@code clockMhz}) and
 * NPU parameters ({@code -p name=value}, as {@code npu generate npu} takes them) over it, {@code -p} last.
 *
 * @param config an NPU file, or null for none
 * @param params NPU parameters by name ({@code Map.of()}: none)
 */
public record SocNpu(Path config, Map<String, String> params) {
  /** The preset's NPU as it is. */
  public static final SocNpu PRESET = new SocNpu(null, Map.of());

  public SocNpu {
    params = Map.copyOf(params);
  }

  /**
   * For the output: empty for the preset's NPU as it is, else where this NPU comes from (the preset, the file, each
   * {@code -p}).
   */
  java.util.Optional<String> override(String npuPreset) {
    return equals(PRESET) ? java.util.Optional.empty()
        : java.util.Optional.of(EstimateTarget.load(npuPreset, config, params).source());
  }

  /** The NPU of estimate preset {@code npuPreset} with this file and these parameters over it, at 7 nm. */
  NpuBackend backend(String npuPreset, String quant, Fusion fusion) {
    return NpuBackend.of(EstimateTarget.load(npuPreset, config, params), quant, fusion);
  }
}
