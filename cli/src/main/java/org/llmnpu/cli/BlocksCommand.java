package org.llmnpu.cli;

import java.util.concurrent.Callable;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.ParamSpec;
import picocli.CommandLine.Command;

/** {@code npu blocks}: every registered generator with its parameters. */
@Command(name = "blocks", mixinStandardHelpOptions = true,
    description = "List every hardware generator with its parameters, defaults and ranges.")
public final class BlocksCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    for (BlockGenerator g : BlockRegistry.all()) {
      System.out.printf("%s — %s%n", g.name(), g.description());
      for (ParamSpec p : g.params()) {
        System.out.printf("    %-14s %-6s default %-8s allowed %-22s %s%n", p.name(), p.kind().name().toLowerCase(),
            p.defaultValue(), p.allowed(), p.description());
      }
    }
    return 0;
  }
}
