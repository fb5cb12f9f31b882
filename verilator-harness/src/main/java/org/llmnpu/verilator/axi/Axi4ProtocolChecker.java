package org.llmnpu.verilator.axi;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumMap;
import java.util.Map;

/**
 * Checks, cycle by cycle, the AXI4 rules a master must keep (ARM IHI 0022, sections A3.2–A3.4), on what
 * {@link Axi4SlaveMemory} sees at its ports. The first rule broken ends the run with an
 * {@link Axi4ProtocolViolation}. {@link #checks()} counts how often each rule was checked, for coverage figures.
 */
public final class Axi4ProtocolChecker {
  /** The rules checked. */
  public enum Rule {
    VALID_DROPPED("a VALID, once high, must stay high until the handshake"),
    PAYLOAD_CHANGED("the payload must not change while VALID is high and READY low"),
    BURST_CROSSES_4KB("an INCR burst must not cross a 4 KiB boundary"),
    LEN_TOO_LONG("INCR bursts have at most 256 beats, FIXED at most 16, WRAP 2, 4, 8 or 16"),
    SIZE_TOO_WIDE("AxSIZE must not exceed the data bus width"),
    BURST_RESERVED("AxBURST 0b11 is reserved"),
    WRAP_UNALIGNED("a WRAP burst's address must be aligned to its transfer size"),
    WLAST_EARLY("WLAST must not be high before the burst's last beat"),
    WLAST_MISSING("WLAST must be high on the burst's last beat");

    final String text;

    Rule(String text) {
      this.text = text;
    }
  }

  /** The five channels; the master drives VALID on AW, W, AR and READY on B, R. */
  public enum Channel { AW, W, B, AR, R }

  private final int dataBytes;
  private final Map<Channel, BigInteger[]> waiting = new EnumMap<>(Channel.class);
  private final Map<Rule, Long> checks = new EnumMap<>(Rule.class);
  /** AW bursts accepted whose W beats have not all been seen. */
  private final Deque<Axi4Burst> writeBursts = new ArrayDeque<>();
  private long beatOfBurst;

  /** A checker for a data bus of {@code dataBytes} bytes. */
  public Axi4ProtocolChecker(int dataBytes) {
    this.dataBytes = dataBytes;
    for (Rule r : Rule.values()) {
      checks.put(r, 0L);
    }
  }

  /**
   * One cycle of a master-driven VALID channel (AW, W or AR): VALID, READY and the payload as seen before the
   * clock edge. {@code payload} holds every payload port in a fixed order; {@code names} says which is which.
   */
  public void observe(long cycle, Channel channel, boolean valid, boolean ready, BigInteger[] payload, String names) {
    BigInteger[] before = waiting.get(channel);
    if (before != null) {
      count(Rule.VALID_DROPPED);
      if (!valid) {
        throw new Axi4ProtocolViolation(Rule.VALID_DROPPED, cycle, channel + "VALID fell without a handshake");
      }
      count(Rule.PAYLOAD_CHANGED);
      if (!Arrays.equals(before, payload)) {
        throw new Axi4ProtocolViolation(Rule.PAYLOAD_CHANGED, cycle, channel + " payload (" + names + ") changed from "
            + Arrays.toString(before) + " to " + Arrays.toString(payload) + " while waiting for READY");
      }
    }
    if (valid && !ready) {
      waiting.put(channel, payload.clone());
    } else {
      waiting.remove(channel);
    }
  }

  /** Checks a burst presented on AW or AR (every cycle its VALID is high). */
  public void burst(long cycle, Channel channel, Axi4Burst b) {
    count(Rule.BURST_RESERVED);
    if (b.type() == 3) {
      throw new Axi4ProtocolViolation(Rule.BURST_RESERVED, cycle, channel + " " + b);
    }
    count(Rule.SIZE_TOO_WIDE);
    if ((1L << b.size()) > dataBytes) {
      throw new Axi4ProtocolViolation(Rule.SIZE_TOO_WIDE, cycle, channel + " " + b + ": " + (1L << b.size())
          + " bytes per beat on a " + dataBytes + "-byte bus");
    }
    count(Rule.LEN_TOO_LONG);
    boolean lenOk = switch (b.type()) {
      case Axi4Burst.FIXED -> b.beats() <= 16;
      case Axi4Burst.WRAP -> b.beats() == 2 || b.beats() == 4 || b.beats() == 8 || b.beats() == 16;
      default -> b.beats() <= 256;
    };
    if (!lenOk) {
      throw new Axi4ProtocolViolation(Rule.LEN_TOO_LONG, cycle, channel + " " + b + ": " + b.beats() + " beats");
    }
    if (b.type() == Axi4Burst.WRAP) {
      count(Rule.WRAP_UNALIGNED);
      if ((b.address() & ((1L << b.size()) - 1)) != 0) {
        throw new Axi4ProtocolViolation(Rule.WRAP_UNALIGNED, cycle, channel + " " + b);
      }
    }
    count(Rule.BURST_CROSSES_4KB);
    if (b.crosses4KiB()) {
      throw new Axi4ProtocolViolation(Rule.BURST_CROSSES_4KB, cycle, channel + " " + b);
    }
  }

  /** An AW handshake: the burst whose W beats come next after those of earlier AWs. */
  public void writeAddressAccepted(Axi4Burst b) {
    writeBursts.addLast(b);
  }

  /** A W handshake with its WLAST; the slave accepts W beats only for bursts whose AW it has. */
  public void writeBeatAccepted(long cycle, boolean last) {
    Axi4Burst b = writeBursts.peekFirst();
    if (b == null) {
      throw new IllegalStateException("W beat accepted before its AW; the memory model waits for AW");
    }
    boolean lastBeat = beatOfBurst == b.len();
    if (last && !lastBeat) {
      count(Rule.WLAST_EARLY);
      throw new Axi4ProtocolViolation(Rule.WLAST_EARLY, cycle, "WLAST on beat " + (beatOfBurst + 1) + " of "
          + b.beats() + " (" + b + ")");
    }
    count(Rule.WLAST_EARLY);
    count(Rule.WLAST_MISSING);
    if (lastBeat && !last) {
      throw new Axi4ProtocolViolation(Rule.WLAST_MISSING, cycle, "WLAST low on beat " + b.beats() + " of "
          + b.beats() + " (" + b + ")");
    }
    beatOfBurst++;
    if (lastBeat) {
      writeBursts.removeFirst();
      beatOfBurst = 0;
    }
  }

  /** How many times each rule was checked so far. */
  public Map<Rule, Long> checks() {
    return java.util.Collections.unmodifiableMap(checks);
  }

  private void count(Rule r) {
    checks.merge(r, 1L, Long::sum);
  }
}
