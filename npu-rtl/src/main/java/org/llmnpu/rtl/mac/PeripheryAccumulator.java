package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * The accumulator bank at the bottom of one PE column: {@code mTile} registers of
 * {@code accWidth} bits that fold the column sums of successive K tiles (extended input-channel
 * accumulation).
 *
 * <p>Per valid beat, combinationally: {@code base} = 0 for the first K tile of the output's
 * first group, the read-back partial sum ({@code readbackData}, read at {@code psumAddress}) for
 * the first tile of a later group, else the bank entry {@code bankIndex}; then
 * {@code sum = clamp(base + psum)} to the signed {@code accWidth}-bit range, with
 * {@code overflowEvent} when the clamp changed the exact sum (the golden model's one saturating
 * addition per K tile). At the clock edge the sum goes back into the bank, or, on the group's last
 * K tile, out through the write port: a psum write-back, or the final result when
 * {@code finalGroup}. Outputs of a disabled column (ragged N) are neither written nor counted.
 * Read-modify-write in one cycle, so back-to-back beats never conflict.
 */
public final class PeripheryAccumulator extends HwModule {
  public final SInt psum;
  public final BeatTag tag;
  public final Bool enabled = in(bool());
  public final SInt readbackData;
  public final Bool writeValid = out(bool());
  public final Bool writeFinal = out(bool());
  public final UInt writeAddress;
  public final SInt writeData;
  public final Bool readbackEvent = out(bool());
  public final Bool writebackEvent = out(bool());
  public final Bool overflowEvent = out(bool());
  private final int accWidth;
  private final int depth;
  private final int psumWidth;

  public PeripheryAccumulator(int psumWidth, int accWidth, int depth, BeatTag tagType) {
    this.accWidth = accWidth;
    this.depth = depth;
    this.psumWidth = psumWidth;
    psum = in(sint(psumWidth));
    tag = in(tagType);
    readbackData = in(sint(accWidth));
    writeAddress = out(uint(tagType.psumAddress.width()));
    writeData = out(sint(accWidth));

    Mem<SInt> bank = mem("bank", sint(accWidth), depth);
    int wide = Math.max(accWidth, psumWidth) + 1;
    SInt fromBank = wire("fromBank", bank.readAsync(tag.bankIndex));
    SInt groupStart = wire("groupStart", mux(tag.readback, readbackData, sintLit(0, accWidth)));
    SInt base = wire("base", mux(tag.firstInGroup, groupStart, fromBank));
    SInt exact = wire("exact", base.resize(wide).add(psum.resize(wide)));
    SInt sum = wire("sum", exact.saturate(accWidth));
    Bool live = wire("live", tag.valid.and(enabled));

    when(tag.valid.and(tag.lastInGroup.not()), () -> bank.write(tag.bankIndex, sum));
    writeValid.set(live.and(tag.lastInGroup));
    writeFinal.set(tag.finalGroup);
    writeAddress.set(tag.psumAddress);
    writeData.set(sum);
    readbackEvent.set(live.and(tag.firstInGroup).and(tag.readback));
    writebackEvent.set(live.and(tag.lastInGroup).and(tag.finalGroup.not()));
    overflowEvent.set(live.and(exact.overflows(accWidth)));
  }

  @Override
  public String moduleName() {
    return "PeripheryAcc_p" + psumWidth + "_a" + accWidth + "_m" + depth;
  }
}
