package org.llmnpu.reports.ppa;

import java.util.List;

/**
 * An external tool (Yosys, OpenSTA) that could not be started or that reported an error.
 * The message carries the tool's own error lines, so the user sees what the tool said.
 */
public final class ToolFailure extends RuntimeException {
  private final String tool;
  private final List<String> toolErrors;
  private final int exitCode;

  public ToolFailure(String tool, String summary, List<String> toolErrors) {
    this(tool, summary, toolErrors, -1);
  }

  public ToolFailure(String tool, String summary, List<String> toolErrors, int exitCode) {
    super(summary + (toolErrors.isEmpty() ? "" : "\n  " + String.join("\n  ", toolErrors)));
    this.tool = tool;
    this.toolErrors = List.copyOf(toolErrors);
    this.exitCode = exitCode;
  }

  /** The tool's exit code, or -1 when it did not exit by itself (not started, timed out). */
  public int exitCode() {
    return exitCode;
  }

  /** True when the tool died from a signal (exit code above 128, e.g. 139 for a segmentation fault). */
  public boolean crashed() {
    return exitCode > 128;
  }

  /** The tool's executable name, e.g. {@code yosys}. */
  public String tool() {
    return tool;
  }

  /** The error lines as the tool printed them. */
  public List<String> toolErrors() {
    return toolErrors;
  }
}
