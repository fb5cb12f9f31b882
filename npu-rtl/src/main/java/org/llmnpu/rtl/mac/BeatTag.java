package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Bundle;
import org.llmnpu.hdl.UInt;

/**
 * What the periphery accumulator of a column must do with the partial sum of one beat (one
 * activation row of one pass). It enters the array with the beat's activations and reaches
 * column {@code c} together with that beat's column sum, {@code rows + c} cycles later.
 */
public final class BeatTag extends Bundle {
  /** A beat of a pass (not an idle cycle). */
  public final Bool valid = bool();
  /** Row of the beat inside its M chunk: the accumulator bank entry. */
  public final UInt bankIndex;
  /** First K tile of an IC-accumulation group: start from 0 or from the read-back, not from the bank. */
  public final Bool firstInGroup = bool();
  /** Not the first group of its output: the group starts from the read-back partial sum. */
  public final Bool readback = bool();
  /** Last K tile of the group: the sum leaves the array (write-back or final result). */
  public final Bool lastInGroup = bool();
  /** The group is the output's last: the sum is the final result, not a write-back. */
  public final Bool finalGroup = bool();
  /** Partial-sum / result memory address of the output element ({@code m}, N tile). */
  public final UInt psumAddress;

  public BeatTag(int bankIndexBits, int psumAddressBits) {
    bankIndex = uint(bankIndexBits);
    psumAddress = uint(psumAddressBits);
  }

  @Override
  public BeatTag copyType() {
    return new BeatTag(bankIndex.width(), psumAddress.width());
  }
}
