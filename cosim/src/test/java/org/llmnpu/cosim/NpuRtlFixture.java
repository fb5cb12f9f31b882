package org.llmnpu.cosim;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * One NPU model for the tests of a class: a JUnit extension that starts {@link NpuRtl} on its configuration (local
 * Verilator, the model from the harness's cache) before the class's first test and closes it after the last, so that
 * every test of the class runs on the same model process (each test resets what it uses). Register it in a static
 * field, declared after the configuration it is given:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());
 * ... NPU.rtl().run(program, image) ...
 * }</pre>
 */
public final class NpuRtlFixture implements BeforeAllCallback, AfterAllCallback {
  private final NpuConfig config;
  private NpuRtl rtl;

  public NpuRtlFixture(NpuConfig config) {
    if (config == null) {
      throw new IllegalArgumentException(
          "config: an NpuConfig, not null (declare the fixture after its configuration)");
    }
    this.config = config;
  }

  /** The configuration the model is built from. */
  public NpuConfig config() {
    return config;
  }

  /** The running model; only between the class's set-up and tear-down. */
  public NpuRtl rtl() {
    if (rtl == null) {
      throw new IllegalStateException("the NPU model runs only while the tests of the class that registers it run");
    }
    return rtl;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    rtl = NpuRtl.start(config, SimModes.local());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (rtl != null) {
      try {
        rtl.close();
      } finally {
        rtl = null;
      }
    }
  }
}
