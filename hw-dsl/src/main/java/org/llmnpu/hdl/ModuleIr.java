package org.llmnpu.hdl;

import java.util.List;
import org.llmnpu.hdl.ir.MemoryNode;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Stmt;

/**
 * Read-only view of an elaborated module for the emitter and the checks.
 *
 * @param module       the module
 * @param ports        ports in declaration order
 * @param signals      every signal (ports included) in creation order
 * @param memories     memory arrays
 * @param children     submodule instances in creation order
 * @param body         top-level statements
 * @param parent       the instancing module, or null for the top
 * @param instanceName explicit instance name, or null
 * @param createdAt    where the module object was created
 */
public record ModuleIr(HwModule module, List<Signal> ports, List<Signal> signals, List<MemoryNode> memories,
                       List<HwModule> children, List<Stmt> body, HwModule parent, String instanceName,
                       SourceLocation createdAt) {
  /** The variable or field the parent's code stores this instance in (section-prefixed), or null. */
  public String instanceVariable() {
    return module.instanceVariable;
  }

  /** Sets the Verilog instance name chosen by the namer. */
  public void setInstanceName(String name) {
    module.instanceName = name;
  }

  /** The simulation-only checks of the module ({@link HwModule#clockGated} in CHECKED mode makes them). */
  public List<SimulationCheck> simulationChecks() {
    return module.simulationChecks();
  }

  /** The register banks of the module on gated clocks. */
  public List<GatedBank> gatedBanks() {
    return module.gatedBanks();
  }
}
