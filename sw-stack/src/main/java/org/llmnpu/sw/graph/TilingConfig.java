package org.llmnpu.sw.graph;

/** On-chip SRAM capacity and MAC array size the tiling search must respect. */
public record TilingConfig(long sramBytes, int arrayRows, int arrayCols) {

    public TilingConfig {
        if (sramBytes < 1024) {
            throw new IllegalArgumentException("SRAM must be >= 1 KiB, got " + sramBytes + " bytes");
        }
        if (arrayRows < 1 || arrayCols < 1) {
            throw new IllegalArgumentException("array size must be >= 1x1, got " + arrayRows + "x" + arrayCols);
        }
    }

    public static TilingConfig ofKib(int sramKib, int arrayRows, int arrayCols) {
        if (sramKib < 1) {
            throw new IllegalArgumentException("sram-kib must be >= 1, got " + sramKib);
        }
        return new TilingConfig(sramKib * 1024L, arrayRows, arrayCols);
    }
}
