package org.llmnpu.hdl.gen;

import java.util.List;
import java.util.function.Function;
import org.llmnpu.hdl.HwModule;

/**
 * A {@link BlockGenerator} declared in one constructor call, for registration classes:
 * {@code public Generator() { super("fifo", "...", List.of(...), p -> new SyncFifo(...)); }}.
 */
public abstract class DeclaredGenerator implements BlockGenerator {
  private final String name;
  private final String description;
  private final List<ParamSpec> params;
  private final Function<Params, HwModule> factory;

  protected DeclaredGenerator(String name, String description, List<ParamSpec> params,
                              Function<Params, HwModule> factory) {
    this.name = name;
    this.description = description;
    this.params = List.copyOf(params);
    this.factory = factory;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String description() {
    return description;
  }

  @Override
  public final List<ParamSpec> params() {
    return params;
  }

  @Override
  public final HwModule build(Params p) {
    return factory.apply(p);
  }
}
