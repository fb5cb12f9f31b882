package org.llmnpu.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.cli.report.DecimalOption;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.TimingConstraints;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code npu generate <block> [-p name=value]... [--config npu.yaml] [--clock-ns 5.75] -o <dir>}: Verilog (one file per
 * module), the filelist {@code <top>.f}, {@code params.json}, the timing constraints
 * {@code <top>.sdc} ({@link TimingConstraints}: clock at the target period, zero I/O delays, reset
 * false path — what our own OpenSTA runs use) and a FuseSoC core {@code <top>.core}.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = "Generate the Verilog of a block: one file per module, <top>.f, params.json, <top>.sdc (timing "
        + "constraints) and <top>.core (FuseSoC).")
public final class GenerateCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "block name (see 'npu blocks')")
  String block;

  @Mixin
  NpuParameters params;

  @Option(names = {"-o", "--out"}, required = true, description = "output directory (new, empty, or written "
      + "by the toolkit before)")
  String out;

  @Option(names = "--clock-ns", paramLabel = "ns", defaultValue = TargetClock.PERIOD_NS_TEXT,
      description = "target clock period written to the SDC, a decimal number in 0.1..1000 (default: "
          + "${DEFAULT-VALUE}, the NPU's target clock: the 8x8 MAC array's Fmax at 180 nm)")
  String clockNs;

  @Option(names = "--force", description = "also write into a directory holding other files (they are kept; only "
      + "the toolkit's own files are replaced)")
  boolean force;

  @Override
  public Integer call() throws Exception {
    BlockGenerator gen = BlockRegistry.find(block);
    Params resolved = Params.resolve(gen, params.blockParams(block));
    double period = DecimalOption.parse("--clock-ns", clockNs, PpaOptions.MIN_CLOCK_NS, PpaOptions.MAX_CLOCK_NS);
    OutputDirectory.check("-o", out, force);
    VerilogDesign design = Verilog.emit(gen.build(resolved));
    OutputDirectory dir = OutputDirectory.open("verilog", "-o", out, force);
    design.files().forEach(dir::write);
    dir.write(design.top() + ".f", design.filelist());
    dir.write("params.json", paramsJson(gen, resolved));
    String sdc = design.top() + ".sdc";
    dir.write(sdc, TimingConstraints.of(design, period).sdc(design.top()));
    dir.write(design.top() + ".core", FuseSocCore.text(gen.name(), design.top(), List.copyOf(design.files().keySet()),
        sdc));
    dir.finish();
    System.out.printf("%s: wrote %d Verilog file(s), %s.f, params.json, %s (clock %s ns) and %s.core to %s%n",
        design.top(), design.files().size(), design.top(), sdc, clockNs, design.top(), out);
    return 0;
  }

  static String paramsJson(BlockGenerator gen, Params p) throws Exception {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("block", gen.name());
    Map<String, Object> values = new LinkedHashMap<>();
    for (var spec : gen.params()) {
      String v = p.get(spec.name());
      values.put(spec.name(), switch (spec.kind()) {
        case INT -> Long.parseLong(v);
        case BOOL -> Boolean.parseBoolean(v);
        case CHOICE -> v;
      });
    }
    json.put("parameters", values);
    return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(json) + "\n";
  }
}
