package org.llmnpu.hdl.gen;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/** Every {@link BlockGenerator} on the class path, sorted by name. */
public final class BlockRegistry {
  private BlockRegistry() {
  }

  public static List<BlockGenerator> all() {
    List<BlockGenerator> out = new ArrayList<>();
    ServiceLoader.load(BlockGenerator.class).forEach(out::add);
    out.sort(Comparator.comparing(BlockGenerator::name));
    return out;
  }

  /** The generator with this name, or a {@link ParamException} listing the known names. */
  public static BlockGenerator find(String name) {
    List<BlockGenerator> all = all();
    return all.stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow(() ->
        new ParamException(String.format("unknown block '%s'; blocks: %s", name,
            String.join(", ", all.stream().map(BlockGenerator::name).toList()))));
  }
}
