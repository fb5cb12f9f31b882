package org.llmnpu.hdl;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Verilog module hw-dsl did not write, instanced as a black box with its ports read from the file's header
 * ({@link VerilogHeader} says which headers are accepted). Parameters given at the instance override the
 * defaults, are written as {@code #(.P(v))} and set the port widths; the file is carried verbatim into the
 * design's files, so the filelist, the FuseSoC core, Verilator and Yosys read it. Ports are reached by their
 * Verilog names: {@code uintPort("a")}, {@code sintPort}, {@code boolPort} (a 1-bit port without a range),
 * and checked like any instance's ports: a value wider than an input is an {@link ElaborationException} at
 * the Java line that connects it. The module's clock and reset ports, when named with {@link Builder#clock}
 * and {@link Builder#reset}, are its default clock domain and follow the parent's domain like any instance.
 *
 * <pre>{@code
 * ImportedVerilog fifo = instance("fifo", ImportedVerilog.file(Path.of("rtl/fifo.v")).module("fifo")
 *     .parameter("WIDTH", 12).clock("clk").reset("rst_n", ClockDomain.Polarity.LOW).build());
 * fifo.uintPort("din").set(data);
 * }</pre>
 */
public final class ImportedVerilog extends BlackBox {
  private final String fileName;
  private final String text;
  private final String module;
  private final Map<String, Object> parameters;
  private final Map<String, HwValue> portsByName = new LinkedHashMap<>();

  private ImportedVerilog(Builder b) {
    fileName = b.fileName;
    text = b.text;
    module = b.module;
    parameters = Collections.unmodifiableMap(new LinkedHashMap<>(b.parameters));
    VerilogHeader header = VerilogHeader.parse(fileName, text, module);
    List<VerilogHeader.Port> ports = header.resolve(parameters);
    if (b.clock != null) {
      String reset = b.reset == null ? null : b.reset;
      requirePort(ports, b.clock, "clock");
      if (reset != null) {
        requirePort(ports, reset, "reset");
      }
      defaultDomain(b.clock, reset == null ? "unused_reset" : reset, ClockDomain.ResetKind.SYNC, b.resetPolarity);
      portsByName.put(b.clock, defaultDomain().clock());
      if (reset != null) {
        portsByName.put(reset, defaultDomain().reset());
      }
    }
    for (VerilogHeader.Port p : ports) {
      if (portsByName.containsKey(p.name())) {
        continue;
      }
      HwValue type = p.signed() ? Hw.sint(p.width()) : header.ports().stream()
          .anyMatch(d -> d.name().equals(p.name()) && d.msb() == null) ? Hw.bool() : Hw.uint(p.width());
      portsByName.put(p.name(), p.output() ? out(p.name(), type) : in(p.name(), type));
    }
  }

  private void requirePort(List<VerilogHeader.Port> ports, String name, String role) {
    boolean found = ports.stream().anyMatch(p -> p.name().equals(name) && !p.output() && p.width() == 1);
    if (!found) {
      throw new ElaborationException(SourceLocation.here(), role + " `" + name + "` is not a 1-bit input of "
          + module + " (" + fileName + ")");
    }
  }

  /** Starts an import of a Verilog file read from disk (UTF-8); the design names it by its file name. */
  public static Builder file(Path path) {
    try {
      return new Builder(path.getFileName().toString(), Files.readString(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Verilog file " + path, e);
    }
  }

  /** Starts an import of a class-path resource (e.g. Verilog exported into a jar), named by its last path part. */
  public static Builder resource(Class<?> anchor, String name) {
    try (InputStream in = anchor.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no resource " + name + " next to " + anchor.getName());
      }
      return new Builder(name.substring(name.lastIndexOf('/') + 1),
          new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + name, e);
    }
  }

  /** Starts an import of Verilog text that the design will write as {@code fileName}. */
  public static Builder source(String fileName, String text) {
    return new Builder(fileName, text);
  }

  /** The port named {@code name} (UInt, SInt or Bool). */
  public HwValue port(String name) {
    HwValue p = portsByName.get(name);
    if (p == null) {
      throw new ElaborationException(SourceLocation.here(), module + " (" + fileName + ") has no port `" + name
          + "`; its ports are " + String.join(", ", portsByName.keySet()));
    }
    return p;
  }

  /** The module's ports by Verilog name, in header order (clock and reset included), for pass-through wrappers. */
  public Map<String, HwValue> ports() {
    return Collections.unmodifiableMap(portsByName);
  }

  /** The unsigned port {@code name} (declared with a range and without {@code signed}). */
  public UInt uintPort(String name) {
    return typed(name, UInt.class, "an unsigned vector");
  }

  /** The signed port {@code name}. */
  public SInt sintPort(String name) {
    return typed(name, SInt.class, "signed");
  }

  /** The 1-bit port {@code name} (declared without a range). */
  public Bool boolPort(String name) {
    return typed(name, Bool.class, "a 1-bit port without a range");
  }

  private <T extends HwValue> T typed(String name, Class<T> type, String what) {
    HwValue p = port(name);
    if (!type.isInstance(p)) {
      throw new ElaborationException(SourceLocation.here(), "port `" + name + "` of " + module + " is not " + what
          + " (it is " + p.getClass().getSimpleName() + "(" + p.width() + "))");
    }
    return type.cast(p);
  }

  @Override
  public Map<String, Object> parameters() {
    return parameters;
  }

  @Override
  public String moduleName() {
    return module;
  }

  @Override
  public String source() {
    return text;
  }

  @Override
  public String sourceFileName() {
    return fileName;
  }

  /** What to import: the file, the module in it, its parameter values and its clock and reset ports. */
  public static final class Builder {
    private final String fileName;
    private final String text;
    private String module;
    private final Map<String, Object> parameters = new LinkedHashMap<>();
    private String clock;
    private String reset;
    private ClockDomain.Polarity resetPolarity = ClockDomain.Polarity.HIGH;

    private Builder(String fileName, String text) {
      if (!fileName.endsWith(".v") && !fileName.endsWith(".sv")) {
        throw new IllegalArgumentException("Verilog file name must end in .v or .sv, got " + fileName);
      }
      this.fileName = fileName;
      this.text = text;
    }

    /** The module to instance (a file may hold several; all are read by the tools). */
    public Builder module(String name) {
      module = name;
      return this;
    }

    /** Overrides a parameter (Integer, Long, Boolean or String); the module must declare it. */
    public Builder parameter(String name, Object value) {
      if (!(value instanceof Integer || value instanceof Long || value instanceof Boolean
          || value instanceof String)) {
        throw new IllegalArgumentException("parameter " + name + ": value must be Integer, Long, Boolean or "
            + "String, got " + (value == null ? "null" : value.getClass().getSimpleName()));
      }
      parameters.put(name, value);
      return this;
    }

    /** Names the module's clock input: it is connected to the parent's clock. */
    public Builder clock(String port) {
      clock = port;
      return this;
    }

    /** Names the module's synchronous reset input and its polarity: connected to the parent's reset. */
    public Builder reset(String port, ClockDomain.Polarity polarity) {
      reset = port;
      resetPolarity = polarity;
      return this;
    }

    /** The black box, its ports read from the file's header for these parameter values. */
    public ImportedVerilog build() {
      if (module == null) {
        module = fileName.substring(0, fileName.lastIndexOf('.'));
      }
      if (reset != null && clock == null) {
        throw new IllegalArgumentException("reset(" + reset + ") needs clock(...) too");
      }
      return new ImportedVerilog(this);
    }
  }
}
