package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.examples.Counter;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Container mode starts quickly whatever state the Docker engine is in, and fails quickly
 * with the true cause when it cannot start. Each case runs in a fresh JVM, because
 * Testcontainers settles its Docker environment once per JVM: the first container start of a
 * process is the one that used to wait two minutes on an engine started for the first time
 * (its bridge network reports no gateway until the engine restarts).
 */
class ContainerStartupTest {
  /** Longest a failing start may take to report its cause (JVM start included). */
  private static final long REPORT_WITHIN_S = 10;
  /** Longest a first container start of a JVM may take with the model already built. */
  private static final long START_WITHIN_S = 45;

  /** Child JVM: starts the counter in container mode, runs it, prints the result. */
  public static void main(String[] args) {
    SimOptions o = SimOptions.fromEnvironment().withMode(SimOptions.Mode.CONTAINER);
    try (Simulator s = Simulators.start(Verilog.emit(new Counter(new Counter.Config(10))), o)) {
      s.reset(1);
      s.poke("enable", 1);
      s.step(7);
      System.out.println("value " + s.peekLong("value"));
    } catch (RuntimeException e) {
      System.out.println("error: " + e.getMessage());
      System.exit(3);
    }
  }

  private record Child(int exit, String output, double seconds) {
  }

  private static Child runChild(Map<String, String> env, long limitSeconds) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ContainerStartupTest.class.getName()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("TESTCONTAINERS_RYUK_DISABLED", "true");
    pb.environment().remove("TESTCONTAINERS_HOST_OVERRIDE"); // exercise the harness's own address finding
    pb.environment().putAll(env);
    long t0 = System.nanoTime();
    Process p = pb.start();
    boolean done = p.waitFor(limitSeconds * 4, TimeUnit.SECONDS);
    double s = (System.nanoTime() - t0) / 1e9;
    if (!done) {
      p.destroyForcibly().waitFor();
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Child(done ? p.exitValue() : -1, out, s);
  }

  @Test
  void unreachableDockerIsReportedWithItsCauseWithinTenSeconds() throws Exception {
    Child c = runChild(Map.of("DOCKER_HOST", "unix:///nonexistent/docker.sock"), REPORT_WITHIN_S);
    assertEquals(3, c.exit, c.output);
    assertTrue(c.output.contains("no Docker engine answers at unix:///nonexistent/docker.sock"), c.output);
    assertTrue(c.output.contains("scripts/setup-tools.sh --docker"), c.output);
    assertTrue(c.seconds < REPORT_WITHIN_S, "reported after " + c.seconds + " s");
  }

  @Test
  void missingImageIsReportedWithItsCauseWithinTenSeconds() throws Exception {
    SimModes.options(SimOptions.Mode.CONTAINER); // needs an engine (CI: required; elsewhere skipped)
    Child c = runChild(Map.of("LLMNPU_VERILATOR_IMAGE", "llmnpu/absent:never-built"), REPORT_WITHIN_S);
    assertEquals(3, c.exit, c.output);
    assertTrue(c.output.contains("has no image llmnpu/absent:never-built"), c.output);
    assertTrue(c.output.contains("scripts/build-verilator-image.sh"), c.output);
    assertTrue(c.seconds < REPORT_WITHIN_S, "reported after " + c.seconds + " s");
  }

  @Test
  void firstContainerStartOfAProcessIsQuickOnAnyEngine() throws Exception {
    SimOptions o = SimModes.options(SimOptions.Mode.CONTAINER);
    try (Simulator s = Simulators.start(Verilog.emit(new Counter(new Counter.Config(10))), o)) {
      s.reset(1); // builds (or finds) the model in the cache, so the child only starts it
    }
    var engine = org.testcontainers.DockerClientFactory.instance().client();
    String gateway = TestcontainersHost.bridgeGateway(engine);
    System.out.println("Docker bridge gateway: " + gateway
        + (gateway.equals("localhost") ? " (none reported: an engine started for the first time)" : ""));
    Child c = runChild(Map.of(), START_WITHIN_S);
    assertEquals(0, c.exit, c.output);
    assertTrue(c.output.contains("value 7"), c.output);
    assertTrue(c.seconds < START_WITHIN_S, "first container start of a JVM took " + c.seconds + " s");
    System.out.printf("first container start in a fresh JVM: %.1f s%n", c.seconds);
  }
}
