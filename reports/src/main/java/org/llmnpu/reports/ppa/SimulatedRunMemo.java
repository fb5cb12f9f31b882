package org.llmnpu.reports.ppa;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.llmnpu.reports.activity.SimulatedActivity;

/**
 * OpenSTA's timing and power of a simulated run ({@link OpenSta#run} with an activity), kept in this JVM by the
 * content of everything that determines it: the design's top, its synthesis (netlist and SRAM macros), the PPA
 * options (clock, stated activities, clock port, flattening, liberty, cache, gate duties) and the run's activity
 * (every bit's toggles and time at one, its cycles and duration).
 *
 * <p>Why: the tool runs behind such a result are in the PPA cache already, but the work around them is not — on the
 * whole NPU (an 85 MB netlist) parsing the netlist, building the activity annotation and the read-data and tied
 * netlists, and hashing them into the tool runs' keys takes the JVM ~45 s per run. A job graph asks for the same run
 * twice: each whole-NPU power run as a job of its own ({@code energy:npu-<run>}), then the energy table that reads
 * it. The second ask takes the first's result here. The memo is per process and holds only the small results (no
 * netlist), at most {@value #CAPACITY}, least recently used dropped first; a process that never made the run (another
 * JVM) makes it again, through the PPA cache, with the same result.
 */
final class SimulatedRunMemo {
  static final int CAPACITY = 64;

  private static final Map<String, OpenSta.StaResult> RESULTS = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, OpenSta.StaResult> eldest) {
      return size() > CAPACITY;
    }
  };
  private static final ConcurrentHashMap<String, ReentrantLock> KEY_LOCKS = new ConcurrentHashMap<>();

  private SimulatedRunMemo() {
  }

  /**
   * The result of the run with these inputs, made by {@code run} unless this JVM made it before; callers asking for
   * the same absent key at the same time make it once.
   */
  static OpenSta.StaResult get(String top, SynthesisResult synth, PpaOptions o, SimulatedActivity activity,
                               Supplier<OpenSta.StaResult> run) {
    String key = key(top, synth, o, activity);
    OpenSta.StaResult hit = lookup(key);
    if (hit != null) {
      return hit;
    }
    ReentrantLock lock = KEY_LOCKS.computeIfAbsent(key, k -> new ReentrantLock());
    lock.lock();
    try {
      hit = lookup(key);
      if (hit != null) {
        return hit;
      }
      OpenSta.StaResult fresh = run.get();
      synchronized (RESULTS) {
        RESULTS.put(key, fresh);
      }
      return fresh;
    } finally {
      lock.unlock();
      KEY_LOCKS.remove(key, lock);
    }
  }

  private static OpenSta.StaResult lookup(String key) {
    synchronized (RESULTS) {
      return RESULTS.get(key);
    }
  }

  /** The SHA-256 of the run's inputs: the options and synthesis as text, then every activity bit in name order. */
  static String key(String top, SynthesisResult synth, PpaOptions o, SimulatedActivity activity) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part : List.of(top, synth.netlist(), synth.macros().toString(), String.valueOf(o.clockNs()),
          String.valueOf(o.activity()), o.portActivities().toString(), o.clockPort(), String.valueOf(o.flatten()),
          o.liberty().toString(), o.cache().root().toString(), o.gateDuties().toString(), activity.top(),
          activity.cycles() + " " + activity.duration())) {
        update(sha, part);
      }
      StringBuilder bit = new StringBuilder();
      for (Map.Entry<String, SimulatedActivity.BitStats> e : activity.bits().entrySet()) {
        bit.setLength(0);
        bit.append(e.getKey()).append(' ').append(e.getValue().toggles()).append(' ').append(e.getValue().timeHigh());
        update(sha, bit.toString());
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }

  /** A part, length-prefixed so that part boundaries matter. */
  private static void update(MessageDigest sha, String part) {
    byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
    sha.update((bytes.length + ":").getBytes(StandardCharsets.UTF_8));
    sha.update(bytes);
  }
}
