package org.llmnpu.hdl;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.Map;
import org.llmnpu.hdl.lib.Stream;

/** Small designs that exercise one language feature each; the tests lint and synthesize them. */
final class FeatureDesigns {
  private FeatureDesigns() {
  }

  /** A bundle with a flipped field. */
  static final class Req extends Bundle {
    public final UInt addr = uint(6);
    public final SInt data = sint(12);
    public final Bool ack = bool().flip();
  }

  /** Sections, switch, Vec, bundles, saturating arithmetic, a register file read. */
  static final class Sections extends HwModule {
    final Bool tick = in(bool());
    final UInt opcode = in(uint(2));
    final SInt a = in(sint(12));
    final SInt b = in(sint(12));
    final Vec<UInt> table = in(Vec.of(4, () -> uint(5)));
    final UInt pick = in(uint(2));
    final Req req = slave(new Req());
    final SInt result = out(sint(8));
    final UInt picked = out(uint(5));
    final UInt tickCount = out(uint(4));

    Sections() {
      section("tickCounter", () -> {
        UInt value = regInit("value", uint(4), 0);
        when(tick, () -> value.set(value.add(1)));
        tickCount.set(value);
      });
      section("alu", () -> {
        SInt wide = wire("wide", sint(13));
        wide.set(a.addExpand(b));
        switchOn(opcode, s -> {
          s.is(0, () -> wide.set(a.addExpand(b)));
          s.is(1, () -> wide.set(a.subExpand(b)));
          s.is(new long[] {2, 3}, () -> wide.set(a.max(b).resize(13)));
        });
        result.set(regNext("out", wide.saturate(8)));
      });
      picked.set(table.read(pick).xor(req.addr.lsbs(5)).or(req.data.saturate(6).asUInt().lsbs(5)));
      req.ack.set(req.addr.eq(uintLit(5, 6)));
    }
  }

  /** Asynchronous active-low reset with clock enable, in a second domain. */
  static final class AsyncDomain extends HwModule {
    final UInt d = in(uint(8));
    final UInt q = out(uint(8));
    final UInt qMain = out(uint(8));

    AsyncDomain() {
      ClockDomain fast = clockDomain("fast", ClockDomain.ResetKind.ASYNC, ClockDomain.Polarity.LOW, true);
      withDomain(fast, () -> {
        UInt r = regInit("r", uint(8), 0x5A);
        r.set(d);
        q.set(r);
      });
      qMain.set(regNext("sync_q", d));
    }
  }

  /** Stream passthrough through a FIFO instance, using bulk connect. */
  static final class StreamChain extends HwModule {
    final Stream<UInt> in = slave(Stream.of(uint(8)));
    final Stream<UInt> out = master(Stream.of(uint(8)));

    StreamChain() {
      var fifo = instance("fifo", new org.llmnpu.hdl.examples.SyncFifo(
          new org.llmnpu.hdl.examples.SyncFifo.Config(8, 4)));
      fifo.push.connectFrom(in);
      out.connectFrom(fifo.pop);
    }
  }

  /** A black box with parameters and its own source. */
  static final class Adder extends BlackBox {
    final UInt x = in(uint(8));
    final UInt y = in(uint(8));
    final UInt sum = out(uint(8));

    @Override
    public Map<String, Object> parameters() {
      return Map.of("WIDTH", 8);
    }

    @Override
    public String moduleName() {
      return "ext_adder";
    }

    @Override
    public String source() {
      return "module ext_adder #(parameter WIDTH = 4) (\n  input wire [WIDTH-1:0] x,\n"
          + "  input wire [WIDTH-1:0] y,\n  output wire [WIDTH-1:0] sum\n);\n  assign sum = x + y;\nendmodule\n";
    }
  }

  /** Instances a black box. */
  static final class UsesBlackBox extends HwModule {
    final UInt a = in(uint(8));
    final UInt s = out(uint(8));

    UsesBlackBox() {
      Adder add = instance("add", new Adder());
      add.x.set(a);
      add.y.set(a.not());
      s.set(add.sum);
    }
  }

  /** Masked memory writes, synchronous read with enable, initial contents. */
  static final class MaskedMemory extends HwModule {
    final Bool we = in(bool());
    final Bool re = in(bool());
    final UInt addr = in(uint(3));
    final UInt wdata = in(uint(16));
    final Bits mask = in(bits(2));
    final UInt rdata = out(uint(16));

    MaskedMemory() {
      Mem<UInt> m = mem("ram", uint(16), 8).init(1, 2, 3);
      when(we, () -> m.write(addr, wdata, mask));
      rdata.set(m.readSync(addr, re));
    }
  }

  /** A child whose ports are a bundle named by its fields alone, passed through by the parent. */
  static final class SharedPortsChild extends HwModule {
    final Req req = slave("", new Req());

    SharedPortsChild() {
      req.ack.set(req.addr.orR().and(req.data.lt(0)));
    }
  }

  /** The same bundle of ports on the parent, bulk-connected to the child: port names addr, data, ack. */
  static final class SharedPortsParent extends HwModule {
    final Req req = slave("", new Req());

    SharedPortsParent() {
      SharedPortsChild child = instance("child", new SharedPortsChild());
      child.req.connectFrom(req);
    }
  }

  /**
   * A parent that reads the inputs it drives into a child: a FIFO's push handshake counted
   * with {@code fifo.push.fire()}, and the payload it pushes compared with what it pops.
   */
  static final class ReadsChildInputs extends HwModule {
    final Stream<UInt> in = slave(Stream.of(uint(8)));
    final Stream<UInt> out = master(Stream.of(uint(8)));
    final UInt pushes = out(uint(16));
    final Bool lastPushedIsHead = out(bool());

    ReadsChildInputs() {
      org.llmnpu.hdl.examples.SyncFifo fifo = instance(new org.llmnpu.hdl.examples.SyncFifo(
          new org.llmnpu.hdl.examples.SyncFifo.Config(8, 4)));
      fifo.push.connectFrom(in);
      out.connectFrom(fifo.pop);
      UInt count = regInit(uint(16), 0);
      when(fifo.push.fire(), () -> count.set(count.add(1)));
      pushes.set(count);
      lastPushedIsHead.set(fifo.push.payload.eq(fifo.pop.payload));
    }
  }
}
