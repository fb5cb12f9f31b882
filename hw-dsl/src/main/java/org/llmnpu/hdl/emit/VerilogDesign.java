package org.llmnpu.hdl.emit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Verilog of one elaborated design: one file per module (deduplicated), the top
 * module's name, and the memories it contains (for SRAM-macro area models).
 *
 * @param top      name of the top module
 * @param files    file name to Verilog text, leaves first, top last
 * @param memories every memory array in the design, one entry per module definition
 * @param ports    the top module's ports in declaration order
 * @param flattened modules (not the top) that synthesis flattens into their parents
 *                 ({@code HwModule#flattenInSynthesis}), sorted
 * @param gatedBanks every register bank on a gated clock ({@code HwModule#clockGated}), one per instance, in
 *                 hierarchy order
 * @param registerBits the register bits of the whole design (every instance), for the share of the gated banks
 */
public record VerilogDesign(String top, Map<String, String> files, List<MemoryInfo> memories, List<PortInfo> ports,
                            List<String> flattened, List<GatedBankInfo> gatedBanks, long registerBits) {
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A port of the top module. */
  public record PortInfo(String name, int width, boolean input, boolean signed) {
  }

  /** A design whose top-level ports are not described (hand-written Verilog). */
  public VerilogDesign(String top, Map<String, String> files, List<MemoryInfo> memories) {
    this(top, files, memories, List.of());
  }

  /**
   * A gated register bank of one instance.
   *
   * @param path         the instance path and the bank's name ({@code back.gemm}); the top's banks have no path
   * @param mode         {@code on} or {@code checked} ({@code off} banks are not listed)
   * @param registerBits register bits on its gated clock
   */
  public record GatedBankInfo(String path, String mode, long registerBits) {
  }

  /** A design without gated clocks (or whose gating is not described). */
  public VerilogDesign(String top, Map<String, String> files, List<MemoryInfo> memories, List<PortInfo> ports,
                       List<String> flattened) {
    this(top, files, memories, ports, flattened, List.of(), 0);
  }

  /** The register bits on gated clocks, all banks together. */
  public long gatedRegisterBits() {
    return gatedBanks.stream().mapToLong(GatedBankInfo::registerBits).sum();
  }

  /** A design whose modules all keep their hierarchy in synthesis. */
  public VerilogDesign(String top, Map<String, String> files, List<MemoryInfo> memories, List<PortInfo> ports) {
    this(top, files, memories, ports, List.of());
  }

  /** A memory array of a module: {@code depth} words of {@code width} bits. */
  public record MemoryInfo(String module, String name, int width, int depth, int readPorts, int writePorts) {
    public long bits() {
      return (long) width * depth;
    }
  }

  public VerilogDesign {
    files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
    memories = List.copyOf(memories);
    ports = List.copyOf(ports);
    flattened = List.copyOf(flattened);
    gatedBanks = List.copyOf(gatedBanks);
  }

  /** The filelist {@code <top>.f}: one file name per line, leaves first. */
  public String filelist() {
    return String.join("\n", files.keySet()) + "\n";
  }

  /**
   * Writes every file and {@code <top>.f} into {@code dir}, each atomically (temp file then
   * rename), so a reader never sees half a file.
   */
  public void writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
      for (var e : files.entrySet()) {
        writeAtomically(dir.resolve(e.getKey()), e.getValue());
      }
      writeAtomically(dir.resolve(top + ".f"), filelist());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write Verilog to " + dir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes text to a file through a temporary sibling and an atomic rename. The file gets the
   * mode any new file gets under the process's umask (0644 under umask 022), like a plain
   * {@code Files.write}, so containers and artifact collectors running as other users can read it.
   */
  public static void writeAtomically(Path file, String text) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path tmp = parent.resolve("." + file.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
    try {
      // Not Files.createTempFile: it makes the file 0600 whatever the umask.
      Files.writeString(tmp, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
