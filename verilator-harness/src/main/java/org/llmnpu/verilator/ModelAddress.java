package org.llmnpu.verilator;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ContainerNetwork;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.testcontainers.containers.GenericContainer;

/**
 * Connects to a model listening inside a container, whichever way this machine reaches it.
 *
 * <p>Candidates, tried in order with a short connect timeout each: {@code
 * TESTCONTAINERS_HOST_OVERRIDE}; the host of a {@code tcp://} {@code DOCKER_HOST}; the
 * published port on {@code localhost} (an engine on this machine, also when this machine is
 * itself a container running its own engine); the container's own address on its networks
 * (reachable when the engine's bridge is local); the gateway of those networks (an engine on
 * the host of this container, reached through the socket it shares). No helper container is
 * run to find the address, so a freshly started engine whose bridge reports no gateway
 * works the same as any other.
 */
final class ModelAddress {
  private static final int CONNECT_MS = 1_500;

  private ModelAddress() {
  }

  static Socket connect(GenericContainer<?> c, int port) throws IOException {
    List<InetSocketAddress> tried = new ArrayList<>();
    IOException last = null;
    for (InetSocketAddress a : candidates(c, port)) {
      tried.add(a);
      Socket s = new Socket();
      try {
        s.connect(a, CONNECT_MS);
        return s;
      } catch (IOException e) {
        last = e;
        s.close();
      }
    }
    throw new IOException("no address reaches the model's port " + port + " in container " + c.getContainerId()
        + "; tried " + tried + " (set TESTCONTAINERS_HOST_OVERRIDE to the address of the Docker host)", last);
  }

  static List<InetSocketAddress> candidates(GenericContainer<?> c, int port) {
    int mapped = c.getMappedPort(port);
    Set<InetSocketAddress> out = new LinkedHashSet<>();
    String override = System.getenv("TESTCONTAINERS_HOST_OVERRIDE");
    if (override != null && !override.isBlank()) {
      out.add(new InetSocketAddress(override.trim(), mapped));
    }
    String dockerHost = System.getenv("DOCKER_HOST");
    if (dockerHost != null && dockerHost.startsWith("tcp://")) {
      String h = URI.create(dockerHost).getHost();
      if (h != null) {
        out.add(new InetSocketAddress(h, mapped));
      }
    }
    out.add(new InetSocketAddress("localhost", mapped));
    InspectContainerResponse info = c.getContainerInfo();
    if (info != null && info.getNetworkSettings() != null && info.getNetworkSettings().getNetworks() != null) {
      for (ContainerNetwork n : info.getNetworkSettings().getNetworks().values()) {
        if (n.getIpAddress() != null && !n.getIpAddress().isBlank()) {
          out.add(new InetSocketAddress(n.getIpAddress(), port));
        }
      }
      for (ContainerNetwork n : info.getNetworkSettings().getNetworks().values()) {
        if (n.getGateway() != null && !n.getGateway().isBlank()) {
          out.add(new InetSocketAddress(n.getGateway(), mapped));
        }
      }
    }
    return new ArrayList<>(out);
  }
}
