package org.llmnpu.hdl;

/**
 * A design error found while building or checking a design. The message starts with the
 * user's Java file:line and names the signals involved; when the user's source file is found
 * (see {@link SourceLines}) the line itself is quoted below the message.
 */
public final class ElaborationException extends RuntimeException {
  private final SourceLocation location;

  public ElaborationException(SourceLocation location, String message) {
    this(location, message, true);
  }

  /** As above; {@code quoteSource} false when the message already quotes the lines it names. */
  public ElaborationException(SourceLocation location, String message, boolean quoteSource) {
    super(location + ": " + message + (quoteSource ? SourceLines.quote(location) : ""));
    this.location = location;
  }

  public SourceLocation location() {
    return location;
  }
}
