package org.llmnpu.cli.soc;

import java.nio.file.Path;
import java.util.List;
import org.llmnpu.cli.NpuParameters;
import org.llmnpu.soc.SocNpu;
import picocli.CommandLine.Option;

/**
 * The NPU of the {@code soc} commands: the SoC preset's NPU, with an NPU file and {@code -p name=value} over it, as
 * {@code npu estimate} takes them ({@link SocNpu}).
 */
public final class SocNpuOptions {
  @Option(names = "--config", paramLabel = "<file>", description = "NPU parameters (.yaml, .yml, .json; NpuConfig "
      + "field names and clockMhz) over the SoC preset's NPU")
  Path config;
  @Option(names = {"-p", "--param"}, paramLabel = "name=value", description = "an NPU parameter (as in npu "
      + "generate npu, and memLatency, memBytesPerCycle), once each, over the preset's NPU and the --config file")
  List<String> params = List.of();

  /** The NPU these options choose; throws IllegalArgumentException naming a malformed or repeated {@code -p}. */
  SocNpu npu() {
    return new SocNpu(config, NpuParameters.parse("npu", params));
  }
}
