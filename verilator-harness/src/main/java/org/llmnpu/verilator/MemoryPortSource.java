package org.llmnpu.verilator;

import java.util.List;
import java.util.Optional;
import org.llmnpu.hdl.emit.VerilogDesign.PortInfo;

/**
 * The C++ external-memory model of the harness, generated for a design with a memory port: ports
 * {@code P_req_valid, P_req_write, P_req_addr, P_req_wdata, P_req_wstrb} (outputs of the design)
 * and {@code P_req_ready, P_resp_valid, P_resp_data} (inputs), for one prefix {@code P}. The data
 * width {@code 8·B} bits (B ≤ 64 bytes) is one beat.
 *
 * <p>Timing, per cycle t: a request fires when {@code req_valid && req_ready} at the falling
 * edge's evaluation. A write takes effect at once (byte lanes where {@code req_wstrb} is set);
 * a read returns the bytes at that moment in cycle {@code t + latency} ({@code resp_valid} high
 * one cycle per read, in order; the design must accept it). After a fire the memory is busy
 * {@code interval} cycles: {@code req_ready} is low until cycle {@code t + interval}, so the
 * bandwidth is {@code B / interval} bytes per cycle. An access outside the memory is counted as a
 * fault (reads return zeros, writes are dropped) and reported by the {@code E} command.
 */
final class MemoryPortSource {
  private MemoryPortSource() {
  }

  /** The prefix of the design's memory port, if it has exactly the ports above. */
  static Optional<String> prefix(List<PortInfo> ports) {
    for (PortInfo p : ports) {
      if (!p.input() && p.width() == 1 && p.name().endsWith("_req_valid")) {
        String prefix = p.name().substring(0, p.name().length() - "_req_valid".length());
        if (find(ports, prefix + "_resp_data").isPresent()) {
          return Optional.of(prefix);
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<PortInfo> find(List<PortInfo> ports, String name) {
    return ports.stream().filter(p -> p.name().equals(name)).findFirst();
  }

  private static PortInfo need(List<PortInfo> ports, String name, boolean input) {
    PortInfo p = find(ports, name).orElseThrow(() -> new IllegalArgumentException(
        "memory port: the design has no " + (input ? "input" : "output") + " port " + name));
    if (p.input() != input) {
      throw new IllegalArgumentException("memory port: " + name + " must be an " + (input ? "input" : "output"));
    }
    return p;
  }

  /** C++ definitions of memSample(), memUpdate(t), memInit(), memReset() and the data width. */
  static String generate(List<PortInfo> ports) {
    Optional<String> prefix = prefix(ports);
    if (prefix.isEmpty()) {
      return """
          static const int MEM_BEAT = 0;
          static std::vector<uint8_t> memBytes;
          static uint64_t memLatency = 1, memInterval = 1, memFaults = 0, memFirstFault = 0, memReads = 0, memWrites = 0;
          static void memInit() {}
          static void memReset() {}
          static void memSample() {}
          static void memUpdate(uint64_t) {}
          """;
    }
    String p = prefix.get();
    PortInfo data = need(ports, p + "_resp_data", true);
    need(ports, p + "_req_ready", true);
    need(ports, p + "_resp_valid", true);
    need(ports, p + "_req_write", false);
    need(ports, p + "_req_addr", false);
    PortInfo wdata = need(ports, p + "_req_wdata", false);
    PortInfo wstrb = need(ports, p + "_req_wstrb", false);
    int bytes = data.width() / 8;
    if (data.width() % 8 != 0 || bytes < 1 || bytes > 64 || wdata.width() != data.width() || wstrb.width() != bytes) {
      throw new IllegalArgumentException("memory port " + p + ": resp_data and req_wdata must be 8·B bits with "
          + "B in 1..64 and req_wstrb B bits; got " + data.width() + ", " + wdata.width() + ", " + wstrb.width());
    }
    boolean wide = data.width() > 64;
    String t = "top->" + p;
    String readW = wide
        ? "for (int i = 0; i < MEM_BEAT; i++) buf[i] = (uint8_t)(" + t + "_req_wdata[i / 4] >> (8 * (i % 4)));"
        : "{ uint64_t v = (uint64_t)" + t + "_req_wdata; for (int i = 0; i < MEM_BEAT; i++) buf[i] = (uint8_t)(v >> (8 * i)); }";
    String writeR = wide
        ? "for (int i = 0; i < MEM_BEAT / 4; i++) " + t + "_resp_data[i] = (uint32_t)buf[4*i] | (uint32_t)buf[4*i+1] << 8"
            + " | (uint32_t)buf[4*i+2] << 16 | (uint32_t)buf[4*i+3] << 24;"
        : "{ uint64_t v = 0; for (int i = MEM_BEAT - 1; i >= 0; i--) v = (v << 8) | buf[i]; " + t + "_resp_data = v; }";
    String clearR = wide ? "for (int i = 0; i < " + (data.width() + 31) / 32 + "; i++) " + t + "_resp_data[i] = 0;"
        : t + "_resp_data = 0;";
    return """
        static const int MEM_BEAT = @B@;
        struct MemRead { uint64_t due; uint8_t data[@B@]; };
        static std::vector<uint8_t> memBytes;
        static uint64_t memLatency = 1, memInterval = 1, memBusyUntil = 0, memFaults = 0, memFirstFault = 0;
        static uint64_t memReads = 0, memWrites = 0;
        static std::deque<MemRead> memPending;
        static bool memFire = false;

        static void memInit() {
          @T@_req_ready = 1;
          @T@_resp_valid = 0;
          @CLEAR@
        }

        // A configured memory is a new one: no read in flight (an interrupted run may leave some), not busy.
        static void memReset() {
          memPending.clear();
          memBusyUntil = 0;
          memFire = false;
          memInit();
        }

        static bool memInside(uint64_t a) {
          if (a + MEM_BEAT <= memBytes.size()) return true;
          if (memFaults++ == 0) memFirstFault = a;
          return false;
        }

        // At the falling edge: the request the design presents in this cycle, if the memory takes it.
        static void memSample() {
          memFire = @T@_req_valid && @T@_req_ready;
          if (!memFire) return;
          uint64_t a = (uint64_t)@T@_req_addr;
          uint8_t buf[@B@];
          if (@T@_req_write) {
            memWrites++;
            @READW@
            uint64_t strobe = (uint64_t)@T@_req_wstrb;
            if (memInside(a))
              for (int i = 0; i < MEM_BEAT; i++) if ((strobe >> i) & 1) memBytes[a + i] = buf[i];
          } else {
            memReads++;
            MemRead r;
            r.due = cycles + memLatency;
            if (memInside(a)) memcpy(r.data, &memBytes[a], MEM_BEAT); else memset(r.data, 0, MEM_BEAT);
            memPending.push_back(r);
          }
        }

        // After the rising edge of cycle t: drive the inputs of cycle t + 1.
        static void memUpdate(uint64_t t) {
          if (memFire) {
            memBusyUntil = t + memInterval;
            memFire = false;
          }
          @T@_req_ready = t + 1 >= memBusyUntil;
          if (!memPending.empty() && memPending.front().due <= t + 1) {
            uint8_t* buf = memPending.front().data;
            @WRITER@
            @T@_resp_valid = 1;
            memPending.pop_front();
          } else {
            @T@_resp_valid = 0;
          }
          dirty = true;
        }
        """.replace("@B@", Integer.toString(bytes)).replace("@T@", t).replace("@READW@", readW)
        .replace("@WRITER@", writeR).replace("@CLEAR@", clearR);
  }

  /** C++ of a function telling whether output {@code id} (any width) is non-zero, for the {@code r} command. */
  static String nonZero(List<PortInfo> ports) {
    StringBuilder b = new StringBuilder("static bool nonZero(int id) {\n  switch (id) {\n");
    for (int i = 0; i < ports.size(); i++) {
      PortInfo p = ports.get(i);
      if (p.width() <= 64) {
        b.append("    case ").append(i).append(": return top->").append(p.name()).append(" != 0;\n");
      } else {
        b.append("    case ").append(i).append(": for (int w = 0; w < ").append((p.width() + 31) / 32)
            .append("; w++) if (top->").append(p.name()).append("[w]) return true; return false;\n");
      }
    }
    return b.append("    default: fprintf(stderr, \"harness: no port %d\\n\", id); exit(3);\n  }\n}\n").toString();
  }
}
