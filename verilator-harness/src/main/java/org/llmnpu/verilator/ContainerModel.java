package org.llmnpu.verilator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.llmnpu.hdl.sim.SimulationException;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * A model built and run inside a container started by Testcontainers from an image with
 * Verilator, g++ and make (built locally by {@code scripts/build-verilator-image.sh}). The
 * model listens on a TCP port that the container publishes; the protocol is the same as
 * over standard streams. Built executables come back to the host cache, keyed by the
 * image's Verilator version, so an unchanged design is copied in, not rebuilt. Containers
 * are removed on close (and at JVM exit) since Ryuk is not available here.
 */
final class ContainerModel implements ModelConnection {
  private static final int PORT = 7000;
  private static final Set<GenericContainer<?>> RUNNING = ConcurrentHashMap.newKeySet();
  private static final Thread CLEANUP = new Thread(() -> RUNNING.forEach(GenericContainer::stop));

  static {
    Runtime.getRuntime().addShutdownHook(CLEANUP);
  }

  private final GenericContainer<?> container;
  private final Socket socket;
  private final Path runDir;
  private final Path waveFile;

  private ContainerModel(GenericContainer<?> container, Socket socket, Path runDir, Path waveFile) {
    this.container = container;
    this.socket = socket;
    this.runDir = runDir;
    this.waveFile = waveFile;
  }

  /**
   * True when a Docker engine answers and has the image (asked directly, within
   * {@link DockerEngine#DEADLINE}; see {@link #requireReady}).
   */
  static boolean available(String image) {
    return ryukDisabled() && DockerEngine.fromEnvironment().hasImage(image);
  }

  /**
   * Fails within seconds with the true cause (Ryuk not disabled, no engine, no image) unless
   * a container model can start; then settles Testcontainers' host address so that no helper
   * container is started ({@link TestcontainersHost}).
   */
  static void requireReady(String image) {
    if (!ryukDisabled()) {
      throw new SimulationException("container simulation needs TESTCONTAINERS_RYUK_DISABLED=true in the "
          + "environment (Ryuk's image cannot be pulled here; the toolkit removes its containers itself)");
    }
    DockerEngine.fromEnvironment().requireImage(image);
    TestcontainersHost.settle();
  }

  /**
   * Testcontainers reads this only from the environment; with Ryuk enabled it would try to
   * pull Ryuk's image, which hangs without a registry.
   */
  static boolean ryukDisabled() {
    return "true".equalsIgnoreCase(System.getenv("TESTCONTAINERS_RYUK_DISABLED"));
  }

  static ContainerModel start(BuildInputs in, SimOptions options, Path runDir, Path waveFile) {
    requireReady(options.image());
    GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(options.image()))
        .withCommand("sleep", "infinity")
        .withExposedPorts(PORT)
        .waitingFor(new AbstractWaitStrategy() {
          @Override
          protected void waitUntilReady() {
            // ready as soon as it runs: the model is started later by exec
          }
        });
    c.start();
    RUNNING.add(c);
    try {
      String version = exec(c, "verilator --version").getStdout().strip();
      if (!version.startsWith("Verilator 5")) {
        throw new SimulationException("image " + options.image() + " has '" + version + "'; Verilator 5 is required");
      }
      Path exe = buildOrReuse(c, in, options.cacheDir(), version + " in " + options.image());
      c.copyFileToContainer(MountableFile.forHostPath(exe, 0755), "/work/run/sim");
      String waves = waveFile == null ? "" : " --waves " + waveFile.getFileName();
      exec(c, "cd /work/run && (./sim --listen " + PORT + waves + " 2>stderr.log; echo $? > exit.code) "
          + ">/dev/null 2>&1 &");
      awaitListening(c, options);
      Socket s = ModelAddress.connect(c, PORT);
      s.setTcpNoDelay(true);
      return new ContainerModel(c, s, runDir, waveFile);
    } catch (IOException e) {
      stop(c);
      throw new UncheckedIOException("cannot reach the model in container " + c.getContainerId(), e);
    } catch (RuntimeException e) {
      stop(c);
      throw e;
    }
  }

  private static Path buildOrReuse(GenericContainer<?> c, BuildInputs in, Path cacheDir, String toolchain) {
    return ModelCache.obtain(cacheDir, "container-" + in.key(toolchain), staging -> {
      Sources.write(in, staging);
      for (var e : in.files().keySet()) {
        c.copyFileToContainer(MountableFile.forHostPath(staging.resolve(e)), "/work/build/" + e);
      }
      c.copyFileToContainer(MountableFile.forHostPath(staging.resolve("harness.cpp")), "/work/build/harness.cpp");
      ExecResult r = exec(c, "cd /work/build && " + String.join(" ", in.command()) + " 2>&1");
      if (r.getExitCode() != 0) {
        throw new SimulationException("Verilator (in " + c.getDockerImageName() + ") could not build " + in.top()
            + ":\n" + CompileErrors.explain(r.getStdout(), in.files()));
      }
      c.copyFileFromContainer("/work/build/obj/sim", staging.resolve(ModelCache.EXECUTABLE).toString());
    });
  }

  private static void awaitListening(GenericContainer<?> c, SimOptions options) {
    long deadline = System.nanoTime() + options.timeout().toNanos();
    while (System.nanoTime() < deadline) {
      String log = exec(c, "cat /work/run/stderr.log 2>/dev/null; cat /work/run/exit.code 2>/dev/null").getStdout();
      if (log.contains("listening")) {
        return;
      }
      if (!log.isBlank() && !log.contains("listening")) {
        throw new SimulationException("model did not start in the container:\n" + log);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SimulationException("interrupted while starting the model", e);
      }
    }
    throw new SimulationException("model did not listen within " + options.timeout().toSeconds() + " s");
  }

  private static ExecResult exec(GenericContainer<?> c, String shell) {
    try {
      return c.execInContainer("sh", "-c", shell);
    } catch (IOException e) {
      throw new UncheckedIOException("exec in container failed: " + shell, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SimulationException("interrupted: " + shell, e);
    }
  }

  @Override
  public OutputStream commands() {
    try {
      return socket.getOutputStream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public InputStream answers() {
    try {
      return socket.getInputStream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String diagnostics() {
    if (!container.isRunning()) {
      return "container " + container.getContainerId() + " is no longer running";
    }
    String code = "";
    for (int i = 0; i < 40 && code.isEmpty(); i++) {
      code = exec(container, "cat /work/run/exit.code 2>/dev/null").getStdout().strip();
      if (code.isEmpty()) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    String tail = exec(container, "tail -n 20 /work/run/stderr.log 2>/dev/null").getStdout();
    return "model process in container: " + (code.isEmpty() ? "still running" : "exit status " + code)
        + "; stderr tail:\n" + tail;
  }

  @Override
  public void close() {
    try {
      socket.close();
      for (int i = 0; i < 100 && exec(container, "cat /work/run/exit.code 2>/dev/null").getStdout().isBlank(); i++) {
        Thread.sleep(20);
      }
      container.copyFileFromContainer("/work/run/stderr.log", runDir.resolve("stderr.log").toString());
      if (waveFile != null) {
        container.copyFileFromContainer("/work/run/" + waveFile.getFileName(), waveFile.toString());
      }
    } catch (IOException | RuntimeException e) {
      // outputs are best effort once the model has ended; the container is removed below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stop(container);
    }
  }

  private static void stop(GenericContainer<?> c) {
    RUNNING.remove(c);
    c.stop();
  }
}
