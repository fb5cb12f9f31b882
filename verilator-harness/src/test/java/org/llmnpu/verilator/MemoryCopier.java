package org.llmnpu.verilator;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * A test design with a memory port: copies {@code count} beats of {@code bytes} bytes from
 * {@code src} to {@code dst}, one beat at a time (read, wait for the data, write it with every
 * strobe set except, on the last beat, the top byte). {@code done} is a register.
 */
final class MemoryCopier extends HwModule {
  final Bool start = in(bool());
  final UInt src = in(uint(32));
  final UInt dst = in(uint(32));
  final UInt count = in(uint(16));
  final Bool done = out(bool());
  final Bool mem_req_valid = out("mem_req_valid", bool());
  final Bool mem_req_ready = in("mem_req_ready", bool());
  final Bool mem_req_write = out("mem_req_write", bool());
  final UInt mem_req_addr = out("mem_req_addr", uint(32));
  final UInt mem_req_wdata;
  final Bits mem_req_wstrb;
  final Bool mem_resp_valid = in("mem_resp_valid", bool());
  final UInt mem_resp_data;

  MemoryCopier(int bytes) {
    mem_req_wdata = out("mem_req_wdata", uint(8 * bytes));
    mem_req_wstrb = out("mem_req_wstrb", bits(bytes));
    mem_resp_data = in("mem_resp_data", uint(8 * bytes));
    // state: 0 idle, 1 read, 2 wait, 3 write, 4 done
    UInt state = regInit("state", uint(3), 0);
    UInt index = regInit("index", uint(16), 0);
    UInt data = regInit("data", uint(8 * bytes), 0);
    Bool fire = wire("fire", mem_req_valid.and(mem_req_ready));
    UInt offset = wire("offset", index.resize(32).mul(uintLit(bytes, 32)).resize(32));
    mem_req_valid.set(state.eq(1).or(state.eq(3)));
    mem_req_write.set(state.eq(3));
    mem_req_addr.set(mux(state.eq(3), dst.add(offset), src.add(offset)));
    mem_req_wdata.set(data);
    Bool last = wire("last", index.eq(count.sub(1)));
    Bits all = wire("all", org.llmnpu.hdl.Hw.bitsLit((1L << bytes) - 1, bytes));
    Bits allButTop = wire("allButTop", org.llmnpu.hdl.Hw.bitsLit((1L << (bytes - 1)) - 1, bytes));
    mem_req_wstrb.set(mux(last, allButTop, all));
    done.set(state.eq(4));
    when(state.eq(0).and(start), () -> {
      state.set(uintLit(1, 3));
      index.set(uintLit(0, 16));
    }).elseWhen(state.eq(1).and(fire), () -> state.set(uintLit(2, 3)))
        .elseWhen(state.eq(2).and(mem_resp_valid), () -> {
          data.set(mem_resp_data);
          state.set(uintLit(3, 3));
        }).elseWhen(state.eq(3).and(fire), () -> {
          index.set(index.add(1));
          state.set(mux(last, uintLit(4, 3), uintLit(1, 3)));
        });
  }

  private static <T extends org.llmnpu.hdl.HwValue> T mux(Bool c, T a, T b) {
    return org.llmnpu.hdl.Hw.mux(c, a, b);
  }

  @Override
  public String moduleName() {
    return "MemoryCopier_b" + mem_req_wstrb.width();
  }
}
