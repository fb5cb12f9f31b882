package org.llmnpu.hdl.examples;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.gen.DeclaredGenerator;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * Register file on a memory: one write port with a byte mask ({@code width/8} lanes) and
 * {@code readPorts} synchronous read ports. A read returns the word at the address
 * presented in the previous cycle (latency 1); a read of the address being written returns
 * the old word. Contents start at zero.
 */
public final class RegisterFile extends HwModule {
  /** {@code width} a multiple of 8 in 8..512, {@code depth} in 2..4096, {@code readPorts} in 1..4. */
  public record Config(int width, int depth, int readPorts) {
    public Config {
      if (width < 8 || width > 512 || width % 8 != 0) {
        throw new IllegalArgumentException("width must be a multiple of 8 in 8..512, got " + width);
      }
      if (depth < 2 || depth > 4096) {
        throw new IllegalArgumentException("depth must be in 2..4096, got " + depth);
      }
      if (readPorts < 1 || readPorts > 4) {
        throw new IllegalArgumentException("readPorts must be in 1..4, got " + readPorts);
      }
    }
  }

  public final Bool writeEnable = in(bool());
  public final UInt writeAddress;
  public final UInt writeData;
  public final Bits writeMask;
  public final List<UInt> readAddress = new ArrayList<>();
  public final List<UInt> readData = new ArrayList<>();
  private final Config config;

  public RegisterFile(Config c) {
    config = c;
    int addrBits = Math.max(1, log2Ceil(c.depth()));
    writeAddress = in(uint(addrBits));
    writeData = in(uint(c.width()));
    writeMask = in(bits(c.width() / 8));
    for (int i = 0; i < c.readPorts(); i++) {
      readAddress.add(in(uint(addrBits)));
      readData.add(out(uint(c.width())));
    }
    Mem<UInt> words = mem("words", uint(c.width()), c.depth());
    words.init(new long[c.depth()]);
    when(writeEnable, () -> words.write(writeAddress, writeData, writeMask));
    for (int i = 0; i < c.readPorts(); i++) {
      readData.get(i).set(words.readSync(readAddress.get(i)));
    }
  }

  @Override
  public String moduleName() {
    return "RegisterFile_w" + config.width() + "_d" + config.depth() + "_r" + config.readPorts();
  }

  /** Registers {@code regfile}. */
  public static final class Generator extends DeclaredGenerator {
    public Generator() {
      super("regfile", "register file: masked write port, synchronous read ports",
          List.of(
            ParamSpec.integer("width", 32, 8, 512, "bits per word (multiple of 8)"),
            ParamSpec.integer("depth", 32, 2, 4096, "words"),
            ParamSpec.integer("readPorts", 2, 1, 4, "synchronous read ports")),
          p -> new RegisterFile(new Config(p.getInt("width"), p.getInt("depth"), p.getInt("readPorts"))));
    }
  }
}
