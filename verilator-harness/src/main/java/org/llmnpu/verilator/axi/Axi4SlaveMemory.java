package org.llmnpu.verilator.axi;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.axi.Axi4ProtocolChecker.Channel;

/**
 * An AXI4 slave memory driven from Java, cycle by cycle, on a model's AXI4 master ports
 * {@code <prefix>awid, awaddr, awlen, awsize, awburst, awvalid, awready, wdata, wstrb, wlast, wvalid, wready,
 * bid, bresp, bvalid, bready, arid, araddr, arlen, arsize, arburst, arvalid, arready, rid, rdata, rresp, rlast,
 * rvalid, rready}, with {@link Axi4ProtocolChecker} watching the master (the first broken rule ends the run).
 *
 * <p>Each {@link #tick()} is one clock cycle: the slave's outputs are poked, the master's outputs peeked (a
 * model's outputs may depend combinationally on the slave's READY), handshakes taken, then the clock steps.
 * Behaviour ({@link Axi4MemoryConfig}): a read burst's first beat is presented {@code readLatency} cycles after
 * its AR handshake at the earliest; beats of one burst go back to back (no interleaving), at most one R beat and
 * one W beat every {@code cyclesPerBeat} cycles; with {@code reorder}, the next read burst (and write response)
 * is drawn at random among those whose latency has passed and that have no older one of the same ID pending;
 * WREADY waits for the burst's AW (the slave may, A3.3.1); random back-pressure holds AWREADY, WREADY and
 * ARREADY low; a B response comes {@code writeLatency} cycles after the last W beat at the earliest. Bytes
 * written are those whose WSTRB bit is set, at the beat's address aligned to the bus width; addresses beyond
 * the memory are answered DECERR (reads return zeros, writes are dropped). The slave's own VALID and payload
 * stay stable until READY, as the protocol requires of it.
 */
public final class Axi4SlaveMemory {
  private record ReadJob(Axi4Burst burst, long readyAt, long seq) {
  }

  private record Response(long id, int resp, long readyAt, long seq) {
  }

  private final Simulator sim;
  private final String p;
  private final int dataBytes;
  private final Axi4MemoryConfig config;
  private final byte[] memory;
  private final Random random;
  private final Axi4ProtocolChecker checker;
  private final List<ReadJob> reads = new ArrayList<>();
  private final Deque<Axi4Burst> writes = new ArrayDeque<>();
  private final List<Response> responses = new ArrayList<>();
  private ReadJob reading;
  private long readBeat;
  /** Whether an R beat is presented in this cycle. */
  private boolean readValid;
  private boolean writeFailed;
  private long writeBeat;
  private Response responding;
  private long nextReadBeatAt;
  private long nextWriteBeatAt;
  private long seq;
  private long lastReadSeq = -1;
  private long readBeats;
  private long writeBeats;
  private long readsOutOfOrder;
  private long readAddresses;
  private long firstReadAddressCycle = -1;
  private long lastWriteBeatCycle = -1;

  /** A memory on the ports with prefix {@code prefix} of a bus of {@code dataBytes} bytes (a power of two). */
  public Axi4SlaveMemory(Simulator sim, String prefix, int dataBytes, Axi4MemoryConfig config) {
    if (Integer.bitCount(dataBytes) != 1 || dataBytes > 128) {
      throw new IllegalArgumentException("dataBytes must be a power of two in 1..128, got " + dataBytes);
    }
    this.sim = sim;
    this.p = prefix;
    this.dataBytes = dataBytes;
    this.config = config;
    this.memory = new byte[config.sizeBytes()];
    this.random = new Random(config.seed());
    this.checker = new Axi4ProtocolChecker(dataBytes);
  }

  /** Copies {@code bytes} into the memory at {@code address}. */
  public void load(int address, byte[] bytes) {
    System.arraycopy(bytes, 0, memory, address, bytes.length);
  }

  /** The memory's bytes {@code [address, address + length)}. */
  public byte[] dump(int address, int length) {
    return java.util.Arrays.copyOfRange(memory, address, address + length);
  }

  public Axi4ProtocolChecker checker() {
    return checker;
  }

  public long readBeats() {
    return readBeats;
  }

  public long writeBeats() {
    return writeBeats;
  }

  /** AR handshakes (read bursts requested). */
  public long readAddresses() {
    return readAddresses;
  }

  /** The simulator cycle of the first AR handshake since {@link #clearTimestamps()}, or −1. */
  public long firstReadAddressCycle() {
    return firstReadAddressCycle;
  }

  /** The simulator cycle of the last W beat's handshake since {@link #clearTimestamps()}, or −1. */
  public long lastWriteBeatCycle() {
    return lastWriteBeatCycle;
  }

  /** Forgets the first AR and last W cycles (before a new run). */
  public void clearTimestamps() {
    firstReadAddressCycle = -1;
    lastWriteBeatCycle = -1;
  }

  /** Read bursts whose data came before that of a burst requested earlier (only with {@code reorder}). */
  public long readsOutOfOrder() {
    return readsOutOfOrder;
  }

  /**
   * Ticks until {@code port} reads {@code value} (checked before each cycle); returns the cycles ticked.
   * Throws naming the port, the limit and what is in flight when it does not happen within {@code maxCycles}.
   */
  public long runUntil(String port, long value, long maxCycles) {
    for (long n = 0; n <= maxCycles; n++) {
      if (sim.peekLong(port) == value) {
        return n;
      }
      tick();
    }
    throw new SimulationException(port + " did not reach " + value + " within " + maxCycles + " cycles (reads in "
        + "flight " + (reads.size() + (reading == null ? 0 : 1)) + ", write bursts " + writes.size() + ")");
  }

  /** One clock cycle; see the class comment. */
  public void tick() {
    long now = sim.cycle();
    presentReadData(now);
    presentWriteResponse(now);
    boolean arReady = reads.size() + (reading == null ? 0 : 1) < config.maxOutstandingReads() && !pressure();
    boolean awReady = writes.size() < 16 && !pressure();
    boolean wReady = !writes.isEmpty() && now >= nextWriteBeatAt && !pressure();
    sim.poke(p + "arready", arReady ? 1 : 0);
    sim.poke(p + "awready", awReady ? 1 : 0);
    sim.poke(p + "wready", wReady ? 1 : 0);

    Axi4Burst aw = addressChannel(now, Channel.AW, "aw", awReady);
    Axi4Burst ar = addressChannel(now, Channel.AR, "ar", arReady);
    boolean wValid = sim.peekLong(p + "wvalid") == 1;
    BigInteger[] w = wValid ? new BigInteger[] {sim.peek(p + "wdata"), sim.peek(p + "wstrb"), sim.peek(p + "wlast")}
        : new BigInteger[0];
    checker.observe(now, Channel.W, wValid, wReady, w, "wdata, wstrb, wlast");
    boolean rFire = readValid && sim.peekLong(p + "rready") == 1;
    boolean bFire = responding != null && sim.peekLong(p + "bready") == 1;

    if (aw != null && awReady) {
      writes.addLast(aw);
      checker.writeAddressAccepted(aw);
    }
    if (wValid && wReady) {
      acceptWriteBeat(now, w);
    }
    if (ar != null && arReady) {
      readAddresses++;
      if (firstReadAddressCycle < 0) {
        firstReadAddressCycle = now;
      }
      reads.add(new ReadJob(ar, now + config.readLatency(), seq++));
    }
    if (rFire) {
      readBeats++;
      nextReadBeatAt = now + config.cyclesPerBeat();
      if (readBeat++ == reading.burst().len()) {
        reading = null;
      }
    }
    if (bFire) {
      responding = null;
    }
    sim.step();
  }

  private Axi4Burst addressChannel(long now, Channel channel, String x, boolean ready) {
    boolean valid = sim.peekLong(p + x + "valid") == 1;
    if (!valid) {
      checker.observe(now, channel, false, ready, new BigInteger[0], "");
      return null;
    }
    BigInteger[] payload = {sim.peek(p + x + "id"), sim.peek(p + x + "addr"), sim.peek(p + x + "len"),
        sim.peek(p + x + "size"), sim.peek(p + x + "burst")};
    checker.observe(now, channel, true, ready, payload, x + "id, " + x + "addr, " + x + "len, " + x + "size, " + x
        + "burst");
    Axi4Burst b = new Axi4Burst(payload[0].longValue(), payload[1].longValue(), payload[2].longValue(),
        payload[3].intValue(), payload[4].intValue());
    checker.burst(now, channel, b);
    return b;
  }

  private void acceptWriteBeat(long now, BigInteger[] w) {
    Axi4Burst b = writes.peekFirst();
    checker.writeBeatAccepted(now, w[2].signum() != 0);
    long base = b.beatAddress(writeBeat) & -dataBytes;
    byte[] data = bytes(w[0]);
    for (int k = 0; k < dataBytes; k++) {
      if (w[1].testBit(k)) {
        if (base + k < memory.length) {
          memory[(int) (base + k)] = data[k];
        } else {
          writeFailed = true;
        }
      }
    }
    writeBeats++;
    lastWriteBeatCycle = now;
    nextWriteBeatAt = now + config.cyclesPerBeat();
    if (writeBeat++ == b.len()) {
      writes.removeFirst();
      responses.add(new Response(b.id(), writeFailed ? 3 : 0, now + config.writeLatency(), seq++));
      writeFailed = false;
      writeBeat = 0;
    }
  }

  private void presentReadData(long now) {
    readValid = false;
    if (reading == null) {
      int pick = pick(reads.stream().map(r -> new long[] {r.burst().id(), r.readyAt()}).toList(), now);
      if (pick < 0) {
        sim.poke(p + "rvalid", 0);
        return;
      }
      reading = reads.remove(pick);
      readBeat = 0;
      if (reading.seq() < lastReadSeq) {
        readsOutOfOrder++;
      }
      lastReadSeq = Math.max(lastReadSeq, reading.seq());
    }
    if (now < nextReadBeatAt) {
      sim.poke(p + "rvalid", 0);
      return;
    }
    Axi4Burst b = reading.burst();
    long base = b.beatAddress(readBeat) & -dataBytes;
    boolean inside = base + dataBytes <= memory.length;
    byte[] word = new byte[dataBytes];
    if (inside) {
      System.arraycopy(memory, (int) base, word, 0, dataBytes);
    }
    readValid = true;
    sim.poke(p + "rvalid", 1);
    sim.poke(p + "rid", b.id());
    sim.poke(p + "rdata", value(word));
    sim.poke(p + "rresp", inside ? 0 : 3);
    sim.poke(p + "rlast", readBeat == b.len() ? 1 : 0);
  }

  private void presentWriteResponse(long now) {
    if (responding == null) {
      int pick = pick(responses.stream().map(r -> new long[] {r.id(), r.readyAt()}).toList(), now);
      if (pick < 0) {
        sim.poke(p + "bvalid", 0);
        return;
      }
      responding = responses.remove(pick);
    }
    sim.poke(p + "bvalid", 1);
    sim.poke(p + "bid", responding.id());
    sim.poke(p + "bresp", responding.resp());
  }

  /**
   * Index of the next response among {@code (id, readyAt)} in request order, or −1: the oldest if its latency has
   * passed; with reorder, a random one of those ready that have no older entry of the same ID.
   */
  private int pick(List<long[]> queue, long now) {
    if (!config.reorder()) {
      return !queue.isEmpty() && queue.get(0)[1] <= now ? 0 : -1;
    }
    List<Integer> eligible = new ArrayList<>();
    java.util.Set<Long> idsSeen = new java.util.HashSet<>();
    for (int i = 0; i < queue.size(); i++) {
      if (idsSeen.add(queue.get(i)[0]) && queue.get(i)[1] <= now) {
        eligible.add(i);
      }
    }
    return eligible.isEmpty() ? -1 : eligible.get(random.nextInt(eligible.size()));
  }

  private boolean pressure() {
    return config.backPressure() > 0 && random.nextDouble() < config.backPressure();
  }

  private byte[] bytes(BigInteger v) {
    byte[] out = new byte[dataBytes];
    for (int k = 0; k < dataBytes; k++) {
      out[k] = v.shiftRight(8 * k).byteValue();
    }
    return out;
  }

  private static BigInteger value(byte[] littleEndian) {
    byte[] big = new byte[littleEndian.length + 1];
    for (int k = 0; k < littleEndian.length; k++) {
      big[big.length - 1 - k] = littleEndian[k];
    }
    return new BigInteger(big);
  }
}
