package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;

/**
 * The PPU's C-LUT as registers, written one entry a cycle through {@code lutWrite}, {@code lutAddress},
 * {@code lutData} (addresses of {@link PpmConfig#lutAddressOfBoundary}, {@link PpmConfig#lutAddressOfCoefficient},
 * {@link PpmConfig#lutAddressOfFracBits}; boundaries take the low 8 bits as INT8, fracBits the low 5 bits), read by
 * every {@link PpuUnit} lane of a {@link LinePpm}: the boundaries, the coefficients, the Horner shifts
 * {@code fracBits[k+1] − fracBits[k]} (registered: they follow a fracBits write one cycle later, before any element
 * entering after it needs them) and the output shift {@code fracBits[0]}. All registers reset to 0. Latency: none
 * (the outputs are the registers).
 */
public final class PpuLut extends HwModule {
  public final Bool lutWrite = in(bool());
  public final UInt lutAddress;
  public final SInt lutData;
  /** segments − 1 boundaries; null for one segment. */
  public final Vec<SInt> boundaries;
  public final Vec<SInt> coefficients;
  /** Horner shifts, k = 0..degree−1; null for degree 0. */
  public final Vec<UInt> hornerShift;
  public final UInt outputShift = out(uint(PpmConfig.SHIFT_BITS));
  private final PpmConfig config;

  public PpuLut(PpmConfig c) {
    config = c;
    int d = c.degree();
    lutAddress = in(uint(c.lutAddressBits()));
    lutData = in(sint(c.coeffBits()));
    boundaries = c.segments() > 1 ? out(Vec.of(c.segments() - 1, () -> sint(8))) : null;
    coefficients = out(Vec.of(c.segments() * (d + 1), () -> sint(c.coeffBits())));
    hornerShift = d > 0 ? out(Vec.of(d, () -> uint(PpmConfig.SHIFT_BITS))) : null;
    for (int i = 0; i < c.segments() - 1; i++) {
      boundaries.get(i).set(entry("boundary" + i, lutData.resize(8), c.lutAddressOfBoundary(i)));
    }
    for (int s = 0; s < c.segments(); s++) {
      for (int k = 0; k <= d; k++) {
        coefficients.get(s * (d + 1) + k).set(entry("coeff" + s + "_" + k, lutData, c.lutAddressOfCoefficient(s, k)));
      }
    }
    UInt[] fracBits = new UInt[d + 1];
    for (int k = 0; k <= d; k++) {
      fracBits[k] = entry("fracBits" + k, lutData.asUInt().lsbs(PpmConfig.SHIFT_BITS), c.lutAddressOfFracBits(k));
    }
    for (int k = 0; k < d; k++) {
      hornerShift.get(k).set(regNext("hornerShift" + k, fracBits[k + 1].sub(fracBits[k])));
    }
    outputShift.set(fracBits[0]);
  }

  /** A register reset to 0 that takes {@code value} when entry {@code address} is written. */
  @SuppressWarnings("unchecked")
  private <T extends HwValue> T entry(String name, T value, int address) {
    T r = regInit(name, (T) value.copyType(), 0);
    when(lutWrite.and(lutAddress.eq(address)), () -> r.set(value));
    return r;
  }

  /** Connects the table to one PPU lane. */
  void connect(PpuUnit ppu) {
    for (int i = 0; i < config.segments() - 1; i++) {
      ppu.boundaries.get(i).set(boundaries.get(i));
    }
    for (int i = 0; i < coefficients.size(); i++) {
      ppu.coefficients.get(i).set(coefficients.get(i));
    }
    for (int k = 0; k < config.degree(); k++) {
      ppu.hornerShift.get(k).set(hornerShift.get(k));
    }
    ppu.outputShift.set(outputShift);
  }

  @Override
  public String moduleName() {
    return "PpuLut_s" + config.segments() + "_d" + config.degree() + "_w" + config.coeffBits();
  }
}
