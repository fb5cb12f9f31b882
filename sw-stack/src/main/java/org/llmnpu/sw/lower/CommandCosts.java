package org.llmnpu.sw.lower;

import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The per-command accounting under {@link PhaseCostModel}: each command's fetch and dispatch and
 * its work fed to {@code npu-isa}'s {@link CycleModel}, with the DRAM beats read and written
 * (DMA rows, DSP tables and programs here; the command words the cycle model's fetcher reads, also ahead of
 * the program, are added by {@link CycleModel#fill}), the commands and the executed MACs.
 */
abstract class CommandCosts {
  final MachineParams p;
  final int line;
  CycleModel cm;
  long readBeats;
  long writeBeats;
  long macs;
  long commands;

  CommandCosts(MachineParams p) {
    this.p = p;
    this.line = p.lineBytes();
  }

  /** Starts a program: a fresh cycle model, zero counts. */
  final void reset() {
    cm = new CycleModel(p);
    readBeats = 0;
    writeBeats = 0;
    macs = 0;
    commands = 0;
  }

  /** The {@code dsptab} of {@code beats} beats (its command already counted). */
  final void dspTable(long beats) {
    readBeats += beats;
    cm.dspTable(beats);
  }

  /** A {@code load4} of {@code rows} source rows of {@code rowBytes} bytes. */
  final void load4(long rows, long rowBytes) {
    command(true);
    long beats = rows * ((rowBytes + line - 1) / line);
    readBeats += beats;
    cm.load4(beats);
  }

  final void command(boolean isLoad) {
    commands++;
    cm.fetchAndDecode();
    cm.dispatch(isLoad, false);
  }

  final void load(long rows, long rowBytes) {
    command(true);
    long beats = rows * ((rowBytes + line - 1) / line);
    readBeats += beats;
    cm.load(beats);
  }

  final void store(long rows, long rowBytes) {
    commands++;
    cm.fetchAndDecode();
    cm.dispatch(false, true);
    long beats = rows * ((rowBytes + line - 1) / line);
    writeBeats += beats;
    cm.store(beats);
  }

  /** A {@code dspin} of {@code rows · elems} elements. */
  final void dspIn(long rows, long elems) {
    command(false);
    cm.dspCopy(rows, elems, true);
  }

  /** A {@code dspout} of {@code rows · elems} elements. */
  final void dspOut(long rows, long elems) {
    command(false);
    cm.dspCopy(rows, elems, false);
  }

  final void run(DspProgram program) {
    command(false);
    long beats = (8L * program.size() + line - 1) / line;
    readBeats += beats;
    cm.dspRun(beats, program.cycles(p.dsp().pipeline()));
  }

  final void gemm(int m, int k, int n, boolean sparse) {
    command(false);
    if (sparse) {
      int wRows = 4 * ((k + 3) / 4);
      macs += (long) m * n * (wRows / 2);
      cm.gemm(m, k, n, wRows, true, 0, 0);
    } else {
      macs += (long) m * k * n;
      cm.gemm(m, k, n);
    }
  }
}
