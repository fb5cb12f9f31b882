package org.llmnpu.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.ParamException;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.rtl.npu.NpuConfig;
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
      + "each; for the NPU over the --config file's")
  List<String> params = List.of();

  @Option(names = "--config", paramLabel = "FILE", description = "NPU configuration (.json, .yaml; e.g. 'engine: pim' "
      + "for the PiM GEMM engine), under -p; default: the default NPU")
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
    Map<String, String> out = new LinkedHashMap<>(NpuReportPipeline.generatorParams(NpuConfig.load(configFile)));
    out.putAll(parse(block, params));
    return out;
  }

  /**
   * The NPU of {@code configFile} (null: {@code base}) with {@code params} ({@code name=value}) over it, checked by
   * the {@code npu} block's parameter specs. The simulation-only memory timing ({@code memLatency},
   * {@code memBytesPerCycle}) is the file's or the base's.
   */
  public static NpuConfig resolve(Path configFile, List<String> params, NpuConfig base) {
    NpuConfig b = configFile != null ? NpuConfig.load(configFile) : base;
    Map<String, String> values = new LinkedHashMap<>(NpuReportPipeline.generatorParams(b));
    values.putAll(parse("npu", params));
    Params p = Params.resolve(BlockRegistry.find("npu"), values);
    return new NpuConfig(p.getInt("rows"), p.getInt("spadKiB"), p.getInt("spadBanks"), p.getInt("extMemMiB"),
        p.getInt("mTile"), p.getInt("accWidth"), p.getInt("icAccumDepth"), p.getInt("maxM"), p.getInt("maxK"),
        p.getInt("maxN"), b.memLatency(), b.memBytesPerCycle(), p.getInt("watchdogCycles"), p.getInt("dspLanes"),
        p.getInt("dspRows"), p.getInt("dspProgramDepth"), p.getInt("dspMaxRunCycles"), p.get("engine"),
        p.getInt("weightRowsPerCycle"), Boolean.parseBoolean(p.get("ppu")), Boolean.parseBoolean(p.get("mxLoad")),
        p.get("sparsity"), p.getInt("commandQueueDepth"), p.getInt("dspStages"), p.get("clockGating"));
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
