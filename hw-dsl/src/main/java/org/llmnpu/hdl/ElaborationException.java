package org.llmnpu.hdl;

/**
 * A design error found while building or checking a design. The message starts with the
 * user's Java file:line and names the signals involved.
 */
public final class ElaborationException extends RuntimeException {
  private final SourceLocation location;

  public ElaborationException(SourceLocation location, String message) {
    super(location + ": " + message);
    this.location = location;
  }

  public SourceLocation location() {
    return location;
  }
}
