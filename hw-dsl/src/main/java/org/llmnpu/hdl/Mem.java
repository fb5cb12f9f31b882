package org.llmnpu.hdl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.ir.Literal;
import org.llmnpu.hdl.ir.MemRead;
import org.llmnpu.hdl.ir.MemoryNode;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Signal.Role;
import org.llmnpu.hdl.ir.Stmt;

/**
 * A memory array. Writes happen at the clock edge of the memory's domain (inside the
 * enclosing {@code when}s); {@link #readAsync} is combinational; {@link #readSync} returns
 * the word one cycle later. Emitted as a Verilog array so Verilator and Yosys infer memories.
 */
public final class Mem<T extends HwValue> {
  private final HwModule owner;
  private final MemoryNode node;
  private final T type;

  Mem(HwModule owner, MemoryNode node, T type) {
    this.owner = owner;
    this.node = node;
    this.type = type;
  }

  /** The memory node (for the emitter). */
  public MemoryNode node() {
    return node;
  }

  public int depth() {
    return node.depth;
  }

  public int addressWidth() {
    return node.addressWidth();
  }

  public void write(UInt address, T data) {
    owner.currentBlock().add(new Stmt.MemWrite(node, addr(address), data.expr(), null, SourceLocation.here()));
    node.writePorts = 1;
  }

  /** Writes lane {@code i} (width / mask width bits) only where {@code mask} bit {@code i} is set. */
  public void write(UInt address, T data, Bits mask) {
    if (mask.width() < 1 || node.width % mask.width() != 0) {
      throw new ElaborationException(SourceLocation.here(), "write mask of " + mask.width()
          + " lanes does not divide the " + node.width + "-bit word");
    }
    owner.currentBlock().add(new Stmt.MemWrite(node, addr(address), data.expr(), mask.expr(),
        SourceLocation.here()));
    node.writePorts = 1;
  }

  @SuppressWarnings("unchecked")
  public T readAsync(UInt address) {
    node.readPorts++;
    return (T) Ops.wrap(new MemRead(node, addr(address)));
  }

  /** The word at {@code address}, registered: valid in the next cycle. */
  public T readSync(UInt address) {
    return readSync(address, null);
  }

  /** As {@link #readSync(UInt)} but the output register only loads when {@code enable} is true. */
  @SuppressWarnings("unchecked")
  public T readSync(UInt address, Bool enable) {
    node.readPorts++;
    T data = (T) type.copyType();
    String hint = node.nameHint == null ? null : node.nameHint + "_rdata" + (node.readPorts > 1 ? node.readPorts : "");
    SourceLocation.CallSite site = SourceLocation.callSite();
    Signal s = new Signal(Role.REG, node.width, node.kind, owner, site.location(), hint, node.domain, null);
    s.aggregatePath = "";
    s.variable = site.variable() != null ? owner.scopedName(site.variable())
        : node.variable == null ? null : node.variable + "_rdata" + (node.readPorts > 1 ? node.readPorts : "");
    data.bind(s);
    owner.signals.add(s);
    MemRead read = new MemRead(node, addr(address));
    Stmt.Assign assign = new Stmt.Assign(s, read, SourceLocation.here());
    if (enable == null) {
      owner.currentBlock().add(assign);
    } else {
      Stmt.When w = new Stmt.When(enable.expr(), SourceLocation.here());
      w.thenBody().add(assign);
      owner.currentBlock().add(w);
    }
    return data;
  }

  /** Initial contents, word 0 first; words past the list start at zero. */
  public Mem<T> init(List<BigInteger> words) {
    if (words.size() > node.depth) {
      throw new ElaborationException(SourceLocation.here(), "init has " + words.size()
          + " words but the memory holds " + node.depth);
    }
    List<BigInteger> bits = new ArrayList<>();
    for (BigInteger w : words) {
      Literal l = Ops.literal(node.kind, node.width, w);
      bits.add(l.bits);
    }
    node.init = bits;
    return this;
  }

  public Mem<T> init(long... words) {
    List<BigInteger> list = new ArrayList<>();
    for (long w : words) {
      list.add(BigInteger.valueOf(w));
    }
    return init(list);
  }

  private org.llmnpu.hdl.ir.Expr addr(UInt address) {
    if (address.width() > node.addressWidth()) {
      throw new ElaborationException(SourceLocation.here(), "address " + address + " is wider than the "
          + node.addressWidth() + " bits needed for depth " + node.depth + "; resize it");
    }
    return Ops.extend(address.expr(), node.addressWidth());
  }
}
