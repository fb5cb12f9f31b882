package org.llmnpu.hdl.ir;

import java.math.BigInteger;
import java.util.List;
import org.llmnpu.hdl.ClockDomain;
import org.llmnpu.hdl.Kind;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SourceLocation;

/** A memory array of {@code depth} words of {@code width} bits. */
public final class MemoryNode {
  public final HwModule owner;
  public final int width;
  public final int depth;
  public final Kind kind;
  public final ClockDomain domain;
  public final SourceLocation location;
  public String nameHint;
  /** The Java variable or field the user's code stores the memory in (section-prefixed), or null. */
  public String variable;
  public String name;
  /** Initial contents, word 0 first (may be shorter than depth; the rest is zero), or null. */
  public List<BigInteger> init;
  public int readPorts;
  public int writePorts;

  public MemoryNode(HwModule owner, int width, int depth, Kind kind, ClockDomain domain,
                    SourceLocation location, String nameHint) {
    this.owner = owner;
    this.width = width;
    this.depth = depth;
    this.kind = kind;
    this.domain = domain;
    this.location = location;
    this.nameHint = nameHint;
  }

  public int addressWidth() {
    return Math.max(1, 32 - Integer.numberOfLeadingZeros(depth - 1));
  }
}
