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
import org.llmnpu.hdl.gen.ParamException;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.reports.OutputDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code npu generate <block> [-p name=value]... -o <dir>}: Verilog, filelist and params.json. */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = "Generate the Verilog of a block: one file per module, <top>.f and params.json.")
public final class GenerateCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "block name (see 'npu blocks')")
  String block;

  @Option(names = {"-p", "--param"}, description = "parameter as name=value (repeatable)")
  List<String> params = List.of();

  @Option(names = {"-o", "--out"}, required = true, description = "output directory (new, empty, or written "
      + "by the toolkit before)")
  String out;

  @Option(names = "--force", description = "also write into a directory holding other files (they are kept; only "
      + "the toolkit's own files are replaced)")
  boolean force;

  @Override
  public Integer call() throws Exception {
    BlockGenerator gen = BlockRegistry.find(block);
    Params resolved = Params.resolve(gen, parse(block, params));
    OutputDirectory.check("-o", out, force);
    VerilogDesign design = Verilog.emit(gen.build(resolved));
    OutputDirectory dir = OutputDirectory.open("verilog", "-o", out, force);
    design.files().forEach(dir::write);
    dir.write(design.top() + ".f", design.filelist());
    dir.write("params.json", paramsJson(gen, resolved));
    dir.finish();
    System.out.printf("%s: wrote %d Verilog file(s), %s.f and params.json to %s%n", design.top(),
        design.files().size(), design.top(), out);
    return 0;
  }

  /**
   * Parses {@code name=value} options; a malformed or repeated one is a {@link ParamException}.
   */
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
