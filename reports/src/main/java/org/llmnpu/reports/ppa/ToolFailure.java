package org.llmnpu.reports.ppa;

import java.util.List;

/**
 * An external tool (Yosys, OpenSTA) that could not be started or that reported an error.
 * The message carries the tool's own error lines, so the user sees what the tool said.
 */
public final class ToolFailure extends RuntimeException {
  private final String tool;
  private final List<String> toolErrors;

  public ToolFailure(String tool, String summary, List<String> toolErrors) {
    super(summary + (toolErrors.isEmpty() ? "" : "\n  " + String.join("\n  ", toolErrors)));
    this.tool = tool;
    this.toolErrors = List.copyOf(toolErrors);
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
