package org.llmnpu.verilator;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.llmnpu.hdl.emit.VerilogDesign.PortInfo;
import org.llmnpu.hdl.sim.ExternalMemory;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;

/**
 * {@link Simulator} over the line protocol (verilator-harness/PROTOCOL.md). Commands are
 * buffered and sent when an answer is needed, so pokes and steps cost no round trip;
 * every command also goes to the replay file. No wait is unbounded: a model that sends
 * neither its answer nor a progress line (one every 65,536 simulated cycles) within the
 * timeout is killed, and that, or a model that exits, becomes a {@link SimulationException}
 * with the process's exit status and the tail of its standard error. A long run on a busy
 * machine is therefore never mistaken for a hang.
 */
final class ProtocolSimulator implements Simulator {
  private static final String EOF = "\u0000eof";
  private final String top;
  private final Map<String, Integer> ids = new LinkedHashMap<>();
  private final Map<String, PortInfo> ports = new LinkedHashMap<>();
  private final ModelConnection model;
  private final BufferedWriter out;
  private final Writer replay;
  private final BlockingQueue<String> answers = new ArrayBlockingQueue<>(1024);
  private final Duration timeout;
  private final Path replayFile;
  private final Path waveFile;
  private long cycles;
  private boolean closed;
  /** When the model last reported progress ({@link System#nanoTime()}), and at which cycle; -1 if never. */
  private volatile long progressNanos = System.nanoTime();
  private volatile long progressCycle = -1;

  ProtocolSimulator(String top, List<PortInfo> portList, ModelConnection model, Path runDir, Path waveFile,
                    Duration timeout) {
    this.top = top;
    for (int i = 0; i < portList.size(); i++) {
      ids.put(portList.get(i).name(), i);
      ports.put(portList.get(i).name(), portList.get(i));
    }
    this.model = model;
    this.timeout = timeout;
    this.waveFile = waveFile;
    this.replayFile = runDir.resolve("replay.txt");
    this.out = new BufferedWriter(new OutputStreamWriter(model.commands(), StandardCharsets.US_ASCII), 1 << 16);
    try {
      this.replay = Files.newBufferedWriter(replayFile, StandardCharsets.US_ASCII);
      replay.write("# replay of a simulation of " + top + ": run the model with  ./sim < replay.txt\n");
    } catch (IOException e) {
      throw new SimulationException("cannot write " + replayFile, e);
    }
    Thread reader = new Thread(this::readAnswers, "model-answers-" + top);
    reader.setDaemon(true);
    reader.start();
  }

  private void readAnswers() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(model.answers(), StandardCharsets.US_ASCII))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith(". ")) {
          progressCycle = Long.parseLong(line.substring(2).trim());
          progressNanos = System.nanoTime();
        } else {
          answers.put(line);
        }
      }
    } catch (IOException | InterruptedException e) {
      // the model ended; the waiting side reports it
    }
    answers.offer(EOF);
  }

  private void send(String command) {
    if (closed) {
      throw new SimulationException("simulation of " + top + " is closed");
    }
    try {
      out.write(command);
      out.write('\n');
      replay.write(command);
      replay.write('\n');
    } catch (IOException e) {
      throw failure("cannot send '" + command + "'", e);
    }
  }

  private String ask(String command) {
    send(command);
    try {
      out.flush();
      replay.flush();
      String line = awaitAnswer();
      if (line == null) {
        model.close();
        long last = progressCycle;
        throw failure("no answer to '" + command + "' and no progress within " + timeout.toSeconds()
            + " s (model killed" + (last < 0 ? "" : "; its last progress report was at cycle " + last) + ")", null);
      }
      if (line.equals(EOF)) {
        answers.offer(EOF);
        throw failure("the model exited while answering '" + command + "'", null);
      }
      return line;
    } catch (IOException e) {
      throw failure("the model stopped reading commands ('" + command + "')", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure("interrupted while waiting for the model", e);
    }
  }

  /** The next answer, or null once {@code timeout} has passed since the later of now and the last progress. */
  private String awaitAnswer() throws InterruptedException {
    long start = System.nanoTime();
    long limit = timeout.toNanos();
    while (true) {
      long last = progressNanos;
      long since = last - start > 0 ? last : start;
      long remaining = since + limit - System.nanoTime();
      if (remaining <= 0) {
        return null;
      }
      String line = answers.poll(Math.min(remaining, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
      if (line != null) {
        return line;
      }
    }
  }

  private SimulationException failure(String what, Throwable cause) {
    return new SimulationException("simulation of " + top + " at cycle " + cycles + ": " + what + "\n"
        + model.diagnostics() + "\nreplay: " + replayFile, cause);
  }

  private int id(String port) {
    Integer id = ids.get(port);
    if (id == null) {
      throw new IllegalArgumentException("no port '" + port + "' on " + top + "; ports: " + String.join(", ", ids.keySet()));
    }
    return id;
  }

  private static String hex(BigInteger value, int width) {
    BigInteger mask = BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
    return value.and(mask).toString(16);
  }

  @Override
  public void poke(String port, BigInteger value) {
    PortInfo p = ports.get(port);
    int id = id(port);
    if (!p.input()) {
      throw new IllegalArgumentException("port '" + port + "' of " + top + " is an output; only inputs can be poked");
    }
    send("p " + id + " " + hex(value, p.width()));
  }

  @Override
  public BigInteger peek(String port) {
    int id = id(port);
    String answer = ask("g " + id);
    try {
      return new BigInteger(answer, 16);
    } catch (NumberFormatException e) {
      throw failure("unexpected answer '" + answer + "' to a peek of " + port, e);
    }
  }

  @Override
  public BigInteger peekSigned(String port) {
    BigInteger v = peek(port);
    int w = ports.get(port).width();
    return v.testBit(w - 1) ? v.subtract(BigInteger.ONE.shiftLeft(w)) : v;
  }

  @Override
  public void step(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("cycles must be >= 0, got " + n);
    }
    if (n > 0) {
      send("s " + n);
      cycles += n;
    }
  }

  /** Reset port names the simulator knows, active high then active low. */
  private static final java.util.List<String> RESETS_HIGH = java.util.List.of("reset", "rst");
  private static final java.util.List<String> RESETS_LOW = java.util.List.of("reset_n", "rst_n", "resetn", "aresetn",
      "areset_n");

  @Override
  public void reset(int n) {
    for (String name : RESETS_HIGH) {
      if (ports.containsKey(name)) {
        poke(name, 1);
        step(n);
        poke(name, 0);
        return;
      }
    }
    for (String name : RESETS_LOW) {
      if (ports.containsKey(name)) {
        poke(name, 0);
        step(n);
        poke(name, 1);
        return;
      }
    }
    throw new IllegalArgumentException(top + " has no reset port (one of " + RESETS_HIGH + ", active high, or "
        + RESETS_LOW + ", active low); poke its reset port directly");
  }

  @Override
  public long runUntil(String port, BigInteger value, long maxCycles) {
    PortInfo p = ports.get(port);
    int id = id(port);
    String answer = ask("u " + id + " " + hex(value, p.width()) + " " + maxCycles);
    String[] parts = answer.split(" ");
    long n = Long.parseLong(parts[1]);
    cycles += n;
    if (!parts[0].equals("ok")) {
      throw new SimulationException(String.format("%s: port '%s' did not become 0x%s within %d cycles "
          + "(ran %d cycles, now at cycle %d); replay: %s", top, port, value.toString(16), maxCycles, n, cycles,
          replayFile));
    }
    return n;
  }

  @Override
  public long cycle() {
    return cycles;
  }

  private static final int LOAD_CHUNK = 1 << 15;

  /** The C++ memory model of this model (designs with a memory port, see MemoryPortSource). */
  @Override
  public ExternalMemory externalMemory() {
    if (MemoryPortSource.prefix(new java.util.ArrayList<>(ports.values())).isEmpty()) {
      throw new UnsupportedOperationException(top + " has no memory port (P_req_valid ... P_resp_data)");
    }
    return new ExternalMemory() {
      private int beat;

      @Override
      public void configure(long bytes, int latency, int beatInterval) {
        if (bytes < 1 || latency < 1 || beatInterval < 1) {
          throw new IllegalArgumentException("memory bytes, latency and beat interval must be >= 1, got " + bytes
              + ", " + latency + ", " + beatInterval);
        }
        String answer = ask("M " + bytes + " " + latency + " " + beatInterval);
        if (!answer.startsWith("ok ")) {
          throw failure("memory configuration refused: " + answer, null);
        }
        beat = Integer.parseInt(answer.substring(3).trim());
      }

      @Override
      public int beatBytes() {
        return beat;
      }

      @Override
      public void load(long address, byte[] data) {
        StringBuilder b = new StringBuilder(2 * LOAD_CHUNK + 32);
        for (int off = 0; off < data.length; off += LOAD_CHUNK) {
          int n = Math.min(LOAD_CHUNK, data.length - off);
          b.setLength(0);
          b.append("L ").append(Long.toHexString(address + off)).append(' ');
          for (int i = 0; i < n; i++) {
            b.append(Character.forDigit((data[off + i] >> 4) & 15, 16)).append(Character.forDigit(data[off + i] & 15, 16));
          }
          sendBulk(b.toString());
        }
      }

      @Override
      public byte[] dump(long address, int length) {
        byte[] out = new byte[length];
        for (int off = 0; off < length; off += LOAD_CHUNK) {
          int n = Math.min(LOAD_CHUNK, length - off);
          String hex = ask("D " + Long.toHexString(address + off) + " " + n);
          if (hex.length() != 2 * n) {
            throw failure("memory dump of " + n + " bytes at 0x" + Long.toHexString(address + off) + " returned "
                + hex.length() / 2 + " bytes", null);
          }
          for (int i = 0; i < n; i++) {
            out[off + i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
          }
        }
        return out;
      }

      @Override
      public long runUntilNonZero(String port, long maxCycles) {
        String answer = ask("r " + id(port) + " " + maxCycles);
        String[] parts = answer.split(" ");
        long n = Long.parseLong(parts[1]);
        cycles += n;
        if (!parts[0].equals("ok")) {
          throw new SimulationException(String.format("%s: port '%s' stayed 0 for %d cycles (now at cycle %d); "
              + "replay: %s", top, port, n, cycles, replayFile));
        }
        return n;
      }

      @Override
      public long faults() {
        return Long.parseLong(ask("E").split(" ")[0]);
      }

      @Override
      public long[] beats() {
        String[] parts = ask("E").split(" ");
        return new long[] {Long.parseLong(parts[2]), Long.parseLong(parts[3])};
      }
    };
  }

  /** Sends a bulk-load line (it goes to the replay file like every command). */
  private void sendBulk(String command) {
    send(command);
  }

  /** The cycle count as the model itself reports it. */
  long modelCycle() {
    return Long.parseLong(ask("c"));
  }

  @Override
  public void waves(boolean on) {
    if (waveFile == null) {
      throw new IllegalStateException("this model was built without waveforms; set SimOptions waves to VCD or FST");
    }
    send("w " + (on ? 1 : 0));
  }

  @Override
  public Path waveFile() {
    return waveFile;
  }

  @Override
  public Path replayFile() {
    return replayFile;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    try {
      String bye = ask("q");
      if (!bye.startsWith("bye")) {
        throw failure("unexpected answer '" + bye + "' to quit", null);
      }
    } finally {
      closed = true;
      try {
        replay.close();
      } catch (IOException e) {
        // the replay file is advisory
      }
      model.close();
    }
  }
}
