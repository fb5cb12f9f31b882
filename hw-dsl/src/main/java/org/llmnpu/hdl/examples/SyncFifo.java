package org.llmnpu.hdl.examples;

import static org.llmnpu.hdl.Hw.isPowerOfTwo;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.uint;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.lib.Stream;

/**
 * Synchronous first-word-fall-through FIFO on a memory of {@code depth} words.
 * {@code push.ready} = not full, {@code pop.valid} = not empty; a pushed word is visible
 * at {@code pop} one cycle after the push (push-to-pop latency 1). Full and empty come
 * from read/write pointers one bit wider than the address. {@code count} is the occupancy.
 */
public final class SyncFifo extends HwModule {
  /** {@code width} in 1..1024, {@code depth} a power of two in 2..65536. */
  public record Config(int width, int depth) {
    public Config {
      if (width < 1 || width > 1024) {
        throw new IllegalArgumentException("width must be in 1..1024, got " + width);
      }
      if (!isPowerOfTwo(depth) || depth < 2 || depth > 65536) {
        throw new IllegalArgumentException("depth must be a power of two in 2..65536, got " + depth);
      }
    }
  }

  public final Stream<UInt> push;
  public final Stream<UInt> pop;
  public final UInt count;
  private final Config config;

  public SyncFifo(Config c) {
    config = c;
    int addrBits = log2Ceil(c.depth());
    int ptrBits = addrBits + 1;
    push = slave(Stream.of(uint(c.width())));
    pop = master(Stream.of(uint(c.width())));
    count = out(uint(ptrBits));

    Mem<UInt> storage = mem("storage", uint(c.width()), c.depth());
    UInt wrPtr = regInit("wrPtr", uint(ptrBits), 0);
    UInt rdPtr = regInit("rdPtr", uint(ptrBits), 0);
    UInt occupancy = wire("occupancy", wrPtr.sub(rdPtr));
    Bool full = wire("full", occupancy.eq(c.depth()));
    Bool empty = wire("empty", occupancy.eq(0));

    push.ready.set(full.not());
    when(push.fire(), () -> {
      storage.write(wrPtr.lsbs(addrBits), push.payload);
      wrPtr.set(wrPtr.add(1));
    });

    pop.valid.set(empty.not());
    pop.payload.set(storage.readAsync(rdPtr.lsbs(addrBits)));
    when(pop.fire(), () -> rdPtr.set(rdPtr.add(1)));
    count.set(occupancy);
  }

  @Override
  public String moduleName() {
    return "SyncFifo_w" + config.width() + "_d" + config.depth();
  }

  /** Registers {@code fifo}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("fifo", "synchronous FIFO (first word falls through) with valid/ready streams",
          List.of(
            ParamSpec.integer("width", 8, 1, 1024, "bits per word"),
            ParamSpec.powerOfTwo("depth", 16, 2, 65536, "words of storage")),
          p -> new SyncFifo(new Config(p.getInt("width"), p.getInt("depth"))));
    }
  }
}
