package org.llmnpu.verilator;

import static org.llmnpu.hdl.Hw.bool;

import java.util.Map;
import org.llmnpu.hdl.BlackBox;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;

/** Designs that make the model crash or fail to compile. */
final class HarnessDesigns {
  private HarnessDesigns() {
  }

  /** Verilog that calls {@code $stop} when {@code trigger} is high at a clock edge. */
  static final class Stopper extends BlackBox {
    final Bool clk = in(bool());
    final Bool trigger = in(bool());
    final Bool alive = out(bool());

    @Override
    public Map<String, Object> parameters() {
      return Map.of();
    }

    @Override
    public String moduleName() {
      return "stopper";
    }

    @Override
    public String source() {
      return "module stopper (input wire clk, input wire trigger, output wire alive);\n"
          + "  assign alive = 1'b1;\n"
          + "  always @(posedge clk) if (trigger) begin $display(\"stopper: trigger seen\"); $stop; end\n"
          + "endmodule\n";
    }
  }

  /** Crashes the model on demand. */
  static final class Crashes extends HwModule {
    final Bool go = in(bool());
    final Bool alive = out(bool());

    Crashes() {
      Stopper s = instance("stopper", new Stopper());
      s.clk.set(defaultDomain().clock());
      s.trigger.set(go);
      alive.set(s.alive);
    }
  }

  /** Verilog whose module lacks the port the instance connects. */
  static final class Broken extends BlackBox {
    final Bool a = in(bool());
    final Bool y = out(bool());

    @Override
    public Map<String, Object> parameters() {
      return Map.of();
    }

    @Override
    public String moduleName() {
      return "broken";
    }

    @Override
    public String source() {
      return "module broken (input wire a, output wire z);\n  assign z = a;\nendmodule\n";
    }
  }

  /** Instances {@link Broken}: Verilator rejects the connection of {@code y}. */
  static final class UsesBroken extends HwModule {
    final Bool a = in(bool());
    final Bool y = out(bool());

    UsesBroken() {
      Broken b = instance("b", new Broken()); // the line named in the compile error
      b.a.set(a);
      y.set(b.y);
    }
  }
}
