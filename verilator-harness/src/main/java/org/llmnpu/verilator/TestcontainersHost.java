package org.llmnpu.verilator;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Network;
import java.lang.reflect.Field;
import java.net.URI;
import java.util.Objects;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.dockerclient.DockerClientConfigUtils;
import org.testcontainers.dockerclient.DockerClientProviderStrategy;

/**
 * Keeps Testcontainers from running a helper container to learn the Docker host's address.
 *
 * <p>When the JVM runs inside a container and talks to the engine over a unix socket,
 * Testcontainers takes the host address from the {@code bridge} network's gateway. An engine
 * started for the first time reports no gateway there, so Testcontainers starts a small
 * image to read the default route, tries to pull it, and without a registry every container
 * start waits about two minutes. This class settles that address first, without any
 * container: {@code TESTCONTAINERS_HOST_OVERRIDE} if set, else the bridge gateway when the
 * engine reports one, else {@code localhost} (what Testcontainers itself falls back to). The
 * harness does not rely on that address to reach its models ({@link ContainerModel} tries
 * the addresses that can reach a published port); it only stops the lookup.
 */
final class TestcontainersHost {
  private static volatile boolean settled;

  private TestcontainersHost() {
  }

  /** Settles Testcontainers' Docker host address without starting a container. Idempotent. */
  static synchronized void settle() {
    if (settled) {
      return;
    }
    String override = System.getenv("TESTCONTAINERS_HOST_OVERRIDE");
    if (override != null && !override.isBlank()) {
      settled = true;
      return;
    }
    DockerClientFactory factory = DockerClientFactory.instance();
    URI host = factory.getTransportConfig().getDockerHost(); // chooses the strategy; no address lookup
    String scheme = Objects.toString(host.getScheme(), "");
    if (!(scheme.equals("unix") || scheme.equals("npipe")) || !DockerClientConfigUtils.IN_A_CONTAINER) {
      settled = true; // Testcontainers answers these from the address alone
      return;
    }
    try {
      Field f = DockerClientFactory.class.getDeclaredField("strategy");
      f.setAccessible(true);
      DockerClientProviderStrategy strategy = (DockerClientProviderStrategy) f.get(factory);
      Field ip = DockerClientProviderStrategy.class.getDeclaredField("dockerHostIpAddress");
      ip.setAccessible(true);
      synchronized (strategy) { // getDockerHostIpAddress() locks the strategy too
        if (ip.get(strategy) == null) {
          ip.set(strategy, bridgeGateway(strategy.getDockerClient()));
        }
      }
      settled = true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("cannot settle Testcontainers' Docker host address ("
          + e + "); set TESTCONTAINERS_HOST_OVERRIDE=localhost and retry", e);
    }
  }

  /** The bridge network's gateway if the engine reports one, else {@code localhost}. */
  static String bridgeGateway(DockerClient client) {
    Network bridge = client.inspectNetworkCmd().withNetworkId("bridge").exec();
    if (bridge.getIpam() == null || bridge.getIpam().getConfig() == null) {
      return "localhost";
    }
    return bridge.getIpam().getConfig().stream()
        .map(Network.Ipam.Config::getGateway)
        .filter(g -> g != null && !g.isBlank())
        .findFirst().orElse("localhost");
  }
}
