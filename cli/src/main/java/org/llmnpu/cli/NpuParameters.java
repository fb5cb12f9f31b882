package org.llmnpu.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.gen.ParamException;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.NpuConfigBuilder;
import org.llmnpu.rtl.npu.NpuParameter;
import picocli.CommandLine.Option;

/**
 * The options that describe an NPU, shared by every command that builds one ({@code generate npu},
 * {@code report ppa npu}, {@code report npu}, {@code cosim program}, {@code cosim decoder}): {@code --config FILE}
 * (.json, .yaml) and {@code -p name=value} (the {@code npu} block's parameters, see {@code npu blocks}), where
 * {@code -p} overrides the file. A parameter given twice with {@code -p} is refused; a bad name or value is one line
 * naming the parameter and the allowed values ({@link ParamException}, an IllegalArgumentException the commands turn
 * into exit status 2). For other blocks ({@code generate mac-array}, ...) {@code -p} carries that block's
 * parameters and {@code --config} is refused.
 */
public final class NpuParameters {
  @Option(names = {"-p", "--param"}, paramLabel = "name=value", description = "parameter (see 'npu blocks'), once "
      + "each; for the NPU any NPU parameter (also memLatency, memBytesPerCycle where it is simulated), over the "
      + "--config file's")
  List<String> params = List.of();

  @Option(names = "--config", paramLabel = "FILE", description = "NPU configuration (.json, .yaml; flat "
      + "'engine: pim' or nested 'engine: {kind: pim}'), under -p; default: the default NPU")
  Path configFile;

  /** The {@code -p} options as given. */
  public List<String> params() {
    return params;
  }

  /** The {@code --config} file, or null. */
  public Path configFile() {
    return configFile;
  }

  /** The NPU: the {@code --config} file (else {@code base}) with the {@code -p} parameters over it. */
  public NpuConfig npu(NpuConfig base) {
    return resolve(configFile, params, base);
  }

  /**
   * The parameters of {@code block} for its generator: for {@code npu}, every parameter of the {@code --config}
   * file's NPU (when one is given) with {@code -p} over them; for another block, {@code -p} alone.
   *
   * @throws IllegalArgumentException for {@code --config} with another block, a malformed or repeated {@code -p}
   */
  public Map<String, String> blockParams(String block) {
    if (configFile == null) {
      return parse(block, params);
    }
    if (!block.equals("npu")) {
      throw new ParamException("--config: an NPU configuration describes the npu block only, not '" + block
          + "'; give " + block + "'s parameters with -p");
    }
    Map<String, String> out = new LinkedHashMap<>(NpuParameter.valuesOf(NpuConfig.load(configFile), true));
    out.putAll(parse(block, params));
    return out;
  }

  /**
   * The NPU of {@code configFile} (null: {@code base}) with {@code params} ({@code name=value}) over it. Every
   * {@link NpuParameter} may be given, the simulation model's memory timing ({@code memLatency},
   * {@code memBytesPerCycle}) too; a bad name or value is a {@link ParamException} naming it and the allowed ones.
   */
  public static NpuConfig resolve(Path configFile, List<String> params, NpuConfig base) {
    NpuConfigBuilder b = (configFile != null ? NpuConfig.load(configFile) : base).toBuilder();
    parse("npu", params).forEach((name, value) -> {
      NpuParameter p;
      try {
        p = NpuParameter.of(name);
      } catch (IllegalArgumentException e) {
        throw new ParamException("npu: unknown parameter '" + name + "'; parameters: "
            + String.join(", ", NpuParameter.keys()));
      }
      try {
        b.set(p, p.canonical(value));
      } catch (IllegalArgumentException e) {
        throw new ParamException(String.format("npu: parameter '%s' = '%s' is not allowed; allowed: %s", name, value,
            p.domain().allowed()));
      }
    });
    return b.build();
  }

  /** Parses {@code name=value} options; a malformed or repeated one is a {@link ParamException}. */
  public static Map<String, String> parse(String block, List<String> options) {
    Map<String, String> map = new LinkedHashMap<>();
    for (String o : options) {
      int eq = o.indexOf('=');
      if (eq <= 0) {
        throw new ParamException(block + ": parameter '" + o + "' must be written name=value");
      }
      String name = o.substring(0, eq).trim();
      String value = o.substring(eq + 1).trim();
      String before = map.put(name, value);
      if (before != null) {
        throw new ParamException(block + ": parameter '" + name + "' is given twice (" + before + " and " + value
            + "); give it once");
      }
    }
    return map;
  }
}
