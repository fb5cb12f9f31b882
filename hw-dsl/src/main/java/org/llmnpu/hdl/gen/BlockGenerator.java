package org.llmnpu.hdl.gen;

import java.util.List;
import org.llmnpu.hdl.HwModule;

/**
 * A named, parameterized hardware generator that the CLI and reports can list and run.
 * Implementations register through {@link java.util.ServiceLoader} in
 * {@code META-INF/services/org.llmnpu.hdl.gen.BlockGenerator}, so modules add blocks
 * without touching the CLI.
 */
public interface BlockGenerator {
  /** Short name used on the command line, e.g. {@code fifo}. */
  String name();

  /** One line saying what the block is. */
  String description();

  /** The parameters with defaults and allowed values. */
  List<ParamSpec> params();

  /** Builds the top module for validated parameters. */
  HwModule build(Params params);
}
