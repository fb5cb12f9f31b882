package org.llmnpu.verilator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.llmnpu.hdl.sim.SimulationException;

/**
 * The Docker engine that container mode uses, asked directly over its API (a unix socket
 * or a TCP address, as {@code DOCKER_HOST} says; default {@code unix:///var/run/docker.sock})
 * with a short deadline, before Testcontainers is touched. Testcontainers' own discovery
 * retries for minutes when no engine answers or an image is missing; this check reports the
 * true cause within {@link #DEADLINE}.
 */
final class DockerEngine {
  /** Longest wait for one answer of the engine. */
  static final Duration DEADLINE = Duration.ofSeconds(5);

  private final URI endpoint;

  private DockerEngine(URI endpoint) {
    this.endpoint = endpoint;
  }

  /** The engine named by {@code DOCKER_HOST}, or the default unix socket. */
  static DockerEngine fromEnvironment() {
    String host = System.getenv("DOCKER_HOST");
    return at(host == null || host.isBlank() ? "unix:///var/run/docker.sock" : host.trim());
  }

  static DockerEngine at(String endpoint) {
    URI uri;
    try {
      uri = URI.create(endpoint);
    } catch (IllegalArgumentException e) {
      throw new SimulationException("DOCKER_HOST = '" + endpoint + "' is not a valid address; allowed: "
          + "unix:///path/to/docker.sock or tcp://host:port");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("unix") && !scheme.equals("tcp") && !scheme.equals("http")) {
      throw new SimulationException("DOCKER_HOST = '" + endpoint + "' has scheme '" + scheme + "'; allowed: "
          + "unix:///path/to/docker.sock, tcp://host:port");
    }
    return new DockerEngine(uri);
  }

  URI endpoint() {
    return endpoint;
  }

  boolean isUnixSocket() {
    return "unix".equalsIgnoreCase(endpoint.getScheme());
  }

  /**
   * Fails with the true cause unless the engine answers and holds {@code image}: no socket
   * file, connection refused, no answer within {@link #DEADLINE}, or the image missing.
   */
  void requireImage(String image) {
    PendingImageBuild.await();
    Answer ping = ask("/_ping");
    if (ping.status != 200) {
      throw new SimulationException("the Docker engine at " + endpoint + " answered /_ping with HTTP " + ping.status
          + ": " + ping.body.strip());
    }
    if (tlsRequired()) {
      return; // the image is then checked by Testcontainers' own (TLS) client
    }
    Answer img = ask("/images/" + image + "/json");
    if (img.status == 404) {
      throw new SimulationException("the Docker engine at " + endpoint + " has no image " + image
          + ": build it with scripts/build-verilator-image.sh (as root; no registry is needed)");
    }
    if (img.status != 200) {
      throw new SimulationException("the Docker engine at " + endpoint + " answered HTTP " + img.status
          + " for image " + image + ": " + img.body.strip());
    }
  }

  /** True when the engine answers and holds {@code image}. */
  boolean hasImage(String image) {
    try {
      requireImage(image);
      return true;
    } catch (SimulationException e) {
      return false;
    }
  }

  private boolean tlsRequired() {
    String v = System.getenv("DOCKER_TLS_VERIFY");
    return !isUnixSocket() && v != null && !v.isBlank() && !v.equals("0");
  }

  private record Answer(int status, String body) {
  }

  private Answer ask(String path) {
    if (tlsRequired()) {
      reachTcp();
      return new Answer(200, "");
    }
    FutureTask<Answer> task = new FutureTask<>(() -> exchange(path));
    Thread t = new Thread(task, "llmnpu-docker-check");
    t.setDaemon(true);
    t.start();
    try {
      return task.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      t.interrupt();
      throw new SimulationException("the Docker engine at " + endpoint + " did not answer within "
          + DEADLINE.toSeconds() + " s: " + startHint());
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof SimulationException s) {
        throw s;
      }
      throw new SimulationException("no Docker engine answers at " + endpoint + " (" + describe(c) + "): "
          + startHint(), c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SimulationException("interrupted while asking the Docker engine at " + endpoint, e);
    }
  }

  private static String describe(Throwable c) {
    String m = c.getMessage();
    return c.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  static String startHint() {
    return "start one as root with scripts/setup-tools.sh --docker (it installs docker.io and starts dockerd), "
        + "or point DOCKER_HOST at a running engine";
  }

  private Answer exchange(String path) throws IOException {
    String request = "GET " + path + " HTTP/1.0\r\nHost: docker\r\n\r\n";
    if (isUnixSocket()) {
      Path socket = Path.of(endpoint.getPath());
      if (!Files.exists(socket)) {
        throw new SimulationException("no Docker engine answers at " + endpoint + " (no socket file " + socket
            + "): " + startHint());
      }
      try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
        ch.connect(UnixDomainSocketAddress.of(socket));
        ch.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
        return parse(Channels.newInputStream(ch));
      }
    }
    try (Socket s = new Socket()) {
      s.connect(address(), (int) DEADLINE.toMillis());
      s.setSoTimeout((int) DEADLINE.toMillis());
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return parse(s.getInputStream());
    }
  }

  private void reachTcp() {
    try (Socket s = new Socket()) {
      s.connect(address(), (int) DEADLINE.toMillis());
    } catch (IOException e) {
      throw new SimulationException("no Docker engine answers at " + endpoint + " (" + describe(e) + "): "
          + startHint(), e);
    }
  }

  private InetSocketAddress address() {
    int port = endpoint.getPort() > 0 ? endpoint.getPort() : 2375;
    return new InetSocketAddress(endpoint.getHost(), port);
  }

  private static Answer parse(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    in.transferTo(buf);
    String text = buf.toString(StandardCharsets.UTF_8);
    int eol = text.indexOf("\r\n");
    String[] status = (eol < 0 ? text : text.substring(0, eol)).split(" ");
    if (status.length < 2 || !status[0].startsWith("HTTP/")) {
      throw new IOException("not an HTTP answer: '" + (text.length() > 80 ? text.substring(0, 80) : text) + "'");
    }
    int body = text.indexOf("\r\n\r\n");
    return new Answer(Integer.parseInt(status[1]), body < 0 ? "" : text.substring(body + 4));
  }
}
