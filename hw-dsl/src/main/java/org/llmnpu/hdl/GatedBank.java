package org.llmnpu.hdl;

/**
 * A register bank on a gated clock ({@link HwModule#clockGated}), for reports.
 *
 * @param name         the bank's name (section-prefixed) in the module that gates it
 * @param mode         how it was built
 * @param registerBits register bits on its clock: the bank's registers and every register of the instances made
 *                     inside it, all levels down, less those on gates of their own nested inside (memories not
 *                     counted)
 */
public record GatedBank(String name, ClockGating mode, long registerBits) {
}
