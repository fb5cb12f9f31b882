/**
 * NPU block generators written in the hw-dsl: the compute core (MAC array, PPM with PPU),
 * the numerics hardware (MX units, Vector DSP). Each generator registers itself in
 * {@code META-INF/services/org.llmnpu.hdl.gen.BlockGenerator}.
 */
package org.llmnpu.rtl;
