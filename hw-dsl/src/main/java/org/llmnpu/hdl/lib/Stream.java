package org.llmnpu.hdl.lib;

import static org.llmnpu.hdl.Hw.bool;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Bundle;
import org.llmnpu.hdl.Data;

/**
 * A valid/ready handshake carrying {@code payload}. A transfer happens in a cycle where
 * both {@code valid} and {@code ready} are high ({@link #fire()}). The producer drives
 * {@code valid} and {@code payload}; the consumer drives {@code ready} (flipped).
 */
public final class Stream<T extends Data> extends Bundle {
  public final Bool valid = bool();
  public final Bool ready = bool().flip();
  public final T payload;

  private Stream(T payload) {
    this.payload = payload;
  }

  /** A stream type carrying a fresh copy of {@code payloadType}. */
  @SuppressWarnings("unchecked")
  public static <T extends Data> Stream<T> of(T payloadType) {
    return new Stream<>((T) payloadType.copyType());
  }

  /** valid and ready: a word moves this cycle. */
  public Bool fire() {
    return valid.and(ready);
  }

  @Override
  public Stream<T> copyType() {
    return Stream.of(payload);
  }
}
