package org.llmnpu.verilator;

import java.io.InputStream;
import java.io.OutputStream;

/** The byte streams to a running model process, local or in a container. */
interface ModelConnection extends AutoCloseable {
  /** Commands to the model. */
  OutputStream commands();

  /** The model's answers. */
  InputStream answers();

  /**
   * What is known about the process after it stopped answering: exit status if it ended,
   * and the tail of its standard error.
   */
  String diagnostics();

  /** Stops the process (and its container); collects output files. */
  @Override
  void close();
}
