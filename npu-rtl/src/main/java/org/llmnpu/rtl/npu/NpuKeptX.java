package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Opcode;

/**
 * The kept X buffer of the {@link Npu}'s GEMM controller ({@code gemm xKeep=1}, word 2 bit 25; {@code NpuConfig.xKeep}),
 * as {@code org.llmnpu.isa.HeldX} defines it: a GEMM with the flag copies no X and computes with the engine's X buffer
 * as the last X copy left it. Nothing but a GEMM's X copy writes that buffer, so the RTL only needs the shape of the
 * last copy: the held M, K and (on an N:M array) whether it was an N:M GEMM, whose X copy lays a K tile out over two
 * lines, with a bit "a copy since reset" — {@code 1 + bitsToHold(maxM) + bitsToHold(maxK)} (+ 1 on an N:M array)
 * registers set at every copying GEMM's dispatch, and their comparator.
 *
 * <p>DECODE of a {@code gemm xKeep=1}: without {@code xKeep} it halts with UNSUPPORTED ({@link #unsupported}); with it,
 * when no copy since reset held this M, K and mode, with BAD_SHAPE ({@link #badShape}; after the shape's range
 * checks, whose own BAD_SHAPE covers M or K past the limits, so only their low bits are compared). Both flags are
 * registers computed a cycle early ({@link NpuFetch#registeredFlag}), off DECODE's paths: the held shape changes
 * only at a GEMM's dispatch, after which the controller spends at least one cycle in GEMM_W or GEMM_START before the
 * next DECODE, so the flag of the next command reads the new shape. The X operand ({@code x}, {@code xStride}) of a
 * kept GEMM is neither read nor checked ({@link NpuPredecode}).
 *
 * <p>Dispatch ({@link NpuGemm#dispatch}): a kept GEMM skips GEMM_X — a scratchpad-W GEMM goes straight to its W
 * copy (GEMM_W, then GEMM_START), a streamed one to GEMM_START in its first cycle (its engine starts then and the
 * controller takes the next command in the cycle after) — with every K tile's X marked in ({@code xKTiles} all ones).
 * Cycles: {@code org.llmnpu.isa.CycleModel} ({@code gemm}, {@code streamedGemm} with {@code keepX}).
 */
final class NpuKeptX {
  /** Word 2 bit 25 of a command: the GEMM's {@code xKeep} flag. */
  static final int FLAG_BIT = 2 * 32 + 25;
  /** Without {@code xKeep}: DECODE of a {@code gemm xKeep=1} halts with UNSUPPORTED. Null on an NPU with it. */
  final Bool unsupported;
  /** With {@code xKeep}: DECODE of a {@code gemm xKeep=1} whose shape the buffer does not hold halts with BAD_SHAPE. */
  final Bool badShape;
  /** With {@code xKeep}: the dispatched GEMM kept X (set at every GEMM's dispatch). Null on an NPU without it. */
  final Bool keeps;
  private final NpuController npu;
  private final UInt heldM;
  private final UInt heldK;
  /** The held copy was an N:M GEMM's (null on a dense array). */
  private final Bool heldSparse;
  /** A copy since reset. */
  private final Bool held;
  /** The command register's {@code xKeep} flag (null without {@code xKeep}). */
  private final Bool flag;

  NpuKeptX(NpuController npu) {
    this.npu = npu;
    MachineParams p = npu.p;
    if (!npu.config().xKeep()) {
      unsupported = npu.fetch.registeredFlag("decode_gemmKeepsX", c -> isKeptGemm(c));
      badShape = null;
      keeps = null;
      heldM = null;
      heldK = null;
      heldSparse = null;
      held = null;
      flag = null;
      return;
    }
    unsupported = null;
    int mBits = bitsToHold(p.maxM());
    int kBits = bitsToHold(p.maxK());
    heldM = npu.reg0("keptX_m", uint(mBits));
    heldK = npu.reg0("keptX_k", uint(kBits));
    int mode = p.sparsity();
    heldSparse = mode == Command.DENSE ? null : npu.reg0("keptX_sparse", bool());
    held = npu.reg0("keptX_held", bool());
    keeps = npu.reg0("gemm_keepsX", bool());
    flag = npu.wireOf("decode_xKeep", flagOf(npu.fetch.words.get(2)));
    badShape = npu.fetch.registeredFlag("decode_keptXBadShape", c -> {
      Bool fits = held.and(c.slice(32 + mBits - 1, 32).eq(heldM)).and(c.slice(48 + kBits - 1, 48).eq(heldK));
      if (heldSparse != null) {
        fits = fits.and(c.slice(2 * 32 + 18, 2 * 32 + 17).eq(mode).eq(heldSparse));
      }
      return isKeptGemm(c).and(fits.not());
    });
  }

  /** Built with {@code xKeep}. */
  boolean built() {
    return keeps != null;
  }

  /** The command register's GEMM has {@code xKeep=1} (DECODE's command; only with {@code xKeep}). */
  Bool flag() {
    return flag;
  }

  /**
   * Statements of a GEMM's dispatch (only with {@code xKeep}): whether it keeps X; a copying GEMM's shape becomes the
   * held one.
   */
  void dispatch() {
    keeps.set(flag);
    npu.whenDo(flag.not(), () -> {
      NpuDecode dec = npu.dec;
      heldM.set(dec.m.resize(heldM.width()));
      heldK.set(dec.k.resize(heldK.width()));
      if (heldSparse != null) {
        heldSparse.set(dec.sparseGemm);
      }
      held.set(org.llmnpu.hdl.Hw.boolLit(true));
    });
  }

  /** The {@code xKeep} flag of a command's word 2. */
  static Bool flagOf(UInt word2) {
    return word2.slice(FLAG_BIT - 64, FLAG_BIT - 64).eq(1);
  }

  /** {@code check}, or on an NPU with xKeep ({@code kept} not null: the GEMM's flag) {@code check} without xKeep=1. */
  static Bool unlessKept(Bool kept, Bool check) {
    return kept == null ? check : check.and(kept.not());
  }

  private static Bool isKeptGemm(UInt command) {
    return command.lsbs(8).eq(Opcode.GEMM.code()).and(command.slice(FLAG_BIT, FLAG_BIT).eq(1));
  }
}
